/**
 * Folders the user names (cache-dir, the CLI's state folder): made with a bounded walk, checked
 * before anything starts, and errors that say what is wrong instead of a raw Node error.
 *
 * Node's `mkdirSync(path, { recursive: true })` can loop forever where mkdir(2) answers ENOENT
 * although the parent exists (e.g. below /proc); makeDirs() walks the path once instead.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why a folder cannot be used; the caller turns it into an InputError or SetupError. */
export class FolderError extends Error {}

/**
 * Makes `path` and its missing parents (like `mkdir -p`), each new one with `mode`, in one walk
 * bounded by the path's depth.
 * @throws FolderError saying which part of the path is not a folder, cannot be made, or is not writable
 */
export function makeDirs(path: string, mode = 0o755): void {
  const full = resolve(path);
  const missing: string[] = [];
  let at = full;
  // At most one step per path component: the walk ends at the root.
  for (;;) {
    let kind: 'dir' | 'other' | 'none';
    try {
      kind = statSync(at).isDirectory() ? 'dir' : 'other';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new FolderError(`${at} cannot be read (${code ?? String(error)})`);
      kind = 'none';
    }
    if (kind === 'other') throw new FolderError(`${at} is a file, not a folder`);
    if (kind === 'dir') break;
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw new FolderError(`${dir} cannot be made (${code ?? String(error)})`);
    }
  }
  try {
    accessSync(full, constants.W_OK | constants.X_OK);
  } catch {
    throw new FolderError(`${full} is not writable by this user`);
  }
}

/**
 * Checks that a folder holding records only its owner may change is private: owned by this
 * user and not writable by group or others (so no one else can plant a record in it).
 * @throws FolderError when it is not a folder, or naming the owner or the mode that is wrong
 */
export function checkPrivateDir(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: no POSIX owners or modes
  const s = statSync(path);
  if (!s.isDirectory()) throw new FolderError(`${path} is not a folder`);
  if (s.uid !== uid) throw new FolderError(`${path} belongs to uid ${s.uid}, not to this user (uid ${uid})`);
  if ((s.mode & 0o022) !== 0) {
    throw new FolderError(`${path} can be written by others (mode ${(s.mode & 0o777).toString(8).padStart(3, '0')})`);
  }
}

/**
 * Why a path cannot hold PostgreSQL's programs or data on POSIX: initdb runs
 * `"<bin>/postgres" --boot …` through `/bin/sh` with the path in double quotes (initdb.c, popen),
 * where `$`, a backquote, `"` and `\` still have a meaning, so initdb fails with "program
 * "postgres" is needed by initdb but was not found". A space, `'` or non-ASCII letters are fine.
 * @returns the problem, or null when the path is safe (always null on Windows, whose initdb quotes otherwise)
 */
export function initdbPathProblem(path: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'win32') return null;
  const bad = [...new Set([...path].filter((c) => '$`"\\'.includes(c)))];
  return bad.length ? `holds ${bad.map((c) => `"${c}"`).join(', ')}, which initdb's shell command cannot carry` : null;
}
