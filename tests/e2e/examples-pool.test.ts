/**
 * The per-test-pool examples (docs/examples/per-test-pool, docs/per-test-databases.md) under
 * their own test runners, as real subprocesses, against a server the CLI starts with a pool of 4
 * ready copies of `app` (`--template --pool 4`): vitest for Node, pytest for Python (the venv of
 * scripts/setup-test-infra.sh), go test for Go (pgx from the module cache the same script fills),
 * minitest for Ruby (Debian's ruby and ruby-pg). Each run must pass every test of its example,
 * draw one ticket (pgtmpfs.take()) per test, and give every copy back: after it, no database is
 * left but the base ones and the pool's untaken copies (the keeper drops the returned ones in the
 * background, so that is awaited with a deadline). `down` ends the keeper (its process no longer
 * runs) and removes the data directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allPassed,
  BASE_DATABASES,
  cli as cliIn,
  databaseNames,
  maintenanceUri,
  missingRunner,
  run,
  RUNNER_ENV,
  RUNNERS,
  runnerEnv,
  SETUP,
  withClient,
  type Run,
  type UpJson,
} from '../helpers/examples.js';
import { NATIVE_MAJOR, ROOT } from '../helpers/infra.js';

const EXAMPLES = join(ROOT, 'docs', 'examples', 'per-test-pool');
const SCHEMA = join(ROOT, 'docs', 'examples', 'per-test-clone', 'schema.sql');
const POOL_SIZE = 4;

const name = `examples-pool-${process.pid}`;
/** Scratch folder (the CLI's state folder in it), made in beforeAll. */
let work = '';

function cli(args: string[]): Run {
  return cliIn(work, args);
}

interface UpPoolJson extends UpJson {
  pool?: { size: number; template: string; copyBytes: number; keeperPid: number };
}

/** The pool's bookkeeping (src/pool/sql.ts): tickets drawn, and the copies by state. */
interface PoolView {
  /** Tickets drawn so far (copies taken, pgtmpfs.tickets). */
  taken: number;
  /** Copies taken and not given back: slot ≤ taken, state 'made'. */
  heldNames: string[];
  /** Copies not taken yet, made from the template as it is (slot > taken, state 'made'). */
  readyNames: string[];
}

async function poolView(server: UpJson): Promise<PoolView> {
  return withClient(maintenanceUri(server), async (c) => {
    const t = await c.query<{ taken: number }>(
      'SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::int AS taken FROM pgtmpfs.tickets',
    );
    const taken = t.rows[0]?.taken ?? -1;
    const copies = await c.query<{ name: string; held: boolean }>(
      "SELECT name, slot <= $1 AS held FROM pgtmpfs.copies WHERE state = 'made' ORDER BY slot",
      [taken],
    );
    return {
      taken,
      heldNames: copies.rows.filter((r) => r.held).map((r) => r.name),
      readyNames: copies.rows.filter((r) => !r.held).map((r) => r.name),
    };
  });
}

/**
 * Databases other than the base ones and the pool's ready copies, once the keeper has dropped the
 * copies given back: polled for up to 30 s, then what is left.
 */
async function leftDatabases(server: UpJson): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { readyNames } = await poolView(server);
    const left = (await databaseNames(server)).filter((d) => !BASE_DATABASES.includes(d) && !readyNames.includes(d));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Whether a process with this id runs: it exists (/proc/<pid>/stat) and is not a zombie (state
 * Z or X: ended, waiting for its parent, here the machine's init, to reap it).
 */
function processRuns(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

describe('per-test-pool examples under their own test runners', () => {
  let server: UpPoolJson;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-examples-pool-test-'));
    // As the docs show it: the schema loaded once into app, app marked a template, 4 copies kept ready.
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
      SCHEMA,
      '--template',
      '--pool',
      String(POOL_SIZE),
      '--json',
    ]);
    expect(r.status, r.output).toBe(0);
    server = JSON.parse(r.stdout) as UpPoolJson;
    expect(server.pool?.size).toBe(POOL_SIZE);
    expect(server.pool?.template).toBe('app');
    expect((await poolView(server)).taken).toBe(0);
  });

  afterAll(() => {
    try {
      const r = cli(['down', '--name', name]);
      expect(r.status, r.output).toBe(0);
      if (server) expect(existsSync(server.dataDirectory)).toBe(false);
      if (server?.pool) expect(processRuns(server.pool.keeperPid)).toBe(false);
    } finally {
      if (work) rmSync(work, { recursive: true, force: true });
    }
  });

  it.each([
    ['node', 'vitest'],
    ['python', 'pytest'],
    ['go', 'go test'],
    ['ruby', 'minitest'],
  ] as const)(
    '%s: %s passes the 4 tests of the example, each in a copy taken from the pool and given back',
    async (runner, _name) => {
      const missing = missingRunner(runner);
      if (missing) throw new Error(missing);
      const before = await poolView(server);
      const r = run(RUNNERS[runner].command, [...RUNNERS[runner].args], {
        cwd: join(EXAMPLES, runner),
        env: runnerEnv(server, RUNNER_ENV[runner]),
        timeoutMs: runner === 'go' ? 400_000 : 120_000,
      });
      expect(r.status, `${r.output}\n(runner or packages missing? ${SETUP})`).toBe(0);
      expect(allPassed(runner, r.output, 4), r.output).toBe(true);
      if (runner === 'node') expect(existsSync(join(EXAMPLES, 'node', 'node_modules'))).toBe(false);
      if (runner === 'go') expect(r.output, r.output).toMatch(/^ok\s+example\.com\/pertestpool\s/m);
      const after = await poolView(server);
      // One take per test (nothing touched the template, so no stale copy was skipped), all given back.
      expect(after.taken - before.taken).toBe(4);
      expect(after.heldNames).toEqual([]);
      expect(await leftDatabases(server)).toEqual([]);
    },
  );

  it('the template itself is untouched by the tests', async () => {
    const { rows } = await withClient(server.connectionUri, (c) =>
      c.query<{ n: number }>('SELECT count(*)::int AS n FROM users'),
    );
    expect(rows[0]?.n).toBe(0);
  });
});
