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
 *
 * This module fills and publishes entries (ensureCluster); its parts: cache-key.ts (spec, initdb
 * arguments, key, folder), cache-manifest.ts (manifest and trust checks), cache-copy.ts (copy into
 * a data directory), cache-removal.ts (dropped entries, fills of killed runs, older formats).
 * About 300 lines: ensureCluster in its steps; key, manifest, copy and removal are in cache-*.ts.
 */
import { chmodSync, chownSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, SetupError } from '../../errors.js';
import { throwIfInterrupted } from '../../interrupt.js';
import { endProcessesIn } from '../../orphans.js';
import { run, runSync } from '../../proc.js';
import { exe } from '../source/installed.js';
import { cacheKey, initdbArgs, type ClusterSpec } from './cache-key.js';
import { checkEntry, entryProblem, listFiles, MANIFEST_SUFFIX, readManifest, type Manifest } from '../../store/manifest.js';
import { cacheNames, dropEntry, removeOldFormats, removeStaleFills } from '../../store/removal.js';
import { noFacts, type Facts } from '../source/facts.js';
import { serverEnv } from '../source/server-env.js';
import { BOOTSTRAP_FILE, hasPeerSocket, newBootstrapSecret } from '../run/windows.js';
import { fillSuffix, heartbeat } from '../../store/fill-name.js';
import { placeEntry, prepareCacheDir } from '../../store/cache-dir.js';

import type { RunAs } from '../run-as.js';

/** Deadline of `initdb --version`: 30 000 ms. */
const VERSION_TIMEOUT_MS = 30_000;
/** The suffix of initdb's password file beside a fill's folder (Windows; cache-removal.ts removes a killed run's). */
const PWFILE_SUFFIX = '.pwfile';

/** Deadline of initdb itself: 300 000 ms (about 1 s on a runner; a loaded machine may take far longer). */
const INITDB_TIMEOUT_MS = 300_000;

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
  const args = initdbArgs(spec);
  // Where there is no peer socket (Windows), entries hold a bootstrap password (windows.ts): a key of their own.
  const keyArgs = hasPeerSocket() ? args : [...args, '--pwfile'];
  const entry = join(cacheDir, cacheKey(initdbVersion(initdb, facts), keyArgs));
  let dropped: string | undefined;
  const found = checkEntry(entry);
  if (found && 'manifest' in found) return { entry, manifest: found.manifest, hit: true, initdbMs: 0 };
  if (found) {
    const note = dropEntry(entry);
    dropped = `${entry}: ${found.problem}${note ? `; ${note}` : ''}`;
  }

  prepareCacheDir(cacheDir);
  const names = cacheNames(cacheDir);
  await removeStaleFills(cacheDir, names);
  removeOldFormats(cacheDir, names);
  const suffix = fillSuffix();
  const fill: Fill = {
    staging: `${entry}${suffix}`,
    initdbDir: stagingBase ? join(stagingBase, `initdb${suffix}`) : `${entry}${suffix}`,
  };
  throwIfInterrupted();
  mkdirSync(fill.initdbDir, { mode: 0o700 });
  if (runAs) chownSync(fill.initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  const stopBeat = heartbeat([fill.staging, fill.initdbDir]);
  let filled: Manifest;
  try {
    await runInitdb(initdb, args, spec, fill, runAs);
    filled = await recordFill(cacheDir, fill);
  } finally {
    stopBeat();
  }
  const initdbMs = Math.round(performance.now() - t0);
  if (!placeEntry(fill.staging, entry, JSON.stringify(filled))) filled = await theirEntry(fill.staging, entry);
  return {
    entry,
    manifest: filled,
    hit: false,
    initdbMs,
    ...(fill.initdbDir !== fill.staging ? { fresh: fill.initdbDir } : {}),
    ...(dropped ? { dropped } : {}),
  };
}

/**
 * The first line initdb --version prints, asked once per initdb file (facts): a process start
 * saved on every warm start.
 * @throws SetupError when it fails
 */
function initdbVersion(initdb: string, facts: Facts): string {
  let versionProblem = '';
  const version = facts.get(initdb, '--version', () => {
    try {
      const r = runSync(initdb, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS, baseEnv: serverEnv() });
      if (r.code === 0) return r.stdout;
      versionProblem = r.timedOut ? `timed out after ${VERSION_TIMEOUT_MS} ms` : initdbCause(`${r.stderr}${r.stdout}`);
    } catch (error) {
      versionProblem = (error as Error).message; // not started
    }
    return null;
  });
  if (version === null) {
    throw new SetupError(`${initdb} --version failed: ${versionProblem}`, 'Check the PostgreSQL installation');
  }
  return version;
}

