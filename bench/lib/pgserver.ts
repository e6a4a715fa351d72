/**
 * PostgreSQL servers the benchmark starts itself, from the installed binaries, with the data
 * directory on disk or on tmpfs and with the project's durability profile or PostgreSQL's
 * defaults. Native mode always puts the data directory in RAM, so the on-disk servers of the
 * 2x2 matrix cannot come from start(); everything that defines the server comes from the
 * project's code instead: the initdb arguments and cache (src/native/cluster/initdb-cache.ts), the
 * `postgres` process (spawnPostgres: src/native/run/postgres.ts, whose arguments apply the profile of
 * src/profile.ts), stopping (stopPostgres) and the settings check (src/verify.ts).
 */
import { chownSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import getPort from 'get-port';
import pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { ensureCluster } from '../../src/native/cluster/initdb-cache.js';
import { dataDirOf, postgresLogTail, RUN_MARKER, spawnPostgres, stopPostgres } from '../../src/native/run/postgres.js';
import { TMPFS_MAGIC } from '../../src/native/ramdir.js';
import { waitForQuery } from '../../src/readiness.js';
import type { NativeHandle } from '../../src/server.js';
import { DURABILITY_SETTINGS, effectiveSettings, type Setting } from '../../src/profile.js';
import { checkSettings, filesystemTypeOf, SETTINGS_QUERY, type PgSettingRow } from '../../src/verify.js';
import type { Context } from './context.js';
import {
  checkModelTook,
  commitLatencyMs,
  diskModelEnv,
  ensureDiskModel,
  FSYNC_LATENCIES_MS,
  modelledLatencyMs,
} from './disk-model.js';
import { copyCluster } from '../../src/native/cluster/copy.js';

/** Password the benchmark's own servers get (TCP clients use scram-sha-256). */
export const BENCH_PASSWORD = 'bench';

/**
 * PostgreSQL's own defaults for every setting of the durability profile: a server started with
 * these overrides is a stock server. startServer() checks each value against pg_settings.boot_val.
 */
export const PG_DEFAULTS: readonly Setting[] = Object.freeze(
  (
    [
      ['fsync', 'on'],
      ['synchronous_commit', 'on'],
      ['full_page_writes', 'on'],
      ['wal_level', 'replica'],
      ['max_wal_senders', '10'],
      ['jit', 'on'],
    ] as const
  ).map(([name, value]) => ({ name, value, why: 'PostgreSQL default' })),
);

/** Throws when the profile holds a setting PG_DEFAULTS does not restore (the durable servers would not be stock). */
export function checkDefaultsCoverProfile(): void {
  const restored = new Set(PG_DEFAULTS.map((s) => s.name));
  const missing = DURABILITY_SETTINGS.filter((s) => !restored.has(s.name)).map((s) => s.name);
  if (missing.length) {
    throw new Error(`bench/lib/pgserver.ts PG_DEFAULTS lacks the default of ${missing.join(', ')}: add it`);
  }
}

/** What a server is. */
export interface ServerSpec {
  /** Short key used in case ids, e.g. `off-tmpfs`. */
  key: string;
  /** Column label, e.g. `off, tmpfs`. */
  label: string;
  /** Where the data directory lives. */
  storage: 'disk' | 'tmpfs';
  /** Settings over the durability profile (PG_DEFAULTS for a durable server). */
  settings: readonly Setting[];
  /**
   * initdb arguments added to the project's own (e.g. `--wal-segsize=1`); the cluster then
   * comes from its own initdb cache entry. Absent: the project's cluster.
   */
  initdbArgs?: readonly string[];
  /**
   * The disk model's flush latency in ms (bench/lib/disk-model.ts), for a server on disk; its
   * median commit is checked to take at least that long. Absent: this machine's disk as it is.
   */
  fsyncDelayMs?: number;
}

/** A running server of the benchmark. */
export interface BenchServer {
  spec: ServerSpec;
  /** TCP connection (127.0.0.1, password). */
  conn: ConnectionInfo;
  /** Unix socket directory (trust for postgres), or '' when the socket cannot be reached. */
  socketDir: string;
  dataDir: string;
  /** Filesystem type under the data directory, as /proc/mounts reports it. */
  filesystem: string;
  /** The run's marker token (RUN_MARKER in its folder), which processes started for it carry as RUN_ENV; startServer's servers only. */
  token?: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Opens an administrative client, runs `fn`, closes it: on the Unix socket as postgres (trust)
 * when the server has a reachable socket directory, else over its TCP connection.
 */
export async function withClient<T>(
  server: Pick<BenchServer, 'socketDir' | 'conn'>,
  fn: (c: pg.Client) => Promise<T>,
  database = 'postgres',
): Promise<T> {
  const where = server.socketDir
    ? { host: server.socketDir, port: server.conn.port, user: 'postgres' }
    : { host: server.conn.host, port: server.conn.port, user: server.conn.user, password: server.conn.password };
  const client = new pg.Client({ ...where, database, connectionTimeoutMillis: 10_000, statement_timeout: 300_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Puts a fresh cluster (superuser postgres, locale C) at `dataDir`, from the project's initdb
 * cache (filled on first use), owned by the user postgres runs as. `extraInitdbArgs` (e.g.
 * `--wal-segsize=1`) are appended to the project's initdb arguments: a cache entry of their own.
 */
export async function placeCluster(ctx: Context, dataDir: string, extraInitdbArgs: readonly string[] = []): Promise<void> {
  const cache = await ensureCluster(
    ctx.cacheDir,
    { bindir: ctx.bindir, user: 'postgres', locale: 'C', extraArgs: extraInitdbArgs },
    ctx.runAs,
    ctx.shmWork,
  );
  // Every server copies from the cache, so all start from the same files; initdb's own output
  // (handed back on a miss) is not used.
  if (cache.fresh) rmSync(cache.fresh, { recursive: true, force: true });
  copyCluster(cache.entry, cache.manifest, dataDir, ctx.runAs);
}

/**
 * Starts a server for `spec`: a run folder under the disk or /dev/shm work folder, the cluster
 * from this run's initdb cache, `postgres` as the postgres user with postgresArgs(), a password
 * for TCP, then a check that every setting took and the data directory is where it should be.
 * The server is registered for cleanup before it is spawned.
 * Long because initdb, the settings file, the start and the fixtures of one server share its cleanup.
 * @throws Error when it does not answer, a setting did not take, or the filesystem is wrong
 */
export async function startServer(ctx: Context, spec: ServerSpec): Promise<BenchServer> {
  const base = spec.storage === 'tmpfs' ? ctx.shmWork : ctx.diskWork;
  const runDir = mkdtempSync(join(base, `${spec.key}-`));
  const handle: NativeHandle = {
    mode: 'native',
    pid: 0,
    runDir,
    token: `${ctx.runId}-${spec.key}`,
    ram: null,
    bindir: ctx.bindir,
  };
  writeFileSync(join(runDir, RUN_MARKER), handle.token);
  const stop = ctx.cleanup.add(`server ${spec.label} (${runDir})`, async () => {
    const problems = await stopPostgres(handle);
    if (problems.length) throw new Error(problems.join('; '));
  });
  try {
    if (ctx.runAs) chownSync(runDir, ctx.runAs.uid, ctx.runAs.gid);
    const dataDir = dataDirOf(runDir);
    await placeCluster(ctx, dataDir, spec.initdbArgs);
    const port = await getPort({ host: '127.0.0.1' });
    const model = spec.fsyncDelayMs ? diskModelEnv(await ensureDiskModel(ctx), modelledLatencyMs(ctx, spec.fsyncDelayMs)) : {};
    const postgres = spawnPostgres(
      ctx.bindir,
      runDir,
      port,
      { settings: [...spec.settings], publishHost: '127.0.0.1' },
      ctx.runAs,
      model,
    );
    handle.pid = postgres.pid;
    const ready = await waitForQuery(
      { host: dataDir, port, user: 'postgres', password: '', database: 'postgres' },
      { timeoutMs: 60_000, intervalMs: 10, isAlive: async () => !postgres.exited(), aliveEveryMs: 100 },
    ).catch((error: unknown) => {
      throw new Error(
        `server ${spec.label} did not answer: ${error instanceof Error ? error.message : String(error)}; log: ${postgresLogTail(runDir, 8).split('\n').join(' | ')}`,
      );
    });
    const filesystem = filesystemTypeOf(dataDir, readFileSync('/proc/mounts', 'utf8')) ?? 'unknown';
    try {
      await ready.client.query(`ALTER ROLE postgres PASSWORD '${BENCH_PASSWORD}'`);
      const requested = effectiveSettings([...spec.settings]);
      const rows = (await ready.client.query<PgSettingRow>(SETTINGS_QUERY, [requested.map((s) => s.name)])).rows;
      const bad = checkSettings(requested, rows).filter((s) => !s.ok);
      if (bad.length) throw new Error(`settings not in effect on ${spec.label}: ${JSON.stringify(bad)}`);
      const defaults = spec.settings.filter((s) => PG_DEFAULTS.some((d) => d.name === s.name && d.value === s.value));
      if (defaults.length) {
        const r = await ready.client.query<{ name: string; setting: string; boot_val: string }>(
          'SELECT name, setting, boot_val FROM pg_settings WHERE name = ANY($1::text[])',
          [defaults.map((s) => s.name)],
        );
        const notStock = r.rows.filter((row) => row.setting !== row.boot_val);
        if (notStock.length) throw new Error(`"PostgreSQL default" values differ from boot_val: ${JSON.stringify(notStock)}`);
      }
    } finally {
      await ready.client.end().catch(() => undefined);
    }
    if (spec.fsyncDelayMs) {
      const target = { host: dataDir, port, user: 'postgres', password: '', database: 'postgres' };
      checkModelTook(spec.label, await commitLatencyMs(target), modelledLatencyMs(ctx, spec.fsyncDelayMs));
    }
    const onTmpfs = statfsSync(dataDir).type === TMPFS_MAGIC;
    if (onTmpfs !== (spec.storage === 'tmpfs')) {
      throw new Error(`server ${spec.label}: data directory ${dataDir} is on ${filesystem}, expected ${spec.storage}`);
    }
    return {
      spec,
      conn: { host: '127.0.0.1', port, user: 'postgres', password: BENCH_PASSWORD, database: 'postgres' },
      socketDir: dataDir,
      dataDir,
      filesystem,
      token: handle.token,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts several servers; when one fails, the ones already started are stopped.
 * @returns the servers, in the order of `specs`
 */
export async function startServers(ctx: Context, specs: readonly ServerSpec[]): Promise<BenchServer[]> {
  const started: BenchServer[] = [];
  try {
    for (const spec of specs) started.push(await startServer(ctx, spec));
    return started;
  } catch (error) {
    for (const s of started) await s.stop();
    throw error;
  }
}

/** Stops servers (each one's problems are collected by the cleanup list). */
export async function stopServers(servers: readonly BenchServer[]): Promise<void> {
  for (const s of servers) await s.stop();
}

/** The four servers of the 2x2 matrix: durability (defaults / off) × storage (disk / tmpfs). */
export function matrixSpecs(): ServerSpec[] {
  return [
    { key: 'durable-disk', label: 'durable, disk', storage: 'disk', settings: PG_DEFAULTS },
    { key: 'off-disk', label: 'off, disk', storage: 'disk', settings: [] },
    { key: 'durable-tmpfs', label: 'durable, tmpfs', storage: 'tmpfs', settings: PG_DEFAULTS },
    { key: 'off-tmpfs', label: 'off, tmpfs', storage: 'tmpfs', settings: [] },
  ];
}

/**
 * The durable server on disk under the disk model, one per FSYNC_LATENCIES_MS (1 and 5 ms): keys
 * `durable-disk-1ms`, `durable-disk-5ms`.
 */
export function modelledDiskSpecs(): ServerSpec[] {
  return FSYNC_LATENCIES_MS.map((ms) => ({
    key: `durable-disk-${ms}ms`,
    label: `durable, disk, flush +${ms} ms`,
    storage: 'disk' as const,
    settings: PG_DEFAULTS,
    fsyncDelayMs: ms,
  }));
}
