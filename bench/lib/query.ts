/**
 * Client-side probes: one query attempt, and a tight loop of attempts (the floor of "time to the
 * first answered query").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
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
 * Attempts a query every `intervalMs` until one is answered.
 * @returns the number of attempts
 * @throws Error with the last connection error after `timeoutMs`
 */
export async function untilAnswered(target: ConnectionInfo, timeoutMs: number, intervalMs = 5): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  for (;;) {
    throwIfInterrupted();
    attempts += 1;
    const error = await tryQuery(target, Math.max(1, Math.min(2000, deadline - Date.now())));
    if (error === null) return attempts;
    if (Date.now() >= deadline) throw new Error(`no answer within ${timeoutMs} ms (${attempts} attempts): ${error}`);
    await sleep(intervalMs);
  }
}
