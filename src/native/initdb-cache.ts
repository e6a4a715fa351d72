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
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  constants,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { InputError, SetupError } from '../errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../fsutil.js';
import { throwIfInterrupted } from '../interrupt.js';
import { INITDB_ARGS } from '../profile.js';
import { processAlive, run } from '../proc.js';
import { exe } from './binaries.js';

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
}

/**
 * initdb arguments for a spec: the shared INITDB_ARGS (`--nosync`), the superuser, trust on the
 * Unix socket and scram-sha-256 over TCP (each run replaces pg_hba.conf with its own: peer on the
 * socket, see hbaConf in postgres.ts), UTF8 and the locale.
 */
export function initdbArgs(spec: ClusterSpec): string[] {
  return [
    ...INITDB_ARGS,
    `--username=${spec.user}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    `--locale=${spec.locale}`,
  ];
}

/** Cache key: 32 hex digits of sha256 over the initdb version line and the arguments. */
export function cacheKey(initdbVersion: string, args: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ initdbVersion: initdbVersion.trim(), args }))
    .digest('hex')
    .slice(0, 32);
}

/** Default cache folder: $PG_TMPFS_CACHE_DIR, else /var/cache/pg-tmpfs for root, else $XDG_CACHE_HOME/pg-tmpfs or ~/.cache/pg-tmpfs. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_TMPFS_CACHE_DIR) return env.PG_TMPFS_CACHE_DIR;
  if (process.getuid?.() === 0) return '/var/cache/pg-tmpfs';
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pg-tmpfs');
}

/** chown -R. */
export function chownTree(path: string, who: RunAs): void {
  chownSync(path, who.uid, who.gid);
  if (lstatSync(path).isDirectory()) {
    for (const name of readdirSync(path)) chownTree(join(path, name), who);
  }
}

/** Removes `<key>.tmp-<pid>-*` folders whose process is gone (a killed fill). Returns how many. */
export function removeStaleFills(cacheDir: string): number {
  let removed = 0;
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
    const match = /\.tmp-(\d+)-[0-9a-f]+(\.manifest\.json)?$/.exec(name);
    if (match && !processAlive(Number(match[1]))) {
      rmSync(join(cacheDir, name), { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}

/** Suffix of the file beside an entry that lists its files and their sizes. */
export const MANIFEST_SUFFIX = '.manifest.json';

/** Every file below `dir` (relative path → size in bytes). */
export function listFiles(dir: string): Record<string, number> {
  const files: Record<string, number> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const s = lstatSync(path);
      if (s.isDirectory()) walk(path);
      else files[relative(dir, path)] = s.size;
    }
  };
  walk(dir);
  return files;
}

/**
 * Why a cache entry cannot be used: a file missing, added or of another size than when it was
 * filled (a truncated catalog file, a removed PG_VERSION), or no manifest.
 * @returns null when the entry matches its manifest
 */
export function entryProblem(entry: string): string | null {
  let manifest: Record<string, number>;
  try {
    manifest = JSON.parse(readFileSync(`${entry}${MANIFEST_SUFFIX}`, 'utf8')) as Record<string, number>;
  } catch {
    return 'it has no readable manifest';
  }
  let files: Record<string, number>;
  try {
    files = listFiles(entry);
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  for (const [path, size] of Object.entries(manifest)) {
    if (!(path in files)) return `${path} is missing`;
    if (files[path] !== size) return `${path} has ${files[path]} bytes, not ${size}`;
  }
  const extra = Object.keys(files).find((path) => !(path in manifest));
  return extra ? `${extra} was added` : null;
}

/** Result of ensureCluster. */
export interface CacheResult {
  /** The complete cached cluster. */
  entry: string;
  /** True when the entry existed already (and was sound). */
  hit: boolean;
  /** ms spent in initdb (0 on a hit). */
  initdbMs: number;
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
): Promise<CacheResult> {
  const initdb = join(spec.bindir, exe('initdb', process.platform));
  const versionRun = await run(initdb, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS });
  if (versionRun.code !== 0) {
    throw new SetupError(
      `${initdb} --version failed: ${initdbCause(versionRun.stderr || versionRun.stdout)}`,
      'Check the PostgreSQL installation',
    );
  }
  const args = initdbArgs(spec);
  const entry = join(cacheDir, cacheKey(versionRun.stdout, args));
  let dropped: string | undefined;
  if (existsSync(entry)) {
    const problem = entryProblem(entry);
    if (problem === null) return { entry, hit: true, initdbMs: 0 };
    dropped = `${entry}: ${problem}`;
    // Renamed aside first, so no other run copies it while it is being removed.
    const aside = `${entry}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(entry, aside);
      rmSync(aside, { recursive: true, force: true });
    } catch {
      // another run dropped it first
    }
  }

  prepareCacheDir(cacheDir);
  removeStaleFills(cacheDir);
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = `${entry}${suffix}`;
  const initdbDir = runAs && stagingBase ? join(stagingBase, `initdb${suffix}`) : staging;
  throwIfInterrupted();
  mkdirSync(initdbDir, { mode: 0o700 });
  if (runAs) chownSync(initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  const failed = (problem: string, fix: string): SetupError => {
    rmSync(initdbDir, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
    return new SetupError(problem, fix);
  };
  const result = await run(initdb, ['-D', initdbDir, ...args], {
    timeoutMs: INITDB_TIMEOUT_MS,
    cwd: initdbDir,
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    env: { LC_ALL: '', LANG: '' },
  }).catch((error: unknown) => {
    throw failed(
      `initdb could not be run: ${error instanceof Error ? error.message : String(error)}`,
      'Check the PostgreSQL installation',
    );
  });
  if (result.code !== 0) {
    const text = `${result.stdout}\n${result.stderr}`;
    if (/locale/i.test(result.stderr) && /invalid|not supported|not found|no usable/i.test(result.stderr)) {
      rmSync(initdbDir, { recursive: true, force: true });
      rmSync(staging, { recursive: true, force: true });
      throw new InputError(
        'locale',
        `initdb refused locale "${spec.locale}": ${initdbCause(result.stderr)}`,
        'Use C (the default), or install that locale (e.g. locale-gen)',
      );
    }
    throw failed(
      result.timedOut ? `initdb did not finish within ${INITDB_TIMEOUT_MS / 1000} s` : `initdb failed: ${initdbCause(text)}`,
      "See initdb's message",
    );
  }
  try {
    if (initdbDir !== staging) {
      cpSync(initdbDir, staging, { recursive: true });
      rmSync(initdbDir, { recursive: true, force: true });
    }
    writeFileSync(`${staging}${MANIFEST_SUFFIX}`, JSON.stringify(listFiles(staging)));
  } catch (error) {
    throw failed(
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
    if (problem !== null) {
      throw new SetupError(`Could not place the initdb cache entry ${entry}: ${problem}`, `Remove ${entry} and try again`);
    }
  }
  return { entry, hit: false, initdbMs, ...(dropped ? { dropped } : {}) };
}

/**
 * Copies a cached cluster to `dest` (which must not exist): reflink where the filesystem offers
 * it (COPYFILE_FICLONE), a plain copy otherwise; then mode 0700 as postgres requires, and owner.
 */
export function copyCluster(entry: string, dest: string, runAs: RunAs | null): void {
  cpSync(entry, dest, { recursive: true, mode: constants.COPYFILE_FICLONE });
  chmodSync(dest, 0o700);
  if (runAs) chownTree(dest, runAs);
}
