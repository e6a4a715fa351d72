/**
 * System V shared memory segments as Linux lists them (/proc/sysvipc/shm, proc(5)), and the
 * removal of one no process is attached to any more: what a postgres killed with SIGKILL leaves
 * (PostgreSQL removes its segment itself on any other exit). orphans.ts and native/postgres.ts
 * clean up with it.
 */
import { readFileSync } from 'node:fs';
import { run } from './proc.js';

/** Rows of /proc/sysvipc/shm, split: key shmid perms size cpid lpid nattch … ([] off Linux). */
export function sysvRows(): string[][] {
  try {
    return readFileSync('/proc/sysvipc/shm', 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length > 6);
  } catch {
    return [];
  }
}

/**
 * Removes a System V shared memory segment that no process is attached to any more (a postgres
 * killed with SIGKILL leaves it; PostgreSQL removes it itself on any other exit). Linux only.
 * @returns problems met; [] when it is gone or still in use
 */
export async function removeSysvSegment(id: number): Promise<string[]> {
  const row = sysvRows().find((f) => Number(f[1]) === id);
  if (!row || Number(row[6]) !== 0) return [];
  const r = await run('ipcrm', ['-m', String(id)], { timeoutMs: 10_000 }).catch((e: unknown) => ({
    code: 1,
    stderr: String(e),
  }));
  return r.code === 0 ? [] : [`Could not remove shared memory segment ${id}: ${r.stderr.trim()}`];
}
