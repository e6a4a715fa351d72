/**
 * Native mode's half of a sweep by name (lifecycle.ts sweepLeftovers): what runs under the name
 * `containerName` left when their record was lost or could not be read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOUNT_PREFIX, tempBase } from './ramdir.js';
import { runFolderName } from './run-folder.js';
import { RUN_MARKER, stopPostgres } from './run/postgres.js';
import { sweepRamBuilds } from './source/npm/ram.js';

/**
 * Finds and removes native run folders `<container-name>-<token>` (run-folder.ts runFolderName)
 * carrying the run marker (in /dev/shm, the temp folder and the tmpfs mounts this project makes
 * there), with the postmaster their postmaster.pid names; then the builds taken into RAM under
 * that name, once their servers are gone (npm/ram.ts sweepRamBuilds).
 * @returns what was removed (`run folder <path>`, …) and the problems met; never throws
 */
export async function sweepNative(containerName: string): Promise<{ removed: string[]; problems: string[] }> {
  const removed: string[] = [];
  const problems: string[] = [];
  const bases = ['/dev/shm', tempBase()];
  for (const base of [...bases]) {
    try {
      for (const n of readdirSync(base)) if (n.startsWith(MOUNT_PREFIX)) bases.push(join(base, n));
    } catch {
      // base missing
    }
  }
  for (const base of bases) {
    let names: string[] = [];
    try {
      names = readdirSync(base).filter((n) => n.startsWith(runFolderName(containerName, '')));
    } catch {
      continue;
    }
    for (const n of names) {
      const runDir = join(base, n);
      let token: string;
      try {
        token = readFileSync(join(runDir, RUN_MARKER), 'utf8');
      } catch {
        continue; // no marker (not ours), or removed meanwhile
      }
      if (n !== runFolderName(containerName, token)) continue;
      const mountDir = base.includes(`/${MOUNT_PREFIX}`) ? base : null;
      const found = await stopPostgres({
        mode: 'native',
        pid: 0,
        runDir,
        token,
        ram: mountDir ? { kind: 'mount', dir: mountDir, sudo: process.getuid?.() !== 0 } : null,
        bindir: '',
      });
      if (found.length) problems.push(...found);
      else removed.push(`run folder ${runDir}`);
    }
  }
  const ram = await sweepRamBuilds(containerName);
  return { removed: [...removed, ...ram.removed], problems: [...problems, ...ram.problems] };
}
