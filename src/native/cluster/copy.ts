/**
 * Copying a cached cluster into a data directory: checked against its manifest as it is copied
 * (owner, mode, size, and the fingerprint or else the sha256: copyFile), the template databases
 * apart so they can be copied while the server starts.
 */
import { createHash } from 'node:crypto';
import { chownSync, closeSync, fchownSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DamagedEntryError, foldersProblem, type Manifest } from '../../store/manifest.js';
import { openTrusted, readChunks, readProblem, unchanged, type FileEntry } from '../../store/file-seal.js';
import type { RunAs } from '../run-as.js';

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

/** A file of the entry that cannot be used: missing, not this user's alone, or not as filled. The message is the predicate. */
class FileProblem extends Error {}

/**
 * Copies one file of an entry to `to` (made here, with the entry file's mode less group write and
 * all of others', owned by `runAs`), checked on the descriptor it is read from: a regular file of
 * this user that others cannot write (openTrusted), of the manifest's size. When that fstat gives
 * the manifest's fingerprint, the file has not changed since the fill hashed it (file-seal.ts
 * says why), and a second fstat after the copy shows it did not change while it was read;
 * otherwise its bytes are hashed as they are copied and must give the manifest's sha256. Either
 * way the bytes written are those the fill hashed. Read and written 256 KiB at a time (readChunks).
 * @throws FileProblem, e.g. `has 3 bytes, not 12`; errors of the copy's side (ENOSPC) as they
 *   come. `to` may be left written in part: the caller removes the copy.
 */
function copyFile(from: string, to: string, want: FileEntry, runAs: RunAs | null): void {
  let opened: ReturnType<typeof openTrusted>;
  try {
    opened = openTrusted(from);
  } catch (error) {
    throw new FileProblem(readProblem(error));
  }
  const { fd, s } = opened;
  try {
    if (Number(s.size) !== want.size) throw new FileProblem(`has ${s.size} bytes, not ${want.size}`);
    const hash = unchanged(s, want) ? null : createHash('sha256');
    const out = openSync(to, 'wx', Number(s.mode) & 0o750);
    let read: number;
    try {
      read = readChunks(fd, want.size, (piece) => {
        hash?.update(piece);
        for (let done = 0; done < piece.length;) done += writeSync(out, piece, done, piece.length - done);
      });
      if (runAs) fchownSync(out, runAs.uid, runAs.gid);
    } catch (error) {
      // A read that fails is the entry's problem (EIO); a write's (ENOSPC) is the copy's.
      if ((error as NodeJS.ErrnoException).syscall === 'read') throw new FileProblem(readProblem(error));
      throw error;
    } finally {
      closeSync(out);
    }
    if (read !== want.size) throw new FileProblem(`has ${read} bytes, not ${want.size}`);
    if (hash && hash.digest('hex') !== want.sha256) {
      throw new FileProblem('does not match the sha256 in its manifest (it changed after the fill)');
    }
    if (!hash && !unchanged(fstatSync(fd, { bigint: true }), want)) {
      throw new FileProblem('changed while it was copied');
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies a cached cluster to `dest` (which must not exist) in one pass over its manifest: the
 * entry's folders checked first (one lstat each: real folders of this user that others cannot
 * write), each folder made with mode 0700 (postgres requires it of PGDATA), each file copied by
 * copyFile (opened without following a symbolic link, checked on its descriptor: a regular file
 * of this user that others cannot write, of the manifest's size, unchanged since the fill by its
 * fingerprint or else by the sha256 of the bytes copied), owned by `runAs` as it is made. So what
 * the server reads is what was filled, whatever happens to the entry meanwhile. No walk of the
 * entry, no second pass. Folders in `later` (see deferrableDatabases) are left out: copyLater
 * copies them.
 * @throws DamagedEntryError when a file or folder is missing, not this user's alone, or differs
 *   from the manifest (the caller removes `dest`, drops the entry and fills it again); other
 *   errors (ENOSPC) as they come
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
  for (const [file, want] of Object.entries(manifest.files)) {
    if (!now(file)) continue;
    try {
      copyFile(join(entry, file), join(dest, file), want, runAs);
    } catch (error) {
      if (error instanceof FileProblem) throw new DamagedEntryError(entry, `${file} ${error.message}`);
      throw error;
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
