/**
 * Machinery of the hostile pass (scripts/hostile-pass.ts): one case's context (a temp folder, a
 * private state folder, an instance name), the CLI and the action run as child processes with a
 * deadline, and the verdict helpers that sort an outcome into the issue's classes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The classes of issue #35, in its order. */
export const CLASSES = ['passed', 'clear error', 'wrong result', 'unclear error', 'left behind', 'security', 'hang'] as const;
/** One class. */
export type Cls = (typeof CLASSES)[number];
/** Native mode with the installed PostgreSQL 15. */
export const NATIVE = ['--mode', 'native', '--postgres-version', '15'];
/** Docker mode with a local test image. */
export const DOCKER = ['--mode', 'docker', '--image', 'pg-tmpfs-test/postgres:17'];

/** A finished child process; `repro` is the command as a shell line (for the report only). */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  repro: string;
}

/** What a case found: its class, what happened, and what was expected when that differs. */
export interface Verdict {
  cls: Cls;
  what: string;
  expected?: string;
}

/** One case's context. `cli` runs `node dist/cli.js` with PG_TMPFS_STATE_DIR set to `state`. */
export interface Ctx {
  dir: string;
  state: string;
  /** Instance name of the case (`hp-<n>`). */
  name: string;
  /** Commands run so far (the repro). */
  log: string[];
  cli: (args: string[], env?: Record<string, string | undefined>, timeoutMs?: number) => Promise<Run>;
  /** Undone after the case, whatever happened. */
  undo: Array<() => Promise<void> | void>;
}

/** One case: an id, its area, and a run that returns a verdict (the runner adds the deadline and leftovers). */
export interface HCase {
  id: string;
  area: string;
  run: (c: Ctx) => Promise<Verdict>;
}

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Runs `cmd args` with `env` over this process's (a value of undefined unsets it); kills the
 * group after `timeoutMs` and marks the run timedOut.
 */
export function runProcess(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
  input?: string,
): Promise<Run> {
  const full: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete full[k];
    else full[k] = v;
  const shown = Object.entries(env).map(([k, v]) => (v === undefined ? `-u ${k}` : `${k}=${q(v)}`));
  const repro = [...(shown.length ? ['env', ...shown] : []), cmd === process.execPath ? 'node' : cmd, ...args.map(q)].join(' ');
  return new Promise((done) => {
    const child = spawn(cmd, args, { env: full, cwd: ROOT, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    const finish = (code: number | null) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut, repro });
    };
    child.on('error', (e) => ((stderr += String(e)), finish(null)));
    child.on('close', finish);
  });
}

/** A fresh context for case number `n`. */
export function newCtx(n: number): Ctx {
  const dir = mkdtempSync(join(tmpdir(), 'hp-'));
  const state = join(dir, 'state');
  const c: Ctx = {
    dir,
    state,
    name: `hp-${n}`,
    log: [],
    undo: [],
    cli: async (args, env = {}, timeoutMs = 75_000) => {
      const r = await runProcess(process.execPath, ['dist/cli.js', ...args], { PG_TMPFS_STATE_DIR: state, ...env }, timeoutMs);
      c.log.push(r.repro);
      return r;
    },
  };
  return c;
}

/** The error lines (`error: …`) of a run, joined. */
export const errorLines = (r: Run) =>
  r.stderr
    .split('\n')
    .filter((l) => /^error:/i.test(l) || /Error:/.test(l))
    .join(' | ')
    .slice(0, 300) || r.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300);

/**
 * A run expected to be refused: a hang when it timed out, a wrong result when it succeeded,
 * a clear error when an error line names `input` (case-insensitive) and nothing reached stdout,
 * else an unclear error.
 */
export function refused(r: Run, input: string, expected = `refused, naming ${input}`): Verdict {
  if (r.timedOut) return { cls: 'hang', what: 'no answer before the deadline', expected };
  if (r.code === 0)
    return {
      cls: 'wrong result',
      what: `accepted (exit 0): ${(r.stdout + r.stderr).replace(/\\s+/g, ' ').slice(0, 200)}`,
      expected,
    };
  const lines = r.stderr.split('\n').filter((l) => /^error/i.test(l));
  if (lines.some((l) => l.toLowerCase().includes(input.toLowerCase()))) return { cls: 'clear error', what: errorLines(r) };
  return { cls: 'unclear error', what: `exit ${r.code}: ${errorLines(r)}`, expected };
}

