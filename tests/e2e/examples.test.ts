/**
 * The per-test-clone examples (docs/examples/per-test-clone, docs/per-test-databases.md) under
 * their own test runners, as real subprocesses, against a server the CLI starts: vitest for
 * Node, pytest for Python (from the venv of scripts/setup-test-infra.sh), go test for Go
 * (pgtestdb, modules downloaded by the same script). Each run must pass every test of its
 * example and leave no test database behind; minitest for Ruby (Debian's ruby and ruby-pg, from
 * the same script). The pool variants: examples-pool.test.ts.
 *
 * The schema goes into `app` and `app` is marked a template here, as the action's `init:` and
 * `template: true` inputs do.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_DATABASES,
  cli as cliIn,
  databaseNames,
  maintenanceUri,
  missingRunner,
  run,
  runnerEnv,
  SETUP,
  VENV,
  withClient,
  type Run,
  type UpJson,
} from '../helpers/examples.js';
import { NATIVE_MAJOR, ROOT } from '../helpers/infra.js';

const EXAMPLES = join(ROOT, 'docs', 'examples', 'per-test-clone');

const name = `examples-${process.pid}`;
/** Scratch folder (the CLI's state folder in it), made in beforeAll. */
let work = '';

function cli(args: string[]): Run {
  return cliIn(work, args);
}

/** Databases other than the base ones and pgtestdb's own templates (which it keeps on purpose). */
async function strayDatabases(server: UpJson): Promise<string[]> {
  return (await databaseNames(server)).filter((d) => !BASE_DATABASES.includes(d) && !/^testdb_tpl_[0-9a-f]+$/.test(d));
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

  it('ruby: minitest passes the 4 tests of the example, each in its own copy of the template', async () => {
    const missing = missingRunner('ruby');
    if (missing) throw new Error(missing);
    const r = run('ruby', ['example_test.rb'], {
      cwd: join(EXAMPLES, 'ruby'),
      env: runnerEnv(server),
      timeoutMs: 120_000,
    });
    expect(r.status, r.output).toBe(0);
    expect(r.output, r.output).toMatch(/^4 runs, 5 assertions, 0 failures, 0 errors, 0 skips$/m);
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
