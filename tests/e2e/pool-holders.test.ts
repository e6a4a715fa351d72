/**
 * Who holds a copy (issue #43: the sweep's 35, a role giving back another's copy; 111 and the
 * "Also", copies taken for a client that gave up or died, kept until `down`). take() records the
 * taker's role and the session that holds the copy; only that role or a superuser gives it back,
 * and a copy nobody holds or uses is given back after reclaim.ts's wait (here 1 500 ms,
 * PG_TMPFS_POOL_RECLAIM_MS). A taker's open transaction never stalls the keeper.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { RECLAIM_ENV } from '../../src/pool/reclaim.js';
import { cli, connect, dbUri, env, poolDatabases, poolServer, rows, take, until, withClient, work } from '../helpers/pool.js';

env[RECLAIM_ENV] = '1500';

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A role of the test's own (LOGIN), and its connection string. */
async function role(uri: string, name: string): Promise<string> {
  await withClient(uri, 'postgres', (c) => c.query(`CREATE ROLE ${name} LOGIN PASSWORD '${name}'`));
  const url = new URL(uri);
  url.username = name;
  url.password = name;
  return url.toString();
}

/** Copies the keeper gave back because their taker was gone. */
const reclaimed = async (uri: string) => (await rows<{ n: number }>(uri, 'SELECT reclaimed AS n FROM pgtmpfs.keeper'))[0]?.n;

describe('pool: who may give a copy back (the sweep 35, security)', () => {
  const s = poolServer('owners', 2);

  it("only the taker's role or a superuser gives a copy back; the copy stays the instance user's", async () => {
    const alice = await connect(await role(s.connectionUri, 'alice'));
    const mallory = await connect(await role(s.connectionUri, 'mallory'));
    try {
      const name = await take(alice);
      const owner = await rows<{ o: string; t: string }>(
        s.connectionUri,
        'SELECT d.datdba::regrole::text AS o, c.taken_by::regrole::text AS t FROM pg_database d JOIN pgtmpfs.copies c ON c.name = d.datname WHERE d.datname = $1',
        [name],
      );
      expect(owner).toEqual([{ o: 'postgres', t: 'alice' }]);
      const refused = await mallory.query('SELECT pgtmpfs.give_back($1)', [name]).catch((e: pg.DatabaseError) => e);
      expect((refused as pg.DatabaseError).message).toBe(
        `pg-tmpfs pool: ${name} was taken by role alice, and only that role or a superuser may give it back (this session is role mallory)`,
      );
      expect((refused as pg.DatabaseError).code).toBe('42501');
      expect(await poolDatabases(s.connectionUri)).toContain(name);
      await alice.query('SELECT pgtmpfs.give_back($1)', [name]);
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
      // The instance's user (a superuser) may give back anyone's.
      const other = await take(alice);
      await withClient(s.connectionUri, 'postgres', (c) => c.query('SELECT pgtmpfs.give_back($1)', [other]));
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(other))).toBe(true);
    } finally {
      await alice.end();
      await mallory.end();
    }
  });
});

describe('pool: copies whose taker is gone (the sweep 111, and the "Also")', () => {
  const s = poolServer('holders', 2);

  it('a taker whose session ended without giving back: its copy is given back after the wait', async () => {
    const before = await reclaimed(s.connectionUri);
    const name = await withClient(s.connectionUri, 'postgres', (c) => take(c));
    expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
    expect(await reclaimed(s.connectionUri)).toBe((before ?? 0) + 1);
  });

  it('a client that gave up on take() (query_timeout) and ended: the copy the server went on to take is given back', async () => {
    // The pool empty and the keeper unable to make more (a session on the template) for the moment.
    const names = await withClient(s.connectionUri, 'postgres', async (c) => [await take(c), await take(c)]);
    const onTemplate = await connect(s.connectionUri, 'app');
    const impatient = new pg.Client({ connectionString: dbUri(s.connectionUri, 'postgres'), query_timeout: 300 });
    impatient.on('error', () => undefined);
    await impatient.connect();
    const gaveUp = await impatient.query('SELECT pgtmpfs.take(8000)').catch((e: Error) => e);
    expect((gaveUp as Error).message).toBe('Query read timeout');
    const taken = async () =>
      (
        await rows<{ n: number }>(
          s.connectionUri,
          "SELECT count(*)::int AS n FROM pgtmpfs.copies WHERE state = 'made' AND slot <= (SELECT last_value FROM pgtmpfs.tickets)",
        )
      )[0]?.n ?? 0;
    const held = await taken();
    await onTemplate.end();
    // The server-side take goes on and draws the next copy once the keeper has made it.
    expect(await until(async () => (await taken()) === held + 1)).toBe(true);
    await impatient.end();
    // Every copy of this test given back once its holder ended: the two taken above, and the impatient one.
    expect(await until(async () => (await taken()) === 0)).toBe(true);
    for (const name of names) expect(await poolDatabases(s.connectionUri)).not.toContain(name);
  });

  it('kept while the taking session lives, or while another session is on the copy; db take (handed off) is never reclaimed', async () => {
    const taker = await connect(s.connectionUri);
    const held = await take(taker);
    const used = await withClient(s.connectionUri, 'postgres', (c) => take(c));
    const user = await connect(s.connectionUri, used);
    const handedOff = JSON.parse(cli(['db', 'take', '--name', 'holders', '--json']).stdout) as { database: string };
    try {
      // Well past the wait: nothing is given back.
      await new Promise((r) => setTimeout(r, 4_000));
      const all = await poolDatabases(s.connectionUri);
      expect(all).toEqual(expect.arrayContaining([held, used, handedOff.database]));
      await user.end();
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(used))).toBe(true);
      expect(await poolDatabases(s.connectionUri)).toEqual(expect.arrayContaining([held, handedOff.database]));
      await taker.query('SELECT pgtmpfs.give_back($1)', [held]);
      expect(cli(['db', 'give-back', handedOff.database, '--name', 'holders']).status).toBe(0);
    } finally {
      await taker.end();
    }
  });
});

