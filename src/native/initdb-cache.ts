/**
 * The initdb cache (as tmp-postgres and pg_tmp do): initdb runs once per distinct set of
 * arguments, and later starts copy the ready cluster into place.
 *
 * An entry is `<cache>/<key>/`, where key hashes the initdb version and every argument that
 * changes its output. It is filled in `<key>.tmp-<pid>-<random>` and renamed into place only
 * when complete, so a killed run never leaves a half cluster that a later run trusts;
 * leftovers of dead processes are removed. Beside it, `<key>.manifest.json` lists its folders and
 * each file's size and sha256. An entry is used only when it is this user's alone (checkEntry,
 * trustProblem) and each file matches its manifest as it is copied (copyCluster); otherwise it
 * is a miss: dropped (or set aside, when another user could change it) and filled afresh.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  cpSync,
  fchownSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  readFileSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { InputError, SetupError } from '../errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../fsutil.js';
import { throwIfInterrupted } from '../interrupt.js';
import { INITDB_ARGS } from '../profile.js';
import { processAlive, run } from '../proc.js';
import { noFacts, type Facts } from './facts.js';
import { exe } from './binaries.js';
import { endProcessesIn } from '../orphans.js';

/** Deadline of `initdb --version`: 30 000 ms. */
const VERSION_TIMEOUT_MS = 30_000;
/** Deadline of initdb itself: 300 000 ms (about 1 s on a runner; a loaded machine may take far longer). */
const INITDB_TIMEOUT_MS = 300_000;

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
 * socket, see hbaConf in postgres.ts), UTF8 and the locale, then the spec's extraArgs, if any.
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
 * sha256, checked as it is copied).
 */
export const CACHE_FORMAT = 3;

/** Cache key: 32 hex digits of sha256 over the entry format, the initdb version line and the arguments. */
export function cacheKey(initdbVersion: string, args: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ format: CACHE_FORMAT, initdbVersion: initdbVersion.trim(), args }))
    .digest('hex')
    .slice(0, 32);
}

/** Default cache folder: $PG_TMPFS_CACHE_DIR, else /var/cache/pg-tmpfs for root, else $XDG_CACHE_HOME/pg-tmpfs or ~/.cache/pg-tmpfs. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_TMPFS_CACHE_DIR) return env.PG_TMPFS_CACHE_DIR;
  if (process.getuid?.() === 0) return '/var/cache/pg-tmpfs';
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pg-tmpfs');
}

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

/** At most this many files and folders are walked below one path (a cluster has about 1 000). */
const MAX_WALK = 100_000;

/**
 * Why the tree at `path` must not be removed recursively: it, or a folder in it, belongs to
 * another user or can be written by others, so someone else could swap a folder for a symbolic
 * link while the removal walks it and send the removal elsewhere. Files may belong to anyone
 * (unlinking a name in a folder of ours follows nothing). Reads at most MAX_WALK entries.
 * @returns null when it may be removed (also when it is gone), else the reason
 */
