/**
 * What a start from a schema-cache entry reports and checks instead of running init: the entry
 * is data to check, never trusted blindly. The key already covers every input; this catches an
 * entry that is not what its key says (a foreign or hand-made one).
 */
import type pg from 'pg';
import { connectionUri } from '../connection.js';
import type { Config } from '../inputs.js';
import { openClient } from '../readiness.js';
import type { Provisioned, Server } from '../server.js';

/** An entry whose cluster is not what the inputs ask for. */
export class ForeignEntryError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'ForeignEntryError';
  }
}

/**
 * Checks the restored cluster against the inputs, over the connection the outputs give: the
 * `database` answers with the password (the password was set after the restore), each of
 * `databases` exists, each of `extensions` is installed in `database`, and `database` is a
 * template exactly when `template` is true.
 * @returns what the outputs report for it (as provision.ts would; initFiles empty: none ran)
 * @throws ForeignEntryError naming the first difference; connection errors as node-postgres gives them
 */
export async function checkRestored(server: Server, config: Config): Promise<Provisioned> {
  const t0 = performance.now();
  const client: pg.Client = await openClient(server.connection, { connectTimeoutMs: 10_000, queryTimeoutMs: 30_000 });
  try {
    const dbs = await client.query<{ datname: string; datistemplate: boolean }>(
      'SELECT datname, datistemplate FROM pg_database WHERE datname = ANY($1)',
      [[config.database, ...config.databases]],
    );
    const found = new Map(dbs.rows.map((r) => [r.datname, r.datistemplate]));
    const missing = [config.database, ...config.databases].find((d) => !found.has(d));
    if (missing) throw new ForeignEntryError(`database ${missing} is missing`);
    if ((found.get(config.database) ?? false) !== config.template) {
      throw new ForeignEntryError(`database ${config.database} is ${config.template ? 'not ' : ''}a template`);
    }
    const exts = await client.query<{ extname: string }>('SELECT extname FROM pg_extension WHERE extname = ANY($1)', [
      config.extensions,
    ]);
    const have = new Set(exts.rows.map((r) => r.extname));
    const absent = config.extensions.find((e) => !have.has(e));
    if (absent) throw new ForeignEntryError(`extension ${absent} is missing in ${config.database}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  return {
    databases: Object.fromEntries(config.databases.map((d) => [d, connectionUri({ ...server.connection, database: d })])),
    templateDatabase: config.template ? config.database : '',
    extensions: [...config.extensions],
    initFiles: [],
    ms: Math.round(performance.now() - t0),
  };
}
