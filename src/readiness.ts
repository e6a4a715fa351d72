/**
 * Readiness: the server is ready when a real query is answered through the path the user will use.
 *
 * Neither `pg_isready` inside the container nor a bare TCP connect will do: the official image's
 * entrypoint first runs a temporary server on the Unix socket only (docker-library/postgres,
 * docker-entrypoint.sh: docker_temp_server_start), and docker's port proxy accepts TCP on a
 * published port before anything listens behind it.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionInfo } from './connection.js';

/** Options for waitForQuery. */
export interface WaitOptions {
  /** Give up after this many ms. */
  timeoutMs: number;
  /** Pause between attempts, in ms (default 20). */
  intervalMs?: number;
  /** Per-attempt connect timeout, in ms (default 2000). */
  connectTimeoutMs?: number;
  /**
   * Called every `aliveEveryMs` (default 500 ms) while waiting; returning false stops the wait
   * at once (the server process or container has died).
   */
  isAlive?: () => Promise<boolean>;
  aliveEveryMs?: number;
}

/** A server that answered. */
export interface Ready {
  /** Connected client; the caller must `end()` it. */
  client: pg.Client;
  /** `server_version` as the server reports it, e.g. `17.2 (Debian 17.2-1.pgdg120+1)`. */
  serverVersion: string;
  /** Number of connection attempts made. */
  attempts: number;
}

/** Why waiting stopped without an answer. */
export class NotReadyError extends Error {
  constructor(
    message: string,
    /** The last connection error seen, if any. */
    readonly lastError: string,
    /** True when isAlive() reported the server gone. */
    readonly died: boolean,
  ) {
    super(message);
    this.name = 'NotReadyError';
  }
}

/** Connection options for node-postgres; `host` may be a Unix socket directory. */
export type Target = ConnectionInfo;

/**
 * Polls `SELECT current_setting('server_version')` until it is answered.
 * @returns the connected client and server version
 * @throws NotReadyError on timeout or when isAlive() says the server is gone
 */
export async function waitForQuery(target: Target, options: WaitOptions): Promise<Ready> {
  const interval = options.intervalMs ?? 20;
  const deadline = Date.now() + options.timeoutMs;
  const aliveEvery = options.aliveEveryMs ?? 500;
  let nextAliveCheck = Date.now() + aliveEvery;
  let attempts = 0;
  let lastError = '';
  for (;;) {
    attempts += 1;
    const client = new pg.Client({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
      connectionTimeoutMillis: Math.max(1, Math.min(options.connectTimeoutMs ?? 2000, deadline - Date.now())),
    });
    // A server closing the socket under us emits 'error' on the client; without a listener that
    // would crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      const result = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      return { client, serverVersion: result.rows[0]?.v ?? '', attempts };
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      await client.end().catch(() => undefined);
    }
    if (Date.now() >= deadline) {
      throw new NotReadyError(`no query answered within ${options.timeoutMs} ms (${attempts} attempts)`, lastError, false);
    }
    if (options.isAlive && Date.now() >= nextAliveCheck) {
      nextAliveCheck = Date.now() + aliveEvery;
      if (!(await options.isAlive())) {
        throw new NotReadyError(`the server stopped before answering a query (${attempts} attempts)`, lastError, true);
      }
    }
    await sleep(interval);
  }
}
