/**
 * Per-test databases: a fresh copy of a template database (CREATE DATABASE … TEMPLATE), and its
 * removal. The CLI's `db create` / `db drop` use these; docs/per-test-databases.md shows the same
 * in each test runner's language.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { connectionUri, type ConnectionInfo } from './connection.js';
import { InputError, SetupError } from './errors.js';
import { openClient } from './readiness.js';
import { BUILT_IN_DATABASES, databaseNameProblem, storedName } from './rules.js';

/** How CREATE DATABASE copies the template (manual: CREATE DATABASE, STRATEGY; PostgreSQL 15+). */
type CloneStrategy = 'FILE_COPY' | 'WAL_LOG' | 'default';

/**
 * The fastest strategy measured for the storage (docs/performance.md, table "per test"): on a
 * RAM-backed PGDATA, FILE_COPY (it copies the files at once instead of writing every block to WAL)
 * on every major that has STRATEGY; elsewhere, and before PostgreSQL 15, the server's default.
 * @param serverVersionNum `server_version_num`, e.g. 180001
 * @param tmpfs whether PGDATA was measured to be on tmpfs
 */
export function cloneStrategy(serverVersionNum: number, tmpfs: boolean): CloneStrategy {
  return serverVersionNum >= 150000 && tmpfs ? 'FILE_COPY' : 'default';
}

/** A generated database name: `<base>_<12 hex>`, within PostgreSQL's 63-byte identifier limit. */
export function freshName(base: string): string {
  const suffix = randomBytes(6).toString('hex');
  const clean = base.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 63 - suffix.length - 1);
  return `${clean}_${suffix}`;
}

/**
 * How long a connection of db create / db drop keeps being tried while the server has no free
 * connection slot (SQLSTATE 53300, "sorry, too many clients already": more parallel calls than
 * max_connections allows), within the command's own deadline: 30 000 ms. Each call holds one
 * connection for the length of its CREATE or DROP DATABASE (milliseconds on tmpfs), so the calls
 * beyond max_connections wait their turn instead of failing.
 */
const SLOT_WAIT_MS = 30_000;

/**
 * Opens a client on the maintenance database (`postgres`, or template1 when `avoid` is
 * postgres); while the server has no free connection slot, tries again (pauses of 10 ms doubling
 * to 250 ms, jittered) for up to SLOT_WAIT_MS.
 * @throws SetupError naming max_connections when no slot came free in time; other connection
 *   errors as node-postgres gives them
 */
async function maintenance(connection: ConnectionInfo, avoid: string, timeoutMs: number): Promise<pg.Client> {
  const waitMs = Math.min(timeoutMs, SLOT_WAIT_MS);
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    try {
      return await openClient(
        { ...connection, database: avoid === 'postgres' ? 'template1' : 'postgres' },
        { connectTimeoutMs: Math.min(timeoutMs, 10_000), queryTimeoutMs: timeoutMs },
      );
    } catch (error) {
      if ((error as { code?: string }).code !== '53300') throw error;
      if (Date.now() + pause > deadline) {
        throw new SetupError(
          `The server had no free connection for ${waitMs} ms: ${(error as Error).message}`,
          "Run fewer db create / db drop at once, or raise max_connections (input 'settings')",
        );
      }
      await sleep(pause * (0.5 + Math.random()));
    }
  }
}

/** `server_version_num` of the client's server, e.g. 180001. */
async function versionNum(client: pg.Client): Promise<number> {
  return Number((await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]?.v);
}

/** A database made by cloneDatabase. */
interface Clone {
  /** The new database's name. */
  database: string;
  /** Its connection URI (credentials percent-encoded). */
  uri: string;
  /** The template it was copied from. */
  template: string;
  /** The strategy used. */
  strategy: CloneStrategy;
  /** Wall time of the CREATE DATABASE, in ms. */
  ms: number;
}

/**
 * Creates `name` (or a fresh name) as a copy of `template`, connected through the maintenance
 * database.
 * Long because each refusal names the flag at fault before anything reaches the server.
 * @param options.strategy how to copy; default: cloneStrategy for the server's version and `tmpfs`
 * @param options.timeoutMs deadline of the connection and each statement, in ms
 * @throws InputError (from) when the template does not exist or has other sessions (CREATE
 *   DATABASE … TEMPLATE refuses then; SQLSTATE 55006) or is longer than 63 bytes (the server
 *   would copy its truncation), (db-name) when the name is taken (also when a parallel CREATE
 *   of that name won: SQLSTATE 23505) or too long; other server and connection errors as
 *   node-postgres gives them
 */