/** The folders of one fill: `staging` in the cache folder (`<key>.tmp-<pid>-<hex>`), and where initdb writes (the same, or a folder the run-as user can write). */
interface Fill {
  staging: string;
  initdbDir: string;
}

/** Removes a fill's folders, once nothing works in them (a postgres initdb left running). */
async function removeFill(fill: Fill): Promise<void> {
  await endProcessesIn(fill.initdbDir);
  rmSync(fill.initdbDir, { recursive: true, force: true });
  rmSync(fill.staging, { recursive: true, force: true });
}

/**
 * Runs initdb into `fill.initdbDir` (as `runAs`, with serverEnv), under INITDB_TIMEOUT_MS.
 * @throws InputError (locale) when initdb refuses the locale; SetupError with initdb's own message
 *   otherwise; the fill is removed then
 */
async function runInitdb(initdb: string, args: string[], spec: ClusterSpec, fill: Fill, runAs: RunAs | null): Promise<void> {
  const failed = async (problem: string, fix: string): Promise<SetupError> => {
    await removeFill(fill);
    return new SetupError(problem, fix);
  };
  // Windows: the superuser's password from a file beside the fill (initdb --pwfile), kept in the
  // entry as its bootstrap password (windows.ts BOOTSTRAP_FILE) once initdb is done.
  const secret = hasPeerSocket() ? null : newBootstrapSecret();
  const pwfile = `${fill.initdbDir}${PWFILE_SUFFIX}`;
  if (secret) writeFileSync(pwfile, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  const result = await run(initdb, ['-D', fill.initdbDir, ...args, ...(secret ? [`--pwfile=${pwfile}`] : [])], {
    timeoutMs: INITDB_TIMEOUT_MS,
    stopLeaderOnly: true,
    cwd: fill.initdbDir,
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    // No TZ: the entry holds the system's zone, each run sets its own (zoneSettings); no PG*, LANG or LC_*.
    baseEnv: serverEnv(),
  })
    .catch(async (error: unknown) => {
      throw await failed(
        `initdb could not be run: ${error instanceof Error ? error.message : String(error)}`,
        'Check the PostgreSQL installation',
      );
    })
    .finally(() => {
      if (secret) rmSync(pwfile, { force: true });
    });
  if (result.code === 0 && secret) writeFileSync(join(fill.initdbDir, BOOTSTRAP_FILE), secret, { mode: 0o600 });
  if (result.code === 0) return;
  const text = `${result.stdout}\n${result.stderr}`;
  if (/locale/i.test(result.stderr) && /invalid|not supported|not found|no usable/i.test(result.stderr)) {
    await removeFill(fill);
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

/**
 * Moves initdb's output into `fill.staging` (when it ran elsewhere), makes it private, and writes
 * its manifest beside it (`<staging>.manifest.json`, removed with it if the run is killed).
 * @returns the manifest
 * @throws SetupError naming cache-dir when that fails (the fill is removed then)
 */
async function recordFill(cacheDir: string, fill: Fill): Promise<Manifest> {
  try {
    if (fill.initdbDir !== fill.staging) cpSync(fill.initdbDir, fill.staging, { recursive: true });
    // Private whatever the umask: a later start trusts only what others cannot write (checkEntry).
    chmodSync(fill.staging, 0o700);
    const filled = listFiles(fill.staging);
    writeFileSync(`${fill.staging}${MANIFEST_SUFFIX}`, JSON.stringify(filled), { mode: 0o600 });
    return filled;
  } catch (error) {
    await removeFill(fill);
    throw new SetupError(
      `Could not fill the initdb cache in ${cacheDir}: ${error instanceof Error ? error.message : String(error)}`,
      "Check input 'cache-dir' (room, permissions)",
    );
  }
}

/**
 * After another run filled the same entry first: theirs is as good as ours. Ours is removed, and
 * theirs waited for briefly (its folder follows its manifest at once).
 * @returns their manifest
 * @throws SetupError when their entry does not become whole
 */
async function theirEntry(staging: string, entry: string): Promise<Manifest> {
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
  return theirs;
}

/** How many times (100 ms apart) a fill that lost the race waits for the winner's folder. */
const PLACE_WAIT_TRIES = 50;
