/**
 * The pool (issue #37) under hostile use and faults, in native mode through dist/cli.js (one server
 * per describe, removed in afterAll) and once in Docker mode: many takers at once, a taker killed
 * holding a copy or waiting for one, an empty pool, a template changed or held open after the pool
 * filled, a killed keeper, bad input, and give-backs of names not taken.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/proc.js';
import {
  leftoverSnapshot,
  liveProcesses,
  NATIVE_MAJOR,
  ourContainers,
  requireImages,
  ROOT,
  TEST_IMAGES,
} from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-pool-test-'));
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache') };
const initFile = join(work, 'schema.sql');
writeFileSync(initFile, 'CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t VALUES (1);\n');
const PSQL = `/usr/lib/postgresql/${NATIVE_MAJOR}/bin/psql`;

interface UpJson {
  connectionUri: string;
  dataDirectory: string;
  pool: { size: number; template: string; copyBytes: number; keeperPid: number };
}

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8', env, timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `up` in native mode with template `app` (table t, one row) and a pool of `size`. */
function up(name: string, size: number, extra: string[] = []): UpJson {
  const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', name, '--database', 'app'];
  const r = cli([...args, '--template', '--init', initFile, '--pool', String(size), '--json', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

/** The URI of another database of the same server. */
function dbUri(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

async function connect(uri: string, database = 'postgres'): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: dbUri(uri, database) });
  // A connection ended by the server shows in the next query's error, not as an uncaught one.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Runs `fn` on a client of its own to `database`, closed afterwards. */
async function withClient<T>(uri: string, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(uri, database);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function take(client: pg.Client, timeoutMs = 20_000): Promise<string> {
  return (await client.query<{ name: string }>('SELECT pgtmpfs.take($1) AS name', [timeoutMs])).rows[0]?.name ?? '';
}

/** The error take() raised, or Error('took NAME') when it handed out a copy. */
async function takeError(client: pg.Client, timeoutMs: number): Promise<Error> {
  try {
    throw new Error(`took ${await take(client, timeoutMs)}`);
  } catch (error) {
    return error as Error;
  }
}

async function rows<T>(uri: string, sql: string, params: unknown[] = []): Promise<T[]> {
  return withClient(uri, 'postgres', async (c) => (await c.query(sql, params)).rows as T[]);
}

async function poolDatabases(uri: string, template = 'app'): Promise<string[]> {
  const r = await rows<{ datname: string }>(uri, 'SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY 1', [
    `${template}_pool_%`,
  ]);
  return r.map((x) => x.datname);
}

/** Polls `fn` every 50 ms until it returns true, for at most `ms`; @returns its last answer. */
async function until(fn: () => Promise<boolean> | boolean, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The ready copies: made, not yet taken, at the template's current fingerprint. */
async function ready(uri: string): Promise<string[]> {
  const r = await rows<{ name: string }>(
    uri,
    `SELECT name FROM pgtmpfs.copies, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS taken FROM pgtmpfs.tickets) t
      WHERE slot > t.taken AND state = 'made' AND fingerprint = pgtmpfs.fingerprint('app') ORDER BY name`,
  );
  return r.map((x) => x.name);
}

/** Keeper processes (the flag start.ts launches them with). */
const keepers = (): number[] => liveProcesses((argv) => argv.includes('--pg-tmpfs-keeper')).map((p) => p.pid);

/** A psql child on `postgres` running `sql`, its output lines collected. */
function psql(uri: string, sql: string[]): { child: ChildProcess; lines: string[] } {
  const args = ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', dbUri(uri, 'postgres'), ...sql.flatMap((s) => ['-c', s])];
  const child = spawn(PSQL, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  child.stdout?.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
  return { child, lines };
}

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('pool: many takers at once', () => {
  let s: UpJson;
  beforeAll(() => {
    s = up('many', 4);
  });
  afterAll(() => {
    cli(['down', '--name', 'many']);
  });

  it('4 clients × 25 takes: no copy handed out twice, each fresh and never connected to; all dropped once given back', async () => {
    const seen: string[] = [];
    const problems: string[] = [];
    const taker = async (): Promise<void> => {
      const client = await connect(s.connectionUri);
      try {
        for (let i = 0; i < 25; i++) {
          const name = await take(client);
          seen.push(name);
          const stat = await client.query<{ sessions: string; exists: boolean }>(
            `SELECT coalesce((SELECT sessions FROM pg_stat_database WHERE datname = $1), -1) AS sessions,
                    EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS exists`,
            [name],
          );
          if (stat.rows[0]?.exists !== true) problems.push(`${name} does not exist`);
          if (String(stat.rows[0]?.sessions) !== '0') problems.push(`${name} had ${stat.rows[0]?.sessions} sessions`);
          await withClient(s.connectionUri, name, async (copy) => {
            const marked = await copy.query<{ n: string }>("SELECT count(*) AS n FROM pg_class WHERE relname = 'marker'");
            if (marked.rows[0]?.n !== '0') problems.push(`${name} was used before: it has the marker table`);
            const t = await copy.query<{ n: string }>('SELECT count(*) AS n FROM t');
            if (t.rows[0]?.n !== '1') problems.push(`${name} lacks the template's row`);
            await copy.query('CREATE TABLE marker (by int)');
          });
          await client.query('SELECT pgtmpfs.give_back($1)', [name]);
        }
      } finally {
        await client.end();
      }
    };
    await Promise.all([taker(), taker(), taker(), taker()]);
    expect(problems).toEqual([]);
    expect(seen).toHaveLength(100);
    expect(new Set(seen).size).toBe(100);
    // Every copy given back is dropped; what remains is the ready copies, four.
    const settled = async () => {
      const left = await poolDatabases(s.connectionUri);
      return left.length === 4 && left.every((n) => !seen.includes(n));
    };
    expect(await until(settled)).toBe(true);
    expect(await poolDatabases(s.connectionUri)).toEqual(await ready(s.connectionUri));
    const given = await rows<{ n: string }>(s.connectionUri, "SELECT count(*) AS n FROM pgtmpfs.copies WHERE state = 'returned'");
    expect(given[0]?.n).toBe('0');
  });
});

describe('pool: dead takers, give-backs of names not taken', () => {
  let s: UpJson;
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  const keepersBefore = new Set<number>();
  beforeAll(() => {
    leftovers = leftoverSnapshot();
    for (const pid of keepers()) keepersBefore.add(pid);
    s = up('dead', 2);
  });
  afterAll(() => {
    cli(['down', '--name', 'dead']);
  });

  it('a taker killed holding a copy blocks nothing; its copy stays until down', async () => {
    const holder = psql(s.connectionUri, ['SELECT pgtmpfs.take()', 'SELECT pg_sleep(600)']);
    expect(await until(() => holder.lines.length > 0)).toBe(true);
    const held = holder.lines[0] as string;
    expect(held).toMatch(/^app_pool_[0-9a-f]{12}$/);
    holder.child.kill('SIGKILL');
    const others = await withClient(s.connectionUri, 'postgres', async (c) => {
      const names: string[] = [];
      for (let i = 0; i < 10; i++) {
        const name = await take(c);
        names.push(name);
        await c.query('SELECT pgtmpfs.give_back($1)', [name]);
      }
      return names;
    });
    expect(others).not.toContain(held);
    expect(new Set(others).size).toBe(10);
    // Never given back: it stays (taken, never handed out again) until down.
    expect(await poolDatabases(s.connectionUri)).toContain(held);
  });

  it('a taker killed while waiting in take() blocks nothing: its server session ends, others take', async () => {
    // A session on the template stops the keeper and take(): the pool is empty for everyone.
    const templateSession = await connect(s.connectionUri, 'app');
    const waiter = psql(s.connectionUri, ["SET application_name = 'dead waiter'", 'SELECT pgtmpfs.take(600000)']);
    const waiting = async () =>
      (
        await rows(
          s.connectionUri,
          "SELECT 1 FROM pg_stat_activity WHERE application_name = 'dead waiter' AND query LIKE '%take%'",
        )
      ).length === 1;
    expect(await until(waiting)).toBe(true);
    waiter.child.kill('SIGKILL');
    // Its backend notices the dead client instead of waiting out its 600 s.
    const gone = async () =>
      (await rows(s.connectionUri, "SELECT 1 FROM pg_stat_activity WHERE application_name = 'dead waiter'")).length === 0;
    const ended = await until(gone, 15_000);
    await templateSession.end();
    expect(ended).toBe(true);
    const names = await withClient(s.connectionUri, 'postgres', async (c) => {
      const taken = [await take(c), await take(c), await take(c)];
      for (const name of taken) await c.query('SELECT pgtmpfs.give_back($1)', [name]);
      return taken;
    });
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(/^app_pool_/);
  });

  it('db give-back refuses a name given back twice, never taken, or ready but not taken', async () => {
    const taken = cli(['db', 'take', '--name', 'dead', '--json']);
    expect(taken.status, taken.stderr).toBe(0);
    const { database } = JSON.parse(taken.stdout) as { database: string };
    const first = cli(['db', 'give-back', database, '--name', 'dead']);
    expect([first.status, first.stderr]).toEqual([0, `Gave back ${database}.\n`]);
    const twice = cli(['db', 'give-back', database, '--name', 'dead']);
    expect(twice.status).not.toBe(0);
    expect(twice.stderr).toContain(`${database} is not a copy taken from the pool (or was given back already)`);
    const never = cli(['db', 'give-back', 'app_pool_000000000000', '--name', 'dead']);
    expect(never.status).not.toBe(0);
    expect(never.stderr).toContain('app_pool_000000000000 is not a copy taken from the pool');
    expect(await until(async () => (await ready(s.connectionUri)).length > 0)).toBe(true);
    const untaken = (await ready(s.connectionUri))[0] as string;
    const early = cli(['db', 'give-back', untaken, '--name', 'dead']);
    expect(early.status).not.toBe(0);
    expect(early.stderr).toContain(`${untaken} is not a copy taken from the pool`);
    // Still handed out afterwards: the refused give-back changed nothing.
    expect(await poolDatabases(s.connectionUri)).toContain(untaken);
  });

  it('down removes the server, its copies, the dead takers’ copies and the keeper', () => {
    expect(processAlive(s.pool.keeperPid)).toBe(true);
    expect(cli(['down', '--name', 'dead']).status).toBe(0);
    expect(existsSync(s.dataDirectory)).toBe(false);
    expect(processAlive(s.pool.keeperPid)).toBe(false);
    expect(keepers().filter((pid) => !keepersBefore.has(pid))).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('pool: an empty pool', () => {
  let s: UpJson;
  beforeAll(() => {
    s = up('empty', 1);
  });
  afterAll(() => {
    cli(['down', '--name', 'empty']);
  });

  it('take fails after its timeout, saying so, while the keeper cannot copy; a waiting take gets the next copy', async () => {
    const taker = await connect(s.connectionUri);
    // pg_database locked: the keeper's CREATE DATABASE waits, so the copy taken is not replaced.
    const blocker = await connect(s.connectionUri);
    try {
      expect(await until(async () => (await ready(s.connectionUri)).length === 1)).toBe(true);
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE pg_database IN SHARE MODE');
      const first = await take(taker);
      const error = await takeError(taker, 300);
      expect(error.message).toBe(
        'pg-tmpfs pool: no ready copy of app within 300 ms (pool of 1: every copy taken, and the keeper has not made the next)',
      );
      const waiting = take(taker, 30_000);
      const inTake = async () =>
        (
          await rows(
            s.connectionUri,
            "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pgtmpfs.take%'",
          )
        ).length === 1;
      expect(await until(inTake)).toBe(true);
      await withClient(s.connectionUri, 'postgres', (c) => c.query('SELECT pgtmpfs.give_back($1)', [first]));
      await blocker.query('COMMIT');
      const next = await waiting.catch(async (error: Error) => {
        const state = await rows(
          s.connectionUri,
          `SELECT (SELECT json_agg(c) FROM pgtmpfs.copies c) AS copies, (SELECT last_value FROM pgtmpfs.tickets) AS tickets,
             (SELECT note FROM pgtmpfs.keeper) AS note,
             (SELECT json_agg(json_build_object('app', application_name, 'q', left(query, 80), 'w', wait_event, 's', state))
                FROM pg_stat_activity WHERE backend_type = 'client backend') AS sessions`,
        );
        throw new Error(`${error.message}: ${JSON.stringify(state)}`);
      });
      expect(next).toMatch(/^app_pool_/);
      expect(next).not.toBe(first);
      expect(
        await withClient(s.connectionUri, next, async (c) => (await c.query('SELECT count(*)::int AS n FROM t')).rows[0]),
      ).toEqual({
        n: 1,
      });
      await taker.query('SELECT pgtmpfs.give_back($1)', [next]);
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(first))).toBe(true);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await taker.end();
    }
  });

  it('take inside a REPEATABLE READ transaction with no ready copy refuses at once, instead of waiting on a snapshot that never sees the next copy', async () => {
    const taker = await connect(s.connectionUri);
    const blocker = await connect(s.connectionUri);
    try {
      expect(await until(async () => (await ready(s.connectionUri)).length === 1)).toBe(true);
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE pg_database IN SHARE MODE');
      const first = await take(taker);
      await taker.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const waiting = take(taker, 15_000).then(
        (name) => ({ name, error: '' }),
        (e: Error) => ({ name: '', error: e.message }),
      );
      const result = await waiting;
      await blocker.query('COMMIT');
      await taker.query('COMMIT').catch(() => taker.query('ROLLBACK'));
      expect(result).toEqual({
        name: '',
        error:
          'pg-tmpfs pool: no ready copy of app at once, and take() cannot wait for one inside a REPEATABLE READ transaction (only under READ COMMITTED)',
      });
      await withClient(s.connectionUri, 'postgres', (c) => c.query('SELECT pgtmpfs.give_back($1)', [first]));
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await taker.end();
    }
  });
});

describe('pool: a changed template', () => {
  let s: UpJson;
  beforeAll(() => {
    s = up('changed', 2);
  });
  afterAll(() => {
    cli(['down', '--name', 'changed']);
  });

  it('copies made before the template changed are never handed out, and take says it skipped them', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    const before = await poolDatabases(s.connectionUri);
    await withClient(s.connectionUri, 'app', (c) => c.query('CREATE TABLE added (x int); INSERT INTO added VALUES (7)'));
    const taker = await connect(s.connectionUri);
    const notices: string[] = [];
    taker.on('notice', (n) => notices.push(n.message ?? ''));
    try {
      const name = await take(taker);
      expect(before).not.toContain(name);
      const x = await withClient(s.connectionUri, name, async (c) => (await c.query('SELECT x FROM added')).rows);
      expect(x).toEqual([{ x: 7 }]);
      expect(notices).toEqual(['pg-tmpfs pool: skipped 2 copies made before template app changed; the keeper refills the pool']);
      await taker.query('SELECT pgtmpfs.give_back($1)', [name]);
      // The skipped copies are dropped.
      expect(await until(async () => (await poolDatabases(s.connectionUri)).every((n) => !before.includes(n)))).toBe(true);
    } finally {
      await taker.end();
    }
  });

  it('a session held open on the template: take fails after its timeout naming it, and works once it closes', async () => {
    const session = await connect(s.connectionUri, 'app');
    const taker = await connect(s.connectionUri);
    try {
      const error = await takeError(taker, 300);
      expect(error.message).toMatch(/^pg-tmpfs pool: no ready copy of app within 300 ms/);
      expect(error.message).toContain('a session is connected to the template, so no copy of it can be made: close it');
      await session.query('INSERT INTO t VALUES (2)');
      await session.end();
      const name = await take(taker);
      const ids = await withClient(s.connectionUri, name, async (c) => (await c.query('SELECT id FROM t ORDER BY id')).rows);
      expect(ids).toEqual([{ id: 1 }, { id: 2 }]);
      await taker.query('SELECT pgtmpfs.give_back($1)', [name]);
    } finally {
      await session.end().catch(() => undefined);
      await taker.end();
    }
  });
});

describe('pool: a killed keeper', () => {
  let s: UpJson;
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
    s = up('keeper', 2);
  });
  afterAll(() => {
    cli(['down', '--name', 'keeper']);
  });

  it('take fails at once saying the keeper is not running; db take exits non-zero; down removes everything', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    process.kill(s.pool.keeperPid, 'SIGKILL');
    const lockGone = async () =>
      (await rows(s.connectionUri, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted")).length === 0;
    expect(await until(lockGone, 10_000)).toBe(true);
    const message = 'pg-tmpfs pool: the keeper of the pool of app is not running, so no copy is made';
    // With 2 ready copies and 30 s to wait, only the keeper check explains this error.
    const error = await withClient(s.connectionUri, 'postgres', (c) => takeError(c, 30_000));
    expect(error.message).toBe(message);
    const r = cli(['db', 'take', '--name', 'keeper', '--timeout', '30000']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
    expect(cli(['down', '--name', 'keeper']).status).toBe(0);
    expect(existsSync(s.dataDirectory)).toBe(false);
    expect(keepers()).not.toContain(s.pool.keeperPid);
    expect(leftovers.added()).toEqual([]);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
  });
});

describe('pool: bad input leaves nothing', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of ['notemplate', 'toomany', 'toobig']) cli(['down', '--name', name]);
  });
  const state = () => (existsSync(env.PG_TMPFS_STATE_DIR) ? readdirSync(env.PG_TMPFS_STATE_DIR) : []);

  it('a pool without --template is refused before anything starts, naming pool and template', () => {
    const before = state();
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'notemplate'];
    const r = cli([...args, '--database', 'app', '--pool', '2']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 2, and the template input is false/);
    expect(r.stderr).toContain('template: true');
    expect(state()).toEqual(before);
    expect(leftovers.added()).toEqual([]);
  });

  it('a pool larger than max_connections leaves room for is refused, naming pool and max_connections', () => {
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'toomany', '--database', 'app'];
    const r = cli([...args, '--template', '--init', initFile, '--pool', '8', '--setting', 'max_connections=10']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 8, more copies than tests can connect to at once: max_connections leaves 7 connections/);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
    expect(keepers().length).toBe(0);
  });

  it('Docker mode: a pool the tmpfs cannot hold is refused, naming tmpfs-size; no container is left', () => {
    requireImages();
    const r = cli(
      ['up', '--mode', 'docker', '--image', TEST_IMAGES[18], '--name', 'toobig', '--database', 'app', '--template'].concat([
        '--init',
        initFile,
        '--pool',
        '9',
        '--tmpfs-size',
        '64m',
      ]),
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 9: .* PGDATA's tmpfs has [\d.]+ MB free/);
    expect(r.stderr).toContain('tmpfs-size');
    expect(ourContainers()).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('pool: Docker mode', () => {
  let s: UpJson;
  beforeAll(() => {
    requireImages();
    const r = cli(
      ['up', '--mode', 'docker', '--image', TEST_IMAGES[18], '--name', 'docker', '--database', 'app', '--template'].concat([
        '--init',
        initFile,
        '--pool',
        '2',
        '--json',
      ]),
    );
    expect(r.status, r.stderr).toBe(0);
    s = JSON.parse(r.stdout) as UpJson;
  });
  afterAll(() => {
    cli(['down', '--name', 'docker']);
  });

  it('db take hands out a fresh copy of the template, db give-back returns it and the keeper drops it', async () => {
    expect(s.pool.size).toBe(2);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = cli(['db', 'take', '--name', 'docker', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const taken = JSON.parse(r.stdout) as { database: string; uri: string };
      const t = await withClient(taken.uri, taken.database, async (c) => (await c.query('SELECT id FROM t')).rows);
      expect(t).toEqual([{ id: 1 }]);
      expect(cli(['db', 'give-back', taken.database, '--name', 'docker']).status).toBe(0);
      names.push(taken.database);
    }
    expect(new Set(names).size).toBe(3);
    expect(await until(async () => (await poolDatabases(s.connectionUri)).every((n) => !names.includes(n)))).toBe(true);
    expect(cli(['down', '--name', 'docker']).status).toBe(0);
    expect(ourContainers()).toEqual([]);
  });
});
