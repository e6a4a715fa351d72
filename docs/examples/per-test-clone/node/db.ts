/**
 * A fresh database for every test, copied from the template that pg-tmpfs prepared (vitest).
 *
 * DATABASE_URL points at the template database (the action's `database:` input, marked a
 * template by `template: true`); TEMPLATE_DATABASE overrides its name. The copies are made
 * from the maintenance database `postgres`, since PostgreSQL refuses to copy a database that
 * has open connections.
 *
 * jest: the same two functions from beforeEach/afterEach:
 *   let clone: TestDatabase;
 *   beforeEach(async () => { clone = await createTestDatabase(); });
 *   afterEach(() => clone.drop());
 */
import { randomBytes } from 'node:crypto';
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

const template = process.env.TEMPLATE_DATABASE || decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
const maintenanceUrl = urlFor('postgres');

/** Runs one statement on the maintenance database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

/** Copies the template into a database of its own (milliseconds on tmpfs). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  // STRATEGY FILE_COPY (PostgreSQL 15+) copies the files: the fastest way on tmpfs. On 14 and
  // older, leave the clause out (a file copy is all they do).
  await admin(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)} STRATEGY FILE_COPY`);
  return {
    name,
    url: urlFor(name),
    // FORCE (PostgreSQL 13+) ends connections the test left open.
    drop: () => admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
  };
}

/**
 * vitest's `test` with two fixtures: `databaseUrl`, a copy of the template made for this test
 * and dropped after it, and `db`, a client connected to it.
 */
export const test = base.extend<{ databaseUrl: string; db: pg.Client }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture uses from this pattern
  databaseUrl: async ({}, use) => {
    const clone = await createTestDatabase();
    try {
      await use(clone.url);
    } finally {
      await clone.drop();
    }
  },
  db: async ({ databaseUrl }, use) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await use(client);
    } finally {
      await client.end();
    }
  },
});
