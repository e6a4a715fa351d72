/**
 * The per-test-clone examples (docs/examples/per-test-clone, docs/per-test-databases.md) under
 * their own test runners, as real subprocesses, against a server the CLI starts: vitest for
 * Node, pytest for Python (from the venv of scripts/setup-test-infra.sh), go test for Go
 * (pgtestdb, modules downloaded by the same script). Each run must pass every test of its
 * example and leave no test database behind. The Ruby example is not run (no Ruby here).
 *
 * The schema goes into `app` and `app` is marked a template here, as the action's `init:` and
 * `template: true` inputs do.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_MAJOR, ROOT } from '../helpers/infra.js';

const EXAMPLES = join(ROOT, 'docs', 'examples', 'per-test-clone');
const SETUP = 'run bash scripts/setup-test-infra.sh';
/** The venv that scripts/setup-test-infra.sh makes for the Python example. */
const VENV = join(process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'), 'venv');
/** Databases a fresh server has, plus the template. */
const BASE_DATABASES = ['app', 'postgres', 'template0', 'template1'];

const name = `examples-${process.pid}`;
/** Scratch folder (the CLI's state folder in it), made in beforeAll. */
let work = '';

interface UpJson {
  connectionUri: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  dataDirectory: string;
}

interface Run {
  status: number | null;
  stdout: string;
  /** stdout and stderr */
  output: string;
}

/** Runs a command with a time limit; stdout and stderr together. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Run {
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

function cli(args: string[]): Run {
  const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };
  return run(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { cwd: ROOT, env, timeoutMs: 120_000 });
}

async function withClient<T>(uri: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function maintenanceUri(server: UpJson): string {
  const url = new URL(server.connectionUri);
  url.pathname = '/postgres';
  return url.toString();
}

/** Databases other than the base ones and pgtestdb's own templates (which it keeps on purpose). */
async function strayDatabases(server: UpJson): Promise<string[]> {
  const { rows } = await withClient(maintenanceUri(server), (c) =>
    c.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY datname'),
  );
  return rows.map((r) => r.datname).filter((d) => !BASE_DATABASES.includes(d) && !/^testdb_tpl_[0-9a-f]+$/.test(d));
}

/**
 * The environment of a runner: this one's without vitest's own variables and without PG*
 * variables, then the server's connection as pg-tmpfs exports it.
 */
function runnerEnv(server: UpJson, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
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

describe('per-test-clone examples under their own test runners', () => {
  let server: UpJson;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-examples-test-'));
    // As the docs show it: the schema loaded once into app (--init), app marked a template (--template).
    const r = cli([
      'up',
      '--mode',
      'native',
      '--postgres-version',
      NATIVE_MAJOR,
      '--name',
      name,
      '--database',
      'app',
      '--init',
      join(EXAMPLES, 'schema.sql'),
      '--template',
      '--json',
    ]);
    expect(r.status, r.output).toBe(0);
    server = JSON.parse(r.stdout) as UpJson;
    expect((JSON.parse(r.stdout) as { templateDatabase?: string }).templateDatabase).toBe('app');
    const marked = await withClient(maintenanceUri(server), (c) =>
      c.query<{ t: boolean }>("SELECT datistemplate AS t FROM pg_database WHERE datname = 'app'"),
    );
    expect(marked.rows[0]?.t).toBe(true);
  });

  afterAll(() => {
    try {
      const r = cli(['down', '--name', name]);
      expect(r.status, r.output).toBe(0);
      if (server) expect(existsSync(server.dataDirectory)).toBe(false);
    } finally {
      if (work) rmSync(work, { recursive: true, force: true });
    }
  });

  it('node: vitest passes the 4 tests of the example, each in its own copy of the template', async () => {
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    // From the example's folder, so its vitest.config.ts, not the repository's, is the one used;
    // --no-cache: no node_modules/.vite left in the example's folder.
    const r = run(process.execPath, [vitest, 'run', '--no-cache'], {
      cwd: join(EXAMPLES, 'node'),
      env: runnerEnv(server),
      timeoutMs: 120_000,
    });
    expect(r.status, r.output).toBe(0);
    expect(r.output, r.output).toMatch(/^\s*Tests\s+4 passed \(4\)\s*$/m);
    expect(existsSync(join(EXAMPLES, 'node', 'node_modules'))).toBe(false);
    expect(await strayDatabases(server)).toEqual([]);
  });

  it('python: pytest passes the 4 tests of the example, each in its own copy of the template', async () => {
    const python = join(VENV, 'bin', 'python');
    if (!existsSync(python)) throw new Error(`no Python venv for the examples at ${VENV}: ${SETUP}`);
    const r = run(python, ['-m', 'pytest', '-p', 'no:cacheprovider', '--rootdir', '.', '.'], {
      cwd: join(EXAMPLES, 'python'),
      env: runnerEnv(server, { PYTHONDONTWRITEBYTECODE: '1' }),
      timeoutMs: 120_000,
    });
    expect(r.status, r.output).toBe(0);
    // Only "4 passed": a skipped, failed or errored test would add to the line.
    expect(r.output, r.output).toMatch(/^=+ 4 passed in [\d.]+s =+$/m);
    expect(await strayDatabases(server)).toEqual([]);
  });

  it('python: TEMPLATE_DATABASE names the template when DATABASE_URL points elsewhere', async () => {
    const python = join(VENV, 'bin', 'python');
    if (!existsSync(python)) throw new Error(`no Python venv for the examples at ${VENV}: ${SETUP}`);
    const r = run(python, ['-m', 'pytest', '-p', 'no:cacheprovider', '--rootdir', '.', '.'], {
      cwd: join(EXAMPLES, 'python'),
      env: runnerEnv(server, { PYTHONDONTWRITEBYTECODE: '1', DATABASE_URL: maintenanceUri(server), TEMPLATE_DATABASE: 'app' }),
      timeoutMs: 120_000,
    });
    expect(r.status, r.output).toBe(0);
    expect(r.output, r.output).toMatch(/^=+ 4 passed in [\d.]+s =+$/m);
    expect(await strayDatabases(server)).toEqual([]);
  });

  it('go: go test passes the 4 tests of the pgtestdb example, and pgtestdb drops its copies', async () => {
    if (spawnSync('go', ['version'], { timeout: 30_000 }).status !== 0) throw new Error(`go is not installed: ${SETUP}`);
    // GOPROXY=off: the modules come from the cache that the setup script filled (go mod download);
    // -count=1: never a cached result.
    const r = run('go', ['test', '-count=1', '-v', './...'], {
      cwd: join(EXAMPLES, 'go'),
      env: runnerEnv(server, { GOPROXY: 'off', GOTOOLCHAIN: 'local' }),
      timeoutMs: 400_000,
    });
    expect(r.status, `${r.output}\n(modules missing? ${SETUP})`).toBe(0);
    const passed = r.output.match(/^--- PASS: \w+/gm) ?? [];
    expect(passed, r.output).toHaveLength(4);
    expect(r.output, r.output).not.toMatch(/^--- (FAIL|SKIP)/m);
    expect(r.output, r.output).toMatch(/^ok\s+example\.com\/pertestclone\s/m);
    expect(await strayDatabases(server)).toEqual([]);
  });

  it('the template itself is untouched by the tests', async () => {
    const { rows } = await withClient(server.connectionUri, (c) =>
      c.query<{ n: number }>('SELECT count(*)::int AS n FROM users'),
    );
    expect(rows[0]?.n).toBe(0);
    const template = await withClient(maintenanceUri(server), (c) =>
      c.query<{ datistemplate: boolean }>("SELECT datistemplate FROM pg_database WHERE datname = 'app'"),
    );
    expect(template.rows[0]?.datistemplate).toBe(true);
  });
});
