/**
 * Reading files of the cache and sealing them: every file is opened without following a symbolic
 * link and checked on its descriptor (trustProblem: of the kind expected, this user's, not
 * writable by group or others); sealFile records a file's size, sha256 and fingerprint (its
 * inode, mtime and ctime in ns), which later checks compare instead of hashing it again.
 *
 * Why a fingerprint stands for the sha256: the kernel sets a file's ctime to the current time on
 * every change of its inode (write, truncate, chmod, chown, link, rename, utimes), and no system
 * call sets it to a chosen value; a write changes mtime and ctime. So a file whose inode number,
 * mtime and ctime (to the ns) are those recorded has not been changed since, provided no change
 * could land in the same clock tick as the recording: sealFile records a fingerprint only for a
 * file whose ctime is older than the moment the seal began (sealClock), so any change made after
 * that gets a later ctime. It assumes the files are complete when sealed (what wrote them has
 * exited: initdb, pg_basebackup, an extraction). Not covered: the disk silently corrupting blocks
 * under an unchanged inode (the filesystem's and disk's own checks guard those, as for every
 * other file a job reads, the server's binaries included), the system clock set back to the very
 * tick recorded, and root (who can set the clock and write the raw disk). A copy elsewhere (cp
 * -a, a backup restored) has new inodes and ctimes: its files are hashed, as every file was before.
 * Windows lets a program set a file's change time: no fingerprints there (FINGERPRINTS).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type BigIntStats, chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';

/**
 * Why a file or folder of the cache is not to be trusted: it is not of the kind expected (a
 * symbolic link, a folder where a file should be), it belongs to another user than this
 * process's effective user, or group or others can write it (they could change it at any time).
 * On Windows (no POSIX owners) only the kind is checked.
 * @param s its lstat, or the fstat of the descriptor that is read
 * @returns null when it is trusted, else the reason as a predicate, e.g. `belongs to uid 65534,
 *   not to this user (uid 1000)`
 */
export function trustProblem(s: Stats | BigIntStats, kind: 'file' | 'folder'): string | null {
  if (kind === 'folder' ? !s.isDirectory() : !s.isFile()) {
    return s.isSymbolicLink() ? 'is a symbolic link' : `is not a ${kind}`;
  }
  const uid = process.geteuid?.();
  if (uid === undefined) return null;
  if (Number(s.uid) !== uid) return `belongs to uid ${s.uid}, not to this user (uid ${uid})`;
  const mode = Number(s.mode);
  if ((mode & 0o022) !== 0) {
    return `can be written by group or others (mode ${(mode & 0o777).toString(8).padStart(3, '0')})`;
  }
  return null;
}

/** A file of an entry as it was filled: its size in bytes, the sha256 of its content (64 hex digits), and its fingerprint. */
export interface FileEntry {
  size: number;
  sha256: string;
  /**
   * The file's inode when it was hashed, `<inode>:<mtime ns>:<ctime ns>` (fingerprintOf); absent
   * when it changed after its fill began (sealFile) or the manifest was made from a stream (a
   * Docker schema-cache entry): such a file is always hashed.
   */
  fingerprint?: string;
}

/** Open flags of every read from the cache: no symbolic link followed, and a FIFO never waited on. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Bytes read at a time by hashes and copies (readChunks): 256 KiB, which stays in the CPU's cache
 * between the read, the hash and the write (whole files, up to a 16 MB WAL segment, did not).
 */
const CHUNK_BYTES = 256 * 1024;
let chunk: Buffer | null = null;

/**
 * Reads `fd` from its start up to `size` bytes, CHUNK_BYTES at a time, handing each piece to
 * `each` (a view of a shared buffer, valid until `each` returns).
 * @returns the bytes read: less than `size` when the file ends first
 */
export function readChunks(fd: number, size: number, each: (piece: Buffer) => void): number {
  chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, size - done), done);
    if (n === 0) break;
    each(chunk.subarray(0, n));
    done += n;
  }
  return done;
}

/** A file's fingerprint, `<inode>:<mtime ns>:<ctime ns>`, from its fstat or lstat (bigint: ns). */
export function fingerprintOf(s: BigIntStats): string {
  return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
}

