/**
 * Section 9's runs: the ways of isolating a test (cases), the template they start from, and one
 * run of a case with N clients on a server (measureRun), each client running tests back to back
 * on its own databases. See per-test.ts for the section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { openClient } from '../../src/readiness.js';
import { throwIfInterrupted } from '../lib/cleanup.js';
import type { Length } from '../lib/pgbench.js';
import { parseScript, runScript, type Command } from '../lib/pg-script.js';
import { SQL_DIR } from '../lib/workloads.js';
import {
  percentiles,
  pooledTest,
  startRunPool,
  type Lap,
  type Percentiles,
  type PoolCost,
  type RunPool,
} from './per-test-pool.js';

const script = (name: string) => parseScript(readFileSync(join(SQL_DIR, name), 'utf8'));

/** The template every case starts from (bench/sql/per-test-schema.sql). */
const TEMPLATE = 'pt_template';

/** A CREATE DATABASE strategy (PostgreSQL 15 and later); `default`: no STRATEGY clause. */
export type Strategy = 'FILE_COPY' | 'WAL_LOG' | 'default';

/** One way of isolating a test: a fresh database per test, or statements around the body in the client's own database. */
export interface PerTestCase {
  key: string;
  label: string;
  /** A fresh database per test with this strategy; absent: the client's own database, kept for the run. */
  clone?: Strategy;
  /** A copy from the server's pool of this many ready copies per test (per-test-pool.ts), given back after. */
  pool?: number;
  /** Commands before the body (e.g. BEGIN), in the client's own database. */
  before: Command[];
  /** Commands after the body (e.g. ROLLBACK, TRUNCATE). */
  after: Command[];
  /** The test's body, a file in bench/sql (default per-test-body.sql; REAL_BODY for tests that do real work). */
  body?: string;
}

/** The body of a test that does real work (table `real_work`, issue #43). */
export const REAL_BODY = 'per-test-body-real.sql';

/**
 * The cases of table `real_work`: a fresh database per test (FILE_COPY) and the pool of 8, with
 * REAL_BODY: whether the pool pays when each test does real work (PostgreSQL 15+).
 */
export function realWorkCases(): PerTestCase[] {
  return [cloneCase('FILE_COPY'), poolCase(8)].map((c) => ({
    ...c,
    key: `real-${c.key}`,
    label: c.label.replace('the test', 'a test that does real work'),
    body: REAL_BODY,
  }));
}

const cloneKey = (s: Strategy) => (s === 'default' ? 'clone' : `clone-${s.toLowerCase().replace('_', '-')}`);

/** A fresh-database case for a strategy. */
export function cloneCase(strategy: Strategy): PerTestCase {
  const how = strategy === 'default' ? '' : `, STRATEGY ${strategy}`;
  return {
    key: cloneKey(strategy),
    label: `Fresh database from the template${how}: CREATE DATABASE, connect, the test, disconnect, DROP DATABASE`,
    clone: strategy,
    before: [],
    after: [],
  };
}

/** A pooled case: a server started with a pool of `size` (`pg-tmpfs up --pool <size>`). */
export function poolCase(size: number): PerTestCase {
  return {
    key: `pool-${size}`,
    label: `Pool of ${size} ready copies: SELECT pgtmpfs.take(), connect, the test, disconnect, SELECT pgtmpfs.give_back(name)`,
    pool: size,
    before: [],
    after: [],
  };
}

/**
 * The pool sizes measured: 8, twice the 4 clients (each worker's copy in use and one ready
 * behind it), and 32, to see whether a deeper pool changes anything once the keeper is behind.
 */
export const POOL_SIZES = [8, 32] as const;

/**
 * The cases of the isolation table for a server of `major`: a fresh database per test (STRATEGY
 * FILE_COPY from PostgreSQL 15, the CLI's default on tmpfs; before it, no STRATEGY), the pool
 * (PostgreSQL 15+, as the pool input needs), TRUNCATE, rollback, DELETE. WAL_LOG is in the
 * strategy table.
 */
export function perTestCases(major: number): PerTestCase[] {
  return [
    ...(major >= 15 ? [cloneCase('FILE_COPY'), ...POOL_SIZES.map(poolCase)] : [cloneCase('default')]),
    {
      key: 'truncate',
      label: 'The test, then TRUNCATE of its 3 tables … RESTART IDENTITY CASCADE (11 tables emptied), same database',
      before: [],
      after: script('per-test-truncate.sql'),
    },
    {
      key: 'rollback',
      label: 'BEGIN, the test, ROLLBACK, same database',
      before: [{ sql: 'BEGIN', gset: false }],
      after: [{ sql: 'ROLLBACK', gset: false }],
    },
    {
      key: 'delete',
      label: 'The test, then DELETE FROM its 3 tables (children first), same database',
      before: [],
      after: script('per-test-delete.sql'),
    },
  ];
}

