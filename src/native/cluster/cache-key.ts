/**
 * What an initdb cache entry is made from, and where it lives: the cluster's spec and initdb
 * arguments, and the key that hashes them with the initdb version and the entry format (the
 * default cache folder: store/cache-dir.ts).
 */
import { createHash } from 'node:crypto';
import { INITDB_ARGS } from '../../profile.js';

/** What a cluster is made with. */
export interface ClusterSpec {
  /** Folder with initdb. */
  bindir: string;
  /** Bootstrap superuser name. */
  user: string;
  /** initdb --locale value, e.g. `C` or `en_US.UTF-8`. */
  locale: string;
  /**
   * Further initdb arguments, appended after the project's own (e.g. `--wal-segsize=1` for a
   * benchmark variant). They are part of the arguments the cache key hashes, so a cluster made
   * with them gets its own cache entry; absent or empty, the arguments and key are as without.
   */
  extraArgs?: readonly string[];
}

/**
 * initdb arguments for a spec: the shared INITDB_ARGS (`--nosync`), the superuser, trust on the
 * Unix socket and scram-sha-256 over TCP (each run replaces pg_hba.conf with its own: peer on the
 * socket, see hbaConf in server-config.ts), UTF8 and the locale, then the spec's extraArgs, if any.
 */
export function initdbArgs(spec: ClusterSpec): string[] {
  return [
    ...INITDB_ARGS,
    `--username=${spec.user}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    `--locale=${spec.locale}`,
    ...(spec.extraArgs ?? []),
  ];
}

/**
 * Layout of an entry and its manifest; part of the key, so entries of another layout are never
 * read (2: the manifest lists folders and files, and the copy works from it; 3: each file's
 * sha256, checked as it is copied; 4: each file's fingerprint and the time of the seal, and the
 * sha256 checked only for a file whose fingerprint differs; 5: initdb run with a clean environment,
 * serverEnv: no TZ, so the entry holds the system's zone and never a caller's, and no PG*).
 */
export const CACHE_FORMAT = 5;

/** Cache key: 32 hex digits of sha256 over the entry format, the initdb version line and the arguments. */
export function cacheKey(initdbVersion: string, args: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ format: CACHE_FORMAT, initdbVersion: initdbVersion.trim(), args }))
    .digest('hex')
    .slice(0, 32);
}
