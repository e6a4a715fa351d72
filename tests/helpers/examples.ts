/**
 * What tests/e2e/examples.test.ts and examples-pool.test.ts share: running the per-test examples
 * (docs/examples/per-test-clone, per-test-pool) under their own runners as subprocesses, against
 * a server the CLI (dist/cli.js) starts, and reading that server's databases.
 */
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT } from './infra.js';

/** What to run when a runner or its packages are missing. */
export const SETUP = 'run bash scripts/setup-test-infra.sh';
/** The venv that scripts/setup-test-infra.sh makes for the Python examples. */
export const VENV = join(process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'), 'venv');
/** Databases a fresh server has, plus the template `app`. */
export const BASE_DATABASES = ['app', 'postgres', 'template0', 'template1'];

/** The fields of `pg-tmpfs up --json` the example tests read. */
export interface UpJson {
  connectionUri: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  dataDirectory: string;
}

/** A finished subprocess. */
export interface Run {
  status: number | null;
  stdout: string;
  /** stdout and stderr */
  output: string;
}

/** Runs a command (no shell) with a time limit, killed with SIGKILL at the limit; never throws. */
export function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Run {
  const r = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env,
    encoding: 'utf8',
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`;
  return { status: r.status, stdout: r.stdout ?? '', output };
}

/** Runs dist/cli.js with its state folder under `work` (120 s limit). */
export function cli(work: string, args: string[]): Run {
  const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };
  return run(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { cwd: ROOT, env, timeoutMs: 120_000 });
}

/** Runs `fn` on a client of `uri`, closed afterwards (10 s to connect, 60 s per query). */
export async function withClient<T>(uri: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server's URI with the maintenance database `postgres`. */
export function maintenanceUri(server: UpJson): string {
  const url = new URL(server.connectionUri);
  url.pathname = '/postgres';
  return url.toString();
}

/** Every database's name on the server, sorted. */
export async function databaseNames(server: UpJson): Promise<string[]> {
  const { rows } = await withClient(maintenanceUri(server), (c) =>
    c.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY datname'),
  );
  return rows.map((r) => r.datname);
}

/**
 * The environment of a runner: this one's without vitest's own variables and without PG*
 * variables, then the server's connection as pg-tmpfs exports it.
 */
export function runnerEnv(server: UpJson, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(VITEST|PG|DATABASE_URL$|TEMPLATE_DATABASE$)/.test(k)),
  );
  return {
    ...env,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    DATABASE_URL: server.connectionUri,
    PGHOST: server.host,
    PGPORT: String(server.port),
    PGUSER: server.user,
    PGPASSWORD: server.password,
    PGDATABASE: server.database,
    ...extra,
  };
}

/** The example runners, each as the example tests call it from the example's folder. */
export const RUNNERS = {
  /** vitest from the repository, --no-cache: no node_modules/.vite left in the example's folder. */
  node: { command: process.execPath, args: [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--no-cache'] },
  /** pytest from the venv, no cache folder. */
  python: { command: join(VENV, 'bin', 'python'), args: ['-m', 'pytest', '-p', 'no:cacheprovider', '--rootdir', '.', '.'] },
  /** -count=1: never a cached result. */
  go: { command: 'go', args: ['test', '-count=1', '-v', './...'] },
  /** minitest (bundled with Ruby) and the pg gem from Debian, without bundler. */
  ruby: { command: 'ruby', args: ['example_test.rb'] },
} as const;

/** The environment variables each runner needs beside runnerEnv's. */
export const RUNNER_ENV = {
  node: {},
  python: { PYTHONDONTWRITEBYTECODE: '1' },
  // GOPROXY=off: the modules come from the cache that the setup script filled (go mod download).
  go: { GOPROXY: 'off', GOTOOLCHAIN: 'local' },
  ruby: {},
} as const;

/**
 * Why a runner cannot run here (with the fix), or null when it can: the venv's Python, go, or
 * Ruby with the pg gem and minitest.
 */
export function missingRunner(runner: keyof typeof RUNNERS): string | null {
  const probe = (command: string, args: string[]): boolean =>
    spawnSync(command, args, { timeout: 30_000, stdio: 'ignore' }).status === 0;
  if (runner === 'python' && !probe(RUNNERS.python.command, ['-c', 'import psycopg, pytest']))
    return `no Python venv with psycopg and pytest for the examples at ${VENV}: ${SETUP}`;
  if (runner === 'go' && !probe('go', ['version'])) return `go is not installed: ${SETUP}`;
  if (runner === 'ruby' && !probe('ruby', ['-e', 'require "pg"; require "minitest"']))
    return `Ruby with the pg gem and minitest is not installed: ${SETUP}`;
  return null;
}

/** The lines each runner prints when all of `n` tests passed (and nothing else ran). */
export function allPassed(runner: keyof typeof RUNNERS, output: string, n: number): boolean {
  switch (runner) {
    case 'node':
      return new RegExp(`^\\s*Tests\\s+${n} passed \\(${n}\\)\\s*$`, 'm').test(output);
    case 'python':
      // Only "n passed": a skipped, failed or errored test would add to the line.
      return new RegExp(`^=+ ${n} passed in [\\d.]+s =+$`, 'm').test(output);
    case 'go':
      return (output.match(/^--- PASS: \w+/gm) ?? []).length === n && !/^--- (FAIL|SKIP)/m.test(output);
    case 'ruby':
      return new RegExp(`^${n} runs, \\d+ assertions, 0 failures, 0 errors, 0 skips$`, 'm').test(output);
  }
}
