/**
 * Where a native server's data directory lives: RAM when the system allows it, and what was
 * measured, never what was hoped.
 *
 * - Linux: a fresh folder under /dev/shm when it is a tmpfs with room; else a tmpfs this run
 *   mounts (as root, or with passwordless sudo as on GitHub's runners); else (or when the mount
 *   fails, e.g. in a container without mount rights) RUNNER_TEMP with a warning. With
 *   tmpfs-size, always a tmpfs of that size that this run mounts, or an error.
 * - macOS: a RAM disk (`hdiutil attach -nomount ram://<512-byte sectors>`, then
 *   `diskutil erasevolume HFS+ <name> <device>`), detached by the post step.
 * - Windows: RUNNER_TEMP (no RAM disk without third-party drivers); durability is still off.
 */
import { existsSync, mkdtempSync, rmdirSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { InputError } from '../errors.js';
import { readMounts } from '../mounts.js';
import { runOk, runSync } from '../proc.js';
import type { RamMount } from '../server.js';

/** statfs(2) f_type of tmpfs (linux/magic.h TMPFS_MAGIC). */
export const TMPFS_MAGIC = 0x01021994;
/** statfs(2) f_type of ramfs (linux/magic.h RAMFS_MAGIC). */
const RAMFS_MAGIC = 0x858458f6;

/** One command: program and argument array (never a shell string). */
export interface Command {
  program: string;
  args: string[];
}

/** Where the data goes, and what the user must be told. */
export interface RamDirPlan {
  /** `shm` (existing tmpfs), `mount` (tmpfs mounted by us), `ramdisk` (macOS), `disk` (fallback). */
  kind: 'shm' | 'mount' | 'ramdisk' | 'disk';
  /** Warning to show (for `disk`). */
  warning?: string;
}

/** Prefix of the folders this project mounts a tmpfs on. */
export const MOUNT_PREFIX = 'pg-tmpfs-mnt-';

/** Bytes from a Docker-style size (`512m`, `2g`, `1048576`). */
export function sizeToBytes(size: string): number {
  const match = /^(\d+)([bkmg]?)$/i.exec(size.trim());
  if (!match) throw new Error(`not a size: ${size}`);
  const power = { '': 0, b: 0, k: 1, m: 2, g: 3 }[(match[2] ?? '').toLowerCase()] ?? 0;
  return Number(match[1]) * 1024 ** power;
}

/**
 * macOS RAM disk commands for `bytes` (rounded up to whole MB) named `name`: `hdiutil attach`
 * prints the device (e.g. /dev/disk4); DEVICE in the second command stands for it.
 */
export function macRamDiskCommands(bytes: number, name: string): [Command, Command] {
  const sectors = Math.ceil(bytes / (1024 * 1024)) * 2048;
  return [
    { program: 'hdiutil', args: ['attach', '-nomount', `ram://${sectors}`] },
    { program: 'diskutil', args: ['erasevolume', 'HFS+', name, 'DEVICE'] },
  ];
}

/**
 * The Linux tmpfs mount on `dir` (with `sudo -n` unless root): `bytes` large, owned by this
 * process's user, mode 0711 so the server's user (root runs postgres as `postgres`) can reach
 * its run folder inside.
 */
export function mountCommand(dir: string, bytes: number, root: boolean, uid: number, gid: number): Command {
  const mount = { program: 'mount', args: ['-t', 'tmpfs', '-o', `size=${bytes},uid=${uid},gid=${gid},mode=0711`, 'tmpfs', dir] };
  return root ? mount : { program: 'sudo', args: ['-n', mount.program, ...mount.args] };
}

/**
 * The command that undoes a recorded mount, after checking that the record names something this
 * project makes (a `pg-tmpfs-mnt-*` folder, a /dev/diskN device).
 * @returns null when the record does not look like ours (nothing is run then)
 */
export function unmountCommand(mount: RamMount): Command | null {
  if (mount.kind === 'mount') {
    if (!basename(mount.dir).startsWith(MOUNT_PREFIX) || !isAbsolute(mount.dir)) return null;
    const umount = { program: 'umount', args: [mount.dir] };
    return mount.sudo ? { program: 'sudo', args: ['-n', umount.program, ...umount.args] } : umount;
  }
  if (!/^\/dev\/disk\d+$/.test(mount.device)) return null;
  return { program: 'hdiutil', args: ['detach', mount.device, '-force'] };
}

/** Fallback plan: a folder on disk, with the warning that says so. */
export function diskPlan(reason: string): RamDirPlan {
  return { kind: 'disk', warning: `PGDATA is on disk, not in RAM (${reason}); durability is still off` };
}

/** Free bytes and whether `path` is RAM-backed, from statfs(2); null when statfs fails. */
export function measure(path: string): { ram: boolean; freeBytes: number } | null {
  try {
    const s = statfsSync(path);
    return { ram: s.type === TMPFS_MAGIC || s.type === RAMFS_MAGIC, freeBytes: s.bavail * s.bsize };
  } catch {
    return null;
  }
}

/** Whether this process may mount: root, or passwordless sudo. */
function canMount(): { may: boolean; root: boolean } {
  const root = process.getuid?.() === 0;
  if (root) return { may: true, root };
  try {
    return { may: runSync('sudo', ['-n', 'true'], { timeoutMs: 2000 }).code === 0, root };
  } catch {
    return { may: false, root }; // no sudo
  }
}

/** A base folder for temporary files: RUNNER_TEMP on runners, else the OS temp folder. */
export function tempBase(env: NodeJS.ProcessEnv = process.env): string {
  return env.RUNNER_TEMP || tmpdir();
}

/** What chooseLinux decided: use /dev/shm, mount a tmpfs, or fall back to disk. */
export type LinuxChoice =
  { kind: 'shm'; base: string } | { kind: 'mount'; root: boolean } | { kind: 'disk'; base: string; warning: string };

/**
 * Chooses where the run folder goes on Linux.
 * @param needBytes room the data needs (the tmpfs-size input, or a default)
 * @param capped true when tmpfs-size was given: only a tmpfs of that size honours it, so
 *   /dev/shm is not used
 * @throws InputError (input `tmpfs-size`) when capped and this process may not mount
 */
export function chooseLinux(needBytes: number, capped: boolean, shm = '/dev/shm'): LinuxChoice {
  const m = measure(shm);
  if (!capped && m?.ram && m.freeBytes >= needBytes) return { kind: 'shm', base: shm };
  const { may, root } = canMount();
  if (may) return { kind: 'mount', root };
  if (capped) throw cannotCap('mounting a tmpfs needs root or passwordless sudo');
  const why = m?.ram
    ? `${shm} has ${Math.floor((m?.freeBytes ?? 0) / 1048576)} MB free, ${Math.ceil(needBytes / 1048576)} MB needed`
    : `${shm} is not a tmpfs`;
  return {
    kind: 'disk',
    base: tempBase(),
    warning: diskPlan(`${why}, and mounting a tmpfs needs root or passwordless sudo`).warning ?? '',
  };
}

function cannotCap(why: string): InputError {
  return new InputError(
    'tmpfs-size',
    `native mode limits the data directory's size by mounting a tmpfs of that size, and ${why}`,
    'Leave tmpfs-size empty in native mode (the data then goes to /dev/shm), or use mode: docker',
  );
}

/** Room asked of /dev/shm when tmpfs-size is not given: 1 GiB (1 073 741 824 bytes). */
export const DEFAULT_NATIVE_BYTES = 1024 ** 3;

/** Deadline of one setup or teardown command (mount, hdiutil, diskutil): 60 000 ms. */
const COMMAND_TIMEOUT_MS = 60_000;

async function runCommand(c: Command): Promise<string> {
  return (await runOk(c.program, c.args, { timeoutMs: COMMAND_TIMEOUT_MS })).stdout;
}

/**
 * Makes the RAM-backed base folder for this platform (Linux: /dev/shm or a tmpfs it mounts;
 * macOS: a RAM disk named `name`; Windows: the temp folder).
 * @param bytes room the data needs (the tmpfs-size input, or DEFAULT_NATIVE_BYTES)
 * @param capped true when tmpfs-size was given (a tmpfs of that size is mounted)
 * @param onMount called with what is about to be mounted or was attached, before the mount
 *   (so a run killed during the mount leaves a record the next cleanup finds)
 * @returns the base folder, the plan, and the mount (null when nothing was mounted)
 * @throws InputError (tmpfs-size) when a size was asked and no tmpfs of that size can be had;
 *   Error when a macOS setup command fails
 */
export async function prepareRam(
  bytes: number,
  capped: boolean,
  name: string,
  onMount: (mount: RamMount) => void = () => undefined,
): Promise<{ base: string; plan: RamDirPlan; mount: RamMount | null }> {
  if (process.platform === 'linux') {
    const choice = chooseLinux(bytes, capped);
    if (choice.kind === 'shm') return { base: choice.base, plan: { kind: 'shm' }, mount: null };
    if (choice.kind === 'disk') return { base: choice.base, plan: { kind: 'disk', warning: choice.warning }, mount: null };
    const dir = mkdtempSync(join(tempBase(), MOUNT_PREFIX));
    const mount: RamMount = { kind: 'mount', dir, sudo: !choice.root };
    onMount(mount);
    try {
      await runCommand(mountCommand(dir, bytes, choice.root, process.getuid?.() ?? 0, process.getgid?.() ?? 0));
    } catch (error) {
      rmdirSync(dir);
      const why = error instanceof Error ? error.message : String(error);
      if (capped) throw cannotCap(`the mount failed: ${why}`);
      return {
        base: tempBase(),
        plan: diskPlan(`/dev/shm is missing or too small, and mounting a tmpfs failed: ${why}`),
        mount: null,
      };
    }
    return { base: dir, plan: { kind: 'mount' }, mount };
  }
  if (process.platform === 'darwin') {
    const [attach, erase] = macRamDiskCommands(bytes, name);
    const device = (await runCommand(attach)).trim().split(/\s+/)[0] ?? '';
    const mount: RamMount = { kind: 'ramdisk', device };
    onMount(mount);
    await runCommand({ ...erase, args: erase.args.map((a) => (a === 'DEVICE' ? device : a)) });
    return { base: `/Volumes/${name}`, plan: { kind: 'ramdisk' }, mount };
  }
  if (capped) throw cannotCap('Windows has no RAM disk without extra drivers');
  return { base: tempBase(), plan: diskPlan('Windows has no RAM disk without extra drivers'), mount: null };
}

/** Whether `dir` is a mount point (Linux: listed in /proc/self/mounts). */
function isMountPoint(dir: string): boolean {
  try {
    return readMounts().some((mount) => mount.point === dir);
  } catch {
    return true; // not Linux: let umount decide
  }
}

/**
 * Undoes a recorded mount: unmounts the tmpfs (when still mounted) and removes its empty folder,
 * or detaches the RAM disk; each command with a deadline. Something already gone counts as undone.
 * @returns one problem text per step that failed; [] when all is undone
 */
export async function teardownRam(mount: RamMount | null): Promise<string[]> {
  if (!mount) return [];
  const command = unmountCommand(mount);
  if (!command) return [`Not undoing ${JSON.stringify(mount)}: it does not name a mount this project makes`];
  try {
    if (mount.kind === 'ramdisk' || (existsSync(mount.dir) && isMountPoint(mount.dir))) await runCommand(command);
    if (mount.kind === 'mount' && existsSync(mount.dir)) rmdirSync(mount.dir);
    return [];
  } catch (error) {
    return [`${command.program} ${command.args.join(' ')} failed: ${error instanceof Error ? error.message : String(error)}`];
  }
}
