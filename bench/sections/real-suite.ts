/**
 * Section 11 (real_suite, issue #24): a real third-party suite, SQLAlchemy's own ORM tests
 * (bench/lib/real-suite.ts), against what a job gets today and what this project gives:
 * - a GitHub `services:` container: the image's defaults, PGDATA on its disk volume, ready when
 *   `pg_isready` is healthy and a real query answers through its port; on this machine's disk, and under the disk model with each modelled
 *   flush latency (bench/lib/disk-model.ts);
 * - the tuned services block of 2026 (issue #36, bench/lib/tuned-service.ts: PGDATA on tmpfs,
 *   durability off by `command`), created as the runner creates it, then the template's wait
 *   step; on this disk and under the disk model with each latency, as the services container;
 * - the action's Docker mode and native mode (start() as the action runs it).
 * Variants interleaved; each measurement is the pytest process's wall time, on a fresh server
 * (the server's start is not in it: sections 1 and 6 measure that). Every run of every variant
 * must pass, fail and skip the same tests: a difference is an error of the section.
 */
import { join } from 'node:path';
import pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { CONTAINER_PASSWORD } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import {
  checkModelTook,
  commitLatencyMs,
  CONTAINER_LIBRARY,
  diskModelDockerArgs,
  ensureDiskModel,
  FSYNC_LATENCIES_MS,
  modelledLatencyMs,
} from '../lib/disk-model.js';
import { ensureSuite, runSuite, SLICE, SUITE_DATABASE, SUITE_SETUP_SQL, type Suite } from '../lib/real-suite.js';
import { BENCH_PASSWORD } from '../lib/pgserver.js';
import { untilAnswered } from '../lib/query.js';
import { startServiceContainer } from '../lib/service-container.js';
import { measureVariants, startRegistered, type Variant } from '../lib/timed.js';
import { checkTuned, runWaitStep, startTunedService, TUNED_KEY, TUNED_LABEL, tunedDetails } from '../lib/tuned-service.js';

/** Deadline of one suite run: a full slice takes about 40 to 80 s here. */
const SUITE_TIMEOUT_MS = 1_800_000;

/**
 * Makes the suite's database and schemas (SUITE_SETUP_SQL) on a fresh server, then the commit
 * probe (commitLatencyMs) in it.
 * @returns the median commit in ms
 */
