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
 * - a copy from the server's pool (issue #37; per-test-pool.ts): `SELECT pgtmpfs.take()` on the
 *   client's kept connection to `postgres`, a new connection to the copy, the body, disconnect,
 *   `SELECT pgtmpfs.give_back(name)`; the pool started for the run as `pg-tmpfs up --pool N`
 *   starts it (its keeper a process of its own), full before the clock starts;
 * - TRUNCATE of the touched tables after the body (CASCADE: the tables referencing them too);
 * - the body in a transaction rolled back;
 * - DELETE of the touched tables' rows after the body.
 *
 * Table `real_work` (issue #43): FILE_COPY against the pool of 8 with a test that does real work
 * (bench/sql/per-test-body-real.sql: DDL, 45 round trips), same suite and clients.
 *
 * Table `isolation`: FILE_COPY, the pool (two sizes), TRUNCATE, rollback and DELETE on the
 * action's native server (the native major), the cases interleaved in each repetition, each run a
 * suite of 2000 tests split among the clients (100 in a quick run). Table `strategy`: FILE_COPY against WAL_LOG alone, interleaved,
 * on every major from 15 (the first with STRATEGY) that runs here: each installed native major,
 * and each local test image in Docker mode (buildRunPlan's arguments: tmpfs, the profile; settings
 * and tmpfs verified as start() verifies them). The CLI's `db create` picks its default strategy
 * from that table.
 *
 * The section drives the server with its own client (node-postgres, one connection per client,
 * one statement per round trip) rather than pgbench, because a test in a fresh database needs a
 * connection of its own, and pgbench keeps one database per run. Every case uses the same client,
 * so the cases compare with each other; absolute figures are not comparable with pgbench's.
 * The cases and one run of a case: per-test-run.ts.
 */
import { join } from 'node:path';
import { dockerOk } from '../../src/docker/engine.js';
import { installedBinaries, realProbe } from '../../src/native/source/installed.js';
import { effectiveSettings } from '../../src/profile.js';
import { filesystemTypeOf, isRamFilesystem, verifyServer } from '../../src/verify.js';
import { throwIfInterrupted } from '../lib/cleanup.js';
import { imageLayout, MAJOR_IMAGES } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { startDockerServer } from '../lib/docker-server.js';
import type { Length } from '../lib/pgbench.js';
import { matrixSpecs, startServer, type BenchServer } from '../lib/pgserver.js';
import { rotation } from '../lib/results.js';
import {
  cloneCase,
  measureRun,
  perTestCases,
  prepareTemplate,
  realWorkCases,
  serverVersion,
  withConnection,
  type PerTestCase,
  type Target,
} from './per-test-run.js';

/** Tests in the isolation table's suite, all clients together (issue #37: at least 2000). */
const SUITE_TESTS = 2000;

/** The suite in a quick run: enough for the pool to empty and refill, short enough for the smoke run. */
const QUICK_SUITE_TESTS = 100;

/** Tests in table real_work's suite, all clients together: each does 45 round trips, so half the isolation table's. */
const REAL_SUITE_TESTS = 1000;

/**
 * Runs every case in `cases` at every client count, `reps` times, the cases interleaved (rotated
 * each repetition); each run is one sample (tests per second) of its case. A failed run is
 * recorded on its case and the section goes on.
 */
async function measureCases(
  ctx: Context,
  target: Target,
  cases: readonly PerTestCase[],
  table: 'isolation' | 'real_work' | 'strategy',
): Promise<void> {
  const { options, results } = ctx;
  // The isolation table runs a suite of a fixed number of tests split among the clients (issue
  // #37: at least 2000); the strategy table runs for a time, or two tests per client when quick.
  const suite = options.quick ? QUICK_SUITE_TESTS : table === 'real_work' ? REAL_SUITE_TESTS : SUITE_TESTS;
  const lengthOf = (clients: number): Length =>
    table !== 'strategy'
      ? { transactions: Math.ceil(suite / clients) }
      : options.transactions
        ? { transactions: options.transactions }
        : { seconds: options.seconds };
  const clientsLabel = (n: number) => `${n} client${n === 1 ? '' : 's'}`;
  const section = table === 'real_work' ? 'per_test_real' : 'per_test';
  const caseOf = (kase: PerTestCase, clients: number) =>
    results.get(
      section,
      `${section}/${kase.key}/c${clients}/${target.key}`,
      table !== 'strategy' ? kase.label : target.label,
      table !== 'strategy' ? clientsLabel(clients) : `${kase.clone}, ${clientsLabel(clients)}`,
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
          const r = await measureRun(target, kase, clients, lengthOf(clients));
          results.add(c, r.tests / r.seconds, {
            tests: r.tests,
            seconds: r.seconds,
            msPerTest: (r.seconds * 1000 * clients) / r.tests,
            msPerTestByPart: r.msPerTestByPart,
            testMs: r.testMs,
            ...(r.pool ? { pool: r.pool } : {}),
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
 * A local test image in Docker mode with buildRunPlan's arguments (docker-server.ts: tmpfs on the
 * VOLUME holding PGDATA, the profile; without the project's label, so concurrent e2e tests do not
 * count it as theirs), settings and tmpfs verified as start() verifies them; `fn` runs on it,
 * then the container is removed.
 */
async function withDockerServer(ctx: Context, major: string, image: string, fn: (t: Target) => Promise<void>): Promise<void> {
  const name = `${ctx.prefix}-pertest-${major}`;
  const server = await startDockerServer(ctx, { name, image, layout: await imageLayout(image), pollMs: 20 });
  try {
    const { conn, config } = server;
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
    await server.remove();
  }
}

/**
 * Runs `fn` on a native server like the action's (startNative) with the template prepared
 * (prepareTemplate), as target `off-tmpfs`; the server is stopped after.
 */
async function onActionServer(ctx: Context, fn: (target: Target) => Promise<void>): Promise<void> {
  const server = await startNative(ctx);
  try {
    const { version } = await serverVersion(server.conn);
    await prepareTemplate(server.conn);
    await fn({
      key: 'off-tmpfs',
      label: `PostgreSQL ${version}, native mode`,
      conn: server.conn,
      major: ctx.major,
      ...(server.token ? { token: server.token } : {}),
    });
  } finally {
    await server.stop();
  }
}

/**
 * Section 9: table `isolation` on the action's native server, then table `strategy` on every
 * major from 15 that runs here (native binaries, then the local test images in Docker mode).
 */
export async function runPerTest(ctx: Context): Promise<void> {
  ctx.log(`per_test: the action's native server, PostgreSQL ${ctx.major} (tmpfs, profile)`);
  await onActionServer(ctx, async (target) => {
    await measureCases(ctx, target, perTestCases(ctx.major), 'isolation');
    if (ctx.major >= 15) await measureStrategies(ctx, { ...target, key: `native-${ctx.major}` });
  });
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

/**
 * Section 9c (`per_test_real`, issue #43): table `real_work` on the action's native server (a
 * server of its own, as section 9's): a fresh database per test (FILE_COPY) against the pool of 8,
 * with tests that do real work, a suite of 1000 tests at each client count. Nothing on a major
 * before 15 (no STRATEGY, no pool).
 */
export async function runPerTestReal(ctx: Context): Promise<void> {
  if (ctx.major < 15) {
    ctx.log(`per_test_real: PostgreSQL ${ctx.major} has neither STRATEGY nor the pool: nothing to measure`);
    return;
  }
  ctx.log(`per_test_real: the action's native server, PostgreSQL ${ctx.major} (tmpfs, profile)`);
  await onActionServer(ctx, (target) => measureCases(ctx, target, realWorkCases(), 'real_work'));
}
