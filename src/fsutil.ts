/**
 * Folders the user names (cache-dir, the CLI's state folder): made with a bounded walk, checked
 * before anything starts, and errors that say what is wrong instead of a raw Node error.
 *
 * Node's `mkdirSync(path, { recursive: true })` can loop forever where mkdir(2) answers ENOENT
 * although the parent exists (e.g. below /proc); makeDirs() walks the path once instead.
 */
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

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
      if (code === 'EEXIST' && lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) {
        throw new FolderError(`${dir} is a symbolic link to ${readlinkSync(dir)}, which does not exist (a dangling link)`);
      }
      throw new FolderError(`${dir} cannot be made (${code ?? String(error)})`);
    }
  }
  try {
    accessSync(full, constants.W_OK | constants.X_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EROFS') throw new FolderError(`${full} is on a read-only file system (EROFS)`);
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
 * Why the programs below `path` cannot be trusted to be the ones placed there: a folder on the way
 * from `/` to `path` (those that exist) that another user could change — owned by someone other
 * than root or this user, or writable by group or others without the sticky bit (so another user
 * could rename a folder away and put their own, as `ssh` refuses for StrictModes). The path is
 * walked as written (a symbolic link on the way must be root's or this user's, in a folder that
 * passes) and with its links resolved (the folders the programs really sit in). Folders at or
 * below `lenientFrom` are not looked at: the GitHub-hosted images `chmod -R 777` their tool cache,
 * on a machine that runs one job for one user.
 * @returns the problem naming the folder, its owner and mode; or null (always null on Windows)
 */
export function pathTrustProblem(path: string, lenientFrom: string | null = null): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const lenient = lenientFrom === null ? [] : [...new Set([resolve(lenientFrom), realPath(lenientFrom)])];
  for (const full of new Set([resolve(path), realPath(path)])) {
    const steps: string[] = [];
    for (let at = full; ; at = dirname(at)) {
      steps.unshift(at);
      if (dirname(at) === at) break;
    }
    for (const at of steps) {
      const s = lstatSync(at, { throwIfNoEntry: false });
      if (!s) break;
      if (lenient.some((l) => at === l || at.startsWith(`${l}/`))) continue;
      const mode = (s.mode & 0o7777).toString(8).padStart(3, '0');
      if (s.uid !== 0 && s.uid !== uid) return `${at} belongs to uid ${s.uid}, neither root nor this user (uid ${uid})`;
      if (s.isDirectory() && (s.mode & 0o022) !== 0 && (s.mode & 0o1000) === 0) {
        return `${at} can be written by others (mode ${mode}): another user could put their own programs there`;
      }
    }
  }
  return null;
}

/** `path` with the symbolic links of its existing part resolved (the folders a program is really run from). */
function realPath(path: string): string {
  let existing = resolve(path);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return join(realpathSync(existing), relative(existing, resolve(path)));
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
