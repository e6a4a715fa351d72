/**
 * The test-suite workloads (pgbench scripts in bench/sql/), what each needs on a server, and
 * running one against a server.
 */
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { pgbench, pgbenchInit, type Length, type PgbenchResult, type Script } from './pgbench.js';
import { withClient, type BenchServer } from './pgserver.js';

/** Folder of the pgbench scripts. */
export const SQL_DIR = resolve(import.meta.dirname, '..', 'sql');

/** What a workload needs prepared on a server. */
export type Need = 'fixtures' | 'template' | 'pgbench-tables' | 'jit-tables';

/** A workload: a pgbench script and how to read it. */
export interface Workload {
  key: string;
  label: string;
  script: Script;
  needs: Need[];
  /** Whether the workload writes (read-only ones are expected to gain ~nothing). */
  writes: boolean;
}

/** All workloads by key. `createdb-*` strategies depend on the server version: see createdbWorkloads(). */
export const WORKLOADS = {
  rollback: {
    key: 'rollback',
    label: 'A test in a transaction rolled back (INSERT/UPDATE/SELECT)',
    script: { file: join(SQL_DIR, 'rollback.sql') },
    needs: ['fixtures'],
    writes: true,
  },
  truncate: {
    key: 'truncate',
    label: 'Fixtures then TRUNCATE per test',
    script: { file: join(SQL_DIR, 'truncate.sql') },
    needs: ['fixtures'],
    writes: true,
  },
  createDropTable: {
    key: 'create-drop-table',
    label: 'CREATE TABLE + DROP TABLE',
    script: { file: join(SQL_DIR, 'create-drop-table.sql') },
    needs: [],
    writes: true,
  },
  tpcb: {
    key: 'tpcb-like',
    label: 'pgbench tpcb-like (write-heavy)',
    script: { builtin: 'tpcb-like' },
    needs: ['pgbench-tables'],
    writes: true,
  },
  selectOnly: {
    key: 'select-only',
    label: 'pgbench select-only (read-only)',
    script: { builtin: 'select-only' },
    needs: ['pgbench-tables'],
    writes: false,
  },
  jitReport: {
    key: 'jit-report',
    label: 'Report query over tables emptied by DELETE (plan cost > jit_above_cost)',
    script: { file: join(SQL_DIR, 'jit-report.sql') },
    needs: ['jit-tables'],
    writes: false,
  },
} satisfies Record<string, Workload>;

/** CREATE DATABASE ... TEMPLATE workloads: both STRATEGY values from PostgreSQL 15, else the only one. */
export function createdbWorkloads(serverMajor: number): Workload[] {
  if (serverMajor < 15) {
    return [
      {
        key: 'createdb',
        label: 'CREATE DATABASE … TEMPLATE + DROP DATABASE',
        script: { file: join(SQL_DIR, 'createdb-default.sql') },
        needs: ['template'],
        writes: true,
      },
    ];
  }
  return (['WAL_LOG', 'FILE_COPY'] as const).map((strategy) => ({
    key: `createdb-${strategy.toLowerCase().replace('_', '-')}`,
    label: `CREATE DATABASE … TEMPLATE, STRATEGY ${strategy} + DROP DATABASE`,
    script: { file: join(SQL_DIR, `createdb-${strategy.toLowerCase().replace('_', '-')}.sql`) },
    needs: ['template'],
    writes: true,
  }));
}

/** Number of tables in the template database (a small application schema). */
export const TEMPLATE_TABLES = 20;

