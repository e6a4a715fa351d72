/**
 * The schema cache in native mode: the server's identity (its version, binaries and the control
 * files of the requested extensions), and the consistent copy after init: a base backup of the
 * running server made with PostgreSQL's low-level backup API and a copy of its files by this
 * process, no program but postgres needed (backup-copy.ts). The restore places the copy as the
 * data directory (native/cluster/place.ts restoreCluster): the server replays the few WAL
 * records after backup_label as it starts (manual: "Making a Base Backup Using the Low Level
 * API", "Recovering Using a Continuous Archive Backup").
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, SetupError } from '../../errors.js';
import type { Config } from '../../inputs.js';
import { exe, type Binaries } from '../source/installed.js';
import { initdbArgs } from '../cluster/cache-key.js';
import type { Facts } from '../source/facts.js';
import { serverEnv } from '../source/server-env.js';
import type { Manifest } from '../../store/manifest.js';
import { openClient } from '../../readiness.js';
import type { NativeServer } from '../../server.js';
import { runSync } from '../../proc.js';
import { BackupCopy, labelStartSegment, walSegments } from './backup-copy.js';
import { fingerprintWritten } from '../../store/file-seal.js';
import { BOOTSTRAP_FILE, hasPeerSocket, newBootstrapSecret } from '../run/windows.js';
import { saveCluster } from '../../schema-cache/save.js';
import type { ServerIdentity } from '../../schema-cache/key.js';

/** Deadline of `postgres --version` and `pg_config --sharedir`: 10 000 ms. */
const PROBE_TIMEOUT_MS = 10_000;
/** Deadline of the copy after init: 600 000 ms (a cluster of a few GB on a slow disk). */
export const SNAPSHOT_TIMEOUT_MS = 600_000;

/** A program's one-line answer, kept in facts; '' when it fails. */
function ask(facts: Facts, program: string, args: string[]): string {
  return (
    facts.get(program, args.join(' '), () => {
      try {
        const r = runSync(program, args, { timeoutMs: PROBE_TIMEOUT_MS, baseEnv: serverEnv() });
        return r.code === 0 ? r.stdout.trim() : null;
      } catch {
        return null;
      }
    }) ?? ''
  );
}

/**
 * The identity of a native server for the key: `postgres --version`, the bindir, the initdb
 * arguments, and the sha256 of every extension control file in the share folder
 * (`pg_config --sharedir`/extension/*.control; an npm build's own share folder): an extension package installed, removed or
 * upgraded in place changes its default_version there, whether `extensions` or an init file
 * creates it. A requested extension with no control file counts as '' (the start then fails
 * naming it).
 * @throws SetupError when `postgres --version` fails
 */
export function nativeIdentity(bins: Binaries, config: Config, facts: Facts): ServerIdentity {
  const version = ask(facts, join(bins.bindir, exe('postgres', process.platform)), ['--version']);
  if (!version) throw new SetupError(`${bins.bindir}/postgres --version failed`, 'Check the PostgreSQL installation');
  // npm builds have no pg_config and say where their share folder is (npm-binaries.ts binariesAt).
  const sharedir = bins.sharedir ?? ask(facts, join(bins.bindir, exe('pg_config', process.platform)), ['--sharedir']);
  const extensionControls: Record<string, string> = {};
  const folder = sharedir ? join(sharedir, 'extension') : '';
  let names: string[] = [];
  try {
    names = folder ? readdirSync(folder).filter((n) => n.endsWith('.control')) : [];
  } catch {
    // no share folder: only the requested names, as ''
  }
  for (const name of [...names.map((n) => n.slice(0, -'.control'.length)), ...config.extensions].sort()) {
    if (name in extensionControls) continue;
    if (!folder) {
      extensionControls[name] = '';
      continue;
    }
    try {
      extensionControls[name] = createHash('sha256')
        .update(readFileSync(join(folder, `${name}.control`)))
        .digest('hex');
    } catch {
      extensionControls[name] = '';
    }
  }
  return {
    mode: 'native',
    version,
    // A build from npm run from RAM before it is kept is named by where it is kept (npm-ram.ts).
    bindir: bins.keptBindir ?? bins.bindir,
    arch: process.arch,
    initdbArgs: initdbArgs({ bindir: bins.bindir, user: config.user, locale: config.locale }),
    extensionControls,
  };
}

/** Deadlines of the backup session: 10 000 ms to connect, 60 000 ms a query (the server's statement_timeout too). */
const SESSION_TIMEOUTS = { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000, statementTimeoutMs: 60_000 };

/** The backup's label, in backup_label and the server log. */
const LABEL = 'pg-tmpfs schema cache';

/** The data directory's file copied last, just before pg_backup_stop (as PostgreSQL's own base backup does). */
const CONTROL_FILE = 'global/pg_control';

/**
 * The low-level backup functions of a server version: pg_backup_start(label, fast) and
 * pg_backup_stop(wait_for_archive) from PostgreSQL 15; before, pg_start_backup(label, fast,
 * exclusive) and pg_stop_backup(exclusive, wait_for_archive), used non-exclusive (manual,
 * "Backup Control Functions"). Fast: an immediate checkpoint. No waiting for the archive: the
 * WAL is copied from pg_wal. The stop's row adds the name of the last WAL file it needs.
 * @param versionNum server_version_num, e.g. 150018
 * @returns the two statements; the start's $1 is the label
 */
