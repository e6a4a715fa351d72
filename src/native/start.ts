/**
 * Native mode: PostgreSQL from binaries already on the machine, its data directory in RAM, the
 * cluster copied from the initdb cache, the same durability profile as Docker mode. Steps:
 * binaries → port → RAM run folder → cached cluster → postgres → first query on the Unix socket
 * (password, database) → a query over TCP with the password → verification.
 */
import { chownSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import getPort from 'get-port';
import type { ConnectionInfo } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { effectiveSettings } from '../profile.js';
import { NotReadyError, waitForQuery, type Ready } from '../readiness.js';
import type { NativeHandle, NativeServer } from '../server.js';
import { filesystemTypeOf, isRamFilesystem, verifyServer } from '../verify.js';
import { findBinaries, type Binaries } from './binaries.js';
import { chownTree, copyCluster, defaultCacheDir, ensureCluster, type CacheResult, type RunAs } from './initdb-cache.js';
import { dataDirOf, postgresLogTail, processAlive, RUN_MARKER, runAsUser, spawnPostgres, stopPostgres } from './postgres.js';
import { DEFAULT_NATIVE_BYTES, prepareRam, sizeToBytes, type RamDirPlan } from './ramdir.js';

/**
 * The TCP port to use on 127.0.0.1: a free one for 0, else the given one if it is free.
 * @throws InputError (input `port`) when the given port is in use
 */
async function choosePort(port: number): Promise<number> {
  if (port === 0) return getPort({ host: '127.0.0.1' });
  if ((await getPort({ host: '127.0.0.1', port })) !== port) {
    throw new InputError('port', `port ${port} on 127.0.0.1 is in use`, 'Choose another port, or 0 for a free one.');
  }
  return port;
}

/** Makes the run folder under the RAM base, with its marker (holding `handle.token`), owned by `runAs`. */
function makeRunDir(base: string, config: Config, handle: NativeHandle, runAs: RunAs | null): void {
  handle.runDir = mkdtempSync(join(base, `${config.containerName}-`));
  handle.token = `${process.pid}-${Date.now()}`;
  writeFileSync(join(handle.runDir, RUN_MARKER), handle.token);
  if (runAs) chownSync(handle.runDir, runAs.uid, runAs.gid);
}

/** Puts a cluster in the run folder's data directory: from the initdb cache, filling it first on a miss. */
async function placeCluster(
  config: Config,
  bins: Binaries,
  handle: NativeHandle,
  runAs: RunAs | null,
  log: Logger,
): Promise<CacheResult> {
  const cache = await ensureCluster(
    config.cacheDir || defaultCacheDir(),
    { bindir: bins.bindir, user: config.user, locale: config.locale },
    runAs,
    handle.runDir,
  );
  log.info(
    cache.hit
      ? `initdb cache hit: ${cache.entry}`
      : `initdb cache miss: ran initdb --nosync in ${cache.initdbMs} ms into ${cache.entry}`,
  );
  copyCluster(cache.entry, dataDirOf(handle.runDir), runAs);
  if (runAs) chownTree(handle.runDir, runAs);
  return cache;
}

/**
 * The first query goes through the Unix socket (trust: it lives in the 0700 data directory),
 * polled every 5 ms; it sets the password and creates the database.
 */
async function bootstrap(config: Config, handle: NativeHandle, port: number, exited: () => boolean): Promise<void> {
  const local = await waitForQuery(
    { host: dataDirOf(handle.runDir), port, user: config.user, password: '', database: 'postgres' },
    {
      timeoutMs: config.waitTimeoutMs,
      intervalMs: 5,
      isAlive: async () => !exited() && processAlive(handle.pid),
      aliveEveryMs: 50,
    },
  );
  try {
    const c = local.client;
    await c.query(`ALTER ROLE ${c.escapeIdentifier(config.user)} PASSWORD ${c.escapeLiteral(config.password)}`);
    if (config.database !== 'postgres') await c.query(`CREATE DATABASE ${c.escapeIdentifier(config.database)}`);
  } finally {
    await local.client.end().catch(() => undefined);
  }
}

/** Reads back settings and the filesystem under the data directory (RAM expected unless the plan fell back to disk). */
async function verifyNative(ready: Ready, config: Config, plan: RamDirPlan) {
  const verified = await verifyServer(
    ready.client,
    effectiveSettings(config.settings),
    async (dir) => {
      if (process.platform === 'linux') return filesystemTypeOf(dir, readFileSync('/proc/mounts', 'utf8')) ?? 'unknown';
      return plan.kind === 'ramdisk' ? 'ramdisk' : 'disk';
    },
    plan.kind !== 'disk',
  );
  return { ...verified, tmpfs: isRamFilesystem(verified.filesystem) || verified.filesystem === 'ramdisk' };
}

/**
 * Starts PostgreSQL from installed binaries.
 * @param onHandle called with a snapshot of the handle as soon as there is something to undo,
 *   and again each time it grows (run folder, then PID)
 * @param binaries binaries already found (by chooseMode); else they are looked up
 * @returns the running, verified server
 * @throws InputError for a port in use; SetupError for missing binaries, initdb failures, or a
 *   server that does not answer. Nothing is left running or on disk then.
 */
export async function startNative(
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void = () => undefined,
  binaries?: Binaries,
): Promise<NativeServer> {
  const bins = binaries ?? findBinaries(config.major);
  log.info(`PostgreSQL ${bins.major} binaries: ${bins.bindir} (${bins.source})`);
  const runAs = runAsUser();
  if (runAs) log.info(`Running as root: postgres runs as user ${runAs.name}`);
  const port = await choosePort(config.port);

  const ram = await prepareRam(config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES, config.containerName);
  const handle: NativeHandle = {
    mode: 'native',
    pid: 0,
    runDir: '',
    token: '',
    teardown: ram.plan.teardown,
    bindir: bins.bindir,
  };
  const record = () => onHandle({ ...handle, teardown: [...handle.teardown] });
  record();
  if (ram.plan.warning) log.warning(ram.plan.warning);
  try {
    makeRunDir(ram.base, config, handle, runAs);
    record();
    const cache = await placeCluster(config, bins, handle, runAs, log);
    const postgres = spawnPostgres(bins.bindir, handle.runDir, port, config, runAs);
    handle.pid = postgres.pid;
    record();

    const notReady = (error: unknown): never => {
      if (error instanceof NotReadyError) {
        throw new SetupError(
          `PostgreSQL did not answer a query: ${error.message}; last error: ${error.lastError}`,
          error.died ? 'The server exited; its log is below' : "Raise input 'wait-timeout', or read the server log below",
          postgresLogTail(handle.runDir),
        );
      }
      throw error;
    };
    await bootstrap(config, handle, port, postgres.exited).catch(notReady);
    // Then the path the user will use: TCP with the password.
    const connection: ConnectionInfo = {
      host: '127.0.0.1',
      port,
      user: config.user,
      password: config.password,
      database: config.database,
    };
    const ready = await waitForQuery(connection, { timeoutMs: config.waitTimeoutMs, intervalMs: 5 }).catch(notReady);
    const startupMs = Math.round(performance.now());
    log.info(`Answered a query after ${startupMs} ms: PostgreSQL ${ready.serverVersion}`);
    try {
      return {
        ...handle,
        teardown: [...handle.teardown],
        connection,
        serverVersion: ready.serverVersion,
        ...(await verifyNative(ready, config, ram.plan)),
        startupMs,
        socketDirectory: dataDirOf(handle.runDir),
        cacheHit: cache.hit,
      };
    } finally {
      await ready.client.end().catch(() => undefined);
    }
  } catch (error) {
    for (const problem of await stopPostgres(handle)) log.warning(problem);
    throw error;
  }
}