async function prepare(conn: ConnectionInfo): Promise<number> {
  const admin = new pg.Client({ ...conn, database: 'postgres', connectionTimeoutMillis: 10_000 });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${SUITE_DATABASE}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  const db = { ...conn, database: SUITE_DATABASE };
  const client = new pg.Client({ ...db, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const sql of SUITE_SETUP_SQL) await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
  return commitLatencyMs(db);
}

/**
 * Runs the slice on a prepared server; details carry the counts and the commit probe.
 * @param latencyMs the disk model's latency, checked against the probe before the suite runs; null: none
 */
async function measureOn(ctx: Context, suite: Suite, conn: ConnectionInfo, key: string, rep: number, latencyMs: number | null) {
  const commitMs = await prepare(conn);
  if (latencyMs !== null) checkModelTook(key, commitMs, modelledLatencyMs(ctx, latencyMs));
  const files = ctx.options.quick ? SLICE.quick : SLICE.full;
  const r = await runSuite(suite, conn, files, join(ctx.diskWork, `junit-${key}-${rep}.xml`), SUITE_TIMEOUT_MS);
  return { seconds: r.seconds, details: { ...r.counts, commitMs } };
}

/** The services container, on this disk (`latencyMs` null) or under the disk model. */
function serviceVariant(ctx: Context, suite: Suite, library: string, latencyMs: number | null): Variant {
  const key = latencyMs === null ? 'service' : `service-${latencyMs}ms`;
  return {
    key,
    label:
      latencyMs === null
        ? 'GitHub services container: image defaults, PGDATA on its disk volume'
        : `the same, disk flush +${latencyMs} ms (disk model)`,
    async measure(rep) {
      const name = `${ctx.prefix}-suite-${key}-${rep}`;
      const model = latencyMs === null ? [] : diskModelDockerArgs(library, modelledLatencyMs(ctx, latencyMs));
      const c = await startServiceContainer(ctx, name, ctx.options.image, [
        '--health-interval',
        '1s',
        '--health-timeout',
        '5s',
        '--health-retries',
        '30',
        ...model,
      ]);
      try {
        const conn = { host: '127.0.0.1', port: c.port, user: 'postgres', password: CONTAINER_PASSWORD, database: 'postgres' };
        // "Healthy" can come while only the entrypoint's temporary server runs (pg_isready on its
        // socket), and a connection through the published port is then reset: a real query first,
        // as a job's first step would have to wait for.
        const attempts = await untilAnswered(conn, 120_000, 20);
        const m = await measureOn(ctx, suite, conn, key, rep, latencyMs);
        return { ...m, details: { ...m.details, queryAttemptsAfterHealthy: attempts } };
      } finally {
        await c.remove();
      }
    },
  };
}

/**
 * Whether the disk model's library is loaded in the server's backends: the library's path in the
 * backend's own memory map (`/proc/self/maps`, read as superuser; backends inherit the
 * postmaster's). The tuned block's durability off makes commits wait for no flush, so
 * checkModelTook cannot tell.
 * @throws Error when it is not loaded
 */
async function checkModelLoaded(conn: ConnectionInfo, label: string): Promise<void> {
  const client = new pg.Client({ ...conn, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const r = await client.query<{ maps: string }>("SELECT pg_read_file('/proc/self/maps') AS maps");
    if (!r.rows[0]?.maps.includes(CONTAINER_LIBRARY)) throw new Error(`${label}: the disk model is not loaded in the server`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The tuned services block, on this disk (`latencyMs` null) or under the disk model. */
function tunedVariant(ctx: Context, suite: Suite, library: string, latencyMs: number | null): Variant {
  const key = latencyMs === null ? TUNED_KEY : `${TUNED_KEY}-${latencyMs}ms`;
  return {
    key,
    label:
      latencyMs === null
        ? `${TUNED_LABEL}: PGDATA on tmpfs, durability off by command`
        : `${TUNED_LABEL}, disk flush +${latencyMs} ms (disk model)`,
    async measure(rep) {
      const extraOptions = latencyMs === null ? [] : diskModelDockerArgs(library, modelledLatencyMs(ctx, latencyMs));
      const svc = await startTunedService(ctx, `${ctx.prefix}-suite-${key}-${rep}`, ctx.options.image, {
        health: 'poll',
        extraOptions,
      });
      try {
        await runWaitStep(svc);
        const { serverVersion } = await checkTuned(svc.conn);
        if (latencyMs !== null) await checkModelLoaded(svc.conn, key);
        const m = await measureOn(ctx, suite, svc.conn, key, rep, null);
        return { ...m, details: { ...m.details, ...tunedDetails(svc, serverVersion) } };
      } finally {
        await svc.remove();
      }
    },
  };
}

/** The action's server in `mode` (start() with its defaults: tmpfs, the durability profile). */
function actionVariant(ctx: Context, suite: Suite, mode: 'docker' | 'native'): Variant {
  const key = `action-${mode}`;
  return {
    key,
    label: `pg-tmpfs-action, ${mode === 'docker' ? 'Docker' : 'native'} mode`,
    async measure(rep) {
      const values =
        mode === 'docker'
          ? { mode, image: ctx.options.image, 'container-name': `${ctx.prefix}-suite-docker-${rep}` }
          : { mode, 'postgres-version': String(ctx.major) };
      const r = await startRegistered(
        ctx,
        { ...values, port: '0', password: BENCH_PASSWORD, 'wait-timeout': '120' },
        async (server) => {
          if (!server.tmpfs) throw new Error(`${mode} mode: PGDATA on ${server.filesystem}`);
          return measureOn(ctx, suite, server.connection, key, rep, null);
        },
      );
      return r.used as NonNullable<typeof r.used>;
    },
  };
}

/** `passed/failed/errors/skipped` of a run's details. */
const countsOf = (d: Record<string, unknown>) =>
  (['passed', 'failed', 'errors', 'skipped'] as const).map((k) => Number(d[k])).join('/');

export async function runRealSuite(ctx: Context): Promise<void> {
  const suite = await ensureSuite(ctx.log);
  const library = await ensureDiskModel(ctx);
  await measureVariants(ctx, 'real_suite', [
    serviceVariant(ctx, suite, library, null),
    ...FSYNC_LATENCIES_MS.map((ms) => serviceVariant(ctx, suite, library, ms)),
    tunedVariant(ctx, suite, library, null),
    ...FSYNC_LATENCIES_MS.map((ms) => tunedVariant(ctx, suite, library, ms)),
    actionVariant(ctx, suite, 'docker'),
    actionVariant(ctx, suite, 'native'),
  ]);
  // Every run must have passed, failed and skipped the same tests as the first.
  const cases = ctx.results.of('real_suite');
  const first = cases.flatMap((c) => c.details)[0];
  if (!first) return;
  const want = countsOf(first);
  for (const c of cases) {
    for (const [i, d] of c.details.entries()) {
      if (countsOf(d) !== want)
        ctx.results.fail(c, `run ${i + 1}: passed/failed/errors/skipped ${countsOf(d)}, the first run of the section ${want}`);
    }
  }
}
