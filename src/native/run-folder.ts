/**
 * A native run folder: its name, its marker, and whether a record that names one names a folder
 * this project made. A record is data (docs/security.md): one that names another folder must not
 * make `down` or the post step signal, empty or remove what is in it.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { MOUNT_PREFIX, tempBase } from './ramdir.js';

/** File in a run folder that marks it as made by this project; removal checks its token. */
export const RUN_MARKER = '.pg-tmpfs-run';

/** What every run folder's name starts with. */
export const RUN_FOLDER_PREFIX = 'pg-tmpfs-';

/**
 * The run folder's name: `<container-name>-<token>`, with `pg-tmpfs-` in front when the
 * container name does not start with it already (container-name is free).
 * @returns e.g. `pg-tmpfs-cli-default-1a2b3c-0123abcd`, `pg-tmpfs-mydb-0123abcd`
 */
export function runFolderName(containerName: string, token: string): string {
  const name = containerName.startsWith(RUN_FOLDER_PREFIX) ? containerName : `${RUN_FOLDER_PREFIX}${containerName}`;
  return `${name}-${token}`;
}

/**
 * The folders a run folder may be in (the RAM folders prepareRam gives): /dev/shm, the temp
 * folder (RUNNER_TEMP, else the OS's: the disk fallback) and the tmpfs mounts this project makes
 * there (`pg-tmpfs-mnt-*`); on macOS, a RAM disk's volume (`/Volumes/<name>`).
 */
function isRunFolderParent(parent: string, env: NodeJS.ProcessEnv): boolean {
  const roots = new Set(['/dev/shm', resolve(tempBase(env)), resolve(tmpdir())]);
  if (roots.has(parent)) return true;
  if (basename(parent).startsWith(MOUNT_PREFIX) && roots.has(dirname(parent))) return true;
  return process.platform === 'darwin' && dirname(parent) === '/Volumes';
}

/**
 * Why the run folder a record names is not one this project made, or null when it is: an
 * absolute path without `..`, named `pg-tmpfs-*-<token>`, directly in one of the RAM folders
 * (isRunFolderParent), and, when it exists, a real folder (not a link) holding the marker with
 * the token, or empty (a run killed between making it and writing the marker). A folder that is
 * gone passes on its name and place alone: nothing is removed then.
 * @param token the run's token, from the same record
 * @returns null when it is the project's; else the reason, e.g. `it holds no .pg-tmpfs-run marker`
 */
export function runFolderProblem(runDir: string, token: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!isAbsolute(runDir) || resolve(runDir) !== runDir) return 'it is not an absolute path without ..';
  if (!/^[A-Za-z0-9]+$/.test(token)) return "its record's token is not a token";
  const name = basename(runDir);
  if (!name.startsWith(RUN_FOLDER_PREFIX) || !name.endsWith(`-${token}`)) {
    return `its name is not ${RUN_FOLDER_PREFIX}*-${token}`;
  }
  if (!isRunFolderParent(dirname(runDir), env)) return 'it is not in /dev/shm, the temp folder or a tmpfs pg-tmpfs mounts';
  let isDir: boolean;
  try {
    const s = lstatSync(runDir);
    isDir = s.isDirectory() && !s.isSymbolicLink();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!isDir) return 'it is not a folder';
  try {
    const marker = join(runDir, RUN_MARKER);
    if (lstatSync(marker).isFile() && readFileSync(marker, 'utf8') === token) return null;
    return `its ${RUN_MARKER} marker does not hold the token`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `its marker cannot be read`;
  }
  try {
    return readdirSync(runDir).length === 0 ? null : `it holds no ${RUN_MARKER} marker`;
  } catch {
    return 'it cannot be listed';
  }
}
