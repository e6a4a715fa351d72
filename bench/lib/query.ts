/**
 * Client-side probes: one query attempt, and the floor of "time to the first answered query"
 * (the project's own readiness loop, src/readiness.ts, at a given interval).
 */
import pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { waitForQuery } from '../../src/readiness.js';
import { throwIfInterrupted } from './cleanup.js';

/** One attempt: connect, `SELECT 1`, disconnect. Returns null on success, else the error text. */
export async function tryQuery(target: ConnectionInfo, connectTimeoutMs = 2000): Promise<string | null> {
  const client = new pg.Client({ ...target, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Attempts a query every `intervalMs` until one is answered (waitForQuery); an interrupted run
 * stops it within 100 ms.
 * @returns the number of attempts
 * @throws NotReadyError after `timeoutMs`; Interrupted when the run was interrupted
 */
export async function untilAnswered(target: ConnectionInfo, timeoutMs: number, intervalMs = 5): Promise<number> {
  const ready = await waitForQuery(target, {
    timeoutMs,
    intervalMs,
    aliveEveryMs: 100,
    isAlive: async () => {
      throwIfInterrupted();
      return true;
    },
  });
  await ready.client.end().catch(() => undefined);
  return ready.attempts;
}
