/**
 * The schema cache in native mode: the server's identity (its version, binaries and the control
 * files of the requested extensions), the consistent copy after init (pg_basebackup of the
 * running server), and the restore (the copy placed as the data directory: the server replays
 * the few WAL records after backup_label as it starts; manual: "Making a Base Backup",
 * pg_basebackup).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { exe, type Binaries } from '../native/binaries.js';
import { initdbArgs } from '../native/cache-key.js';
import type { Facts } from '../native/facts.js';
import { run } from '../proc.js';
import type { NativeServer } from '../server.js';
import { noManifest, type ServerIdentity } from './key.js';

/** Deadline of `postgres --version` and `pg_config --sharedir`: 10 000 ms. */
const PROBE_TIMEOUT_MS = 10_000;
/** Deadline of the copy after init (pg_basebackup): 600 000 ms (a cluster of a few GB on a slow disk). */
export const SNAPSHOT_TIMEOUT_MS = 600_000;

/** A program's one-line answer, kept in facts; '' when it fails. */
function ask(facts: Facts, program: string, args: string[]): string {
  return (
    facts.get(program, args.join(' '), () => {
      try {
        return execFileSync(program, args, {
          encoding: 'utf8',
          timeout: PROBE_TIMEOUT_MS,
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim();
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
    bindir: bins.bindir,
    arch: process.arch,
    initdbArgs: initdbArgs({ bindir: bins.bindir, user: config.user, locale: config.locale }),
    extensionControls,
  };
}

/**
 * Writes a consistent copy of the running server's cluster into `dest` (an empty folder):
 * pg_basebackup over the Unix socket (peer authentication; pg_hba.conf allows replication there,
 * postgres.ts hbaConf), a fast checkpoint, the WAL it needs fetched at the end (`-X fetch`), no
 * fsync (`-N`), no backup manifest. The server keeps running; nothing else uses it yet.
 * @throws SetupError with pg_basebackup's message; one naming the `settings` input when
 *   wal_level is minimal or max_wal_senders is 0 (a base backup needs both)
 */
export async function snapshotNative(server: NativeServer, dest: string): Promise<void> {
  const result = await run(
    join(server.bindir, exe('pg_basebackup', process.platform)),
    [
      '-D',
      dest,
      '-X',
      'fetch',
      '-c',
      'fast',
      '-N',
      ...noManifest(server.serverVersion),
      '-h',
      server.socketDirectory,
      '-p',
      String(server.connection.port),
      '-U',
      server.connection.user,
    ],
    { timeoutMs: SNAPSHOT_TIMEOUT_MS, env: { PGAPPNAME: 'pg-tmpfs schema cache' }, unsetEnv: ['PGPASSWORD', 'PGOPTIONS'] },
  );
  if (result.code === 0) return;
  const text = `${result.stderr}${result.stdout}`.trim();
  if (/wal_level|max_wal_senders|number of requested standby connections/i.test(text)) {
    throw new SetupError(
      `the cluster cannot be copied while it runs: ${text}`,
      "Remove wal_level=minimal or max_wal_senders=0 from input 'settings' (the schema cache copies the cluster with pg_basebackup)",
    );
  }
  throw new SetupError(
    result.timedOut ? `pg_basebackup did not finish within ${SNAPSHOT_TIMEOUT_MS / 1000} s` : `pg_basebackup failed: ${text}`,
    'See its message',
  );
}