export async function cloneDatabase(
  connection: ConnectionInfo,
  options: { template: string; name?: string; strategy?: CloneStrategy; tmpfs: boolean; timeoutMs: number },
): Promise<Clone> {
  if (options.name !== undefined && databaseNameProblem(options.name)) {
    throw new InputError('db-name', `"${options.name}" is empty, longer than 63 bytes or holds a NUL`, 'Give a shorter name');
  }
  // The server would truncate a longer name to 63 bytes and copy that database instead.
  if (databaseNameProblem(options.template)) {
    throw new InputError(
      'from',
      `"${options.template}" is empty, longer than 63 bytes or holds a NUL: no database has that name`,
      'Give the template database as it is named (63 bytes at most)',
    );
  }
  const database = options.name ?? freshName(options.template === 'template1' ? 'db' : options.template);
  const client = await maintenance(connection, options.template, options.timeoutMs);
  try {
    const chosen = options.strategy ?? cloneStrategy(await versionNum(client), options.tmpfs);
    const t0 = performance.now();
    const strategy = chosen === 'default' ? '' : ` STRATEGY ${chosen}`;
    try {
      await client.query(
        `CREATE DATABASE ${client.escapeIdentifier(database)} TEMPLATE ${client.escapeIdentifier(options.template)}${strategy}`,
      );
    } catch (error) {
      const e = error as { code?: string; message: string; detail?: string };
      if (e.code === '55006') {
        throw new InputError(
          'from',
          `template ${options.template} has other sessions (${e.detail ?? e.message})`,
          'Connect tests to their own copies, never to the template itself (close those sessions)',
        );
      }
      if (e.code === '3D000') {
        throw new InputError(
          'from',
          `there is no database ${options.template}`,
          'Give an existing database (the up --template one by default)',
        );
      }
      // 42P04 duplicate_database; 23505 unique_violation on pg_database_datname_index: another
      // CREATE DATABASE of that name committed while this one ran (parallel db create).
      if (e.code === '42P04' || e.code === '23505') {
        throw new InputError(
          'db-name',
          `database ${database} already exists`,
          'Give another name, or leave it out for a fresh one',
        );
      }
      throw error;
    }
    const ms = Math.round(performance.now() - t0);
    return { database, uri: connectionUri({ ...connection, database }), template: options.template, strategy: chosen, ms };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Drops a database, ending its sessions (`WITH (FORCE)`, PostgreSQL 13+). A template database
 * (`datistemplate`, e.g. one an init file made with IS_TEMPLATE true) is first made an ordinary
 * one (ALTER DATABASE … IS_TEMPLATE false), since DROP DATABASE refuses templates: the server is
 * a throwaway one.
 * Before connecting, a name the server would not take as it is (empty, a NUL, over 63 bytes of
 * UTF-8: the server truncates it, and `<63 × t>x` would drop `<63 × t>`) is refused, and the
 * protected names are compared as the server stores them (storedName).
 * @param protect names that must not be dropped (the instance's own database and template)
 * @returns whether it existed
 * @throws InputError (database) for a name the server would not take as it is; SetupError for a
 *   built-in or protected database; connection and server errors as node-postgres gives them
 */
export async function dropDatabase(
  connection: ConnectionInfo,
  name: string,
  options: { protect: string[]; timeoutMs: number },
): Promise<boolean> {
  const problem = databaseNameProblem(name);
  if (problem) {
    throw new InputError(
      'database',
      `"${name}" ${problem}: the server would drop the database its first 63 bytes name, if any`,
      'Give the database as it is named (63 bytes at most)',
    );
  }
  const stored = storedName(name);
  const builtIn = BUILT_IN_DATABASES.includes(stored);
  if (builtIn || options.protect.some((p) => storedName(p) === stored)) {
    throw new SetupError(
      `Refusing to drop ${name}: it is ${builtIn ? 'a built-in database' : "the instance's own database or template"}`,
      'Drop only databases made by db create',
    );
  }
  const client = await maintenance(connection, name, options.timeoutMs);
  try {
    const found = await client.query<{ datistemplate: boolean }>('SELECT datistemplate FROM pg_database WHERE datname = $1', [
      name,
    ]);
    if (found.rowCount === 0) return false;
    if (found.rows[0]?.datistemplate) await client.query(`ALTER DATABASE ${client.escapeIdentifier(name)} IS_TEMPLATE false`);
    const force = (await versionNum(client)) >= 130000 ? ' WITH (FORCE)' : '';
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}${force}`);
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
