/**
 * What a miss does around the copy of the cluster: it refuses to save a cluster with UNLOGGED
 * relations (a restore starts with recovery, which empties them: "an unlogged table is
 * automatically truncated after a crash or unclean shutdown", manual, CREATE TABLE "UNLOGGED";
 * pg_basebackup in Docker mode copies only their init fork), and the copy's superuser has no password
 * (ALTER ROLE … PASSWORD NULL while the copy is taken, then the verifier again): a restored
 * cluster accepts no password until the hit sets its own. Older row versions and WAL in the
 * copied files may still hold the saving run's SCRAM verifier (docs/schema-cache.md says so).
 */
import type pg from 'pg';
import type { Manifest } from '../native/cache-manifest.js';
import { scramVerifier } from '../native/scram.js';
import { openClient } from '../readiness.js';
import type { Server } from '../server.js';
import { snapshotDocker } from './docker.js';
import { snapshotNative } from './native.js';

/** Deadlines of the save's connections and queries: 10 000 ms to connect, 60 000 ms a query. */
const TIMEOUTS = { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000 };

/** At most this many unlogged relations are named in the warning. */
const NAMED = 5;

/**
 * The unlogged relations (tables, sequences, materialized views) of every database that accepts
 * connections, as `database.schema.name`; [] when there are none.
 * @throws connection and query errors as node-postgres gives them
 */
export async function unloggedRelations(server: Server): Promise<string[]> {
  const first = await openClient(server.connection, TIMEOUTS);
  let databases: string[];
  try {
    databases = (
      await first.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1')
    ).rows.map((r) => r.datname);
  } finally {
    await first.end().catch(() => undefined);
  }
  const found: string[] = [];
  for (const database of databases) {
    const client = await openClient({ ...server.connection, database }, TIMEOUTS);
    try {
      const rows = await client.query<{ name: string }>(
        `SELECT format('%s.%s.%s', current_database(), n.nspname, c.relname) AS name
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relpersistence = 'u' AND c.relkind IN ('r', 'S', 'm', 'p') ORDER BY 1`,
      );
      found.push(...rows.rows.map((r) => r.name));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return found;
}

/** The warning for a cluster not saved because of unlogged relations. */
export function unloggedProblem(relations: readonly string[]): string {
  const named = relations.slice(0, NAMED).join(', ');
  const more = relations.length > NAMED ? ` and ${relations.length - NAMED} more` : '';
  return `the cluster has UNLOGGED relations (${named}${more}), which a copy of a running server holds empty; make them logged in init (ALTER TABLE … SET LOGGED; Rails: create_unlogged_tables = false), or turn schema-cache off`;
}

/**
 * Runs `copy` with the superuser's password cleared (NULL: no login with a password), then sets it again (a new SCRAM verifier
 * of the same password). Sessions already open stay; a new connection with the password fails
 * only while the copy is taken, before the server is handed over.
 * @returns what `copy` returns
 * @throws what `copy` throws (the password is set again first); connection errors
 */
export async function withoutPassword<T>(server: Server, copy: () => Promise<T>): Promise<T> {
  const client: pg.Client = await openClient(server.connection, TIMEOUTS);
  const role = client.escapeIdentifier(server.connection.user);
  try {
    await client.query(`ALTER ROLE ${role} PASSWORD NULL`);
    try {
      return await copy();
    } finally {
      await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(scramVerifier(server.connection.password))}`);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A miss's copy of a running server into the store's folder `dir`: refused when the cluster has
 * UNLOGGED relations, taken with the superuser's password cleared (withoutPassword), by mode
 * (snapshotNative: a base backup with PostgreSQL's low-level backup API, its files copied into
 * `dir` by this process; snapshotDocker: pg_basebackup's tar from the container).
 * @returns the copy's manifest, made from the bytes written
 * @throws Error naming the UNLOGGED relations (unloggedProblem); InputError (settings) and
 *   SetupError from the copy
 */
export async function saveCluster(server: Server, dir: string): Promise<Manifest | void> {
  const unlogged = await unloggedRelations(server);
  if (unlogged.length) throw new Error(unloggedProblem(unlogged));
  return withoutPassword<Manifest | void>(server, () =>
    server.mode === 'native' ? snapshotNative(server, dir) : snapshotDocker(server, dir),
  );
}