/**
 * Whether fingerprints are recorded and believed here: not on Windows, where a file's change time
 * can be set (SetFileInformationByHandle, FILE_BASIC_INFO.ChangeTime) and trustProblem checks no
 * owner; there every file is hashed. Linux sets ctime itself (no utimensat field for it), and so
 * does macOS (setattrlist(2): an attempt to set ATTR_CMN_CHGTIME is ignored).
 */
export const FINGERPRINTS = process.platform !== 'win32';

/** Whether the file `s` (its fstat or lstat) is, by its fingerprint, the one `want` recorded: not changed since. */
export function unchanged(s: BigIntStats, want: FileEntry): boolean {
  return FINGERPRINTS && want.fingerprint !== undefined && fingerprintOf(s) === want.fingerprint;
}

/**
 * The filesystem's clock now, in ns, read where `dir` is: its ctime after a chmod to its own
 * mode (which changes nothing but the ctime). Files whose ctime is older than this were last
 * changed before it, in an earlier clock tick, so any later change gives them a later ctime.
 * @throws Error when `dir` is not this user's (chmod: EPERM)
 */
export function sealClock(dir: string): bigint {
  chmodSync(dir, lstatSync(dir).mode & 0o7777);
  return lstatSync(dir, { bigint: true }).ctimeNs;
}

/**
 * Opens a file of the cache for reading (no symbolic link followed, no FIFO waited on) and
 * checks it on its descriptor (trustProblem); the caller closes the descriptor.
 * @returns the descriptor and its fstat (bigint: ns times for fingerprintOf)
 * @throws Error with `code` ENOENT/ELOOP as the open fails; TrustError when trustProblem objects
 */
