/** Helpers of the pool e2e tests (tests/e2e/pool*.test.ts): a CLI with its own state, clients, take. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { leftoverSnapshot, liveProcesses, NATIVE_MAJOR, ROOT } from './infra.js';
import { KEEPER_FLAG } from '../../src/pool/start.js';

/** The tests' scratch folder: state, cache and the init file. */
export const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-pool-test-'));
/** The CLI's environment: its own state and cache folders. */
export const env: NodeJS.ProcessEnv & { PG_TMPFS_STATE_DIR: string; PG_TMPFS_CACHE_DIR: string } = {
  ...process.env,
  PG_TMPFS_STATE_DIR: join(work, 'state'),
  PG_TMPFS_CACHE_DIR: join(work, 'cache'),
};
/** The template's schema: table t with one row (id 1). */
export const initFile = join(work, 'schema.sql');
writeFileSync(initFile, 'CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t VALUES (1);\n');
/** The installed psql of the native major. */
export const PSQL = `/usr/lib/postgresql/${NATIVE_MAJOR}/bin/psql`;

/** What `up --json` prints, the fields these tests read. */
export interface UpJson {
  connectionUri: string;
  dataDirectory: string;
  pool: { size: number; template: string; copyBytes: number; keeperPid: number };
}

/** dist/cli.js with `args`, 180 s at most. */
export function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8', env, timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `up` in native mode with template `app` (table t, one row) and a pool of `size`. */
export function up(name: string, size: number, extra: string[] = []): UpJson {
  const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', name, '--database', 'app'];
  const r = cli([...args, '--template', '--init', initFile, '--pool', String(size), '--json', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

/**
 * One native pool server per describe: registers a beforeAll that takes a leftover snapshot and
 * runs `up(name, size, extra)`, and an afterAll that runs `down --name name`. The object returned gets
 * up's JSON fields and `leftovers` once beforeAll has run: read them inside tests only.
 */
export function poolServer(
  name: string,
  size: number,
  extra: string[] = [],
): UpJson & { leftovers: ReturnType<typeof leftoverSnapshot> } {
  const server = {} as UpJson & { leftovers: ReturnType<typeof leftoverSnapshot> };
  beforeAll(() => {
    Object.assign(server, { leftovers: leftoverSnapshot() }, up(name, size, extra));
  });
  afterAll(() => {
    cli(['down', '--name', name]);
  });
  return server;
}

/** The URI of another database of the same server. */
export function dbUri(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** A connected client of `database`; errors of an idle connection go to its next query. */
export async function connect(uri: string, database = 'postgres'): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: dbUri(uri, database) });
  // A connection ended by the server shows in the next query's error, not as an uncaught one.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Runs `fn` on a client of its own to `database`, closed afterwards. */
export async function withClient<T>(uri: string, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(uri, database);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `SELECT pgtmpfs.take(timeoutMs)`: the copy's name. */
export async function take(client: pg.Client, timeoutMs = 20_000): Promise<string> {
  return (await client.query<{ name: string }>('SELECT pgtmpfs.take($1) AS name', [timeoutMs])).rows[0]?.name ?? '';
}

/** The error take() raised, or Error('took NAME') when it handed out a copy. */
export async function takeError(client: pg.Client, timeoutMs: number): Promise<Error> {
  try {
    throw new Error(`took ${await take(client, timeoutMs)}`);
  } catch (error) {
    return error as Error;
  }
}

/** The rows of `sql` on `postgres`, on a connection of its own. */
export async function rows<T>(uri: string, sql: string, params: unknown[] = []): Promise<T[]> {
  return withClient(uri, 'postgres', async (c) => (await c.query(sql, params)).rows as T[]);
}

/** Names of the pool's copies that exist (pg_database), sorted. */
export async function poolDatabases(uri: string, template = 'app'): Promise<string[]> {
  const r = await rows<{ datname: string }>(uri, 'SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY 1', [
    `${template}_pool_%`,
  ]);
  return r.map((x) => x.datname);
}

/** Polls `fn` every 50 ms until it returns true, for at most `ms`; @returns its last answer. */
export async function until(fn: () => Promise<boolean> | boolean, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The ready copies: made, not yet taken, at the template's current fingerprint. */
export async function ready(uri: string): Promise<string[]> {
  const r = await rows<{ name: string }>(
    uri,
    `SELECT name FROM pgtmpfs.copies, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS taken FROM pgtmpfs.tickets) t
      WHERE slot > t.taken AND state = 'made' AND fingerprint = pgtmpfs.fingerprint('app') ORDER BY name`,
  );
  return r.map((x) => x.name);
}

/** Keeper processes (the flag start.ts launches them with). */
export const keepers = (): number[] => liveProcesses((argv) => argv.includes(KEEPER_FLAG)).map((p) => p.pid);

/** A psql child on `postgres` running `sql`, its output lines collected. */
export function psql(uri: string, sql: string[]): { child: ChildProcess; lines: string[] } {
  const args = ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', dbUri(uri, 'postgres'), ...sql.flatMap((s) => ['-c', s])];
  const child = spawn(PSQL, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  child.stdout?.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
  return { child, lines };
}

/**
 * For a describe of bad input (pool-faults-{native,docker}.test.ts): a leftover snapshot taken in
 * its beforeAll, and `down` of the instances `names` in its afterAll (a row that wrongly started
 * one). Read the snapshot inside tests only.
 */
export function badInputLeftovers(names: string[]): () => ReturnType<typeof leftoverSnapshot> {
  let leftovers: ReturnType<typeof leftoverSnapshot> | undefined;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of names) cli(['down', '--name', name]);
  });
  return () => {
    if (!leftovers) throw new Error('badInputLeftovers: read before its beforeAll ran');
    return leftovers;
  };
}
