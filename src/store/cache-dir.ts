/**
 * The cache folder every mode and store shares (`cache-dir`): where it is by default, made and
 * checked private before use, and an entry published into it exclusively (the initdb cache, the
 * npm builds kept, the schema cache's store).
 */
import { lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../fsutil.js';
import { MANIFEST_SUFFIX } from './manifest.js';

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

/**
 * Makes the cache folder, or says why the `cache-dir` input cannot be used.
 * @throws InputError (input `cache-dir`) when it is a file, below a file, not writable, or
 *   owned or writable by another user
 */
export function prepareCacheDir(cacheDir: string): void {
  try {
    makeDirs(cacheDir, 0o755);
    // Another user who can write the cache could plant a cluster (postgresql.auto.conf) that
    // runs their code as this user.
    checkPrivateDir(cacheDir);
  } catch (error) {
    if (error instanceof FolderError) {
      throw new InputError(
        'cache-dir',
        `${cacheDir} cannot hold the initdb cache: ${error.message}`,
        'Give a folder this user can write to, or leave cache-dir empty for the default',
      );
    }
    throw error;
  }
}

/**
 * Publishes a fill: its manifest (`<staging>.manifest.json`) created exclusively at the entry's
 * (`wx`: fails when another run placed one: the two differ, pg_control and the WAL are never
 * the same twice), then its folder renamed into place. A manifest with no folder is a leftover
 * (a run killed between the two steps, or a folder removed by hand): it is replaced once.
 * @param data the manifest's text, as written beside the staging folder
 * @returns false when another run's entry is there (or is being placed)
 */
export function placeEntry(staging: string, entry: string, data: string): boolean {
  const manifest = `${entry}${MANIFEST_SUFFIX}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (lstatSync(entry, { throwIfNoEntry: false })) return false;
    try {
      writeFileSync(manifest, data, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      // Another fill's manifest, its folder due at once; or a leftover with no folder to come.
      const since = Date.now() - (lstatSync(manifest, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (attempt > 0 || since < 60_000) return false;
      rmSync(manifest, { force: true });
      continue;
    }
    try {
      renameSync(staging, entry);
      rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
      return true;
    } catch {
      rmSync(manifest, { force: true });
      return false;
    }
  }
  return false;
}
