/**
 * PGlite (PostgreSQL compiled to WASM, @electric-sql/pglite) and pglite-socket, the alternative
 * of issue #36: each instance a Node process of its own (bench/lib/pglite-child.mjs), registered
 * for cleanup the moment it is spawned; section 1's rows (a fresh process to the first answer,
 * in the process and through pglite-socket) and section 10's (the migrations as init, and a
 * start from the state dumpDataDir() saved).
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionInfo } from '../../src/connection.js';
import type { Context } from './context.js';
import { tryQuery } from './query.js';
import type { Variant } from './timed.js';

/** The child script (plain JavaScript, run with this `node`). */
const CHILD = resolve(import.meta.dirname, 'pglite-child.mjs');

/**
 * pglite-socket's connection limit (all connections share PGlite's one session, queued query by
 * query): for pgbench 2, as its first connection stays open while its client connects (with
 * pglite-socket's default, 1: "server closed the connection unexpectedly"); for SQLAlchemy's
 * suite the default, 1, so a test that opens a second connection fails at once (with 10, a test
 * of test_cascade.py that holds a transaction open on one connection while it queries on another
 * waited for good: the suite stood still for 5 minutes at 9 %, both processes idle).
 */
export const PGLITE_MAX_CONNECTIONS = { pgbench: 2, suite: 1 } as const;

/** Versions of PGlite and pglite-socket as installed (their package.json), for every table. */
export interface PgliteVersions {
  pglite: string;
  pgliteSocket: string;
}

/** Reads the installed versions from node_modules/@electric-sql/&ast;/package.json. @throws when not installed */
export function pgliteVersions(): PgliteVersions {
  const version = (name: string) =>
    (
      JSON.parse(
        readFileSync(resolve(import.meta.dirname, '..', '..', 'node_modules', '@electric-sql', name, 'package.json'), 'utf8'),
      ) as { version: string }
    ).version;
  return { pglite: version('pglite'), pgliteSocket: version('pglite-socket') };
}

/** What the child reports on its first stdout line (see pglite-child.mjs). */
export interface ChildReport {
  /** ms from the process's start until the script began (Node's own start). */
  bootMs: number;
  /** ms from the script's start to `SELECT 1` answered in the process, or to the socket listening. */
  inProcessMs: number;
  /** The socket server's port (socket mode). */
  port?: number;
  /** User tables after the start (in-process mode). */
  tables?: number;
}

/** The child's configuration (see pglite-child.mjs). */
export interface ChildConfig {
  loadFrom?: string;
  initDir?: string;
  dumpTo?: string;
  extensions?: boolean;
  socket?: boolean;
  /** The socket server's connection limit (PGLITE_MAX_CONNECTIONS). */
  maxConnections?: number;
}

/** A spawned child. */
export interface PgliteChild {
  report: ChildReport;
  /** ms from spawn until its report line arrived. */
  reportedAfterMs: number;
  /** performance.now() at spawn. */
  spawnedAt: number;
  /** TCP connection to its socket server (socket mode; any user and password are accepted). */
  conn: ConnectionInfo;
  /** Stops it (closes its stdin; SIGKILL after 10 s) and unregisters it. */
  stop(): Promise<void>;
}

/**
 * Spawns `node pglite-child.mjs CONFIG` (cwd: this checkout, so it finds node_modules) and waits
 * for its report line; registered for cleanup before the spawn.
 * @param lifeMs the child's own deadline; the report must come within it
 * @throws Error when the child exits or its deadline passes before it reports
 */
