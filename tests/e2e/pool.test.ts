/**
 * The pool (issue #37) under hostile use, in native mode through dist/cli.js (one server per
 * describe, removed in afterAll): many takers at once, a taker killed holding a copy or waiting
 * for one, give-backs of names not taken, an empty pool. pool-faults-{native,docker}.test.ts have the rest.
 */
import { existsSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/processes.js';
import {
  cli,
  connect,
  poolDatabases,
  psql,
  ready,
  rows,
  take,
  takeError,
  until,
  poolServer,
  withClient,
  work,
} from '../helpers/pool.js';

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('pool: many takers at once', () => {
  const s = poolServer('many', 4);

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
  const s = poolServer('dead', 2);

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
    expect(s.leftovers.added()).toEqual([]);
  });
});

describe('pool: an empty pool', () => {
  const s = poolServer('empty', 1);

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
