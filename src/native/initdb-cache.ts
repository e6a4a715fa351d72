/**
 * The initdb cache (as tmp-postgres and pg_tmp do): initdb runs once per distinct set of
 * arguments, and later starts copy the ready cluster into place.
 *
 * An entry is `<cache>/<key>/`, where key hashes the initdb version and every argument that
 * changes its output. It is filled in `<key>.tmp-<pid>-<random>` and renamed into place only
 * when complete, so a killed run never leaves a half cluster that a later run trusts;
 * leftovers of dead processes are removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  constants,
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
 * read (2: the manifest lists folders and files, and the copy works from it).
 */
export const CACHE_FORMAT = 2;

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
 * Removes the `<key>.tmp-<pid>-<hex>` folders and manifests of fills whose process is gone (a run
 * killed while it filled the cache), after ending any program still working in one (an orphaned
 * initdb: orphans.ts). A fill of a live process is left alone.
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
    try {
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch (error) {
      problems.push(
        `Could not remove ${path}, a fill of a killed run: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
  }
  return { removed, problems };
}

/** Suffix of the file beside an entry that lists its folders and files with their sizes. */
export const MANIFEST_SUFFIX = '.manifest.json';

/** What an entry holds: its folders (relative, each after its parent) and files (relative path → size in bytes). */
export interface Manifest {
  dirs: string[];
  files: Record<string, number>;
}

/** Every folder and file below `dir`. */
export function listFiles(dir: string): Manifest {
  const manifest: Manifest = { dirs: [], files: {} };
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const s = lstatSync(path);
      if (s.isDirectory()) {
        manifest.dirs.push(relative(dir, path));
        walk(path);
      } else manifest.files[relative(dir, path)] = s.size;
    }
  };
  walk(dir);
  return manifest;
}

/**
 * Reads an entry's manifest.
 * @returns null when it is missing or not a manifest of this format
 */
export function readManifest(entry: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(`${entry}${MANIFEST_SUFFIX}`, 'utf8')) as Partial<Manifest>;
    if (!Array.isArray(m.dirs) || !m.files || typeof m.files !== 'object') return null;
    if (!m.dirs.every((d) => typeof d === 'string' && isInside(d))) return null;
    if (!Object.entries(m.files).every(([f, size]) => isInside(f) && typeof size === 'number')) return null;
    return { dirs: m.dirs, files: m.files };
  } catch {
    return null;
  }
}

/** Whether a manifest path stays inside its entry (relative, no `..`). */
function isInside(path: string): boolean {
  return path !== '' && !isAbsolute(path) && !path.split(/[\\/]/).includes('..');
}

/**
 * Why a cache entry cannot be used: a file missing, added or of another size than when it was
 * filled (a truncated catalog file, a removed PG_VERSION), or no manifest. Walks the whole entry;
 * starts do not call it (copyCluster checks as it copies), only a fill that lost a race does.
 * @returns null when the entry matches its manifest
 */
export function entryProblem(entry: string): string | null {
  const manifest = readManifest(entry);
  if (!manifest) return 'it has no readable manifest';
  let found: Manifest;
  try {
    found = listFiles(entry);
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  for (const [path, size] of Object.entries(manifest.files)) {
    if (!(path in found.files)) return `${path} is missing`;
    if (found.files[path] !== size) return `${path} has ${found.files[path]} bytes, not ${size}`;
  }
  const extra = Object.keys(found.files).find((path) => !(path in manifest.files));
  return extra ? `${extra} was added` : null;
}

/** A cache entry that does not match its manifest (found while copying it). */
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

/** Removes an entry and its manifest (renamed aside first, so no other run copies it while it goes). */
export function dropEntry(entry: string): void {
  const aside = `${entry}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(entry, aside);
    rmSync(aside, { recursive: true, force: true });
  } catch {
    // another run dropped it first, or it was never there
  }
  rmSync(`${entry}${MANIFEST_SUFFIX}`, { force: true });
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
  /** Why a damaged entry was dropped before initdb filled it again; absent when none was. */
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
 * there is none. An entry that does not match its manifest is dropped and filled once more.
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
  const manifest = readManifest(entry);
  if (manifest && existsSync(entry)) return { entry, manifest, hit: true, initdbMs: 0 };
  if (existsSync(entry)) {
    dropped = `${entry}: it has no readable manifest`;
    dropEntry(entry);
  }

  prepareCacheDir(cacheDir);
  await removeStaleFills(cacheDir);
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
    filled = listFiles(staging);
    writeFileSync(`${staging}${MANIFEST_SUFFIX}`, JSON.stringify(filled));
  } catch (error) {
    throw await failed(
      `Could not fill the initdb cache in ${cacheDir}: ${error instanceof Error ? error.message : String(error)}`,
      "Check input 'cache-dir' (room, permissions)",
    );
  }
  const initdbMs = Math.round(performance.now() - t0);
  try {
    // The manifest first: an entry is never in place without it (another run would drop it).
    if (existsSync(entry)) throw new Error('filled by another run');
    renameSync(`${staging}${MANIFEST_SUFFIX}`, `${entry}${MANIFEST_SUFFIX}`);
    renameSync(staging, entry);
  } catch {
    // Another run filled the same entry first: theirs is as good as ours.
    rmSync(staging, { recursive: true, force: true });
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
    const problem = entryProblem(entry);
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
 * Copies a cached cluster to `dest` (which must not exist) in one pass over its manifest: each
 * folder made with mode 0700 (postgres requires it of PGDATA), each file copied (copy_file_range
 * or a reflink where the filesystem offers one, COPYFILE_FICLONE), its size checked against the
 * manifest, and its owner set to `runAs` as it is made. No walk of the entry, no second pass.
 * Folders in `later` (see deferrableDatabases) are left out: copyLater copies them.
 * @throws DamagedEntryError when a file is missing from the entry or has another size than the
 *   manifest says (the caller drops the entry and fills it again); other errors (ENOSPC) as they come
 */
export function copyCluster(
  entry: string,
  manifest: Manifest,
  dest: string,
  runAs: RunAs | null,
  later: readonly string[] = [],
): void {
  const own = (path: string) => {
    if (runAs) chownSync(path, runAs.uid, runAs.gid);
  };
  const now = (path: string) => !later.some((dir) => isUnder(path, dir));
  mkdirSync(dest, { mode: 0o700 });
  own(dest);
  for (const dir of manifest.dirs.filter(now)) {
    const path = join(dest, dir);
    mkdirSync(path, { mode: 0o700 });
    own(path);
  }
  for (const [file, size] of Object.entries(manifest.files).filter(([f]) => now(f))) {
    const to = join(dest, file);
    try {
      copyFileSync(join(entry, file), to, constants.COPYFILE_FICLONE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new DamagedEntryError(entry, `${file} is missing`);
      throw error;
    }
    const copied = statSync(to).size;
    if (copied !== size) throw new DamagedEntryError(entry, `${file} has ${copied} bytes, not ${size}`);
    own(to);
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
            .map(([f, size]) => [relative(dir, f), size]),
        ),
      };
      copyCluster(join(entry, dir), part, into, runAs);
      renameSync(into, join(dest, dir));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
