/**
 * Running one init file on a client: in one transaction, or statement by statement when it has
 * the no-transaction marker, all init files under one deadline (init-timeout) that a file cannot
 * lift. Errors name file:line:column (init-errors.ts).
 */
import type pg from 'pg';
import type { ConnectionInfo } from './connection.js';
import { initFileError, timeoutError, type ServerError } from './init-errors.js';
import { scanSql, ScanTimeout, type StatementStart } from './init-sql.js';
import { throwIfInterrupted } from './interrupt.js';
import { openClient } from './readiness.js';

/** A line marking an init file that must not run in one transaction (CREATE INDEX CONCURRENTLY, VACUUM, CREATE DATABASE). */
export const NO_TRANSACTION_MARKER = /^\s*--\s*pg-tmpfs:\s*no-transaction\b/m;

/** Wait after ending the backend for its query to fail before closing the socket: 5000 ms. */
const DEADLINE_GRACE_MS = 5_000;

/**
 * The init files' deadline: `timeoutMs` (init-timeout) for all of them together, from its
 * creation, held by the client whatever a file sets (`SET statement_timeout = 0` included): at
 * the deadline the backend running the file is ended (pg_terminate_backend from a second
 * connection to `connection`), and DEADLINE_GRACE_MS later the client's socket is closed if its
 * query has still not failed (a server that no longer answers). The server's statement_timeout
 * (init-timeout, set at connect) can only fire later.
 */
export class InitDeadline {
  /** performance.now() ms of the deadline. */
  readonly at: number;
  /** Whether the deadline was reached (set before the query fails). */
  fired = false;
  private pid: number | null = null;

  /**
   * @param timeoutMs init-timeout, in ms
   * @param connection where a second connection ends the backend (null: only close the socket)
   */
  constructor(
    readonly timeoutMs: number,
    private readonly connection: ConnectionInfo | null,
  ) {
    this.at = performance.now() + timeoutMs;
  }

  /** Whether the deadline has passed. */
  passed(): boolean {
    if (performance.now() >= this.at) this.fired = true;
    return this.fired;
  }

  /**
   * Runs `sql` on `client` (the simple-query protocol: several statements allowed), ended at the
   * deadline as the class says.
   * @throws the query's error (after the deadline: whatever ending it gave; check `fired`)
   */
  async query(client: pg.Client, sql: string): Promise<void> {
    if (this.passed()) throw new Error('init-timeout reached');
    if (this.pid === null && this.connection) {
      this.pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? null;
    }
    let hard: NodeJS.Timeout | undefined;
    const timer = setTimeout(
      () => {
        this.fired = true;
        hard = setTimeout(() => client.connection.stream.destroy(), DEADLINE_GRACE_MS);
        void this.terminate();
      },
      Math.max(0, this.at - performance.now()),
    );
    try {
      await client.query(sql);
    } finally {
      clearTimeout(timer);
      clearTimeout(hard);
    }
  }

  /** pg_terminate_backend of the client's backend, from a second connection; errors ignored (the socket closes later). */
  private async terminate(): Promise<void> {
    if (!this.connection || this.pid === null) return;
    try {
      const other = await openClient(this.connection, { connectTimeoutMs: DEADLINE_GRACE_MS, queryTimeoutMs: DEADLINE_GRACE_MS });
      try {
        await other.query('SELECT pg_terminate_backend($1)', [this.pid]);
      } finally {
        await other.end().catch(() => undefined);
      }
    } catch {
      // The socket is closed after the grace.
    }
  }
}

/** How an init file runs: the init files' deadline and what its errors name. */
interface InitFileOptions {
  /** The init files' deadline (absent: one of init-timeout's default, 600 s, for this file alone). */
  deadline?: InitDeadline;
  /** The tmpfs-size input (null: not given), named when the data directory fills up. */
  tmpfsSize?: string | null;
}

/**
 * Runs one init file in `client`'s database: in one transaction (BEGIN, the file as one
 * simple-query message, COMMIT), or, when its text holds `-- pg-tmpfs: no-transaction`, statement
 * by statement as psql would. Within `options.deadline`, its reading included.
 * @param label the file's name in messages
 * (The caller has refused what needs psql: loadInitFiles.)
 * @throws InputError (init) naming file:line:column and the server's message; (init-timeout)
 *   past the deadline, naming the statement under way; (tmpfs-size) when the data directory is
 *   full
 */
export async function runInitFile(client: pg.Client, label: string, text: string, options: InitFileOptions = {}): Promise<void> {
  const deadline = options.deadline ?? new InitDeadline(600_000, null);
  const marker = NO_TRANSACTION_MARKER.test(text);
  const context = { marker, tmpfsSize: options.tmpfsSize ?? null };
  /** The statements, read once (linear; stopped at the deadline). */
  const statements = async (): Promise<StatementStart[] | null> => {
    try {
      return (await scanSql(text, deadline.at)).statements;
    } catch (error) {
      if (error instanceof ScanTimeout) deadline.fired = true;
      return null;
    }
  };
  if (marker) {
    const all = await statements();
    if (all === null || deadline.passed()) throw timeoutError(label, text, all?.[0]?.offset ?? null, deadline.timeoutMs);
    for (const statement of all) {
      throwIfInterrupted();
      try {
        await deadline.query(client, statement.text);
      } catch (error) {
        if (deadline.fired) throw timeoutError(label, text, statement.offset, deadline.timeoutMs);
        const e = error as ServerError;
        throw initFileError(label, text, e, e.position ? statement.start + Number(e.position) - 1 : statement.offset, context);
      }
    }
    return;
  }
  // Count the statements the server completed, so an error without a position (a constraint
  // violated at run time) still names the statement that failed.
  let completed = 0;
  const count = (): void => {
    completed += 1;
  };
  await transactionControl(deadline, client, 'BEGIN', label, text, context);
  client.connection.on('commandComplete', count);
  try {
    await deadline.query(client, text);
  } catch (error) {
    client.connection.off('commandComplete', count);
    const e = error as ServerError;
    const timedOut = deadline.fired;
    if (!timedOut) await client.query('ROLLBACK').catch(() => undefined);
    let offset: number | null = null;
    if (e.position && !timedOut) offset = Number(e.position) - 1;
    else {
      // Read after the deadline too: the statement under way is what the error names.
      const all = await scanSql(text).then(
        (s) => s.statements,
        () => [],
      );
      offset = all[completed]?.offset ?? null;
    }
    throw timedOut ? timeoutError(label, text, offset, deadline.timeoutMs) : initFileError(label, text, e, offset, context);
  }
  client.connection.off('commandComplete', count);
  // Deferred constraints and triggers run here: their error, or the deadline, names the file.
  await transactionControl(deadline, client, 'COMMIT', label, text, context);
}

/**
 * BEGIN or COMMIT of a plain init file under its deadline.
 * @throws InputError naming init-timeout when the deadline passed, else the file (initFileError)
 */
async function transactionControl(
  deadline: InitDeadline,
  client: pg.Client,
  sql: 'BEGIN' | 'COMMIT',
  label: string,
  text: string,
  context: Parameters<typeof initFileError>[4],
): Promise<void> {
  try {
    await deadline.query(client, sql);
  } catch (error) {
    if (deadline.fired) throw timeoutError(label, text, null, deadline.timeoutMs);
    throw initFileError(label, text, error as ServerError, null, context);
  }
}
