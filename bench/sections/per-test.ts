/**
 * Section 9 (`per_test`, issue #13): what isolating each test from the next costs, per test, on
 * the action's server (data directory on tmpfs, the durability profile), with a 20-table schema
 * (bench/sql/per-test-schema.sql) and one test body that touches three of its tables
 * (bench/sql/per-test-body.sql), at 1 and 4 clients (each client its own databases, like one
 * worker of a parallel suite):
 *
 * - a fresh database per test from the template, STRATEGY FILE_COPY and WAL_LOG: CREATE
 *   DATABASE, a new connection to it (TCP, password), the body, disconnect, DROP DATABASE (of the
 *   previous test's database, so the drop never waits for a backend that is still exiting);
 * - TRUNCATE of the touched tables after the body (CASCADE: the tables referencing them too);
 * - the body in a transaction rolled back;
 * - DELETE of the touched tables' rows after the body.
 *
 * Table `isolation`: the five cases on the action's native server (the native major), the cases
 * interleaved in each repetition. Table `strategy`: FILE_COPY against WAL_LOG alone, interleaved,
 * on every major from 15 (the first with STRATEGY) that runs here: each installed native major,
 * and each local test image in Docker mode (buildRunPlan's arguments: tmpfs, the profile; settings
 * and tmpfs verified as start() verifies them). The CLI's `db create` picks its default strategy
 * from that table.
 *
 * The section drives the server with its own client (node-postgres, one connection per client,
 * one statement per round trip) rather than pgbench, because a test in a fresh database needs a
 * connection of its own, and pgbench keeps one database per run. Every case uses the same client,
 * so the cases compare with each other; absolute figures are not comparable with pgbench's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { dockerOk } from '../../src/docker/engine.js';
import { buildRunPlan } from '../../src/docker/run-plan.js';
import { installedBinaries, realProbe } from '../../src/native/binaries.js';
import { effectiveSettings } from '../../src/profile.js';
import { openClient } from '../../src/readiness.js';
import { filesystemTypeOf, isRamFilesystem, verifyServer } from '../../src/verify.js';
import { throwIfInterrupted } from '../lib/cleanup.js';
import { imageLayout, publishedPort, runContainer } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import type { Length } from '../lib/pgbench.js';
import { matrixSpecs, startServer, type BenchServer } from '../lib/pgserver.js';
import { untilAnswered } from '../lib/query.js';
import { rotation } from '../lib/results.js';
import { inputs } from '../lib/timed.js';
import { SQL_DIR } from '../lib/workloads.js';
import { MAJOR_IMAGES } from './majors.js';
import { runOptions } from './startup.js';

/** One command of a script: its SQL, and whether the columns of its one row become variables (`\gset`). */
export interface Command {
  sql: string;
  gset: boolean;
}

/**
 * Parses a script in pgbench's syntax, as far as the section's scripts use it: `--` comment
 * lines; SQL commands that end with `;` at the end of a line, or with `\gset` (no `;`).
 * @throws Error when the text ends inside a command
 */
export function parseScript(text: string): Command[] {
  const out: Command[] = [];
  let lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!lines.length && (line.trim() === '' || line.trimStart().startsWith('--'))) continue;
    if (line.endsWith('\\gset')) {
      out.push({ sql: [...lines, line.slice(0, -'\\gset'.length).trimEnd()].join('\n'), gset: true });
      lines = [];
    } else if (line.endsWith(';')) {
      out.push({ sql: [...lines, line.slice(0, -1)].join('\n'), gset: false });
      lines = [];
    } else {
      lines.push(line);
    }
  }
  if (lines.some((l) => l.trim())) throw new Error(`script ends inside a command: ${lines.join(' ')}`);
  return out;
}

/**
 * Replaces each `:name` with the value of variable `name` (`::type` casts are left alone). Values
 * are whole numbers only (ids a `\gset` stored), so they go into the SQL text as pgbench puts them.
 * @throws Error for a variable that is not set
 */
export function substitute(sql: string, vars: ReadonlyMap<string, string>): string {
  return sql.replace(/(?<!:):([a-z_][a-z0-9_]*)/gi, (_, name: string) => {
    const value = vars.get(name);
    if (value === undefined) throw new Error(`script variable :${name} is not set`);
    return value;
  });
}

