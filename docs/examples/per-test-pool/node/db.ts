/**
 * A ready copy of the template for every test, taken from pg-tmpfs's pool (vitest).
 *
 * Needs: pg-tmpfs started with `template: true` and `pool: N` (CLI: `--template --pool N`),
 * PostgreSQL 15+. With the pool off, `pgtmpfs.take()` fails with "this server has no pool": use
 * the CREATE DATABASE … TEMPLATE example instead (../../per-test-clone/node/db.ts).
 *
 * DATABASE_URL points at the template database; the copies are taken and given back on the
 * maintenance database `postgres` (same host, port, user and password), over one connection per
 * test file, so a take is one round trip. Nothing connects to the template: a session on it makes
 * the ready copies stale (take() skips them and the keeper makes new ones).
 *
 * jest: the same calls from beforeAll/beforeEach/afterEach/afterAll.
 */
import pg from 'pg';
import { test as base } from 'vitest';

const databaseUrl = process.env.DATABASE_URL ?? '';
if (!databaseUrl) throw new Error('DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first');

/** DATABASE_URL with another database name. */
function urlFor(database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/**
 * vitest's `test` with three fixtures: `maintenance`, a client of `postgres` opened once per test
 * file; `databaseName`, a copy taken from the pool for this test and given back after it; and
 * `db`, a client connected to that copy.
 */
export const test = base.extend<{ maintenance: pg.Client; databaseName: string; db: pg.Client }>({
  maintenance: [
    // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture uses from this pattern
    async ({}, use) => {
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        await use(client);
      } finally {
        await client.end();
      }
    },
    { scope: 'file' },
  ],
  databaseName: async ({ maintenance }, use) => {
    // Waits up to 10 s (pgtmpfs.take(timeout_ms) to change it) when every copy is taken.
    const { rows } = await maintenance.query<{ name: string }>('SELECT pgtmpfs.take() AS name');
    const name = rows[0]?.name;
    if (!name) throw new Error('pgtmpfs.take() returned no name');
    try {
      await use(name);
    } finally {
      // The keeper drops it once no session is on it (`db` is closed before this runs).
      await maintenance.query('SELECT pgtmpfs.give_back($1)', [name]);
    }
  },
  db: async ({ databaseName }, use) => {
    const client = new pg.Client({ connectionString: urlFor(databaseName) });
    await client.connect();
    try {
      await use(client);
    } finally {
      await client.end();
    }
  },
});
