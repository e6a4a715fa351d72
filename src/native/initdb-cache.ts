/**
 * The initdb cache (as tmp-postgres and pg_tmp do): initdb runs once per distinct set of
 * arguments, and later starts copy the ready cluster into place.
 *
 * An entry is `<cache>/<key>/`, where key hashes the initdb version and every argument that
 * changes its output. It is filled in `<key>.tmp-<pid>-<random>` and renamed into place only
 * when complete, so a killed run never leaves a half cluster that a later run trusts;
 * leftovers of dead processes are removed.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  constants,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SetupError } from '../errors.js';
import { INITDB_ARGS } from '../profile.js';
import { exe } from './binaries.js';

const execFileP = promisify(execFile);

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
 * Unix socket (it lives in the 0700 data directory, so only the owner reaches it) and
 * scram-sha-256 over TCP, UTF8 and the locale.
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

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `<key>.tmp-<pid>-*` folders whose process is gone (a killed fill). Returns how many. */
export function removeStaleFills(cacheDir: string): number {
  let removed = 0;
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
    const match = /\.tmp-(\d+)-[0-9a-f]+$/.exec(name);
    if (match && !alive(Number(match[1]))) {
      rmSync(join(cacheDir, name), { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}

/** Result of ensureCluster. */
export interface CacheResult {
  /** The complete cached cluster. */
  entry: string;
  /** True when the entry existed already. */
  hit: boolean;
  /** ms spent in initdb (0 on a hit). */
  initdbMs: number;
}

/**
 * Returns a complete cached cluster for `spec`, running `initdb` into the cache first when
 * there is none.
 * @param stagingBase when running as another user (root runs postgres as `postgres`), a folder
 *   that user can write to: initdb runs there and the result is moved into the cache, which may
 *   sit where that user cannot reach (e.g. under /root)
 * @throws SetupError with initdb's own message when initdb fails (e.g. a locale that is not
 *   installed); nothing is left in the cache then
 */
export async function ensureCluster(
  cacheDir: string,
  spec: ClusterSpec,
  runAs: RunAs | null,
  stagingBase?: string,
): Promise<CacheResult> {
  const initdb = join(spec.bindir, exe('initdb', process.platform));
  const version = (await execFileP(initdb, ['--version'])).stdout;
  const args = initdbArgs(spec);
  const entry = join(cacheDir, cacheKey(version, args));
  if (existsSync(join(entry, 'PG_VERSION'))) return { entry, hit: true, initdbMs: 0 };

  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  removeStaleFills(cacheDir);
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = `${entry}${suffix}`;
  const initdbDir = runAs && stagingBase ? join(stagingBase, `initdb${suffix}`) : staging;
  mkdirSync(initdbDir, { mode: 0o700 });
  if (runAs) chownSync(initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  try {
    await execFileP(initdb, ['-D', initdbDir, ...args], {
      cwd: initdbDir,
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
      env: { ...process.env, LC_ALL: '', LANG: '' },
    });
    if (initdbDir !== staging) {
      cpSync(initdbDir, staging, { recursive: true });
      rmSync(initdbDir, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(initdbDir, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
    const e = error as { stderr?: string; message: string };
    const text = (e.stderr ?? '').trim() || e.message;
    const lastLines = text.split('\n').slice(-4).join(' | ');
    throw new SetupError(
      `initdb failed: ${lastLines}`,
      /locale/i.test(text)
        ? "Input 'locale': that locale is not installed here; use C (the default) or install it (e.g. locale-gen)"
        : "See initdb's message",
    );
  }
  const initdbMs = Math.round(performance.now() - t0);
  try {
    renameSync(staging, entry);
  } catch {
    // Another run filled the same entry first: theirs is as good as ours.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(entry, 'PG_VERSION'))) {
      throw new SetupError(`Could not place the initdb cache entry ${entry}`, 'Check the cache folder');
    }
  }
  return { entry, hit: false, initdbMs };
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
