/**
 * The pool under the fourth hostile sweep's cases (issue #43): missed takes, a crashed backend, a
 * copy given back while in use, other roles, a NULL timeout, and `db take` without a pool. Each
 * failed on 45a132f.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { NATIVE_MAJOR } from '../helpers/infra.js';
import { DRAW_LOCK_KEY } from '../../src/pool/sql.js';
import {
  cli,
  connect,
  keepers,
  poolDatabases,
  poolServer,
  ready,
  take,
  takeError,
  until,
  withClient,
  work,
} from '../helpers/pool.js';

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('pool: takes that miss (wrong result 1)', () => {
  const s = poolServer('misses', 2);

  it('three clients missing hundreds of take(0)s leave no copy made for nobody beyond the pool', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    const clients = await Promise.all([0, 1, 2].map(() => connect(s.connectionUri)));
    const handedOut: string[] = [];
    let misses = 0;
    try {
      await Promise.all(
        clients.map(async (c) => {
          for (let i = 0; i < 150; i++) {
            try {
              handedOut.push(await take(c, 0));
            } catch (error) {
              expect((error as Error).message).toMatch(/^pg-tmpfs pool: no ready copy of app within 0 ms/);
              misses++;
            }
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect(misses).toBeGreaterThan(0);
    expect(new Set(handedOut).size).toBe(handedOut.length);
    // Once the keeper has settled: every copy is either handed out or one of the pool's ready ones.
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    const made = await poolDatabases(s.connectionUri);
    const forNobody = made.filter((n) => !handedOut.includes(n));
    expect(forNobody.sort()).toEqual((await ready(s.connectionUri)).sort());
  });
});

describe('pool: a crashed backend (wrong result 2)', () => {
  const s = poolServer('crash', 2);

  it('the keeper survives the crash restart and rebuilds the pool; take() works again and status says running', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    const keeper = s.pool.keeperPid;
    const before = await withClient(s.connectionUri, 'postgres', (c) => take(c));
    const victim = await connect(s.connectionUri, before);
    const pid = Number((await victim.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
    process.kill(pid, 'SIGKILL');
    await victim.end().catch(() => undefined);
    // The postmaster restarts every session; take() waits for the keeper to rebuild its bookkeeping.
    const after = await until(async () => {
      try {
        await withClient(s.connectionUri, 'postgres', (c) => c.query('SELECT 1'));
        return true;
      } catch {
        return false;
      }
    });
    expect(after).toBe(true);
    const name = await withClient(s.connectionUri, 'postgres', (c) => take(c, 30_000));
    expect(name).toMatch(/^app_pool_[0-9a-f]{12}$/);
    expect(name).not.toBe(before);
    const t = await withClient(s.connectionUri, name, async (c) => (await c.query('SELECT id FROM t')).rows);
    expect(t).toEqual([{ id: 1 }]);
    expect(keepers()).toContain(keeper);
    const status = JSON.parse(cli(['status']).stdout) as { name: string; state: string; alive: boolean }[];
    const crash = status.find((i) => i.name === 'crash');
    expect([crash?.state, crash?.alive]).toEqual(['running', true]);
  });
});

describe('pool: a copy given back while a session uses it (wrong result 3)', () => {
  const s = poolServer('inuse', 1);

  it('is dropped only once that session has ended, never under it', async () => {
    const taker = await connect(s.connectionUri);
    try {
      const name = await take(taker);
      const holder = await connect(s.connectionUri, name);
      await holder.query('BEGIN');
      await holder.query('INSERT INTO t VALUES (2)');
      await taker.query('SELECT pgtmpfs.give_back($1)', [name]);
      // The keeper looks every 100 ms: a few of its rounds pass with the session still on the copy.
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await holder.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 2 }]);
      await holder.query('COMMIT');
      expect(await poolDatabases(s.connectionUri)).toContain(name);
      await holder.end();
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
    } finally {
      await taker.end();
    }
  });
});

describe('pool: other roles, a NULL timeout, and db take without a pool (unclear errors 8, 10, 20)', () => {
  const s = poolServer('roles', 1);

  it('a role that is not the instance user takes and gives back', async () => {
    await withClient(s.connectionUri, 'postgres', (c) => c.query("CREATE ROLE tester LOGIN PASSWORD 'tester'"));
    const url = new URL(s.connectionUri);
    url.username = 'tester';
    url.password = 'tester';
    const tester = await connect(url.toString());
    try {
      const name = await take(tester);
      expect(name).toMatch(/^app_pool_/);
      await tester.query('SELECT pgtmpfs.give_back($1)', [name]);
      // The bookkeeping stays the instance user's.
      const error = await tester.query('SELECT * FROM pgtmpfs.copies').catch((e: Error) => e);
      expect((error as Error).message).toBe('permission denied for table copies');
    } finally {
      await tester.end();
    }
  });

  it('take(NULL) says it is not a wait', async () => {
    const c = await connect(s.connectionUri);
    try {
      const error = await c.query('SELECT pgtmpfs.take(NULL)').catch((e: Error) => e);
      expect((error as Error).message).toBe('pg-tmpfs pool: take(NULL) is not a wait: give the longest wait in ms, 0 or more');
      expect((await takeError(c, -1)).message).toBe(
        'pg-tmpfs pool: take(-1) is not a wait: give the longest wait in ms, 0 or more',
      );
    } finally {
      await c.end();
    }
  });

  it('db take and db give-back on an instance without a pool name the pool flag', () => {
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'nopool', '--json'];
    const up = cli(args);
    expect(up.status, up.stderr).toBe(0);
    try {
      for (const command of [
        ['db', 'take'],
        ['db', 'give-back', 'app_pool_000000000000'],
      ]) {
        const r = cli([...command, '--name', 'nopool']);
        expect(r.status).toBe(1);
        expect(r.stderr).toMatch(/^error: --pool: instance "nopool" has no pool, so there is no copy to take or give back\. /);
      }
    } finally {
      expect(cli(['down', '--name', 'nopool']).status).toBe(0);
    }
  });
});

describe('pool: a draw lock left held (a take cancelled mid-draw)', () => {
  const s = poolServer('drawlock', 1);

  it('other takes time out naming the session that holds it; its own next take releases it', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 1)).toBe(true);
    const holder = await connect(s.connectionUri);
    const other = await connect(s.connectionUri);
    try {
      // What a cancel between pg_try_advisory_lock and the unlock leaves: the lock held, idle.
      await holder.query(`SELECT pg_advisory_lock(${DRAW_LOCK_KEY})`);
      const pid = Number((await holder.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
      const error = await takeError(other, 300);
      expect(error.message).toContain(`; session ${pid} holds the pool's draw lock (a take cancelled mid-draw)`);
      const name = await take(holder);
      expect(name).toMatch(/^app_pool_/);
      expect(await take(other)).toMatch(/^app_pool_/);
    } finally {
      await holder.end();
      await other.end();
    }
  });
});

describe('pool: copies touched by someone else, read-only transactions, odd give-backs (own sweep)', () => {
  const s = poolServer('touched', 2);

  it('a ready copy someone connected to, or dropped, is never handed out', async () => {
    expect(await until(async () => (await ready(s.connectionUri)).length === 2)).toBe(true);
    const [used, dropped] = await ready(s.connectionUri);
    await withClient(s.connectionUri, used as string, (c) => c.query('CREATE TABLE evil (x int)'));
    await withClient(s.connectionUri, 'postgres', (c) => c.query(`DROP DATABASE "${dropped as string}"`));
    const c = await connect(s.connectionUri);
    try {
      for (let i = 0; i < 3; i++) {
        const name = await take(c);
        expect([used, dropped]).not.toContain(name);
        const evil = await withClient(
          s.connectionUri,
          name,
          async (x) => (await x.query("SELECT to_regclass('evil') AS r")).rows,
        );
        expect(evil).toEqual([{ r: null }]);
      }
    } finally {
      await c.end();
    }
  });

  it("take() in a read-only transaction, give_back(NULL) and give_back('') say what is wrong", async () => {
    const c = await connect(s.connectionUri);
    try {
      await c.query('BEGIN READ ONLY');
      const readOnly = await c.query('SELECT pgtmpfs.take(100)').catch((e: Error) => e);
      expect((readOnly as Error).message).toBe(
        'pg-tmpfs pool: take() draws a ticket (nextval), which a read-only transaction cannot',
      );
      await c.query('ROLLBACK');
      for (const [arg, shown] of [
        [null, 'NULL'],
        ['', "''"],
      ] as const) {
        const error = await c.query('SELECT pgtmpfs.give_back($1)', [arg]).catch((e: Error) => e);
        expect((error as Error).message).toBe(`pg-tmpfs pool: give_back(${shown}) names no copy`);
      }
    } finally {
      await c.end();
    }
  });
});

describe('pool: a full tmpfs (own sweep)', () => {
  const s = poolServer('full', 2, ['--tmpfs-size', '200m']);

  it('the keeper stops short of filling it, says why, and the server never restarts', async () => {
    const started = await withClient(
      s.connectionUri,
      'postgres',
      async (c) => (await c.query('SELECT pg_postmaster_start_time()::text AS t')).rows,
    );
    const c = await connect(s.connectionUri);
    let error: Error | null = null;
    try {
      for (let i = 0; i < 40 && !error; i++) {
        try {
          await take(c, 3_000);
        } catch (e) {
          error = e as Error;
        }
      }
    } finally {
      await c.end();
    }
    expect(error?.message).toMatch(
      /^pg-tmpfs pool: no ready copy of app within 3000 ms .*the keeper's last problem: PGDATA's filesystem has [\d.]+ MB free, and the keeper leaves 64\.0 MB beside two copies/,
    );
    const after = await withClient(
      s.connectionUri,
      'postgres',
      async (x) => (await x.query('SELECT pg_postmaster_start_time()::text AS t')).rows,
    );
    expect(after).toEqual(started);
  });
});