export async function spawnPglite(ctx: Context, config: ChildConfig, lifeMs: number): Promise<PgliteChild> {
  let child: ReturnType<typeof spawn> | null = null;
  let exited: Promise<void> = Promise.resolve();
  const stop = ctx.cleanup.add('PGlite process', async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const giveUp = new AbortController();
    const kill = sleep(10_000, undefined, { signal: giveUp.signal }).then(
      () => child?.kill('SIGKILL'),
      () => undefined,
    );
    await exited;
    giveUp.abort();
    await kill;
  });
  try {
    const spawnedAt = performance.now();
    const c = spawn(process.execPath, [CHILD, JSON.stringify({ maxConnections: 1, ...config, lifeMs })], {
      cwd: resolve(import.meta.dirname, '..', '..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = c;
    exited = new Promise((done) => c.once('close', () => done()));
    let out = '';
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const line = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`PGlite did not report within ${lifeMs} ms: ${err.trim()}`)), lifeMs);
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          done(out.slice(0, nl));
        }
      });
      c.once('close', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`PGlite process exited (${signal ?? code}) before reporting: ${err.trim().slice(-1500)}`));
      });
      c.once('error', (e) => {
        clearTimeout(timer);
        fail(e);
      });
    });
    const reportedAfterMs = performance.now() - spawnedAt;
    const report = JSON.parse(line) as ChildReport;
    const conn = { host: '127.0.0.1', port: report.port ?? 0, user: 'postgres', password: 'pglite', database: 'postgres' };
    return { report, reportedAfterMs, spawnedAt, conn, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Deadline of one fresh start (a cold start takes about 5 s on this 2-core machine). */
const START_MS = 120_000;

/** Details every PGlite case carries: the versions, and the command that repeats it. */
export function pgliteDetails(section: string): Record<string, unknown> {
  return { ...pgliteVersions(), repeat: `npm run bench -- --only ${section}` };
}

/**
 * Section 1's rows: a new Node process that loads PGlite, creates an in-memory database and
 * answers `SELECT 1` (`pglite-fresh`); the same serving it through pglite-socket on 127.0.0.1,
 * the first query answered to node-postgres through it (`pglite-socket-fresh`). Seconds from
 * spawn to the answer; details split off Node's start (bootMs) and the part in the process.
 */
export function pgliteStartupVariants(ctx: Context): Variant[] {
  const fresh: Variant = {
    key: 'pglite-fresh',
    label: 'PGlite in its own Node process: in-memory database, SELECT 1 in the process',
    async measure() {
      const child = await spawnPglite(ctx, {}, START_MS);
      await child.stop();
      const { bootMs, inProcessMs } = child.report;
      return { seconds: child.reportedAfterMs / 1000, details: { bootMs, inProcessMs, ...pgliteDetails('startup') } };
    },
  };
  const socket: Variant = {
    key: 'pglite-socket-fresh',
    label: 'PGlite + pglite-socket in its own Node process: the first query through 127.0.0.1',
    async measure() {
      const child = await spawnPglite(ctx, { socket: true }, START_MS);
      try {
        const error = await tryQuery(child.conn, 10_000);
        if (error) throw new Error(`the first query through pglite-socket failed: ${error}`);
        const answeredMs = performance.now() - child.spawnedAt;
        const { bootMs, inProcessMs } = child.report;
        return {
          seconds: answeredMs / 1000,
          details: { bootMs, inProcessMs, firstQueryMs: answeredMs - child.reportedAfterMs, ...pgliteDetails('startup') },
        };
      } finally {
        await child.stop();
      }
    },
  };
  return [fresh, socket];
}

/**
 * Section 10's rows, against the schema cache's hits: PGlite fresh with the section's migrations
 * (`project`/db/*.sql, each file in one transaction) to the first answer (`pglite-init`); and a
 * start from that state saved by dumpDataDir() (made here, off the clock, and removed with the
 * run's folders), loadDataDir, to the first answer (`pglite-loaded`). Each checks that the
 * migrations' tables are there. The init runs in PGlite's one database, `postgres` (the CLI's
 * rows use `--database app`: PGlite opens only a database that exists, and makes none but its own).
 * @param migrations the number of migration files (each makes one table)
 */
export async function pgliteSchemaCacheVariants(ctx: Context, project: string, migrations: number): Promise<Variant[]> {
  const initDir = join(project, 'db');
  const dump = join(ctx.diskWork, 'pglite-datadir.tar');
  ctx.cleanup.add(`file ${dump}`, () => rmSync(dump, { force: true }));
  ctx.log('schema_cache: saving the PGlite data directory the loaded start restores');
  const saving = await spawnPglite(ctx, { initDir, dumpTo: dump }, 900_000);
  await saving.stop();
  const measure = async (config: ChildConfig) => {
    const child = await spawnPglite(ctx, config, 900_000);
    await child.stop();
    if (child.report.tables !== migrations)
      throw new Error(`PGlite holds ${child.report.tables} tables, the migrations make ${migrations}`);
    const { bootMs, inProcessMs } = child.report;
    return { seconds: child.reportedAfterMs / 1000, details: { bootMs, inProcessMs, ...pgliteDetails('schema_cache') } };
  };
  return [
    {
      key: 'pglite-init',
      label: 'PGlite: fresh in its own Node process, the migrations run, SELECT 1',
      measure: () => measure({ initDir }),
    },
    {
      key: 'pglite-loaded',
      label: 'PGlite: started from the state saved by dumpDataDir() (loadDataDir), SELECT 1',
      measure: () => measure({ loadFrom: dump }),
    },
  ];
}
