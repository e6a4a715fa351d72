/**
 * The names and liveness of fills (`<name>.tmp-<pid>-<hex>`: an initdb cache entry, a kept npm
 * build, a schema cache entry being made), across PID namespaces (issue #43). Two starts in two
 * containers (or runners) that share a cache folder or tool cache see each other's fills, but
 * not each other's processes: a PID alone would make a live fill of the other look like a killed
 * run's. So a fill's name carries the PID namespace it was made in (8 hex digits of its inode,
 * /proc/self/ns/pid, before 8 random ones), and its maker touches it every HEARTBEAT_MS while it
 * fills (heartbeat). A fill of this namespace is stale when its process is gone, at once (what
 * `down` after a killed start needs); one of another namespace only when its heartbeat is older
 * than FOREIGN_STALE_MS.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync, statSync, utimesSync } from 'node:fs';
import { processAlive } from '../processes.js';

/** This process's PID namespace as 8 hex digits of its inode; '' where there is none (not Linux). */
export const PID_NS_HEX = ((): string => {
  try {
    const m = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'));
    return m ? (Number(m[1]) % 2 ** 32).toString(16).padStart(8, '0') : '';
  } catch {
    return '';
  }
})();

/** How often a maker touches its fill, in ms. */
const HEARTBEAT_MS = 5_000;

/** How old the heartbeat of another namespace's fill must be before it counts as a killed run's, in ms. */
export const FOREIGN_STALE_MS = 60_000;

/** A fill's suffix: `.tmp-<pid>-<namespace hex><8 random hex>`. */
export function fillSuffix(): string {
  return `.tmp-${process.pid}-${PID_NS_HEX}${randomBytes(4).toString('hex')}`;
}

/**
 * Touches `paths` (those that exist) every `everyMs` until the returned function is called; the
 * timer never keeps the process alive on its own.
 * @returns stops the heartbeat
 */
export function heartbeat(paths: string[], everyMs = HEARTBEAT_MS): () => void {
  const beat = (): void => {
    const now = new Date();
    for (const path of paths) {
      try {
        utimesSync(path, now, now);
      } catch {
        // not made yet, or gone
      }
    }
  };
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Whether the fill at `path` may still be filled by its maker.
 * @param pid the PID in its name; @param hex the hex part after it
 * @param nowMs the time to judge by, in ms since the epoch
 */
export function fillIsLive(path: string, pid: number, hex: string, nowMs = Date.now()): boolean {
  if (pid === process.pid && (hex.length !== 16 || hex.startsWith(PID_NS_HEX))) return true;
  const foreign = hex.length === 16 && PID_NS_HEX !== '' && !hex.startsWith(PID_NS_HEX);
  if (!foreign) return processAlive(pid);
  try {
    return nowMs - statSync(path).mtimeMs < FOREIGN_STALE_MS;
  } catch {
    return false;
  }
}
