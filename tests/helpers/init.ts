/**
 * What the CLI's init files (tests/e2e/init-{native,docker}.test.ts, issue #13) share: the CLI
 * with a state and cache folder of the file's own, a query helper, the leftover snapshot, and the
 * test both modes run (`up --init --template`, then `db create` by 4 parallel workers, `db drop`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, ROOT, TEST_IMAGES } from './infra.js';

/** The init fixtures (SQL files, a seed, a broken file), relative to the repository. */
export const FIXTURES = 'tests/fixtures/init';
/** Deadline of each CLI call: 120 000 ms (a Docker start included). */
const CLI_TIMEOUT_MS = 120_000;

/** A CLI call's result. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A file's CLI: its work folder, the CLI run blocking and not, and what its tests left. */
export interface InitCli {
  /** The file's work folder (state and cache inside; removed in afterAll). */
  work: string;
  cli: (args: string[]) => CliResult;
  /** Runs the CLI without blocking, so several run at once. */
  cliAsync: (args: string[]) => Promise<CliResult>;
  /** What appeared since beforeAll (leftoverSnapshot). */
  added: () => string[];
}

/**
 * Registers beforeAll (the leftover snapshot) and afterAll (`down` of each of `names`, the work
 * folder removed) for a file.
 */
export function useInitCli(names: string[]): InitCli {
  const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-init-test-'));
  const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache') };
  const cli = (args: string[]): CliResult => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      timeout: CLI_TIMEOUT_MS,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const cliAsync = (args: string[]): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of names) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });
  return { work, cli, cliAsync, added: () => leftovers.added() };
}

/** The rows of the last statement of `sql` on `uri`, each row's `v` as text. */
export async function query(uri: string, sql: string): Promise<string[]> {
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

/**
 * Registers the test of `mode` (instance `tmpl-<mode>`, which the file's useInitCli downs in
 * afterAll): up --init --template, then db create by 4 parallel workers, db drop.
 */
export function templateTest(mode: 'native' | 'docker', { cli, cliAsync }: InitCli): void {
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
