/**
 * An initdb cache entry's manifest and the trust checks of everything read from the cache: the
 * manifest (`<key>.manifest.json`) lists the entry's folders and each file's size and sha256; a
 * file or folder is trusted only when it is of the kind expected, this user's, and not writable
 * by group or others (trustProblem), and files are read without following a symbolic link.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/**
 * Why a file or folder of the cache is not to be trusted: it is not of the kind expected (a
 * symbolic link, a folder where a file should be), it belongs to another user than this
 * process's effective user, or group or others can write it (they could change it at any time).
 * On Windows (no POSIX owners) only the kind is checked.
 * @param s its lstat, or the fstat of the descriptor that is read
 * @returns null when it is trusted, else the reason as a predicate, e.g. `belongs to uid 65534,
 *   not to this user (uid 1000)`
 */
export function trustProblem(s: Stats, kind: 'file' | 'folder'): string | null {
  if (kind === 'folder' ? !s.isDirectory() : !s.isFile()) {
    return s.isSymbolicLink() ? 'is a symbolic link' : `is not a ${kind}`;
  }
  const uid = process.geteuid?.();
  if (uid === undefined) return null;
  if (s.uid !== uid) return `belongs to uid ${s.uid}, not to this user (uid ${uid})`;
  if ((s.mode & 0o022) !== 0) {
    return `can be written by group or others (mode ${(s.mode & 0o777).toString(8).padStart(3, '0')})`;
  }
  return null;
}

/** Suffix of the file beside an entry that lists its folders and files with their sizes and hashes. */
export const MANIFEST_SUFFIX = '.manifest.json';

/** A file of an entry as it was filled: its size in bytes and the sha256 of its content (64 hex digits). */
export interface FileEntry {
  size: number;
  sha256: string;
}

/** What an entry holds: its folders (relative, each after its parent) and files (relative path → size and hash). */
export interface Manifest {
  dirs: string[];
  files: Record<string, FileEntry>;
}

/** Largest manifest read: 16 MiB (a cluster's is about 100 KB). */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** Open flags of every read from the cache: no symbolic link followed, and a FIFO never waited on. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The read buffer of copies and hashes, grown to the largest file met (a 16 MB WAL segment). */
let buffer = Buffer.alloc(0);

/** Reads up to `size` bytes of `fd` from its start into the shared buffer: a view of what was read (valid until the next read). */
function readAll(fd: number, size: number): Buffer {
  if (buffer.length < size) buffer = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, buffer, done, size - done, done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

/** sha256 of `bytes`, 64 hex digits. */
export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Opens a file of the cache for reading (no symbolic link followed), checks it with trustProblem
 * on the descriptor, and hands its bytes (up to `maxBytes`, else its size) to `use`.
 * @throws Error with `code` ENOENT/ELOOP as the open fails; TrustError when trustProblem objects
 */
export function withFile<T>(path: string, use: (bytes: Buffer, s: Stats) => T, maxBytes?: number): T {
  const fd = openSync(path, READ_FLAGS);
  try {
    const s = fstatSync(fd);
    const problem = trustProblem(s, 'file');
    if (problem) throw new TrustError(problem);
    if (maxBytes !== undefined && s.size > maxBytes)
      throw new TrustError(`has ${s.size} bytes, more than the ${maxBytes} expected`);
    return use(readAll(fd, s.size), s);
  } finally {
    closeSync(fd);
  }
}

/** A file or folder of the cache that trustProblem objects to; the message is the predicate. */
export class TrustError extends Error {}

/**
 * Every folder and file below `dir`, each file read to record its size and sha256 (at a fill).
 * @throws Error when something below is neither a file nor a folder (a symbolic link: ELOOP), or
 *   a file trustProblem objects to (TrustError: another owner, writable by others)
 */
export function listFiles(dir: string): Manifest {
  const manifest: Manifest = { dirs: [], files: {} };
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (lstatSync(path).isDirectory()) {
        manifest.dirs.push(relative(dir, path));
        walk(path);
      } else {
        manifest.files[relative(dir, path)] = withFile(path, (bytes) => ({ size: bytes.length, sha256: sha256(bytes) }));
      }
    }
  };
  walk(dir);
  return manifest;
}