/** SQL (our own constants only) that creates the per-client fixture tables. */
function fixtureSql(clients: number): string[] {
  const out: string[] = [];
  for (let c = 0; c < clients; c++) {
    out.push(
      `CREATE TABLE IF NOT EXISTS fx_users_${c} (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
      `CREATE TABLE IF NOT EXISTS fx_orders_${c} (id bigserial PRIMARY KEY, user_id bigint NOT NULL REFERENCES fx_users_${c} (id), total numeric(12,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
      `CREATE INDEX IF NOT EXISTS fx_orders_${c}_user_id ON fx_orders_${c} (user_id)`,
    );
  }
  return out;
}

/** SQL for the template's schema: TEMPLATE_TABLES tables, each referencing the previous, a few rows each. */
function templateSql(): string[] {
  const out: string[] = [];
  for (let t = 0; t < TEMPLATE_TABLES; t++) {
    const parent = t === 0 ? '' : `, parent_id bigint REFERENCES app_table_${t - 1} (id)`;
    out.push(
      `CREATE TABLE app_table_${t} (id bigserial PRIMARY KEY${parent}, name text NOT NULL, data jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz)`,
      `CREATE INDEX ON app_table_${t} (created_at)`,
      `INSERT INTO app_table_${t} (name${t === 0 ? '' : ', parent_id'}) SELECT 'row ' || g${t === 0 ? '' : ', g'} FROM generate_series(1, 10) AS g`,
    );
  }
  return out;
}

/** The tables of the JIT report (see bench/sql/jit-report.sql): seeded, then emptied by DELETE. */
const JIT_SQL = [
  `CREATE TABLE jit_sessions (id bigserial PRIMARY KEY, user_id bigint NOT NULL, started_at timestamptz NOT NULL DEFAULT now()) WITH (autovacuum_enabled = off)`,
  `CREATE TABLE jit_events (id bigserial PRIMARY KEY, user_id bigint NOT NULL, kind text NOT NULL, created_at timestamptz NOT NULL DEFAULT now()) WITH (autovacuum_enabled = off)`,
  `INSERT INTO jit_sessions (user_id, started_at) SELECT 1 + g % 20000, now() - interval '1 hour' FROM generate_series(1, 20000) AS g`,
  `INSERT INTO jit_events (user_id, kind) SELECT 1 + g % 20000, (ARRAY['login', 'view', 'buy'])[1 + g % 3] FROM generate_series(1, 500000) AS g`,
  `DELETE FROM jit_sessions WHERE id > 20`,
  `DELETE FROM jit_events WHERE id > 20`,
];

async function runAll(client: pg.Client, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await client.query(sql);
}

/** Prepares what `workloads` need on `server`, for up to `clients` clients, pgbench scale `scale`. */
export async function prepare(
  server: BenchServer,
  workloads: readonly Workload[],
  clients: number,
  scale: number,
): Promise<void> {
  const needs = new Set(workloads.flatMap((w) => w.needs));
  await withClient(server, async (c) => {
    if (needs.has('fixtures')) await runAll(c, fixtureSql(clients));
    if (needs.has('template')) await c.query('CREATE DATABASE bench_template');
    if (needs.has('jit-tables')) await runAll(c, JIT_SQL);
  });
  if (needs.has('template')) await withClient(server, (c) => runAll(c, templateSql()), 'bench_template');
  if (needs.has('pgbench-tables')) await pgbenchInit(server.conn, scale);
}

/** Servers prepared at once by prepareAll: loading fixtures is CPU work on the server, and this machine class has 2 cores. */
const PREPARE_AT_ONCE = 2;

/**
 * prepare() on every server, PREPARE_AT_ONCE at a time (off the clock: nothing is measured while
 * servers are prepared).
 * @throws the first error met; the servers still being prepared finish first
 */
export async function prepareAll(
  servers: readonly BenchServer[],
  workloads: readonly Workload[],
  clients: number,
  scale: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < servers.length) await prepare(servers[next++] as BenchServer, workloads, clients, scale);
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(PREPARE_AT_ONCE, servers.length) }, worker));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Puts a server back where a workload run starts: what an interrupted run may have left
 * (a per-client table or database, fixture rows) is removed, then a CHECKPOINT, so no run pays
 * for the writes of the one before.
 */
export async function reset(server: BenchServer, workload: Workload, clients: number): Promise<void> {
  await withClient(server, async (c) => {
    for (let i = 0; i < clients; i++) {
      if (workload.key === WORKLOADS.createDropTable.key) await c.query(`DROP TABLE IF EXISTS tmp_${i}`);
      if (workload.needs.includes('template')) await c.query(`DROP DATABASE IF EXISTS bench_db_${i}`);
      if (workload.needs.includes('fixtures')) await c.query(`TRUNCATE fx_orders_${i}, fx_users_${i} RESTART IDENTITY`);
    }
    await c.query('CHECKPOINT');
  });
}

/** Resets the server, then runs the workload with pgbench over TCP. */
export async function runWorkload(
  server: BenchServer,
  workload: Workload,
  clients: number,
  length: Length,
): Promise<PgbenchResult> {
  await reset(server, workload, clients);
  return pgbench(server.conn, workload.script, clients, length);
}

/** The server's major version (server_version_num / 10000). */
export async function serverMajor(server: BenchServer): Promise<number> {
  return withClient(server, async (c) => {
    const r = await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    return Math.floor(Number(r.rows[0]?.v ?? 0) / 10000);
  });
}

/** Section 2's first row: one commit's latency (bench/lib/disk-model.ts commitLatencyMs), on every server. */
export const COMMIT_ROW = 'One commit: INSERT in autocommit (ms, median of 20, lower is better), 1 client';
