/**
 * What an initdb cache entry is made from, and where it lives: the cluster's spec and initdb
 * arguments, the key that hashes them with the initdb version and the entry format, and the
 * default cache folder.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { INITDB_ARGS } from '../../profile.js';

/** An OS user to run server programs as (PostgreSQL refuses to run as root). */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

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

/**
 * Default cache folder: $PG_TMPFS_CACHE_DIR, else on Windows %LOCALAPPDATA%\pg-tmpfs (where
 * Windows keeps a user's caches), else /var/cache/pg-tmpfs for root, else
 * $XDG_CACHE_HOME/pg-tmpfs or ~/.cache/pg-tmpfs.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.PG_TMPFS_CACHE_DIR) return env.PG_TMPFS_CACHE_DIR;
  if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'pg-tmpfs');
  if (process.getuid?.() === 0) return '/var/cache/pg-tmpfs';
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pg-tmpfs');
}