/** The predicate of an error met reading a cache file, e.g. `is missing`, `is a symbolic link`. */
export function readProblem(error: unknown): string {
  if (error instanceof TrustError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'is missing';
  if (code === 'ELOOP') return 'is a symbolic link';
  return `cannot be read (${code ?? String(error)})`;
}

/**
 * Reads an entry's manifest: a file owned by this user that others cannot write (trustProblem),
 * read without following a symbolic link, in this format, every path inside the entry.
 * @returns the manifest, or why it cannot be used (a predicate of `its manifest`, e.g. `is missing`)
 */
export function loadManifest(entry: string): Manifest | string {
  let m: Partial<Manifest>;
  try {
    m = withFile(
      `${entry}${MANIFEST_SUFFIX}`,
      (bytes) => JSON.parse(bytes.toString('utf8')) as Partial<Manifest>,
      MAX_MANIFEST_BYTES,
    );
  } catch (error) {
    return error instanceof SyntaxError ? 'is not JSON' : readProblem(error);
  }
  if (!m || !Array.isArray(m.dirs) || !m.files || typeof m.files !== 'object' || Array.isArray(m.files)) {
    return 'is not a manifest of this format';
  }
  if (!m.dirs.every((d) => typeof d === 'string' && isInside(d))) return 'names a folder outside its entry';
  for (const [f, e] of Object.entries(m.files)) {
    if (!isInside(f)) return 'names a file outside its entry';
    const { size, sha256: hash } = (e ?? {}) as Partial<FileEntry>;
    if (!Number.isSafeInteger(size) || (size as number) < 0 || typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      return `gives no size and sha256 for ${f}`;
    }
  }
  return { dirs: m.dirs, files: m.files as Record<string, FileEntry> };
}

/**
 * Reads an entry's manifest (loadManifest).
 * @returns null when it is missing, cannot be trusted, or is not a manifest of this format
 */
export function readManifest(entry: string): Manifest | null {
  const m = loadManifest(entry);
  return typeof m === 'string' ? null : m;
}

/** Whether a manifest path stays inside its entry (relative, no `..`). */
function isInside(path: string): boolean {
  return path !== '' && !isAbsolute(path) && !path.split(/[\\/]/).includes('..');
}

/**
 * Why the folders `dirs` of `root` (and root itself) cannot be copied from: one is missing, not a
 * folder (a symbolic link), another user's, or writable by others (trustProblem). One lstat each.
 * @returns null when all are trusted, else e.g. `base/5 belongs to uid 65534, not to this user (uid 0)`
 */
export function foldersProblem(root: string, dirs: readonly string[]): string | null {
  for (const dir of ['', ...dirs]) {
    const s = lstatSync(dir ? join(root, dir) : root, { throwIfNoEntry: false });
    const problem = s ? trustProblem(s, 'folder') : 'is missing';
    if (problem) return `${dir || 'its folder'} ${problem}`;
  }
  return null;
}

/**
 * Whether the entry `entry` may be copied, checked before anything is: its manifest
 * (loadManifest), and the entry folder and every folder the manifest lists are real folders of
 * this user that group and others cannot write. Files are checked as they are copied
 * (copyCluster: owner, mode, size, sha256). Costs reading the manifest and one lstat per folder.
 * @returns null when there is nothing at the key (neither folder nor manifest); else the
 *   manifest, or why the entry cannot be used, e.g. `its manifest belongs to uid 65534, …`
 */
export function checkEntry(entry: string): { manifest: Manifest } | { problem: string } | null {
  // No folder is a miss, whatever the manifest: a fill places its manifest first and its folder
  // right after (ensureCluster), and a start that looks in between must not drop it.
  if (!lstatSync(entry, { throwIfNoEntry: false })) return null;
  const m = loadManifest(entry);
  if (typeof m === 'string') return { problem: `its manifest ${m}` };
  const problem = foldersProblem(entry, m.dirs);
  return problem ? { problem } : { manifest: m };
}

/**
 * Why a cache entry cannot be used, walking all of it: what checkEntry finds, a file or folder
 * another user owns or others can write, a file missing, added, or whose size or sha256 differs
 * from the manifest (a truncated catalog file, a removed PG_VERSION, an edited postgresql.conf).
 * Starts do not call it (checkEntry and copyCluster check as they copy), only a fill that lost a
 * race does.
 * @returns null when the entry matches its manifest
 */
export function entryProblem(entry: string): string | null {
  const checked = checkEntry(entry);
  if (!checked) return 'it is not there';
  if ('problem' in checked) return checked.problem;
  const { manifest } = checked;
  let found: Manifest;
  try {
    found = listFiles(entry);
  } catch (error) {
    return `a file in it ${readProblem(error)}`;
  }
  const extraDir = found.dirs.find((d) => !manifest.dirs.includes(d));
  if (extraDir) return `${extraDir} was added`;
  for (const [path, { size, sha256: hash }] of Object.entries(manifest.files)) {
    const now = found.files[path];
    if (!now) return `${path} is missing`;
    if (now.size !== size) return `${path} has ${now.size} bytes, not ${size}`;
    if (now.sha256 !== hash) return `${path} does not match the sha256 in its manifest`;
  }
  const extra = Object.keys(found.files).find((path) => !(path in manifest.files));
  return extra ? `${extra} was added` : null;
}
