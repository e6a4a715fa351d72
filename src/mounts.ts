/**
 * The mount table as Linux shows it (/proc/self/mounts, /proc/mounts; proc(5), fstab(5)): one
 * line per mount, `source point type options dump pass`, separated by single spaces, with a
 * space, tab, newline or backslash inside a field written as a three-digit octal escape (`\040`,
 * `\011`, `\012`, `\134`). The one parser for it: verify.ts (the filesystem under PGDATA),
 * native/ramdir.ts (whether a folder is still mounted), native/npm-ram.ts (noexec).
 */
import { readFileSync } from 'node:fs';

/** One mount, its fields decoded. */
export interface Mount {
  /** What is mounted, e.g. `tmpfs`, `/dev/vda1`, `overlay`. */
  source: string;
  /** Where, an absolute path, e.g. `/dev/shm`. */
  point: string;
  /** Filesystem type, e.g. `tmpfs`, `ext4`, `overlay`. */
  type: string;
  /** Mount options, e.g. `['rw', 'nosuid', 'noexec', 'size=65536k']`. */
  options: string[];
}

/** A field with its octal escapes (`\NNN`) decoded. */
function decode(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/**
 * Parses the text of /proc/self/mounts (or /proc/mounts). Pure.
 * @returns the mounts in the table's order (a later one on the same point is on top); lines with
 *   fewer than three fields are skipped
 */
export function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    mounts.push({
      source: decode(fields[0] ?? ''),
      point: decode(fields[1] ?? ''),
      type: decode(fields[2] ?? ''),
      options: decode(fields[3] ?? '').split(','),
    });
  }
  return mounts;
}

/**
 * The mount that holds `path` (absolute, resolved): the one with the longest mount point that is
 * `path` or a folder above it; of equal points the last listed (the one on top). Pure.
 * @returns null when none covers it
 */
export function mountOf(path: string, mounts: readonly Mount[]): Mount | null {
  let best: Mount | null = null;
  for (const mount of mounts) {
    const { point } = mount;
    const covers = point === '/' || path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`);
    if (covers && (!best || point.length >= best.point.length)) best = mount;
  }
  return best;
}

/**
 * Reads and parses this process's mount table.
 * @param file default /proc/self/mounts
 * @throws Error from the read (ENOENT off Linux)
 */
export function readMounts(file = '/proc/self/mounts'): Mount[] {
  return parseMounts(readFileSync(file, 'utf8'));
}