/** A server the section measures on, reached over TCP with a password as a test suite reaches it. */
export interface Target {
  /** Key in case ids, e.g. `off-tmpfs`, `native-15`, `docker-17`. */
  key: string;
  /** Row label of the strategy table, e.g. `PostgreSQL 17.7, Docker mode (pg-tmpfs-test/postgres:17)`. */
  label: string;
  conn: ConnectionInfo;
  major: number;
  /** The server's RUN_ENV token, for the pool's keeper (needed by pool cases only). */
  token?: string;
}

/** A client for `database` on the target's server, with deadlines (connect 10 s, statement 60 s). */
export function connect(conn: ConnectionInfo, database: string): Promise<pg.Client> {
  return openClient({ ...conn, database }, { connectTimeoutMs: 10_000, queryTimeoutMs: 70_000, statementTimeoutMs: 60_000 });
}

/** Connects to `database`, runs `fn`, disconnects. */
export async function withConnection<T>(conn: ConnectionInfo, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(conn, database);
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's version (`server_version`, e.g. `17.7 (Debian 17.7-1)` cut at the first space) and major. */
export async function serverVersion(conn: ConnectionInfo): Promise<{ version: string; major: number }> {
  return withConnection(conn, 'postgres', async (c) => {
    const r = await c.query<{ v: string; n: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('server_version_num') AS n",
    );
    const row = r.rows[0];
    return { version: (row?.v ?? '?').split(' ')[0] as string, major: Math.floor(Number(row?.n ?? 0) / 10000) };
  });
}

/** Database names of client `i`: its own database (kept for a run), and the two fresh ones it alternates. */
const workerDb = (i: number) => `pt_w${i}`;
const cloneDb = (i: number, test: number) => `pt_c${i}_${test % 2}`;

/** Drops client `i`'s databases, when they exist (`WITH (FORCE)`: a connection still closing does not stop it). */
async function dropClientDatabases(admin: pg.Client, i: number): Promise<void> {
  for (const db of [workerDb(i), cloneDb(i, 0), cloneDb(i, 1)]) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
}

/**
 * Creates the template (bench/sql/per-test-schema.sql) on a server, then clones and drops it once,
 * off the clock, which also waits until the connection that loaded it has gone.
 */
export async function prepareTemplate(conn: ConnectionInfo): Promise<void> {
  await withConnection(conn, 'postgres', async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${TEMPLATE}`);
  });
  await withConnection(conn, TEMPLATE, (c) => c.query(readFileSync(join(SQL_DIR, 'per-test-schema.sql'), 'utf8')));
  await withConnection(conn, 'postgres', async (c) => {
    await c.query(`CREATE DATABASE pt_warmup TEMPLATE ${TEMPLATE}`);
    await c.query('DROP DATABASE pt_warmup');
  });
}

/** What one run of a case measured. */
export interface RunResult {
  /** Tests completed, all clients together. */
  tests: number;
  /** Wall time from the first test's start until the last client finished its last test, s. */
  seconds: number;
  /**
   * Where a client's time went, ms per test (summed over clients, divided by tests), by part:
   * `CREATE DATABASE`, `DROP DATABASE`, `connect`, `the test`, `disconnect` for a fresh database;
   * `take`, `connect`, `the test`, `disconnect`, `give back` for the pool;
   * `before the test` (BEGIN), `the test`, `after the test` (ROLLBACK, TRUNCATE, DELETE) else.
   */
  msPerTestByPart: Record<string, number>;
  /** One whole test's ms (each test timed on its client), percentiles over the run's tests. */
  testMs: Percentiles | null;
  /** The pool's take and give-back ms, and what its keeper did and cost; pool cases only. */
  pool?: PoolCost & { size: number; takeMs: Percentiles | null; giveBackMs: Percentiles | null };
}

/**
 * Client `i`'s test number `done` of `kase` on its kept connection `c` (to its own database, or
 * to `postgres` to clone from or take from the pool), each part's time added with `lap`.
 */
async function oneTest(
  target: Target,
  kase: PerTestCase,
  body: readonly Command[],
  c: pg.Client,
  i: number,
  done: number,
  lap: Lap,
  pool: { takes: number[]; givesBack: number[] },
): Promise<void> {
  let t = performance.now();
  if (kase.pool) {
    await pooledTest(c, (db) => connect(target.conn, db), body, lap, pool.takes, pool.givesBack);
    return;
  }
  if (!kase.clone) {
    const vars = new Map<string, string>();
    await runScript(c, kase.before, vars);
    t = lap('before the test', t);
    await runScript(c, body, vars);
    t = lap('the test', t);
    await runScript(c, kase.after, vars);
    lap('after the test', t);
    return;
  }
  const strategy = kase.clone !== 'default' ? ` STRATEGY ${kase.clone}` : '';
  const db = cloneDb(i, done);
  await c.query(`CREATE DATABASE ${db} TEMPLATE ${TEMPLATE}${strategy}`);
  t = lap('CREATE DATABASE', t);
  // The previous test's database: its connection closed one CREATE DATABASE ago.
  if (done > 0) await c.query(`DROP DATABASE ${cloneDb(i, done - 1)}`);
  t = lap('DROP DATABASE', t);
  const test = await connect(target.conn, db);
  t = lap('connect', t);
  try {
    await runScript(test, body);
  } finally {
    t = lap('the test', t);
    await test.end().catch(() => undefined);
    lap('disconnect', t);
  }
}

/**
 * One run of a case with `clients` clients, each running tests back to back for `length` (a time,
 * or a number of tests per client). Off the clock, before: what an earlier run may have left is
 * dropped, each client's own database is cloned from the template (same-database cases), a
 * CHECKPOINT, the pool started and filled (pool cases), and each client opens the connection it
 * keeps for the run (to its own database, or to `postgres` to clone or take from). Off the clock,
 * after: connections closed, the pool's keeper ended, databases dropped.
 * @returns tests completed, seconds (tests per second = tests / seconds), and the parts of a test
 * @throws Error from the first client that failed (the others stop after their current test)
 */
export async function measureRun(target: Target, kase: PerTestCase, clients: number, length: Length): Promise<RunResult> {
  const body = script(kase.body ?? 'per-test-body.sql');
  const admin = await connect(target.conn, 'postgres');
  const kept: pg.Client[] = [];
  const parts: Record<string, number> = {};
  const testMs: number[] = [];
  const pooled = { takes: [] as number[], givesBack: [] as number[] };
  let runPool: RunPool | undefined;
  const lap: Lap = (part, since) => {
    const now = performance.now();
    parts[part] = (parts[part] ?? 0) + (now - since);
    return now;
  };
  try {
    for (let i = 0; i < clients; i++) await dropClientDatabases(admin, i);
    if (!kase.clone) for (let i = 0; i < clients; i++) await admin.query(`CREATE DATABASE ${workerDb(i)} TEMPLATE ${TEMPLATE}`);
    await admin.query('CHECKPOINT');
    if (kase.pool) {
      if (!target.token) throw new Error(`${target.key}: no RUN_ENV token for the pool's keeper`);
      runPool = await startRunPool(target.conn, target.token, TEMPLATE, kase.pool, admin);
    }
    const own = kase.clone || kase.pool;
    for (let i = 0; i < clients; i++) kept.push(await connect(target.conn, own ? 'postgres' : workerDb(i)));
    let stop = false;
    await runPool?.begin();
    const t0 = performance.now();
    const more = (done: number) =>
      !stop && ('transactions' in length ? done < length.transactions : performance.now() < t0 + length.seconds * 1000);
    const client = async (c: pg.Client, i: number): Promise<number> => {
      let done = 0;
      try {
        while (more(done)) {
          throwIfInterrupted();
          const start = performance.now();
          await oneTest(target, kase, body, c, i, done, lap, pooled);
          testMs.push(performance.now() - start);
          done += 1;
        }
        return done;
      } catch (error) {
        stop = true;
        throw error;
      }
    };
    const settled = await Promise.allSettled(kept.map((c, i) => client(c, i)));
    const seconds = (performance.now() - t0) / 1000;
    const cost = await runPool?.end();
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const tests = settled.reduce((sum, s) => sum + (s.status === 'fulfilled' ? s.value : 0), 0);
    if (tests === 0) throw new Error('no test completed');
    const msPerTestByPart = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v / tests]));
    const pool =
      cost && kase.pool
        ? { size: kase.pool, ...cost, takeMs: percentiles(pooled.takes), giveBackMs: percentiles(pooled.givesBack) }
        : undefined;
    return { tests, seconds, msPerTestByPart, testMs: percentiles(testMs), ...(pool ? { pool } : {}) };
  } finally {
    for (const c of kept) await c.end().catch(() => undefined);
    try {
      await runPool?.stop();
      for (let i = 0; i < clients; i++) await dropClientDatabases(admin, i);
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
}
