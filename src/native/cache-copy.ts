/**
 * Copying a cached cluster into a data directory: checked against its manifest as it is copied
 * (owner, mode, size, sha256), the template databases apart so they can be copied while the
 * server starts.
 */
import { chownSync, closeSync, fchownSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RunAs } from './cache-key.js';
import { foldersProblem, readProblem, sha256, TrustError, withFile, type Manifest } from './cache-manifest.js';

/** A cache entry that cannot be used (found while copying it): changed, damaged, or not this user's alone. */
export class DamagedEntryError extends Error {
  constructor(
    /** The entry. */
    readonly entry: string,
    /** What is wrong, e.g. `global/pg_control has 100 bytes, not 8192`. */
    readonly problem: string,
  ) {
    super(`${entry}: ${problem}`);
    this.name = 'DamagedEntryError';
  }
}

/**
 * The databases a server does not read until someone connects to them or copies them: every
 * `base/<oid>` but the newest, which initdb made last, `postgres` (template1 is 1, then template0,
 * then postgres: OIDs 1, 4, 5 from PostgreSQL 15, 1 and two near 13000 before). The first
 * connection and the postmaster's start touch only `global/`, `pg_wal/`, the configuration and
 * the database connected to (manual: "Database File Layout"), so these may be copied while the
 * server starts.
 * @returns their folders, relative to the cluster, e.g. `['base/1', 'base/4']`
 */
export function deferrableDatabases(manifest: Manifest): string[] {
  const oids = manifest.dirs
    .map((d) => /^base[\\/](\d+)$/.exec(d)?.[1])
    .filter((o): o is string => o !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  return oids.slice(0, -1).map((oid) => join('base', String(oid)));
}

/** Whether manifest path `path` is the folder `dir` or below it. */
function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}\\`);
}

/**
 * Copies a cached cluster to `dest` (which must not exist) in one pass over its manifest: the
 * entry's folders checked first (one lstat each: real folders of this user that others cannot
 * write), each folder made with mode 0700 (postgres requires it of PGDATA), each file opened
 * without following a symbolic link, checked on its descriptor (a regular file of this user that
 * others cannot write, of the manifest's size), read whole, its sha256 compared with the
 * manifest's, and the bytes that were hashed written to the copy, owned by `runAs` as it is made.
 * So what the server reads is what was filled, whatever happens to the entry meanwhile. No walk
 * of the entry, no second pass. Folders in `later` (see deferrableDatabases) are left out:
 * copyLater copies them.
 * @throws DamagedEntryError when a file or folder is missing, not this user's alone, or differs
 *   from the manifest (the caller drops the entry and fills it again); other errors (ENOSPC) as
 *   they come
 */
export function copyCluster(
  entry: string,
  manifest: Manifest,
  dest: string,
  runAs: RunAs | null,
  later: readonly string[] = [],
): void {
  const now = (path: string) => !later.some((dir) => isUnder(path, dir));
  const dirs = manifest.dirs.filter(now);
  const untrusted = foldersProblem(entry, dirs);
  if (untrusted) throw new DamagedEntryError(entry, untrusted);
  mkdirSync(dest, { mode: 0o700 });
  if (runAs) chownSync(dest, runAs.uid, runAs.gid);
  for (const dir of dirs) {
    const path = join(dest, dir);
    mkdirSync(path, { mode: 0o700 });
    if (runAs) chownSync(path, runAs.uid, runAs.gid);
  }
  for (const [file, { size, sha256: hash }] of Object.entries(manifest.files).filter(([f]) => now(f))) {
    let mode = 0o600;
    let bytes: Buffer;
    try {
      bytes = withFile(join(entry, file), (read, s) => {
        if (s.size !== size) throw new TrustError(`has ${s.size} bytes, not ${size}`);
        mode = s.mode & 0o750;
        return read;
      });
    } catch (error) {
      throw new DamagedEntryError(entry, `${file} ${readProblem(error)}`);
    }
    if (bytes.length !== size) throw new DamagedEntryError(entry, `${file} has ${bytes.length} bytes, not ${size}`);
    if (sha256(bytes) !== hash) {
      throw new DamagedEntryError(entry, `${file} does not match the sha256 in its manifest (it changed after the fill)`);
    }
    const fd = openSync(join(dest, file), 'wx', mode);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      if (runAs) fchownSync(fd, runAs.uid, runAs.gid);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Copies the folders copyCluster left out (see deferrableDatabases), once `postgres` has been
 * spawned: the copy runs here while the server starts in its own process. Each folder goes to
 * `<staging>/<n>` first and is renamed into place, so the server never sees half a database, only
 * none (ENOENT) before it is there. Synchronous on purpose: a copy on the thread pool (one round
 * trip per file operation) took three times as long.
 * @param staging a folder on the same filesystem as `dest`, made and removed here
 * @throws DamagedEntryError as copyCluster; other errors as they come (staging is removed)
 */
export function copyLater(
  entry: string,
  manifest: Manifest,
  dest: string,
  runAs: RunAs | null,
  later: readonly string[],
  staging: string,
): void {
  if (later.length === 0) return;
  mkdirSync(staging, { mode: 0o700 });
  try {
    for (const [n, dir] of later.entries()) {
      const into = join(staging, String(n));
      const part: Manifest = {
        dirs: manifest.dirs.filter((p) => p !== dir && isUnder(p, dir)).map((p) => relative(dir, p)),
        files: Object.fromEntries(
          Object.entries(manifest.files)
            .filter(([f]) => isUnder(f, dir))
            .map(([f, e]) => [relative(dir, f), e]),
        ),
      };
      try {
        copyCluster(join(entry, dir), part, into, runAs);
      } catch (error) {
        if (!(error instanceof DamagedEntryError)) throw error;
        // Named from the entry, as copyCluster names what it finds: `base/1/1255 …`.
        const what = error.problem.replace(/^its folder /, '');
        throw new DamagedEntryError(entry, what === error.problem ? `${dir}/${what}` : `${dir} ${what}`);
      }
      renameSync(into, join(dest, dir));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
