/**
 * The pool (issue #37) under faults, native mode: a template changed or held open after the pool
 * filled, a killed keeper, and bad input leaving nothing. Docker mode's (a pool its tmpfs cannot
 * hold, take / give-back) are in pool-faults-docker.test.ts; what both share in
 * tests/helpers/pool.ts.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { NATIVE_MAJOR } from '../helpers/infra.js';
import {
  badInputLeftovers,
  cli,
  connect,
  env,
  initFile,
  keepers,
  poolDatabases,
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

describe('pool: a changed template', () => {
  const s = poolServer('changed', 2);

  it('copies made before the template changed are never handed out; the keeper retires and drops them', async () => {
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
      // The keeper retired the stale copies: take() never met them (issue #43: it changes no row).
      expect(notices).toEqual([]);
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

  it('a dropped template: take fails after its timeout saying the template is gone, and so does the keeper’s note', async () => {
    await withClient(s.connectionUri, 'postgres', async (c) => {
      await c.query('ALTER DATABASE app IS_TEMPLATE false');
      await c.query('DROP DATABASE app'); // its own statement: DROP DATABASE refuses a transaction block
    });
    const taker = await connect(s.connectionUri);
    try {
      // Copies made before the drop are skipped as stale first (the fingerprint is gone too).
      const error = await takeError(taker, 300);
      expect(error.message).toMatch(/^pg-tmpfs pool: no ready copy of app within 300 ms/);
      expect(error.message).toContain('the template no longer exists (dropped or renamed), so no copy of it can be made');
      const note = async () => (await taker.query<{ note: string | null }>('SELECT note FROM pgtmpfs.keeper')).rows[0]?.note;
      expect(
        await until(
          async () => (await note()) === 'the template app no longer exists (dropped or renamed), so no copy of it can be made',
        ),
      ).toBe(true);
    } finally {
      await taker.end();
    }
  });
});

describe('pool: a killed keeper', () => {
  const s = poolServer('keeper', 2);

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
    const r = cli(['db', 'take', '--name', 'keeper', '--timeout', '30s']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
    expect(cli(['down', '--name', 'keeper']).status).toBe(0);
    expect(existsSync(s.dataDirectory)).toBe(false);
    expect(keepers()).not.toContain(s.pool.keeperPid);
    expect(s.leftovers.added()).toEqual([]);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
  });
});

describe('pool: bad input leaves nothing', () => {
  const leftovers = badInputLeftovers(['notemplate', 'toomany']);
  const state = () => (existsSync(env.PG_TMPFS_STATE_DIR) ? readdirSync(env.PG_TMPFS_STATE_DIR) : []);

  it('a pool without --template is refused before anything starts, naming pool and template', () => {
    const before = state();
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'notemplate'];
    const r = cli([...args, '--database', 'app', '--pool', '2']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 2, and the template input is false/);
    expect(r.stderr).toContain('template: true');
    expect(state()).toEqual(before);
    expect(leftovers().added()).toEqual([]);
  });

  it('a pool larger than max_connections leaves room for is refused, naming pool and max_connections', () => {
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'toomany', '--database', 'app'];
    const r = cli([...args, '--template', '--init', initFile, '--pool', '8', '--setting', 'max_connections=10']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 8, more copies than tests can connect to at once: max_connections leaves 7 connections/);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
    expect(leftovers().added()).toEqual([]);
  });
});
