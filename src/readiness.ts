/**
 * Readiness: the server is ready when a real query is answered through the path the user will use.
 *
 * Neither `pg_isready` inside the container nor a bare TCP connect will do: the official image's
 * entrypoint first runs a temporary server on the Unix socket only (docker-library/postgres,
 * docker-entrypoint.sh: docker_temp_server_start), and docker's port proxy accepts TCP on a
 * published port before anything listens behind it.
 */
import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionInfo } from './connection.js';
import { InputError, SetupError } from './errors.js';
import { throwIfInterrupted } from './interrupt.js';

/**
 * node-postgres, loaded on first use: a native start calls waitForQuery right after spawning
 * postgres, so loading the client (~25 ms of the CLI's start: pg and the crypto it pulls in)
 * overlaps the server's own start instead of adding to it.
 */
let pgModule: Promise<typeof pg> | null = null;
function loadPg(): Promise<typeof pg> {
  pgModule ??= import('pg').then((m) => m.default);
  return pgModule;
}

/** Deadlines of a client, in ms. */
interface ClientTimeouts {
  /** Connection deadline. */
  connectTimeoutMs: number;
  /** Client-side deadline of each query (node-postgres query_timeout). */
  queryTimeoutMs: number;
  /** The server's statement_timeout for the session, sent at connect (absent: the server's default). */
  statementTimeoutMs?: number;
}

/**
 * Calls `make` with every PG* variable out of process.env, and puts them back before returning.
 * node-postgres reads the caller's libpq variables as it builds a client, for every parameter
 * whose value is falsy (ConnectionParameters, lib/connection-parameters.js: PGOPTIONS,
 * PGSSLMODE, PGAPPNAME, PGCLIENTENCODING, PGBINARY, PGREPLICATION, PGSSLNEGOTIATION …), so an
 * explicit `false` cannot keep them out. `make` must be synchronous: nothing else runs meanwhile.
 */
