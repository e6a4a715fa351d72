/**
 * Taking a copy from the pool and giving it back from Node (the CLI's `db take` / `db give-back`,
 * the benchmark): the same SQL calls a test makes in any language (sql.ts).
 */
import type pg from 'pg';
import { connectionUri, type ConnectionInfo } from '../connection.js';
import { SetupError } from '../errors.js';
import { openClient } from '../readiness.js';
import { POOL_ERRCODE, POOL_SCHEMA } from './sql.js';

/** A copy taken from the pool. */
export interface Taken {
  /** The copy's database name. */
  database: string;
  /** Its connection URI (credentials percent-encoded). */
  uri: string;
}

/**
 * Runs `fn` on a client of the maintenance database `postgres`, turning the pool's own errors
 * (SQLSTATE 55000 with a hint) into SetupErrors that carry the hint as the fix.
 * @throws SetupError for the pool's errors; other errors as node-postgres gives them
 */
async function onMaintenance<T>(connection: ConnectionInfo, timeoutMs: number, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await openClient(
    { ...connection, database: 'postgres' },
    { connectTimeoutMs: 10_000, queryTimeoutMs: timeoutMs + 10_000 },
  );
  try {
    return await fn(client);
  } catch (error) {
    const e = error as { code?: string; message: string; hint?: string };
    // 42501: give_back of a copy another role took.
    if ((e.code === POOL_ERRCODE || e.code === '42501') && e.message.startsWith('pg-tmpfs pool'))
      throw new SetupError(e.message, e.hint ?? '');
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Takes a ready copy: `SELECT pgtmpfs.take(timeoutMs, hand_off => true)`: the name outlives this
 * session (printed for another process), so the keeper never reclaims the copy; it is the
 * caller's until `db give-back` or the server stops.
 * @param timeoutMs how long to wait when every copy is taken, in ms
 * @throws SetupError when there is no pool, its keeper is not running, or no copy came in time
 */
export async function takeCopy(connection: ConnectionInfo, timeoutMs: number): Promise<Taken> {
  const database = await onMaintenance(connection, timeoutMs, async (c) => {
    const { rows } = await c.query<{ name: string }>(`SELECT ${POOL_SCHEMA}.take($1, hand_off => true) AS name`, [timeoutMs]);
    return rows[0]?.name ?? '';
  });
  return { database, uri: connectionUri({ ...connection, database }) };
}

/**
 * Gives a copy back: `SELECT pgtmpfs.give_back(name)`; the keeper drops it.
 * @throws SetupError when `name` is not a copy taken from the pool, or was given back already
 */
export async function giveBack(connection: ConnectionInfo, name: string): Promise<void> {
  await onMaintenance(connection, 10_000, (c) => c.query(`SELECT ${POOL_SCHEMA}.give_back($1)`, [name]));
}
