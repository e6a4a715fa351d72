/**
 * The hostile tables' machinery (tests/e2e/hostile*.test.ts): a row is a bad input or a fault run
 * through the CLI in-process (runCli), which must fail with exit code 1, name the input at fault
 * (`error: --INPUT: problem. fix`) or the key phrase of a setup error, and leave nothing behind:
 * no container, run folder, mount, postgres process, shared memory segment or postgres port
 * (leftoverSnapshot), and no instance record in the case's own state folder.
 */
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { killActive } from '../../src/proc.js';
import { leftoverSnapshot, TEST_IMAGES } from './infra.js';

/** Instance name of every case (not `default`: `down` sweeps run folders by name, and a developer's `default` must survive). */
export const NAME = 'hostile';
export const IMAGE = TEST_IMAGES[18];
/** uid of `nobody` (Debian). */
export const NOBODY = 65534;

/** One case while it runs. */
export interface Case {
  /** Fresh temp folder of the case. */
  dir: string;
  /** PG_TMPFS_STATE_DIR of the case: `<dir>/state` unless the setup points it elsewhere. */
  state: string;
  /** Values of `{key}` placeholders in argv and env (`{dir}` is the case folder). */
  vars: Record<string, string>;
  /** Undone after the case (servers closed). */
  undo: Array<() => Promise<void> | void>;
}

/** A row of a table: a bad input or a fault, and what the error must name. */
export interface Row {
  title: string;
  /** Arguments of `up` after `--name hostile` and the mode's arguments (a later flag wins). */
  argv: string[];
  /** Environment of the run (only while `up` runs: the leftover checks see the real one). */
  env?: Record<string, string>;
  setup?: (c: Case) => void | Promise<void>;
  /** `--flag`: the error line is `error: --flag: ...`; anything else: a phrase the error line holds. */
  input: string;
  /** What the error line must also say (the cause, not only the input). */
  says?: RegExp;
  /** The row planted a record that `up` refused: `down` must remove it afterwards. */
  downRemovesRecord?: boolean;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(argv: string[], env: Record<string, string>): Promise<Result> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(['node', 'pg-tmpfs', ...argv], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  } finally {
    // As dist/cli.js does on exit: docker calls a failed start left running (a daemon that hangs) go.
    killActive();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * Every entry of the state folder with its content (records, half-written `.tmp-` files): `{}`
 * when the folder does not exist (yet), one `(no folder)` entry when the path is no folder.
 */
export function stateEntries(state: string): Record<string, string> {
  let names: string[];
  try {
    names = readdirSync(state);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { '(no folder)': code ?? String(error) };
  }
  return Object.fromEntries(
    names.map((n) => {
      const p = join(state, n);
      return [n, statSync(p).isDirectory() ? '(folder)' : readFileSync(p, 'utf8')];
    }),
  );
}

/** A TCP listener on 127.0.0.1 (not postgres): its port is `{busyPort}`. */
export async function busyPort(c: Case): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  c.vars.busyPort = String((server.address() as { port: number }).port);
  c.undo.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** A "Docker daemon" on `<dir>/docker.sock` that accepts connections and never answers. */
export async function silentDaemon(c: Case): Promise<void> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(join(c.dir, 'docker.sock'), resolve));
  c.undo.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
}

/** A private state folder holding `hostile.json` with `content` (a folder when content is null). */
export function plantRecord(content: string | null, owner?: number) {
  return (c: Case): void => {
    mkdirSync(c.state, { mode: 0o700 });
    const file = join(c.state, `${NAME}.json`);
    if (content === null) mkdirSync(file);
    else writeFileSync(file, content, { mode: 0o600 });
    if (owner !== undefined) chownSync(file, owner, owner);
  };
}

/** The case running now (cleanupCase undoes it). */
let current: Case | null = null;

export async function runRow(row: Row, modeArgs: string[]): Promise<void> {
  const c = newCase();
  await row.setup?.(c);
  const fill = (s: string) => s.replace(/\{(\w+)\}/g, (m, k: string) => (k === 'dir' ? c.dir : (c.vars[k] ?? m)));
  const env = { PG_TMPFS_STATE_DIR: c.state, ...Object.fromEntries(Object.entries(row.env ?? {}).map(([k, v]) => [k, fill(v)])) };
  const before = stateEntries(c.state);
  const snap = leftoverSnapshot();

  const r = await cli(['up', '--name', NAME, ...modeArgs, ...row.argv.map(fill)], env);

  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  if (row.input.startsWith('--')) {
    expect(r.stderr).toMatch(new RegExp(`^error: ${row.input}: `, 'm'));
  } else {
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error: ') && l.includes(row.input))).toHaveLength(1);
  }
  if (row.says) expect(r.stderr).toMatch(row.says);
  expect(snap.added()).toEqual([]);
  expect(stateEntries(c.state)).toEqual(before);

  if (row.downRemovesRecord) {
    const down = await cli(['down', '--name', NAME], { PG_TMPFS_STATE_DIR: c.state });
    expect(down.code, down.stderr).toBe(0);
    expect(stateEntries(c.state)).toEqual({});
  }
}

/** A new case: a fresh temp folder and state folder (`<dir>/state`), the one cleanupCase undoes next. */
export function newCase(): Case {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-'));
  current = { dir, state: join(dir, 'state'), vars: {}, undo: [] };
  return current;
}

/** Undoes what the case made (records `down`, servers closed, its folder removed): each file calls afterEach(cleanupCase). */
export async function cleanupCase(): Promise<void> {
  const c = current;
  current = null;
  if (!c) return;
  const records = Object.keys(stateEntries(c.state)).filter((n) => n.endsWith('.json'));
  for (const record of records) await cli(['down', '--name', record.slice(0, -'.json'.length)], { PG_TMPFS_STATE_DIR: c.state });
  for (const undo of c.undo.reverse()) await undo();
  rmSync(c.dir, { recursive: true, force: true });
}