/** The JSON that `up --json` (or `wait --json`) printed, or null. */
export function upJson(r: Run): { connectionUri: string; port: number; user: string; database: string } | null {
  try {
    return JSON.parse(r.stdout) as { connectionUri: string; port: number; user: string; database: string };
  } catch {
    return null;
  }
}

/**
 * Runs `sql` with psql (libpq, the reference reader of connection URIs) on `uri`, the caller's
 * PG* variables removed; the first row's first column as text.
 * @throws when psql fails (its stderr)
 */
export async function query(uri: string, sql: string): Promise<string> {
  const clean = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('PG'))
      .map((k) => [k, undefined]),
  );
  const r = await runProcess(
    'psql',
    ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-d', uri, '-c', sql],
    { ...clean, PGCONNECT_TIMEOUT: '10' },
    20_000,
  );
  if (r.code !== 0) throw new Error(r.stderr.trim());
  return r.stdout.replace(/\n$/, '');
}

/** `up` of the case's instance with `argv` (after --name, the mode, --json --quiet); `down` is queued. */
export async function up(c: Ctx, argv: string[], env: Record<string, string | undefined> = {}, mode = NATIVE): Promise<Run> {
  c.undo.push(async () => void (await c.cli(['down', '--name', c.name], env)));
  return c.cli(['up', '--name', c.name, ...mode, '--json', '--quiet', ...argv], env);
}

/** A case whose `up` must be refused with an error naming `input`. */
export function upRefuses(
  id: string,
  area: string,
  argv: string[],
  input: string,
  opts: { env?: Record<string, string>; mode?: string[]; setup?: (c: Ctx) => void } = {},
): HCase {
  return {
    id,
    area,
    run: async (c) => {
      opts.setup?.(c);
      const fill = (s: string) => s.replace(/\{dir\}/g, c.dir);
      return refused(await up(c, argv.map(fill), opts.env, opts.mode), input);
    },
  };
}

/**
 * A case whose `up` may serve (then `check` decides: null is passed, a string is the wrong
 * result) or be refused with an error naming `input` (a clear error) when `input` is given.
 */
export function upServes(
  id: string,
  area: string,
  argv: string[],
  check: (uri: string, c: Ctx) => Promise<string | null>,
  opts: {
    env?: Record<string, string | undefined>;
    mode?: string[];
    input?: string;
    setup?: (c: Ctx) => void;
    expected?: string;
  } = {},
): HCase {
  return {
    id,
    area,
    run: async (c) => {
      opts.setup?.(c);
      const fill = (s: string) => s.replace(/\{dir\}/g, c.dir);
      const r = await up(c, argv.map(fill), opts.env, opts.mode);
      const expected = opts.expected ?? (opts.input ? `serves, or refuses naming ${opts.input}` : 'serves');
      if (r.timedOut) return { cls: 'hang', what: 'no answer before the deadline', expected };
      if (r.code !== 0) {
        if (opts.input) {
          const v = refused(r, opts.input, expected);
          return v.cls === 'clear error' ? v : { ...v, cls: 'unclear error' };
        }
        return { cls: 'wrong result', what: `refused: ${errorLines(r)}`, expected };
      }
      const info = upJson(r);
      if (!info) return { cls: 'wrong result', what: `stdout not JSON: ${r.stdout.slice(0, 120)}`, expected };
      try {
        const bad = await check(info.connectionUri, c);
        return bad === null ? { cls: 'passed', what: 'served as asked' } : { cls: 'wrong result', what: bad, expected };
      } catch (e) {
        return { cls: 'wrong result', what: `the printed URI ${info.connectionUri}: ${(e as Error).message}`, expected };
      }
    },
  };
}

/** A check that `sql` gives `want` on the URI. */
export const gives =
  (sql: string, want: string) =>
  async (uri: string): Promise<string | null> => {
    const got = await query(uri, sql);
    return got === want ? null : `${sql} gave ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  };
