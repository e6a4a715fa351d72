/**
 * Copies taken and never given back whose taker is gone (issue #43): take() records the session
 * that holds each copy (its pid and start) in the copy's row. A copy whose holder session has
 * ended, or whose take was rolled back, that was not handed off (`db take`), and that no session
 * is connected to (state-sql.ts UNHELD), for the whole wait, goes back to the pool: a client that
 * timed out while take() went on, a test process that died. The wait lets a taker close the
 * session it took with and connect to the copy with another (the copy has a session then).
 */

/** How long a copy stays unheld before the keeper gives it back: 60 000 ms. */
export const RECLAIM_MS = 60_000;

/** The shortest wait: 1 000 ms (a take's row is written in the moment after its ticket is drawn). */
export const MIN_RECLAIM_MS = 1_000;

/** Environment variable that sets the wait in ms (a whole number; tests use a short one). */
export const RECLAIM_ENV = 'PG_TMPFS_POOL_RECLAIM_MS';

/**
 * The wait before a copy is reclaimed: RECLAIM_ENV when it is a whole number of ms (at least
 * MIN_RECLAIM_MS), else RECLAIM_MS.
 * @returns ms
 */
export function reclaimMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[RECLAIM_ENV] ?? '';
  return /^\d{1,9}$/.test(raw) ? Math.max(MIN_RECLAIM_MS, Number(raw)) : RECLAIM_MS;
}

/** Remembers since when each copy has been unheld, across the keeper's looks. */
export class Reclaimer {
  private since = new Map<string, number>();

  /** @param afterMs how long a copy stays unheld before it is due, in ms */
  constructor(private readonly afterMs: number) {}

  /**
   * One look: `unheld` is every copy unheld now (a copy not in it starts again from zero).
   * @param now the time of the look, ms (Date.now())
   * @returns the names unheld for `afterMs` or more, to give back
   */
  due(unheld: string[], now: number): string[] {
    const next = new Map<string, number>();
    const due: string[] = [];
    for (const name of unheld) {
      const since = this.since.get(name) ?? now;
      next.set(name, since);
      if (now - since >= this.afterMs) due.push(name);
    }
    this.since = next;
    return due;
  }
}
