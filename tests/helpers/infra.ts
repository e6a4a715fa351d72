/**
 * Shared helpers for end-to-end tests: the local test images (infra/images.ts), act (infra/act.ts),
 * the leftover checks (infra/leftovers.ts, infra/lane.ts), and a query helper.
 * Under CI=true, missing infrastructure fails the test (never skips).
 */
import pg from 'pg';

export * from './infra/images.js';
export * from './infra/act.js';
export * from './infra/lane.js';
export * from './infra/leftovers.js';

/**
 * Runs `sql` on a connection of its own to `uri` and returns the first row's `v` as text
 * ('undefined' when there is no row).
 * @throws connection and query errors as node-postgres gives them
 */
export async function queryValue(uri: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    const result = await client.query<{ v: unknown }>(sql);
    return String(result.rows[0]?.v);
  } finally {
    await client.end();
  }
}