export function backupStatements(versionNum: number): { start: string; stop: string } {
  const v15 = versionNum >= 150_000;
  const stop = v15 ? 'pg_backup_stop(false)' : 'pg_stop_backup(false, false)';
  return {
    start: v15 ? 'SELECT pg_backup_start($1, true)' : 'SELECT pg_start_backup($1, true, false)',
    stop: `SELECT labelfile, spcmapfile, pg_walfile_name(lsn) AS last_wal FROM ${stop}`,
  };
}

/**
 * Writes a consistent copy of the running server's cluster into `dest` (an empty folder) with
 * PostgreSQL's low-level backup API over a session of its own on the Unix socket (peer
 * authentication): pg_backup_start (an immediate checkpoint), a copy of the data directory
 * without what a base backup leaves out (backup-copy.ts copyRule), pg_control last,
 * pg_backup_stop, its label written as backup_label (and tablespace_map when it gives one), then
 * the WAL segments from the label's start to the stop's last one (manual, "Making a Base Backup
 * Using the Low Level API"). The session stays open from start to stop: a non-exclusive backup
 * ends with its session, so a run killed meanwhile leaves the server as it was. No program is
 * run: the binaries' folder needs only postgres. The server keeps running; nothing else uses it
 * yet.
 * @returns the copy's manifest (every folder, and each file's size and sha256 as written)
 * @throws InputError (settings) when wal_level is minimal (the backup functions refuse it: such
 *   WAL "does not contain enough information to reconstruct the data from a base backup",
 *   manual, wal_level);
 *   SetupError when the copy meets a symbolic link (a tablespace), a WAL segment it needs is
 *   gone, or the deadline (SNAPSHOT_TIMEOUT_MS) passes; query and filesystem errors as they come
 */
export async function snapshotNative(server: NativeServer, dest: string, bootstrap: string | null = null): Promise<Manifest> {
  const deadline = Date.now() + SNAPSHOT_TIMEOUT_MS;
  const copy = new BackupCopy(server.dataDirectory, dest, deadline);
  const session = await openClient(
    {
      // Windows: no socket; over TCP with the bootstrap password save.ts withoutPassword set.
      host: bootstrap ? server.connection.host : server.socketDirectory,
      port: server.connection.port,
      user: server.connection.user,
      password: bootstrap ?? '',
      database: server.connection.database,
    },
    SESSION_TIMEOUTS,
  );
  let stopped: { labelfile: string; spcmapfile: string | null; last_wal: string };
  let segmentBytes: number;
  try {
    const facts = await session.query<{ version: number; wal_level: string; segment: string }>(
      `SELECT current_setting('server_version_num')::int AS version, current_setting('wal_level') AS wal_level,
              pg_size_bytes(current_setting('wal_segment_size')) AS segment`,
    );
    const { version, wal_level: walLevel, segment } = facts.rows[0] ?? { version: 0, wal_level: '', segment: '' };
    if (walLevel === 'minimal') {
      throw new InputError(
        'settings',
        'wal_level=minimal: the running cluster cannot be copied (PostgreSQL makes a base backup only with wal_level replica or logical), so the schema cache saved nothing',
        'Remove wal_level=minimal from settings, or turn schema-cache off',
      );
    }
    segmentBytes = Number(segment);
    const sql = backupStatements(version);
    await session.query(sql.start, [LABEL]);
    await copy.copyDataDirectory([CONTROL_FILE]);
    if (!copy.copyFile(CONTROL_FILE))
      throw new SetupError(`${server.dataDirectory} has no ${CONTROL_FILE}`, 'See the server log');
    const rows = (await session.query<typeof stopped>(sql.stop)).rows;
    if (!rows[0]) throw new SetupError('the backup stop returned no row', 'See the server log');
    stopped = rows[0];
  } finally {
    // Ends the backup too when it failed before the stop (a non-exclusive backup ends with its session).
    await session.end().catch(() => undefined);
  }
  copy.writeFile('backup_label', stopped.labelfile);
  if (bootstrap) copy.writeFile(BOOTSTRAP_FILE, bootstrap);
  if (stopped.spcmapfile) copy.writeFile('tablespace_map', stopped.spcmapfile);
  await copy.copyWal(walSegments(labelStartSegment(stopped.labelfile), stopped.last_wal, segmentBytes));
  // Each file's fingerprint beside the sha256 taken as it was written: a hit then copies the
  // entry without hashing it again while its files are as they were sealed (file-seal.ts).
  return { ...copy.manifest, ...fingerprintWritten(dest, copy.manifest.files) };
}

/**
 * A miss's save of a native server into the store's folder `dest` (schema-cache/save.ts
 * saveCluster with snapshotNative): where there is no peer socket (Windows), with a new bootstrap
 * password that the entry keeps.
 * @returns the copy's manifest
 * @throws what saveCluster throws
 */
export async function saveNative(server: NativeServer, dest: string): Promise<Manifest | void> {
  const bootstrap = hasPeerSocket() ? null : newBootstrapSecret();
  return saveCluster(server, bootstrap, (secret) => snapshotNative(server, dest, secret));
}
