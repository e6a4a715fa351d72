/**
 * The keeper's process (issue #43): runs the pool's keeper (keeper.ts keepPool) and, when its
 * connection ends without the server saying it is shutting down (a crash restart: a server
 * process ended abnormally and the postmaster restarted every session), reconnects within
 * RECONNECT_MS and keeps the pool again, its bookkeeping rebuilt. It ends with the server: on
 * 57P01 (pg_ctl stop, `down`, the post step), when PGDATA's postmaster.pid is gone (native mode:
 * Windows has no /proc for `down` to find the keeper by), or when no reconnect works in time.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openClient } from '../readiness.js';
import { keepPool, type KeeperJob } from './keeper.js';

/** How long the keeper tries to reconnect once its connection ended (a crash restart takes about a second), in ms. */
export const RECONNECT_MS = 30_000;

/** Sessions in a row that may fail while setting up after a reconnect before the keeper gives up. */
const MAX_FAILED_SESSIONS = 20;

/** Pause between reconnect attempts, in ms. */
const RECONNECT_PAUSE_MS = 100;

/**
 * Runs the keeper until its server is gone: keeps the pool (keepPool) and, when its connection
 * ends, reconnects within RECONNECT_MS and keeps it again (a crash restart of the server).
 * @returns the process's exit code: 1 once the server went away for good
 * @throws connection errors of its first connection, and a lock timeout when another keeper holds the lock
 */
export async function runKeeper(job: KeeperJob): Promise<number> {
  const target = { ...job.connection, database: 'postgres' };
  let first = true;
  let failures = 0;
  for (;;) {
    try {
      // Stopped for good (Windows has no /proc for `down` to find the keeper by: it must end itself).
      if ((await keepPool(job, first)) === 'shutdown') return 1;
      failures = 0;
    } catch (error) {
      // The first session's errors end the keeper; after a reconnect, one that fails while setting
      // up (too many clients, a second crash, its lock still held by a session) is tried again.
      if (first || ++failures >= MAX_FAILED_SESSIONS) throw error;
    }
    first = false;
    const deadline = Date.now() + RECONNECT_MS;
    let back = false;
    while (!back && Date.now() < deadline) {
      // A crash restart keeps the postmaster, and its postmaster.pid; a stopped server has none.
      if (job.serverDirectory && !existsSync(join(job.serverDirectory, 'postmaster.pid'))) return 1;
      // A timer that keeps the process alive: no connection does while it waits.
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
      if (job.serverDirectory && !existsSync(join(job.serverDirectory, 'postmaster.pid'))) return 1;
      back = await openClient(target, { connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 })
        .then(async (c) => {
          await c.query('SELECT 1');
          await c.end();
          return true;
        })
        .catch(() => false);
    }
    if (!back) return 1;
  }
}