export function withoutLibpqEnv<T>(make: () => T): T {
  const saved = Object.entries(process.env).filter(([name]) => /^PG/i.test(name));
  for (const [name] of saved) delete process.env[name];
  try {
    return make();
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}

/**
 * A node-postgres client for `target` with deadlines, not yet connected; an 'error' listener is
 * installed (a server closing the socket under us would otherwise crash the process). The
 * project's own connection: every parameter is set here, none comes from the caller's libpq
 * variables (withoutLibpqEnv): no SSL (the server has none), no `options`, UTF8, text results.
 * The password is always given (never empty: inputs), so no .pgpass is read.
 */
export async function newClient(target: Target, timeouts: ClientTimeouts): Promise<pg.Client> {
  const { Client } = await loadPg();
  const client = withoutLibpqEnv(
    () =>
      new Client({
        host: target.host,
        port: target.port,
        user: target.user,
        password: target.password,
        database: target.database,
        ssl: false,
        client_encoding: 'UTF8',
        connectionTimeoutMillis: timeouts.connectTimeoutMs,
        query_timeout: timeouts.queryTimeoutMs,
        ...(timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
      }),
  );
  client.on('error', () => undefined);
  return client;
}

/**
 * A connected client (newClient, then connect; ended again when connecting fails).
 * @throws the connection error as node-postgres gives it
 */
export async function openClient(target: Target, timeouts: ClientTimeouts): Promise<pg.Client> {
  const client = await newClient(target, timeouts);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/** Deadline of each query on a client waitForQuery returns (a server that stalls after connecting): 60 000 ms. */
const QUERY_TIMEOUT_MS = 60_000;

/** Options for waitForQuery. */
interface WaitOptions {
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
    const client = await newClient(target, {
      connectTimeoutMs: Math.max(1, Math.min(options.connectTimeoutMs ?? 2000, deadline - Date.now())),
      // Every later query on this client (bootstrap, verification) has a deadline too.
      queryTimeoutMs: QUERY_TIMEOUT_MS,
    });
    try {
      await client.connect();
      const result = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      return { client, serverVersion: result.rows[0]?.v ?? '', attempts };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The last attempt's connect timeout is cut to the time left: its "timeout" says nothing
      // about the server, so an earlier, real cause is kept.
      if (!(lastError && /timeout/i.test(message))) lastError = message;
      await client.end().catch(() => undefined);
      // No local port to connect from (the kernel's ephemeral range used up): waiting does not
      // free one, so say so now rather than after the whole wait.
      if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') {
        throw new NotReadyError(`no connection could be opened (${attempts} attempts)`, message, false);
      }
    }
    throwIfInterrupted();
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

/** Errors that mean the server is still on its way up (so more time may help). */
const STILL_STARTING =
  /ECONNREFUSED|ENOENT|ECONNRESET|starting up|shutting down|Connection terminated|timeout|not yet accepting/i;

/**
 * Log lines that name the input at fault, in the order they are looked for: the server's own
 * words (manual: "Setting Parameters"; initdb's and the kernel's messages).
 */
const LOG_CAUSES: Array<{ pattern: RegExp; input: string; problem: (m: RegExpExecArray) => string; fix: string }> = [
  {
    pattern: /unrecognized configuration parameter "([^"]+)"/,
    input: 'settings',
    problem: (m) => `the server does not know the setting "${m[1]}"`,
    fix: 'Use a name from pg_settings (an extension setting needs its library in shared_preload_libraries)',
  },
  {
    pattern:
      /(invalid value for parameter "[^"]+": "[^"]*"|parameter "[^"]+" requires a [a-z]+ value|-?\d+(?:\.\d+)? (?:\S+ )?is outside the valid range for parameter "[^"]+"[^\n]*)/,
    input: 'settings',
    problem: (m) => `the server refused a value: ${m[1]}`,
    fix: 'Give a value the server accepts (see pg_settings for units and ranges)',
  },
  {
    // Settings valid alone that the postmaster refuses together, e.g. max_connections=1:
    // "superuser_reserved_connections (3) must be less than max_connections (1)" (PostgreSQL 15;
    // 16+ adds "plus reserved_connections (0)"; 18 quotes the names); wal_level=minimal with WAL senders.
    pattern:
      /("?[a-z_]+"? \(\d+\)(?: plus "?[a-z_]+"? \(\d+\))? must be less than "?[a-z_]+"? \(\d+\)|WAL (?:streaming|archival)[^\n]*wal_level[^\n]*)/,
    input: 'settings',
    problem: (m) => `the server refused the settings together: ${m[1]?.trim()}`,
    fix: 'Change the settings named (e.g. raise max_connections)',
  },
  {
    // A library of shared_preload_libraries (or session_/local_preload_libraries) that is not
    // installed, or does not load: the postmaster exits at start.
    pattern: /(could not access file "([^"]+)": [^\n]*|could not load library "([^"]+)": [^\n]*)/,
    input: 'settings',
    problem: (m) => `the library "${m[2] ?? m[3]}" of shared_preload_libraries could not be loaded: ${m[1]}`,
    fix: 'Remove it from shared_preload_libraries (or session_preload_libraries, local_preload_libraries), or use an image or installation that has it (its extension package)',
  },
  {
    pattern: /(invalid locale name[^\n]*|locale "[^"]*" (?:is not|not) [^\n]*)/i,
    input: 'locale',
    problem: (m) => `initdb refused the locale: ${m[1]}`,
    fix: 'Use C (the default) or a locale installed in the image or on the machine',
  },
  {
    pattern: /(could not (?:resize|create|map) shared memory segment[^\n]*No space left on device[^\n]*)/,
    input: 'shm-size',
    problem: (m) => `/dev/shm is too small: ${m[1]}`,
    fix: 'Raise shm-size (e.g. 1g)',
  },
  {
    pattern: /([^\n]*No space left on device[^\n]*)/,
    input: 'tmpfs-size',
    problem: (m) => `the data directory is full: ${m[1]?.trim()}`,
    fix: 'Raise tmpfs-size, or leave it empty for no limit',
  },
];

/**
 * The error to report when a server did not answer: the input its log names (an unknown setting,
 * a full tmpfs, a locale initdb refused), else the real last connection error, with the log.
 * @param error what waitForQuery threw
 * @param serverLog the last lines of the server's log ('' when there is none)
 * @returns an InputError naming the input when the log shows one, else a SetupError
 */
export function notReadyError(error: NotReadyError, serverLog: string): InputError | SetupError {
  for (const cause of LOG_CAUSES) {
    const m = cause.pattern.exec(serverLog);
    if (m) return new InputError(cause.input, cause.problem(m), cause.fix, serverLog);
  }
  const last = error.lastError || 'none';
  if (/EADDRNOTAVAIL/.test(last)) {
    return new InputError(
      'port',
      `no local TCP port is free to connect to the server from (${last}): the kernel's ephemeral range is used up`,
      'End what holds the ports (ss -tan shows them) or widen net.ipv4.ip_local_port_range, then start again',
      serverLog,
    );
  }
  if (/password authentication failed/i.test(last)) {
    return new SetupError(
      `PostgreSQL rejected the password: ${last}`,
      "The server was not initialised with input 'password' (an image with its own cluster?); check the inputs 'user' and 'password'",
      serverLog,
    );
  }
  const fix = error.died
    ? 'The server exited; its log is above'
    : STILL_STARTING.test(last)
      ? "The server was still starting: raise input 'wait-timeout', and read the server log above"
      : 'Read the server log above';
  return new SetupError(`PostgreSQL did not answer a query: ${error.message}; last error: ${last}`, fix, serverLog);
}
