/**
 * Schema once, a fresh database per test (issue #13), end to end: the action through act in
 * both modes (init files and globs, a no-transaction file, init-command, extensions, databases,
 * template, 4 workers cloning it; a failing SQL file, a failing command, a missing extension, a
 * missing file), and the CLI directly (up with the same flags, `db create` by 4 parallel workers,
 * `db drop`, the failures). Each leaves nothing behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, ROOT, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-init-test-'));
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache') };
const FIXTURES = 'tests/fixtures/init';
/** Deadline of each CLI call: 120 000 ms (a Docker start included). */
const CLI_TIMEOUT_MS = 120_000;

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
    timeout: CLI_TIMEOUT_MS,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI without blocking, so several run at once. */
function cliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function query(uri: string, sql: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    // Several statements give one result each: the last one's rows.
    const results = (await client.query<{ v: unknown }>(sql)) as unknown as
      pg.QueryResult<{ v: unknown }> | Array<pg.QueryResult<{ v: unknown }>>;
    const last = Array.isArray(results) ? results[results.length - 1]! : results;
    return last.rows.map((r) => String(r.v));
  } finally {
    await client.end();
  }
}

describe('init, template and per-test databases', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of ['tmpl-native', 'tmpl-docker', 'bad']) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });

  it('action through act: both modes load the schema, make a template, and 4 workers clone it', () => {
    requireImages();
    const r = runAct('.github/workflows/e2e.yml', [
      '-j',
      'init',
      '--var',
      `PG_TMPFS_INIT_IMAGE=${TEST_IMAGES[18]}`,
      '--var',
      `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`,
    ]);
    showLines(r.log, /e2e-check|clone-workers|Init SQL|template database|init-command saw|ms$/);
    expect(r.status, r.log.slice(-8000)).toBe(0);
    expect(r.log).toContain('e2e-check init: ok');
    expect(r.log.match(/clone-workers: ok \(20 clones of app by 4 workers\)/g)?.length).toBe(2);
    // The init command ran with PG* set, its output in the log; the groups name the files.
    expect(r.log).toContain('init-command saw app');
    expect(r.log).toMatch(/Init SQL: 3 files in app/);
    expect(r.log).toMatch(/tests\/fixtures\/init\/migrations\/002_indexes\.sql: \d+ ms/);
    expect(r.log).not.toContain('init p@ss');
    expect(leftovers.added()).toEqual([]);
  });

  it('action through act: a failing SQL file, command, extension and file each fail their step, leaving nothing', () => {
    requireImages();
    const r = runAct('.github/workflows/e2e.yml', [
      '-j',
      'init-failures',
      '--var',
      `PG_TMPFS_INIT_IMAGE=${TEST_IMAGES[18]}`,
      '--var',
      `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`,
    ]);
    showLines(r.log, /::error|e2e-check/);
    expect(r.status, r.log.slice(-8000)).toBe(0);
    expect(r.log).toContain('e2e-check init-failures: ok');
    // An annotation on the failing line of the file, with the server's message.
    expect(r.log).toMatch(
      /::error title=init%3A tests\/fixtures\/init\/bad\/broken\.sql,file=tests\/fixtures\/init\/bad\/broken\.sql,line=3,col=\d+::Input 'init': tests\/fixtures\/init\/bad\/broken\.sql:3:\d+: ERROR: column "nonexistent_column" does not exist/,
    );
    expect(r.log).toMatch(/Input 'init-command': exited with code 3: migration 7 failed/);
    expect(r.log).toContain('migrating postgres'); // the command's own output, in the log
    expect(r.log).toMatch(/Input 'extensions': "pgvector" is not available in image pg-tmpfs-test\/postgres:18/);
    expect(r.log).toMatch(/Input 'init': "db\/no-such-folder\/\*\.sql" matches no readable file/);
    expect(leftovers.added()).toEqual([]);
  });

  for (const mode of ['native', 'docker'] as const) {
    it(`CLI, ${mode} mode: up --init --template, then db create by 4 parallel workers, db drop`, async () => {
      if (mode === 'docker') requireImages();
      const name = `tmpl-${mode}`;
      const where = mode === 'native' ? ['--postgres-version', NATIVE_MAJOR] : ['--image', TEST_IMAGES[17]];
      const up = cli([
        'up',
        '--mode',
        mode,
        ...where,
        '--name',
        name,
        '--database',
        'app',
        '--init',
        `${FIXTURES}/migrations/*.sql`,
        '--init',
        `${FIXTURES}/seed.sql`,
        '--extensions',
        'pg_trgm',
        '--databases',
        'app_events',
        '--init-command',
        'psql -X -qc "INSERT INTO accounts (email) VALUES (\'cmd@example.com\')" && echo "command: $PGDATABASE"',
        '--template',
        '--json',
      ]);
      expect(up.status, up.stderr).toBe(0);
      expect(up.stderr).toContain('command: app');
      const started = JSON.parse(up.stdout) as {
        templateDatabase: string;
        databases: Record<string, string>;
        connectionUri: string;
      };
      expect(started.templateDatabase).toBe('app');
      expect(Object.keys(started.databases)).toEqual(['app_events']);
      expect(await query(started.databases.app_events!, 'SELECT current_database() AS v')).toEqual(['app_events']);

      // 4 workers at once, each 3 copies: a fresh copy per test, seeded, written to, dropped.
      const made: string[] = [];
      await Promise.all(
        [1, 2, 3, 4].map(async (worker) => {
          for (let i = 0; i < 3; i++) {
            const c = await cliAsync(['db', 'create', '--name', name, '--json']);
            expect(c.status, c.stderr).toBe(0);
            const clone = JSON.parse(c.stdout) as { database: string; uri: string; template: string; strategy: string };
            expect(clone.template).toBe('app');
            // The test image's PGDATA is on tmpfs in both modes: FILE_COPY (docs/performance.md).
            expect(clone.strategy).toBe('FILE_COPY');
            made.push(clone.database);
            expect(
              await query(
                clone.uri,
                `INSERT INTO accounts (email) VALUES ('w${worker}-${i}@x'); SELECT count(*) AS v FROM accounts`,
              ),
            ).toEqual(['4']);
            const d = await cliAsync(['db', 'drop', '--name', name, '--json', clone.database]);
            expect(d.status, d.stderr).toBe(0);
            expect(JSON.parse(d.stdout)).toEqual({ database: clone.database, dropped: true });
          }
        }),
      );
      expect(new Set(made).size).toBe(12);
      const left = await query(
        started.databases.app_events!,
        "SELECT count(*) AS v FROM pg_database WHERE datname LIKE 'app\\_%' AND datname <> 'app_events'",
      );
      expect(left).toEqual(['0']);
      // The template keeps its rows; the instance's own database cannot be dropped through db drop.
      expect(cli(['db', 'create', '--name', name, '--from', 'nope']).stderr).toMatch(/error: --from: there is no database nope/);
      const refused = cli(['db', 'drop', '--name', name, 'app']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/error: Refusing to drop app: it is the instance's own database or template/);
      expect(cli(['down', '--name', name]).status).toBe(0);
    });
  }

  it('CLI: each init file starts a clean session (a search_path pg_dump clears does not reach the next file)', () => {
    const dir = mkdtempSync(join(work, 'session-'));
    writeFileSync(
      join(dir, '1_dump.sql'),
      "SELECT pg_catalog.set_config('search_path', '', false);\nCREATE TABLE public.a (x int);\n",
    );
    writeFileSync(join(dir, '2_seed.sql'), 'CREATE TABLE b (x int);\nINSERT INTO a VALUES (1);\n');
    const r = cli([
      'up',
      '--mode',
      'native',
      '--postgres-version',
      NATIVE_MAJOR,
      '--name',
      'bad',
      '--init',
      `${dir}/*.sql`,
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(cli(['down', '--name', 'bad']).status).toBe(0);
  });

  it('CLI: a failing SQL file, a psql meta-command, a failing command and a missing extension fail with nothing left', async () => {
    const base = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'bad', '--quiet'];
    const sql = cli([...base, '--init', `${FIXTURES}/migrations/001_schema.sql`, '--init', `${FIXTURES}/bad/broken.sql`]);
    expect(sql.status).toBe(1);
    expect(sql.stderr).toMatch(
      /--- tests\/fixtures\/init\/bad\/broken\.sql ---\n3 \| SELECT id FROM fine WHERE nonexistent_column = 1;\n\s+\^\n---\nerror: --init: tests\/fixtures\/init\/bad\/broken\.sql:3:\d+: ERROR: column "nonexistent_column" does not exist \(SQLSTATE 42703\)/,
    );
    const meta = mkdtempSync(join(work, 'meta-'));
    spawnSync('sh', ['-c', `printf 'CREATE TABLE t (x int);\\n\\\\copy t from data.csv\\n' > ${meta}/load.sql`]);
    const copy = cli([...base, '--init', `${meta}/load.sql`]);
    expect(copy.status).toBe(1);
    expect(copy.stderr).toMatch(/error: --init: \S+load\.sql:2: \\copy is a psql meta-command/);
    const cmd = cli([...base, '--init-command', 'echo "migration 7 failed" >&2; exit 3']);
    expect(cmd.status).toBe(1);
    expect(cmd.stderr).toMatch(/error: --init-command: exited with code 3: migration 7 failed/);
    const ext = cli([...base, '--extensions', 'pgvector']);
    expect(ext.status).toBe(1);
    expect(ext.stderr).toMatch(/error: --extensions: "pgvector" is not available in the PostgreSQL binaries in \S+/);
    // A no-transaction file: the column counts from the statement's own start in the file.
    writeFileSync(join(meta, 'nt.sql'), '-- pg-tmpfs: no-transaction\nCREATE TABLE nt (id int);\nSELECT nope FROM nt;\n');
    const nt = cli([...base, '--init', `${meta}/nt.sql`]);
    expect(nt.status).toBe(1);
    expect(nt.stderr).toMatch(/error: --init: \S+nt\.sql:3:8: ERROR: column "nope" does not exist/);
    const status = JSON.parse(cli(['status']).stdout) as unknown[];
    expect(status).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});
