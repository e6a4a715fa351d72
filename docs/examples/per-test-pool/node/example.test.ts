/**
 * Each test gets its own copy of the template from the pool: both inserts of the same (unique)
 * email succeed, and each test counts one row. The same 4 tests as ../../per-test-clone/node.
 *
 * Run from this folder (so its vitest.config.ts is the one used), against a server started with
 * `pg-tmpfs up --database app --init ../per-test-clone/schema.sql --template --pool 4`:
 *   DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/app npx vitest run
 */
import { expect } from 'vitest';
import { test } from './db.js';

test('the template schema is there', async ({ db }) => {
  const { rows } = await db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  );
  expect(rows.map((r) => r.table_name)).toEqual(['posts', 'users']);
});

test('a test runs in a database of its own', async ({ db, databaseName }) => {
  const { rows } = await db.query<{ name: string }>('SELECT current_database() AS name');
  expect(rows[0]?.name).toBe(databaseName);
  expect(databaseName).not.toBe(decodeURIComponent(new URL(process.env.DATABASE_URL ?? '').pathname.slice(1)));
});

test('first insert sees only its own row', async ({ db }) => {
  await db.query("INSERT INTO users (email) VALUES ('alice@example.com')");
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  expect(rows[0]?.n).toBe(1);
});

test('second insert of the same email sees only its own row', async ({ db }) => {
  await db.query("INSERT INTO users (email) VALUES ('alice@example.com')");
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  expect(rows[0]?.n).toBe(1);
});
