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
import { runOk } from '../proc.js';

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
  /** Commands to run before use (their outputs may feed later ones, see prepareRam). */
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

/** Room asked of /dev/shm when tmpfs-size is not given: 1 GiB (1 073 741 824 bytes). */
export const DEFAULT_NATIVE_BYTES = 1024 ** 3;

/** Deadline of one setup or teardown command (mount, hdiutil, diskutil): 60 000 ms. */
const COMMAND_TIMEOUT_MS = 60_000;

async function runCommand(c: Command): Promise<string> {
  return (await runOk(c.program, c.args, { timeoutMs: COMMAND_TIMEOUT_MS })).stdout;
}

/**
 * Makes the RAM-backed base folder for this platform (Linux: /dev/shm or a tmpfs mount; macOS:
 * a RAM disk named `name`; Windows: the temp folder).
 * @param bytes room the data needs (the tmpfs-size input, or DEFAULT_NATIVE_BYTES)
 * @returns the base folder and the plan, its teardown with the device filled in
 * @throws Error when a setup command fails or passes its deadline
 */
export async function prepareRam(bytes: number, name: string): Promise<{ base: string; plan: RamDirPlan }> {
  if (process.platform === 'linux') {
    const chosen = chooseLinux(bytes);
    for (const c of chosen.plan.setup) await runCommand(c);
    return chosen;
  }
  if (process.platform === 'darwin') {
    const plan = macRamDiskPlan(bytes, name);
    const device = (await runCommand(plan.setup[0] as Command)).trim().split(/\s+/)[0] ?? '';
    const fill = (c: Command): Command => ({ ...c, args: c.args.map((a) => (a === 'DEVICE' ? device : a)) });
    await runCommand(fill(plan.setup[1] as Command));
    return { base: `/Volumes/${name}`, plan: { ...plan, teardown: plan.teardown.map(fill) } };
  }
  return { base: tempBase(), plan: diskPlan('Windows has no RAM disk without extra drivers') };
}

/**
 * Runs teardown commands (unmount, detach), each with a deadline.
 * @returns one problem text per command that failed; [] when all succeeded
 */
export async function teardownRam(commands: readonly Command[]): Promise<string[]> {
  const problems: string[] = [];
  for (const c of commands) {
    try {
      await runCommand(c);
    } catch (error) {
      problems.push(`${c.program} ${c.args.join(' ')} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}
