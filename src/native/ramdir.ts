/**
 * Where a native server's data directory lives: RAM when the system allows it, and what was
 * measured, never what was hoped.
 *
 * - Linux: a fresh folder under /dev/shm when it is a tmpfs with room; else a tmpfs this run
 *   mounts (as root, or with passwordless sudo as on GitHub's runners); else RUNNER_TEMP with a
 *   warning.
 * - macOS: a RAM disk (`hdiutil attach -nomount ram://<512-byte sectors>`, then
 *   `diskutil erasevolume HFS+ <name> <device>`), detached by the post step.
 * - Windows: RUNNER_TEMP (no RAM disk without third-party drivers); durability is still off.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** statfs(2) f_type of tmpfs (linux/magic.h TMPFS_MAGIC). */
export const TMPFS_MAGIC = 0x01021994;
/** statfs(2) f_type of ramfs (linux/magic.h RAMFS_MAGIC). */
export const RAMFS_MAGIC = 0x858458f6;

/** One command of a plan: program and argument array. */
export interface Command {
  program: string;
  args: string[];
}

/** How the data root is made and unmade. */
export interface RamDirPlan {
  /** `shm` (existing tmpfs), `mount` (tmpfs mounted by us), `ramdisk` (macOS), `disk` (fallback). */
  kind: 'shm' | 'mount' | 'ramdisk' | 'disk';
  /** Commands to run before use (their outputs may feed later ones, see native-mode). */
  setup: Command[];
  /** Commands that undo setup, run by the post step / `down`. */
  teardown: Command[];
  /** Warning to show (for `disk`). */
  warning?: string;
}

/** Bytes from a Docker-style size (`512m`, `2g`, `1048576`). */
export function sizeToBytes(size: string): number {
  const match = /^(\d+)([bkmg]?)$/i.exec(size.trim());
  if (!match) throw new Error(`not a size: ${size}`);
  const power = { '': 0, b: 0, k: 1, m: 2, g: 3 }[(match[2] ?? '').toLowerCase()] ?? 0;
  return Number(match[1]) * 1024 ** power;
}

/**
 * macOS RAM disk plan for `bytes` (rounded up to whole MB) named `name`.
 * `hdiutil attach` prints the device (e.g. /dev/disk4); DEVICE in later commands stands for it.
 */
export function macRamDiskPlan(bytes: number, name: string): RamDirPlan {
  const sectors = Math.ceil(bytes / (1024 * 1024)) * 2048;
  return {
    kind: 'ramdisk',
    setup: [
      { program: 'hdiutil', args: ['attach', '-nomount', `ram://${sectors}`] },
      { program: 'diskutil', args: ['erasevolume', 'HFS+', name, 'DEVICE'] },
    ],
    teardown: [{ program: 'hdiutil', args: ['detach', 'DEVICE', '-force'] }],
  };
}

/** Linux tmpfs mount plan on `dir` (with `sudo -n` unless root). */
export function linuxMountPlan(dir: string, bytes: number, root: boolean): RamDirPlan {
  const sudo = (c: Command): Command => (root ? c : { program: 'sudo', args: ['-n', c.program, ...c.args] });
  return {
    kind: 'mount',
    setup: [sudo({ program: 'mount', args: ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir] })],
    teardown: [sudo({ program: 'umount', args: [dir] })],
  };
}

/** Fallback plan: a folder on disk, with the warning that says so. */
export function diskPlan(reason: string): RamDirPlan {
  return {
    kind: 'disk',
    setup: [],
    teardown: [],
    warning: `PGDATA is on disk, not in RAM (${reason}); durability is still off`,
  };
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
export function canMount(): { may: boolean; root: boolean } {
  const root = process.getuid?.() === 0;
  if (root) return { may: true, root };
  try {
    execFileSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 2000 });
    return { may: true, root };
  } catch {
    return { may: false, root };
  }
}

/** A base folder for temporary files: RUNNER_TEMP on runners, else the OS temp folder. */
export function tempBase(env: NodeJS.ProcessEnv = process.env): string {
  return env.RUNNER_TEMP || tmpdir();
}

/**
 * Chooses where the run folder goes on Linux.
 * @param needBytes room the data needs (the tmpfs-size input, or a default)
 * @returns the folder to create the run folder in, and the plan
 */
export function chooseLinux(needBytes: number, shm = '/dev/shm'): { base: string; plan: RamDirPlan } {
  const m = measure(shm);
  if (m?.ram && m.freeBytes >= needBytes) return { base: shm, plan: { kind: 'shm', setup: [], teardown: [] } };
  const why = m?.ram
    ? `${shm} has ${Math.floor((m?.freeBytes ?? 0) / 1048576)} MB free, ${Math.ceil(needBytes / 1048576)} MB needed`
    : `${shm} is not a tmpfs`;
  const { may, root } = canMount();
  if (may) {
    const dir = mkdtempSync(join(tempBase(), 'pg-tmpfs-mnt-'));
    return { base: dir, plan: linuxMountPlan(dir, needBytes, root) };
  }
  return { base: tempBase(), plan: diskPlan(`${why}, and mounting a tmpfs needs root or passwordless sudo`) };
}