/**
 * Runs commands one by one on `client` (one round trip each, simple query protocol, as pgbench's
 * default), storing the columns of each `\gset` command's row in `vars`.
 * @throws Error when a command fails, or a `\gset` command does not return exactly one row of whole numbers
 */
export async function runScript(
  client: pg.Client,
  commands: readonly Command[],
  vars = new Map<string, string>(),
): Promise<void> {
  for (const command of commands) {
    const r = await client.query<Record<string, unknown>>(substitute(command.sql, vars));
    if (!command.gset) continue;
    const row = r.rows[0];
    if (r.rows.length !== 1 || !row) throw new Error(`\\gset needs one row, got ${r.rows.length}: ${command.sql}`);
    for (const [name, value] of Object.entries(row)) {
      if (!/^-?\d+$/.test(String(value))) throw new Error(`\\gset: ${name} = ${String(value)} is not a whole number`);
      vars.set(name, String(value));
    }
  }
}

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
  /** Commands before the body (e.g. BEGIN), in the client's own database. */
  before: Command[];
  /** Commands after the body (e.g. ROLLBACK, TRUNCATE). */
  after: Command[];
}

const cloneKey = (s: Strategy) => (s === 'default' ? 'clone' : `clone-${s.toLowerCase().replace('_', '-')}`);

/** A fresh-database case for a strategy. */
function cloneCase(strategy: Strategy): PerTestCase {
  const how = strategy === 'default' ? '' : `, STRATEGY ${strategy}`;
  return {
    key: cloneKey(strategy),
    label: `Fresh database from the template${how}: CREATE DATABASE, connect, the test, disconnect, DROP DATABASE`,
    clone: strategy,
    before: [],
    after: [],
  };
}

/**
 * The cases for a server of `major`: both strategies from PostgreSQL 15 (before it, one fresh
 * database case without STRATEGY), TRUNCATE, rollback, DELETE.
 */