describe('pool: a taker in an open transaction (second reading)', () => {
  const s = poolServer('open-tx', 1);

  it('a give_back left uncommitted past the wait stalls nothing: the keeper skips the locked row, takes go on', async () => {
    const idle = await connect(s.connectionUri);
    try {
      await idle.query('BEGIN');
      const name = await take(idle);
      await idle.query('SELECT pgtmpfs.give_back($1)', [name]);
      // Past the reclaim wait, the keeper still makes copies and takes get them.
      await new Promise((r) => setTimeout(r, 3_000));
      const next = await withClient(s.connectionUri, 'postgres', (c) => take(c, 10_000));
      expect(next).toMatch(/^app_pool_/);
      await idle.query('COMMIT');
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
    } finally {
      await idle.end();
    }
  });

  it('a take rolled back: its row forgets the holder, and the copy is given back once unused', async () => {
    const c = await connect(s.connectionUri);
    try {
      await c.query('BEGIN');
      const name = await take(c);
      await c.query('ROLLBACK');
      // The row's holder was undone with the transaction; the ticket stayed spent.
      const row = await rows<{ t: string | null }>(
        s.connectionUri,
        'SELECT taken_by::text AS t FROM pgtmpfs.copies WHERE name = $1',
        [name],
      );
      expect(row).toEqual([{ t: null }]);
      expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
    } finally {
      await c.end();
    }
  });
});

describe('pool: takes still open in a transaction (a third reading)', () => {
  const s = poolServer('open-take', 2);

  it("another role's give_back waits for the take to commit, then is refused: the taker's role was not visible yet", async () => {
    const alice = await connect(await role(s.connectionUri, 'alice2'));
    const mallory = await connect(await role(s.connectionUri, 'mallory2'));
    try {
      await alice.query('BEGIN');
      const name = await take(alice);
      const attempt = mallory.query('SELECT pgtmpfs.give_back($1)', [name]).then(
        () => 'given back',
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 500));
      await alice.query('COMMIT');
      expect(await attempt).toBe(
        `pg-tmpfs pool: ${name} was taken by role alice2, and only that role or a superuser may give it back (this session is role mallory2)`,
      );
      await alice.query('SELECT pgtmpfs.give_back($1)', [name]);
    } finally {
      await alice.end();
      await mallory.end();
    }
  });

  it('a take left open past the wait, then committed and its session closed: the copy waits the whole wait again', async () => {
    const c = await connect(s.connectionUri);
    await c.query('BEGIN');
    const name = await take(c);
    // Past the wait (1 500 ms) while the take is open: its row is locked, so no wait runs.
    await new Promise((r) => setTimeout(r, 3_000));
    await c.query('COMMIT');
    await c.end();
    // The test connects a moment later, as a fixture that closed its admin session does.
    await new Promise((r) => setTimeout(r, 500));
    const user = await connect(s.connectionUri, name);
    try {
      expect((await user.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await poolDatabases(s.connectionUri)).toContain(name);
    } finally {
      await user.end();
    }
    expect(await until(async () => !(await poolDatabases(s.connectionUri)).includes(name))).toBe(true);
  });
});
