/**
 * What a miss does around the copy of the cluster: it refuses to save a cluster that a hit would
 * serve otherwise than this run (UNLOGGED relations, which a restore empties; configuration
 * files init changed: save-checks.ts), and the copy's superuser has no password
 * (ALTER ROLE … PASSWORD NULL while the copy is taken, then the verifier again): a restored
 * cluster accepts no password until the hit sets its own. Older row versions and WAL in the
 * copied files may still hold the saving run's SCRAM verifier (docs/schema-cache.md says so).
 */
import type pg from 'pg';
import type { Manifest } from '../store/manifest.js';
import { scramVerifier } from '../scram.js';
import { openClient } from '../readiness.js';
import type { Server } from '../server.js';
import { configChanges, configProblem, unloggedProblem, unloggedRelations } from './save-checks.js';

/** Deadlines of the save's connections and queries: 10 000 ms to connect, 60 000 ms a query. */
const TIMEOUTS = { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000 };

/**
 * Runs `copy` with the superuser's password cleared (NULL: no login with a password), then sets it again (a new SCRAM verifier
 * of the same password). Sessions already open stay; a new connection with the password fails
 * only while the copy is taken, before the server is handed over. A native server without a peer
 * socket (Windows: src/native/run/windows.ts) gets a new bootstrap password instead of none, which
 * `copy` is given: it connects with it and keeps it in the entry (BOOTSTRAP_FILE), where a hit's
 * first connection finds it. The mode decides (native/schema-cache/snapshot.ts saveNative).
 * @param bootstrap the password to set instead of none (64 hex digits), or null where there is a peer socket
 * @param copy given `bootstrap`
 * @returns what `copy` returns
 * @throws what `copy` throws (the password is set again first); connection errors
 */
export async function withoutPassword<T>(
  server: Server,
  bootstrap: string | null,
  copy: (bootstrap: string | null) => Promise<T>,
): Promise<T> {
  const client: pg.Client = await openClient(server.connection, TIMEOUTS);
  const role = client.escapeIdentifier(server.connection.user);
  try {
    await client.query(`ALTER ROLE ${role} PASSWORD ${bootstrap ? client.escapeLiteral(scramVerifier(bootstrap)) : 'NULL'}`);
    try {
      return await copy(bootstrap);
    } finally {
      await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(scramVerifier(server.connection.password))}`);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A miss's copy of a running server into the store's folder `dir`: refused when the cluster has
 * UNLOGGED relations or init changed its configuration files (save-checks.ts), taken with the superuser's password cleared (withoutPassword), by
 * the mode's `copy` (native/schema-cache/snapshot.ts saveNative: a base backup with PostgreSQL's
 * low-level backup API, its files copied into `dir` by this process; docker/schema-cache.ts
 * saveDocker: pg_basebackup's tar from the container).
 * @param bootstrap see withoutPassword
 * @returns the copy's manifest, made from the bytes written
 * @throws Error naming the UNLOGGED relations (unloggedProblem) or the changed settings
 *   (configProblem); InputError (settings) and
 *   SetupError from the copy
 */
export async function saveCluster(
  server: Server,
  bootstrap: string | null,
  copy: (bootstrap: string | null) => Promise<Manifest | void>,
): Promise<Manifest | void> {
  const unlogged = await unloggedRelations(server);
  if (unlogged.length) throw new Error(unloggedProblem(unlogged));
  const changed = configProblem(await configChanges(server));
  if (changed) throw new Error(changed);
  return withoutPassword(server, bootstrap, copy);
}