export function removalProblem(path: string): string | null {
  let seen = 0;
  const walk = (at: string): string | null => {
    const s = lstatSync(at, { throwIfNoEntry: false });
    if (!s || !s.isDirectory()) return null;
    const problem = trustProblem(s, 'folder');
    if (problem) return `${at} ${problem}`;
    for (const name of readdirSync(at)) {
      seen += 1;
      if (seen > MAX_WALK) return `${path} holds more than ${MAX_WALK} files and folders`;
      const inner = walk(join(at, name));
      if (inner) return inner;
    }
    return null;
  };
  try {
    return walk(path);
  } catch (error) {
    return `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/**
 * Removes a file or folder of the cache folder (an entry, its manifest, a fill of a killed run):
 * recursively when removalProblem finds nothing against it; otherwise it is renamed to
 * `<name>.untrusted-<hex>` (one rename within the private cache folder, which follows nothing)
 * and left for the user, as its removal could be turned against this user's own files.
 * @returns null when it is gone; else what happened, for a warning
 */
export function removeTree(path: string): string | null {
  const problem = removalProblem(path);
  try {
    if (!problem) {
      rmSync(path, { recursive: true, force: true });
      return null;
    }
    const aside = `${path.replace(/\.tmp-\d+-[0-9a-f]+$/, '')}.untrusted-${randomBytes(4).toString('hex')}`;
    renameSync(path, aside);
    return `left as ${aside}, not removed, because ${problem}: look at it and remove it yourself`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return `could not remove ${path} (${code ?? String(error)}): remove it yourself`;
  }
}

/**
 * Removes the `<key>.tmp-<pid>-<hex>` folders and manifests of fills whose process is gone (a run
 * killed while it filled the cache), after ending any program still working in one (an orphaned
 * initdb: orphans.ts). A fill of a live process is left alone; one another user could change is
 * set aside, not removed (removeTree).
 * @returns how many were removed, and the problems met (a program that would not end: its
 *   folder is kept then); never throws
 */
export async function removeStaleFills(cacheDir: string): Promise<{ removed: number; problems: string[] }> {
  let removed = 0;
  const problems: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return { removed, problems };
  }
  for (const name of names) {
    const match = /\.tmp-(\d+)-[0-9a-f]+(\.manifest\.json)?$/.exec(name);
    if (!match || Number(match[1]) === process.pid || processAlive(Number(match[1]))) continue;
    const path = join(cacheDir, name);
    const left = match[2] ? [] : await endProcessesIn(path);
    if (left.length > 0) {
      problems.push(...left);
      continue;
    }
    const problem = removeTree(path);
    if (problem) problems.push(`A fill of a killed run in the initdb cache: ${problem}`);
    else removed += 1;
  }
  return { removed, problems };
}

/**
 * Removes the entries an older CACHE_FORMAT filled (their manifests give no sha256): their keys
 * are never asked for again, so nothing else would, and each holds a cluster (about 40 MB). Run
 * on a miss only (a manifest read per entry). Entries others could change are left (removeTree).
 * @returns how many were removed
 */
export function removeOldFormats(cacheDir: string): number {
  let removed = 0;
  let names: string[] = [];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    const entry = join(cacheDir, name);
    const m = loadManifest(entry);
    if (typeof m !== 'string' || !m.includes('no size and sha256')) continue;
    if (removeTree(entry) === null) {
      rmSync(`${entry}${MANIFEST_SUFFIX}`, { force: true });
      removed += 1;
    }
  }
  return removed;
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
function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Opens a file of the cache for reading (no symbolic link followed), checks it with trustProblem
 * on the descriptor, and hands its bytes (up to `maxBytes`, else its size) to `use`.
 * @throws Error with `code` ENOENT/ELOOP as the open fails; TrustError when trustProblem objects
 */
function withFile<T>(path: string, use: (bytes: Buffer, s: Stats) => T, maxBytes?: number): T {
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
class TrustError extends Error {}

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
function readProblem(error: unknown): string {
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
function foldersProblem(root: string, dirs: readonly string[]): string | null {
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
 * Removes an entry and its manifest: the entry is renamed aside first (so no other run copies it
 * while it goes), then removed, unless removeTree finds another user could change a folder in
 * it: then it is left under another name, for the user to look at.
 * @returns null when both are gone (or were never there); else what was left, for a warning
 */
export function dropEntry(entry: string): string | null {
  const notes: string[] = [];
  let folder = entry;
  if (removalProblem(entry) === null) {
    const aside = `${entry}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(entry, aside);
      folder = aside;
    } catch {
      // another run dropped it first, or it was never there
    }
  }
  for (const path of [folder, `${entry}${MANIFEST_SUFFIX}`]) {
    const note = removeTree(path);
    if (note) notes.push(note);
  }
  return notes.length > 0 ? notes.join('; ') : null;
}