export function openTrusted(path: string): { fd: number; s: BigIntStats } {
  const fd = openSync(path, READ_FLAGS);
  try {
    const s = fstatSync(fd, { bigint: true });
    const problem = trustProblem(s, 'file');
    if (problem) throw new TrustError(problem);
    return { fd, s };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * A file's manifest entry: its size and sha256, read on a trusted descriptor (openTrusted), and
 * its fingerprint when its ctime is older than `since` (sealClock, taken before any file was
 * read) and it was read whole.
 * @throws as openTrusted
 */
export function sealFile(path: string, since: bigint): FileEntry {
  return sealAt(path, since).entry;
}

/** sealFile, and the file's ctime (ns) as its descriptor gave it. */
function sealAt(path: string, since: bigint): { entry: FileEntry; ctimeNs: bigint } {
  const { fd, s } = openTrusted(path);
  try {
    const hash = createHash('sha256');
    const size = readChunks(fd, Number(s.size), (piece) => hash.update(piece));
    const entry: FileEntry = { size, sha256: hash.digest('hex') };
    if (FINGERPRINTS && s.ctimeNs < since && size === Number(s.size)) entry.fingerprint = fingerprintOf(s);
    return { entry, ctimeNs: s.ctimeNs };
  } finally {
    closeSync(fd);
  }
}

/**
 * How long sealFiles waits at most for the filesystem's clock to pass the newest ctime, in ms:
 * 50 (a clock tick is 1 to 10 ms; a filesystem that keeps whole seconds would take longer, and
 * its newest files are then left without a fingerprint).
 */
const SETTLE_MS = 50;

/**
 * Seals the files `paths` (relative to `dir`, a folder of this user's) for a manifest: each one's
 * size, sha256 and fingerprint (sealFile), from the filesystem's clock read before the first is
 * read (sealClock). Files changed in the clock's last tick before it (what the fill wrote last,
 * a few ms before) get no fingerprint on that pass: they are sealed once more once the clock has
 * passed their ctime (waiting up to SETTLE_MS, 1 ms at a time). A file that still has none is
 * hashed at every use.
 * @returns each file's entry by path, and the clock of the last pass (ns, decimal)
 * @throws as openTrusted (ELOOP for a symbolic link, TrustError with the predicate alone)
 */
export function sealFiles(dir: string, paths: readonly string[]): { files: Record<string, FileEntry>; sealedNs: string } {
  let since = sealClock(dir);
  const files: Record<string, FileEntry> = {};
  let newest: bigint | null = null;
  for (const path of paths) {
    const { entry, ctimeNs } = sealAt(join(dir, path), since);
    files[path] = entry;
    if (!entry.fingerprint && (newest === null || ctimeNs > newest)) newest = ctimeNs;
  }
  if (newest === null) return { files, sealedNs: String(since) };
  since = clockPast(dir, newest);
  for (const [path, entry] of Object.entries(files)) {
    if (!entry.fingerprint) files[path] = sealFile(join(dir, path), since);
  }
  return { files, sealedNs: String(since) };
}

/**
 * The filesystem's clock (sealClock) once it has passed `newest` (a ctime, ns), read every 1 ms for
 * up to SETTLE_MS (a synchronous sleep: the fills that call it are synchronous); the last reading
 * when it has not passed by then.
 */
function clockPast(dir: string, newest: bigint): bigint {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + SETTLE_MS;
  let since: bigint;
  do {
    Atomics.wait(wait, 0, 0, 1);
    since = sealClock(dir);
  } while (since <= newest && Date.now() < end);
  return since;
}

/**
 * Adds fingerprints to the entries of files this process has just written and hashed as it wrote
 * them (the schema cache's backup copy), by sealFiles' rule without reading them again: a file
 * whose ctime is older than the filesystem's clock now (sealClock, after the last write) gets its
 * fingerprint from an lstat; the few written in the clock's last tick are sealed once the clock
 * has passed them (sealFile: read and hashed again, as sealFiles does).
 * @param files relative path → size and sha256 of what was written, in `dir` (a folder of this user's)
 * @returns the entries with fingerprints, and the clock of the last pass (ns, decimal)
 * @throws as openTrusted, for a file that is not this user's plain file
 */
export function fingerprintWritten(
  dir: string,
  files: Record<string, FileEntry>,
): { files: Record<string, FileEntry>; sealedNs: string } {
  if (!FINGERPRINTS) return { files, sealedNs: String(sealClock(dir)) };
  let since = sealClock(dir);
  const out: Record<string, FileEntry> = {};
  const later: string[] = [];
  let newest = 0n;
  for (const [path, entry] of Object.entries(files)) {
    const s = lstatSync(join(dir, path), { bigint: true });
    if (s.isFile() && Number(s.size) === entry.size && s.ctimeNs < since) {
      out[path] = { size: entry.size, sha256: entry.sha256, fingerprint: fingerprintOf(s) };
    } else {
      later.push(path);
      if (s.ctimeNs > newest) newest = s.ctimeNs;
    }
  }
  if (later.length === 0) return { files: out, sealedNs: String(since) };
  since = clockPast(dir, newest);
  for (const path of later) out[path] = sealFile(join(dir, path), since);
  return { files: out, sealedNs: String(since) };
}

/** The read buffer of withFile (a manifest, a Docker schema-cache entry's tar), grown to the largest file read. */
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

/** The predicate of an error met reading a cache file, e.g. `is missing`, `is a symbolic link`. */
export function readProblem(error: unknown): string {
  if (error instanceof TrustError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'is missing';
  if (code === 'ELOOP') return 'is a symbolic link';
  return `cannot be read (${code ?? String(error)})`;
}

/**
 * Why the file at `path` is not as `want` says: its lstat (a regular file of this user that
 * others cannot write, of the size recorded), then, unless its fingerprint is the one recorded,
 * its sha256 (read on a trusted descriptor). One lstat while nothing changed.
 * @returns null when it is as recorded, else the predicate, e.g. `is missing`, `has 3 bytes, not
 *   12`, `does not match the sha256 in its manifest`
 */
export function fileProblem(path: string, want: FileEntry): string | null {
  const s = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!s) return 'is missing';
  const untrusted = trustProblem(s, 'file');
  if (untrusted) return untrusted;
  if (Number(s.size) !== want.size) return `has ${s.size} bytes, not ${want.size}`;
  if (unchanged(s, want)) return null;
  let now: FileEntry;
  try {
    now = sealFile(path, 0n); // read and hashed; the fingerprint it may give is not used
  } catch (error) {
    return readProblem(error);
  }
  if (now.size !== want.size) return `has ${now.size} bytes, not ${want.size}`;
  return now.sha256 === want.sha256 ? null : 'does not match the sha256 in its manifest';
}
