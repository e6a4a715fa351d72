/**
 * What a miss checks before it saves a copy of the cluster after init: a copy is saved only when
 * a later hit would serve what this run serves.
 * - UNLOGGED relations, in every database (one that refuses connections is opened for the
 *   check, then closed again): a restore starts with recovery, which empties them ("an unlogged
 *   table is automatically truncated after a crash or unclean shutdown", manual, CREATE TABLE
 *   "UNLOGGED"; pg_basebackup in Docker mode copies only their init fork).
 * - Server settings that init wrote to the configuration files (ALTER SYSTEM writes
 *   postgresql.auto.conf; a COPY … TO can rewrite postgresql.conf or pg_hba.conf): this run's
 *   server read its files before init, a server started from the copy reads them as init left
 *   them, so the hit would run with other settings or authentication than the miss (issue #35:
 *   `ALTER SYSTEM SET hba_file` made a hit trust every local user), or not start at all
 *   (shared_preload_libraries).
 */
import type pg from 'pg';
import { openClient } from '../readiness.js';
import type { Server } from '../server.js';

/** Deadlines of the checks' connections and queries: 10 000 ms to connect, 60 000 ms a query. */
const TIMEOUTS = { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000 };

/** At most this many relations or settings are named in a warning. */
const NAMED = 5;

/** `a, b, c and 2 more`: at most NAMED of `names`. */
function named(names: readonly string[]): string {
  const more = names.length > NAMED ? ` and ${names.length - NAMED} more` : '';
  return `${names.slice(0, NAMED).join(', ')}${more}`;
}

/**
 * The unlogged relations (tables, sequences, materialized views) of every database, as
 * `database.schema.name`; [] when there are none. A database that refuses connections
 * (ALLOW_CONNECTIONS false, template0 too) is opened for the check (ALTER DATABASE …
 * ALLOW_CONNECTIONS true) and closed again after it, before the copy is taken.
 * @throws connection and query errors as node-postgres gives them (a database that cannot be
 *   checked: nothing is saved)
 */
export async function unloggedRelations(server: Server): Promise<string[]> {
  const first = await openClient(server.connection, TIMEOUTS);
  const found: string[] = [];
  try {
    const databases = (
      await first.query<{ datname: string; datallowconn: boolean }>('SELECT datname, datallowconn FROM pg_database ORDER BY 1')
    ).rows;
    for (const { datname, datallowconn } of databases) {
      const quoted = first.escapeIdentifier(datname);
      if (!datallowconn) await first.query(`ALTER DATABASE ${quoted} ALLOW_CONNECTIONS true`);
      try {
        found.push(...(await unloggedIn(server, datname)));
      } finally {
        if (!datallowconn) await first.query(`ALTER DATABASE ${quoted} ALLOW_CONNECTIONS false`);
      }
    }
  } finally {
    await first.end().catch(() => undefined);
  }
  return found;
}

/** The unlogged relations of one database, as `database.schema.name`. */
async function unloggedIn(server: Server, database: string): Promise<string[]> {
  const client = await openClient({ ...server.connection, database }, TIMEOUTS);
  try {
    const rows = await client.query<{ name: string }>(
      `SELECT format('%s.%s.%s', current_database(), n.nspname, c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relpersistence = 'u' AND c.relkind IN ('r', 'S', 'm', 'p') ORDER BY 1`,
    );
    return rows.rows.map((r) => r.name);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The warning for a cluster not saved because of unlogged relations. */
export function unloggedProblem(relations: readonly string[]): string {
  return `the cluster has UNLOGGED relations (${named(relations)}), which a copy of a running server holds empty; make them logged in init (ALTER TABLE … SET LOGGED; Rails: create_unlogged_tables = false), or turn schema-cache off`;
}

/** What init left in the configuration files that the running server has not taken (configProblem's input). */
interface ConfigChanges {
  /** Settings in postgresql.auto.conf (ALTER SYSTEM), in file order. */
  altered: string[];
  /** Settings of the other configuration files that differ from what the server runs with (not applied). */
  unapplied: string[];
  /** Lines of pg_hba.conf the server could not load, as `line N: error`. */
  hba: string[];
}

/**
 * Reads what init changed in the configuration files (pg_file_settings and pg_hba_file_rules read
 * the files as they are now; manual, "pg_file_settings"): every setting of
 * postgresql.auto.conf, every setting of another file that the server could not apply (a
 * change that needs a restart, a bad value) unless the command line sets it (this project's
 * settings and the `settings` input, which a hit passes again), and every line of pg_hba.conf in
 * error.
 * @throws connection and query errors as node-postgres gives them
 */
export async function configChanges(server: Server): Promise<ConfigChanges> {
  const client: pg.Client = await openClient(server.connection, TIMEOUTS);
  try {
    const files = await client.query<{ name: string; auto: boolean }>(
      // A row without a name or file is a setting the files no longer hold, whose change needs a
      // restart ('parameter "max_connections" cannot be changed without restarting the server').
      `SELECT f.name, f.auto
         FROM (SELECT coalesce(name, substring(error from 'parameter "([^"]+)"'), format('%s line %s', sourcefile, sourceline), error) AS name,
                      coalesce(sourcefile ~ '(^|[/\\\\])postgresql\\.auto\\.conf$', false) AS auto, error, seqno
                 FROM pg_file_settings) f
         LEFT JOIN pg_settings s ON s.name = lower(f.name)
        WHERE f.auto OR (f.error IS NOT NULL AND s.source IS DISTINCT FROM 'command line')
        ORDER BY f.seqno`,
    );
    // pg_hba_file_rules is there from PostgreSQL 10 (undefined_table before: nothing to check).
    const hba = await client
      .query<{ line: number | null; error: string }>(
        'SELECT line_number AS line, error FROM pg_hba_file_rules WHERE error IS NOT NULL ORDER BY 1',
      )
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === '42P01') return { rows: [] };
        throw error;
      });
    return {
      altered: [...new Set(files.rows.filter((r) => r.auto).map((r) => r.name))],
      unapplied: [...new Set(files.rows.filter((r) => !r.auto).map((r) => r.name))],
      hba: hba.rows.map((r) => `line ${r.line ?? '?'}: ${r.error}`),
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The warning for a cluster not saved because init changed its configuration files, or null
 * when it did not.
 */
export function configProblem(changes: ConfigChanges): string | null {
  const parts: string[] = [];
  if (changes.altered.length) {
    parts.push(
      `init set server settings with ALTER SYSTEM (${named(changes.altered)}), which this run's server does not use but a server started from the copy would: set them in input 'settings' instead, or ALTER SYSTEM RESET them before init ends`,
    );
  }
  if (changes.unapplied.length) {
    parts.push(
      `init changed settings in the configuration files that this run's server has not applied (${named(changes.unapplied)}), which a server started from the copy would: set them in input 'settings' instead`,
    );
  }
  if (changes.hba.length) {
    parts.push(
      `init left a pg_hba.conf the server cannot load (${named(changes.hba)}), with which a server started from the copy would refuse to start`,
    );
  }
  return parts.length ? `${parts.join('; ')}. A hit must serve what this run serves, so the schema cache saved nothing` : null;
}
