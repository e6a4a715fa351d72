/**
 * Native mode's cluster in place: the initdb cache looked up (filled on a miss), the cluster
 * copied into the run folder's data directory, this run's authentication files written, and the
 * template databases left to copy while postgres starts.
 */
import { chownSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { InputError, SetupError } from '../../errors.js';
import type { Config } from '../../inputs.js';
import { throwIfInterrupted } from '../../interrupt.js';
import type { Logger } from '../../log.js';
import type { NativeHandle } from '../../server.js';
import type { Phases } from '../../timing.js';
import type { Binaries } from '../source/installed.js';
import { copyCluster, copyLater, deferrableDatabases } from './copy.js';
import { dropEntry } from '../../store/removal.js';
import type { Facts } from '../source/facts.js';
import { ensureCluster, type CacheResult } from './initdb-cache.js';
import { dataDirOf } from '../run/postgres.js';
import { bootstrapHbaConf, hbaConf, identConf } from '../run/server-config.js';
import { hasPeerSocket } from '../run/windows.js';
import type { StoreEntry } from '../../schema-cache/store.js';
import { EMPTY_AUTO_CONF } from '../../schema-cache/restored.js';
import { DamagedEntryError } from '../../store/manifest.js';
import { defaultCacheDir } from '../../store/cache-dir.js';
import type { RunAs } from '../run-as.js';

/** The error to report for a failed copy into the data directory: a full tmpfs names tmpfs-size. */
export function copyError(error: unknown, config: Config, dataDir: string): Error {
  if (error instanceof SetupError || error instanceof InputError) return error;
  if (error instanceof DamagedEntryError) {
    return new SetupError(
      `The initdb cache entry could not be used (${error.message}); it was dropped`,
      'Run again: the next start fills it anew',
    );
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') {
    return new InputError(
      'tmpfs-size',
      `${config.tmpfsSize ? `a ${config.tmpfsSize} tmpfs` : 'the RAM folder'} has no room for the cluster (${(error as Error).message})`,
      'Raise tmpfs-size (an empty cluster takes about 40 MB), or leave it empty',
    );
  }
  return new SetupError(
    `Could not copy the cached cluster into ${dataDir}: ${(error as Error).message}`,
    'Check the room and permissions there',
  );
}

/**
 * The error to report for a failed initdb cache fill: initdb runs in the run folder (on the RAM
 * folder: ensureCluster's stagingBase), so initdb's "No space left on device" names tmpfs-size,
 * as a full tmpfs does when a cached cluster is copied (copyError).
 */
export function fillError(error: unknown, config: Config): unknown {
  if (!(error instanceof SetupError) || !/^initdb failed: .*No space left on device/s.test(error.problem)) return error;
  return new InputError(
    'tmpfs-size',
    `${config.tmpfsSize ? `a ${config.tmpfsSize} tmpfs` : 'the RAM folder'} has no room for initdb's cluster (${error.problem})`,
    'Raise tmpfs-size (an empty cluster takes about 40 MB), or leave it empty',
  );
}

/**
 * The template databases of a cache entry could not be used (copyLater found them changed, or
 * not this user's alone) after postgres was spawned: the entry has been dropped; startNative
 * stops that server and starts once more, from a fresh fill.
 */
export class TemplatesNotUsed extends Error {
  constructor(
    /** What copyLater found. */
    readonly found: DamagedEntryError,
    /** What dropEntry left, if anything (for the warning). */
    readonly note: string | null,
  ) {
    super(found.message);
    this.name = 'TemplatesNotUsed';
  }
}

/**
 * Puts a cluster in the run folder's data directory: copied from the initdb cache (filled first on
 * a miss), owned by `runAs` as it is copied. An entry found damaged while copying is dropped and
 * filled again, once, with a warning. The template databases are left out: `copyTemplates`
 * copies them (copyLater) once postgres has been spawned, while it starts; when it finds them
 * unusable it drops the entry and throws TemplatesNotUsed. Long because the retry after a damaged
 * entry places the fresh fill exactly as the first try did, under one error mapping (copyError).
 */
export async function placeCluster(
  config: Config,
  bins: Binaries,
  handle: NativeHandle,
  runAs: RunAs | null,
  log: Logger,
  phases: Phases,
  facts: Facts,
): Promise<{ cache: CacheResult; copyTemplates: () => void }> {
  const cacheDir = config.cacheDir || defaultCacheDir();
  const spec = { bindir: bins.bindir, user: config.user, locale: config.locale };
  const report = (c: CacheResult) => {
    if (c.dropped) log.warning(`initdb cache entry not used (${c.dropped}): ran initdb again`);
    log.info(
      c.hit ? `initdb cache hit: ${c.entry}` : `initdb cache miss: ran initdb --nosync in ${c.initdbMs} ms into ${c.entry}`,
    );
  };
  const fill = () =>
    ensureCluster(cacheDir, spec, runAs, handle.runDir, facts).catch((error: unknown) => {
      throw fillError(error, config);
    });
  let cache = await fill();
  report(cache);
  const dataDir = dataDirOf(handle.runDir);
  phases.end('initdb cache lookup');
  throwIfInterrupted();
  const place = (c: CacheResult): string[] => {
    if (c.fresh) {
      renameSync(c.fresh, dataDir);
      return [];
    }
    const later = deferrableDatabases(c.manifest);
    copyCluster(c.entry, c.manifest, dataDir, runAs, later);
    return later;
  };
  let later: string[];
  try {
    try {
      later = place(cache);
    } catch (error) {
      if (!(error instanceof DamagedEntryError)) throw error;
      rmSync(dataDir, { recursive: true, force: true });
      const note = dropEntry(cache.entry);
      cache = {
        ...(await fill()),
        dropped: note ? `${error.message}; ${note}` : error.message,
      };
      report(cache);
      throwIfInterrupted();
      later = place(cache);
    }
  } catch (error) {
    throw copyError(error, config, dataDir);
  }
  // Authentication for this run (not cached: it names this run's OS users and listen address).
  // Both files exist (copied, owned by runAs); rewriting them keeps their owner.
  writeFileSync(join(dataDir, 'pg_hba.conf'), runHba(config));
  writeFileSync(join(dataDir, 'pg_ident.conf'), identConf(osUsers(runAs), config.user));
  const entry = cache.entry;
  const copyTemplates = (): void => {
    try {
      copyLater(entry, cache.manifest, dataDir, runAs, later, join(handle.runDir, 'templates.tmp'));
    } catch (error) {
      if (error instanceof DamagedEntryError) throw new TemplatesNotUsed(error, dropEntry(entry));
      throw copyError(error, config, dataDir);
    }
  };
  phases.end('copy');
  return { cache, copyTemplates };
}

/**
 * The socket lock file of the postmaster that saved an entry (`.s.PGSQL.<port>.lock`, in the
 * data directory, which is native mode's socket folder): entries saved with pg_basebackup hold
 * it. It names that postmaster's PID, and a postmaster started on the same port refuses to start
 * while a process of its user has that PID now (src/backend/utils/init/miscinit.c CreateLockFile).
 */
const SAVED_SOCKET_LOCK = /^\.s\.PGSQL\.\d+\.lock$/;

/**
 * Puts a schema-cache entry in the run folder's data directory instead of a fresh cluster: copied
 * as the initdb cache's entries are (checked against its manifest as it goes: copyCluster), owned
 * by `runAs`, with this run's authentication files and an empty postgresql.auto.conf
 * (EMPTY_AUTO_CONF), without a saved socket lock file. Its backup_label stays: the server replays the WAL of the copy as it starts.
 * @throws DamagedEntryError when the entry differs from its manifest (the caller drops it: a
 *   miss); other errors as copyError maps them
 */
export function restoreCluster(entry: StoreEntry, handle: NativeHandle, config: Config, runAs: RunAs | null): void {
  const dataDir = dataDirOf(handle.runDir);
  const files = Object.entries(entry.manifest.files).filter(([f]) => !SAVED_SOCKET_LOCK.test(f));
  try {
    copyCluster(entry.dir, { dirs: entry.manifest.dirs, files: Object.fromEntries(files) }, dataDir, runAs);
  } catch (error) {
    if (error instanceof DamagedEntryError) {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
    throw copyError(error, config, dataDir);
  }
  writeFileSync(join(dataDir, 'pg_hba.conf'), runHba(config));
  writeFileSync(join(dataDir, 'pg_ident.conf'), identConf(osUsers(runAs), config.user));
  const autoConf = join(dataDir, 'postgresql.auto.conf');
  writeFileSync(autoConf, EMPTY_AUTO_CONF, { mode: 0o600 });
  if (runAs) chownSync(autoConf, runAs.uid, runAs.gid);
}

/**
 * The OS users that reach the server over its Unix socket: this process's user (the bootstrap
 * connection) and the user postgres runs as.
 * @throws SetupError when this process's user has no name (peer authentication needs one)
 */
function osUsers(runAs: RunAs | null): string[] {
  let me: string;
  try {
    me = userInfo().username;
  } catch {
    throw new SetupError(
      `This process's user (uid ${process.getuid?.() ?? '?'}) has no name in the user database, which peer authentication needs`,
      'Run as a user listed in /etc/passwd',
    );
  }
  return runAs ? [me, runAs.name] : [me];
}

/** The run's pg_hba.conf as placed: hbaConf, or where the first connection needs a password (Windows) bootstrapHbaConf until it is made. */
function runHba(config: Pick<Config, 'publishHost'>): string {
  return hasPeerSocket() ? hbaConf(config.publishHost) : bootstrapHbaConf();
}