/** Result of ensureCluster. */
export interface CacheResult {
  /** The complete cached cluster. */
  entry: string;
  /** Its manifest (what copyCluster copies). */
  manifest: Manifest;
  /** True when the entry existed already (and was sound). */
  hit: boolean;
  /** ms spent in initdb (0 on a hit). */
  initdbMs: number;
  /**
   * On a miss with a staging folder: initdb's own output there (owned by the user postgres runs
   * as), which the caller renames into place instead of copying the entry back, and must remove
   * otherwise.
   */
  fresh?: string;
  /**
   * Why an entry at the key was not used (checkEntry's problem, and where it went when it was set
   * aside) before initdb filled it again; absent when none was there.
   */
  dropped?: string;
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

/** The reason to show for initdb's failure: its FATAL/ERROR/error lines first, then its last line. */
export function initdbCause(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const causes = lines.filter((l) => /\b(FATAL|ERROR|PANIC)\b|^initdb: error:/.test(l));
  const picked = [...new Set([...causes.slice(0, 3), lines[lines.length - 1] ?? ''])].filter(Boolean);
  return picked.join(' | ') || 'no output';
}

/**
 * Returns a complete cached cluster for `spec`, running `initdb` into the cache first when
 * there is none. An entry checkEntry refuses (another owner, writable by others, no manifest of
 * this format) is dropped (dropEntry) and filled once more; `dropped` says why.
 * @param stagingBase when running as another user (root runs postgres as `postgres`), a folder
 *   that user can write to: initdb runs there and the result is moved into the cache, which may
 *   sit where that user cannot reach (e.g. under /root)
 * @throws InputError (cache-dir) when the cache folder cannot be used; SetupError with initdb's
 *   own message when initdb fails (e.g. a locale that is not installed); nothing is left in the
 *   cache then
 */
export async function ensureCluster(
  cacheDir: string,
  spec: ClusterSpec,
  runAs: RunAs | null,
  stagingBase?: string,
  facts: Facts = noFacts,
): Promise<CacheResult> {
  const initdb = join(spec.bindir, exe('initdb', process.platform));
  let versionProblem = '';
  // Asked once per initdb file (facts): a process start saved on every warm start.
  const version = facts.get(initdb, '--version', () => {
    const r = spawnSync(initdb, ['--version'], { encoding: 'utf8', timeout: VERSION_TIMEOUT_MS });
    if (r.status === 0) return r.stdout;
    versionProblem = r.error ? r.error.message : initdbCause(`${r.stderr}${r.stdout}`);
    return null;
  });
  if (version === null) {
    throw new SetupError(`${initdb} --version failed: ${versionProblem}`, 'Check the PostgreSQL installation');
  }
  const args = initdbArgs(spec);
  const entry = join(cacheDir, cacheKey(version, args));
  let dropped: string | undefined;
  const found = checkEntry(entry);
  if (found && 'manifest' in found) return { entry, manifest: found.manifest, hit: true, initdbMs: 0 };
  if (found) {
    const note = dropEntry(entry);
    dropped = `${entry}: ${found.problem}${note ? `; ${note}` : ''}`;
  }

  prepareCacheDir(cacheDir);
  await removeStaleFills(cacheDir);
  removeOldFormats(cacheDir);
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = `${entry}${suffix}`;
  const initdbDir = stagingBase ? join(stagingBase, `initdb${suffix}`) : staging;
  throwIfInterrupted();
  mkdirSync(initdbDir, { mode: 0o700 });
  if (runAs) chownSync(initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  /** Removes the fill's folders, once nothing works in them (a postgres initdb left running). */
  const removeFill = async (): Promise<void> => {
    await endProcessesIn(initdbDir);
    rmSync(initdbDir, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  };
  const failed = async (problem: string, fix: string): Promise<SetupError> => {
    await removeFill();
    return new SetupError(problem, fix);
  };
  const result = await run(initdb, ['-D', initdbDir, ...args], {
    timeoutMs: INITDB_TIMEOUT_MS,
    stopLeaderOnly: true,
    cwd: initdbDir,
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    env: { LC_ALL: '', LANG: '' },
  }).catch(async (error: unknown) => {
    throw await failed(
      `initdb could not be run: ${error instanceof Error ? error.message : String(error)}`,
      'Check the PostgreSQL installation',
    );
  });
  if (result.code !== 0) {
    const text = `${result.stdout}\n${result.stderr}`;
    if (/locale/i.test(result.stderr) && /invalid|not supported|not found|no usable/i.test(result.stderr)) {
      await removeFill();
      throw new InputError(
        'locale',
        `initdb refused locale "${spec.locale}": ${initdbCause(result.stderr)}`,
        'Use C (the default), or install that locale (e.g. locale-gen)',
      );
    }
    throw await failed(
      result.timedOut ? `initdb did not finish within ${INITDB_TIMEOUT_MS / 1000} s` : `initdb failed: ${initdbCause(text)}`,
      "See initdb's message",
    );
  }
  let filled: Manifest;
  try {
    if (initdbDir !== staging) cpSync(initdbDir, staging, { recursive: true });
    // Private whatever the umask: a later start trusts only what others cannot write (checkEntry).
    chmodSync(staging, 0o700);
    filled = listFiles(staging);
    writeFileSync(`${staging}${MANIFEST_SUFFIX}`, JSON.stringify(filled), { mode: 0o600 });
  } catch (error) {
    throw await failed(
      `Could not fill the initdb cache in ${cacheDir}: ${error instanceof Error ? error.message : String(error)}`,
      "Check input 'cache-dir' (room, permissions)",
    );
  }
  const initdbMs = Math.round(performance.now() - t0);
  if (!placeEntry(staging, entry)) {
    // Another run filled the same entry first: theirs is as good as ours (its folder follows its
    // manifest at once; waited for, briefly).
    rmSync(staging, { recursive: true, force: true });
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
    let problem = entryProblem(entry);
    for (let i = 0; problem !== null && i < PLACE_WAIT_TRIES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      problem = entryProblem(entry);
    }
    const theirs = readManifest(entry);
    if (problem !== null || !theirs) {
      throw new SetupError(
        `Could not place the initdb cache entry ${entry}: ${problem ?? 'no manifest'}`,
        `Remove ${entry} and try again`,
      );
    }
    filled = theirs;
  }
  return {
    entry,
    manifest: filled,
    hit: false,
    initdbMs,
    ...(initdbDir !== staging ? { fresh: initdbDir } : {}),
    ...(dropped ? { dropped } : {}),
  };
}

/** How many times (100 ms apart) a fill that lost the race waits for the winner's folder. */
const PLACE_WAIT_TRIES = 50;

/**
 * Publishes a fill: its manifest (`<staging>.manifest.json`) created exclusively at the entry's
 * (`wx`: fails when another run placed one: the two differ, pg_control and the WAL are never
 * the same twice), then its folder renamed into place. A manifest with no folder is a leftover
 * (a run killed between the two steps, or a folder removed by hand): it is replaced once.
 * @returns false when another run's entry is there (or is being placed)
 */
function placeEntry(staging: string, entry: string): boolean {
  const manifest = `${entry}${MANIFEST_SUFFIX}`;
  const data = readFileSync(`${staging}${MANIFEST_SUFFIX}`);
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