export function perTestCases(major: number): PerTestCase[] {
  return [
    ...(major >= 15 ? [cloneCase('FILE_COPY'), cloneCase('WAL_LOG')] : [cloneCase('default')]),
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
interface Target {
  /** Key in case ids, e.g. `off-tmpfs`, `native-15`, `docker-17`. */
  key: string;
  /** Row label of the strategy table, e.g. `PostgreSQL 17.7, Docker mode (pg-tmpfs-test/postgres:17)`. */
  label: string;
  conn: ConnectionInfo;
  major: number;
}

/** A client for `database` on the target's server, with deadlines (connect 10 s, statement 60 s). */
function connect(conn: ConnectionInfo, database: string): Promise<pg.Client> {
  return openClient({ ...conn, database }, { connectTimeoutMs: 10_000, queryTimeoutMs: 70_000, statementTimeoutMs: 60_000 });
}

/** Connects to `database`, runs `fn`, disconnects. */
async function withConnection<T>(conn: ConnectionInfo, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(conn, database);
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's version (`server_version`, e.g. `17.7 (Debian 17.7-1)` cut at the first space) and major. */
async function serverVersion(conn: ConnectionInfo): Promise<{ version: string; major: number }> {
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
async function prepareTemplate(conn: ConnectionInfo): Promise<void> {
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
   * `before the test` (BEGIN), `the test`, `after the test` (ROLLBACK, TRUNCATE, DELETE) else.
   */
  msPerTestByPart: Record<string, number>;
}

/**
 * One run of a case with `clients` clients, each running tests back to back for `length` (a time,
 * or a number of tests per client). Off the clock, before: what an earlier run may have left is
 * dropped, each client's own database is cloned from the template (same-database cases), a
 * CHECKPOINT, and each client opens the connection it keeps for the run (to its own database, or
 * to `postgres` to clone from). Off the clock, after: connections closed, databases dropped.
 * @returns tests completed, seconds (tests per second = tests / seconds), and the parts of a test
 * @throws Error from the first client that failed (the others stop after their current test)
 */
export async function measureRun(target: Target, kase: PerTestCase, clients: number, length: Length): Promise<RunResult> {
  const body = script('per-test-body.sql');
  const admin = await connect(target.conn, 'postgres');
  const kept: pg.Client[] = [];
  const parts: Record<string, number> = {};
  /** Adds the time since `since` to `part`; returns now. */
  const lap = (part: string, since: number): number => {
    const now = performance.now();
    parts[part] = (parts[part] ?? 0) + (now - since);
    return now;
  };
  try {
    for (let i = 0; i < clients; i++) await dropClientDatabases(admin, i);
    if (!kase.clone) for (let i = 0; i < clients; i++) await admin.query(`CREATE DATABASE ${workerDb(i)} TEMPLATE ${TEMPLATE}`);
    await admin.query('CHECKPOINT');
    for (let i = 0; i < clients; i++) kept.push(await connect(target.conn, kase.clone ? 'postgres' : workerDb(i)));
    const strategy = kase.clone && kase.clone !== 'default' ? ` STRATEGY ${kase.clone}` : '';
    let stop = false;
    const t0 = performance.now();
    const more = (done: number) =>
      !stop && ('transactions' in length ? done < length.transactions : performance.now() < t0 + length.seconds * 1000);
    const client = async (c: pg.Client, i: number): Promise<number> => {
      let done = 0;
      try {
        while (more(done)) {
          throwIfInterrupted();
          let t = performance.now();
          if (!kase.clone) {
            const vars = new Map<string, string>();
            await runScript(c, kase.before, vars);
            t = lap('before the test', t);
            await runScript(c, body, vars);
            t = lap('the test', t);
            await runScript(c, kase.after, vars);
            lap('after the test', t);
          } else {
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
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const tests = settled.reduce((sum, s) => sum + (s.status === 'fulfilled' ? s.value : 0), 0);
    if (tests === 0) throw new Error('no test completed');
    const msPerTestByPart = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v / tests]));
    return { tests, seconds, msPerTestByPart };
  } finally {
    for (const c of kept) await c.end().catch(() => undefined);
    try {
      for (let i = 0; i < clients; i++) await dropClientDatabases(admin, i);
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
}

/**
 * Runs every case in `cases` at every client count, `reps` times, the cases interleaved (rotated
 * each repetition); each run is one sample (tests per second) of its case. A failed run is
 * recorded on its case and the section goes on.
 */
async function measureCases(
  ctx: Context,
  target: Target,
  cases: readonly PerTestCase[],
  table: 'isolation' | 'strategy',
): Promise<void> {
  const { options, results } = ctx;
  const length: Length = options.transactions ? { transactions: options.transactions } : { seconds: options.seconds };
  const clientsLabel = (n: number) => `${n} client${n === 1 ? '' : 's'}`;
  const caseOf = (kase: PerTestCase, clients: number) =>
    results.get(
      'per_test',
      `per_test/${kase.key}/c${clients}/${target.key}`,
      table === 'isolation' ? kase.label : target.label,
      table === 'isolation' ? clientsLabel(clients) : `${kase.clone}, ${clientsLabel(clients)}`,
      'tps',
      table,
    );
  // Cases are created up front so the tables list them in this order.
  for (const clients of options.clients) for (const kase of cases) caseOf(kase, clients);
  for (const clients of options.clients) {
    for (let rep = 0; rep < options.reps; rep++) {
      ctx.log(`per_test (${table}, ${target.key}) ${clients} client(s), rep ${rep + 1}/${options.reps}`);
      for (const kase of rotation(cases, rep)) {
        throwIfInterrupted();
        const c = caseOf(kase, clients);
        try {
          const r = await measureRun(target, kase, clients, length);
          results.add(c, r.tests / r.seconds, {
            tests: r.tests,
            seconds: r.seconds,
            msPerTest: (r.seconds * 1000 * clients) / r.tests,
            msPerTestByPart: r.msPerTestByPart,
          });
        } catch (error) {
          throwIfInterrupted();
          results.fail(c, error);
          ctx.log(`  ${kase.key} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }
}

/** A native server like the action's (tmpfs, the profile: the matrix's `off, tmpfs`), of `ctx`'s binaries. */
async function startNative(ctx: Context): Promise<BenchServer> {
  const spec = matrixSpecs().find((s) => s.key === 'off-tmpfs');
  if (!spec) throw new Error('bench/lib/pgserver.ts matrixSpecs() has no off-tmpfs server');
  return startServer(ctx, spec);
}

/** Measures FILE_COPY against WAL_LOG on a target (the strategy table). */
async function measureStrategies(ctx: Context, target: Target): Promise<void> {
  await prepareTemplate(target.conn);
  await measureCases(ctx, target, [cloneCase('WAL_LOG'), cloneCase('FILE_COPY')], 'strategy');
}

/**
 * A local test image in Docker mode with buildRunPlan's arguments (tmpfs on the VOLUME holding
 * PGDATA, the profile; without the project's label, so concurrent e2e tests do not count it as
 * theirs), settings and tmpfs verified as start() verifies them; `fn` runs on it, then the
 * container is removed.
 */
async function withDockerServer(ctx: Context, major: string, image: string, fn: (t: Target) => Promise<void>): Promise<void> {
  const name = `${ctx.prefix}-pertest-${major}`;
  const config = inputs({ mode: 'docker', image, port: '0', 'container-name': name });
  const plan = buildRunPlan(config, await imageLayout(image));
  const container = await runContainer(ctx, name, runOptions(plan.args), plan.env);
  try {
    const conn = {
      host: '127.0.0.1',
      port: await publishedPort(name),
      user: config.user,
      password: config.password,
      database: 'postgres',
    };
    await untilAnswered(conn, 120_000, 20);
    await withConnection(conn, 'postgres', (c) =>
      verifyServer(
        c,
        effectiveSettings(config.settings),
        async (dir) => {
          const mounts = await c
            .query<{ m: string }>("SELECT pg_read_file('/proc/self/mounts') AS m")
            .then((r) => r.rows[0]?.m ?? '')
            .catch(() => '');
          const found = filesystemTypeOf(dir, mounts);
          if (found) return found;
          const viaExec = await dockerOk(['exec', name, 'cat', '/proc/mounts'], 'docker exec cat /proc/mounts', '');
          return filesystemTypeOf(dir, viaExec) ?? 'unknown';
        },
        true,
      ).then((v) => {
        if (!isRamFilesystem(v.filesystem)) throw new Error(`${image}: data directory on ${v.filesystem}`);
      }),
    );
    const { version, major: actual } = await serverVersion(conn);
    if (String(actual) !== major) throw new Error(`${image} runs PostgreSQL ${version}, expected ${major}`);
    await fn({ key: `docker-${major}`, label: `PostgreSQL ${version}, Docker mode (${image})`, conn, major: actual });
  } finally {
    await container.remove();
  }
}

/**
 * Section 9: table `isolation` on the action's native server, then table `strategy` on every
 * major from 15 that runs here (native binaries, then the local test images in Docker mode).
 */
export async function runPerTest(ctx: Context): Promise<void> {
  ctx.log(`per_test: the action's native server, PostgreSQL ${ctx.major} (tmpfs, profile)`);
  const server = await startNative(ctx);
  try {
    const { version } = await serverVersion(server.conn);
    const target: Target = { key: 'off-tmpfs', label: `PostgreSQL ${version}, native mode`, conn: server.conn, major: ctx.major };
    await prepareTemplate(server.conn);
    await measureCases(ctx, target, perTestCases(ctx.major), 'isolation');
    if (ctx.major >= 15) await measureStrategies(ctx, { ...target, key: `native-${ctx.major}` });
  } finally {
    await server.stop();
  }
  // Other native majors with STRATEGY: a server of their own binaries, with an initdb cache of their own.
  for (const b of installedBinaries(realProbe()).filter((x) => x.major >= 15 && x.major !== ctx.major)) {
    throwIfInterrupted();
    ctx.log(`per_test: native PostgreSQL ${b.major} (${b.bindir})`);
    const other: Context = { ...ctx, bindir: b.bindir, major: b.major, cacheDir: join(ctx.diskWork, `initdb-cache-${b.major}`) };
    const s = await startNative(other);
    try {
      const { version } = await serverVersion(s.conn);
      await measureStrategies(ctx, {
        key: `native-${b.major}`,
        label: `PostgreSQL ${version}, native mode`,
        conn: s.conn,
        major: b.major,
      });
    } finally {
      await s.stop();
    }
  }
  for (const [major, image] of Object.entries(MAJOR_IMAGES)) {
    throwIfInterrupted();
    ctx.log(`per_test: PostgreSQL ${major} in Docker mode (${image})`);
    await withDockerServer(ctx, major, image, (t) => measureStrategies(ctx, t));
  }
}
