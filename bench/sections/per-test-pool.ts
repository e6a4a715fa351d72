/**
 * Section 9's pool case (issue #37): the server's pool of ready template copies, started for one
 * run with src/pool/start.ts startPool, as `pg-tmpfs up --pool N` starts it (the keeper its own
 * process, `node dist/cli.js --pg-tmpfs-keeper`: run `npm run build` first), and stopped after
 * it; one pooled test (take, connect, the test, disconnect, give back); and what the keeper cost
 * over the run: the CPU seconds of its process and of its server backends (/proc/<pid>/stat).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from '../../src/log.js';
import { startPool } from '../../src/pool/start.js';
import type { PoolInfo } from '../../src/server.js';
import { POOL_SCHEMA } from '../../src/pool/sql.js';
import type { Server } from '../../src/server.js';
import type { Command } from '../lib/pg-script.js';
import { runScript } from '../lib/pg-script.js';
import { quantile } from '../lib/results.js';

/** How long the pool has to fill before a run, in ms. */
const FILL_MS = 60_000;

/** How often the run looks at the number of ready copies, in ms. */
const LOOK_MS = 50;

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ on Linux). */
const CLOCK_TICKS = 100;

/**
 * CPU seconds (user + system) of a process from the text of its /proc/<pid>/stat: fields 14 and
 * 15 of proc(5), counted after the parenthesised command name (which may hold spaces).
 * @returns null when the text has no such fields
 */
export function statCpuSeconds(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) && fields.length > 12 ? (utime + stime) / CLOCK_TICKS : null;
}

/** CPU seconds of process `pid` so far, or 0 when it is gone. */
function cpuOf(pid: number): number {
  try {
    return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8')) ?? 0;
  } catch {
    return 0;
  }
}

/** Whether process `pid` runs (exists and is not a zombie). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** p50, p95, p99, mean and max of a list of ms. */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Percentiles of `values` (results.ts quantile), or null when there are none. */
export function percentiles(values: readonly number[]): Percentiles | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return {
    p50: quantile(s, 0.5),
    p95: quantile(s, 0.95),
    p99: quantile(s, 0.99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    max: s[s.length - 1] as number,
  };
}

/** A pool started for one run. */
export interface RunPool {
  info: PoolInfo;
  /** PIDs of the keeper's server backends (its main, maker and dropper connections). */
  backends: number[];
  /** Starts the clock of the keeper's costs and the looks at the ready copies. */
  begin(): Promise<void>;
  /** Stops the looks; what the keeper cost since begin(). */
  end(): Promise<PoolCost>;
  /** Ends the keeper and drops every copy it made. */
  stop(): Promise<void>;
}

/** What the keeper did and cost over a run. */
export interface PoolCost {
  /** CPU seconds of the keeper's process. */
  keeperCpuS: number;
  /** CPU seconds of its server backends. */
  backendsCpuS: number;
  /**
   * CPU seconds of the server's checkpointer: CREATE DATABASE … STRATEGY FILE_COPY asks it for a
   * checkpoint, so in a pool run (where the clients make no databases) most of it is the keeper's.
   */
  checkpointerCpuS: number;
  /** Copies the keeper made during the run (taken + ready at the end − ready at the start). */
  copiesMade: number;
  /** Looks at the ready copies during the run, and how many found none. */
  looks: number;
  emptyLooks: number;
  /** Mean ready copies over the looks. */
  meanReady: number;
}

/** Ready (current, untaken) copies and tickets drawn, in one round trip. */
async function poolCounts(admin: pg.Client): Promise<{ ready: number; taken: number }> {
  const r = await admin.query<{ ready: number; taken: number }>(
    `WITH t AS (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS taken FROM ${POOL_SCHEMA}.tickets)
     SELECT (SELECT count(*)::int FROM ${POOL_SCHEMA}.copies c WHERE c.slot > t.taken AND c.state = 'made') AS ready,
            t.taken::int AS taken FROM t`,
  );
  return r.rows[0] ?? { ready: 0, taken: 0 };
}

/** A logger for startPool that keeps its lines out of the benchmark's output. */
const quietLog: Logger = {
  info: () => undefined,
  warning: () => undefined,
  debug: () => undefined,
  group: (_name, fn) => fn(),
};

/**
 * Starts a pool of `size` copies of `template` on a running server, waits until it is full, and
 * finds the keeper's backends (every client backend but `admin`'s: nothing else is connected).
 * @param admin a client of `postgres` kept for the run (not counted as the keeper's)
 * @param token the server's RUN_ENV token, given to the keeper as `up` gives it
 * @throws Error when the pool is not full within FILL_MS (the keeper is ended then)
 */
export async function startRunPool(
  conn: Server['connection'],
  token: string,
  template: string,
  size: number,
  admin: pg.Client,
): Promise<RunPool> {
  // startPool reads only these fields of the Server record.
  const server = { connection: conn, token, tmpfs: true, provisioned: { templateDatabase: template } } as unknown as Server;
  const info = await startPool(server, size, quietLog);
  let looking = false;
  let lookLoop: Promise<void> = Promise.resolve();
  const stop = async (): Promise<void> => {
    looking = false;
    await lookLoop.catch(() => undefined);
    try {
      process.kill(info.keeperPid, 'SIGTERM');
      for (let i = 0; i < 200 && running(info.keeperPid); i++) await sleep(10);
    } catch {
      // already gone
    }
    const names = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${template}\\_pool%`,
    ]);
    for (const { datname } of names.rows)
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(datname)} WITH (FORCE)`);
  };
  try {
    const deadline = Date.now() + FILL_MS;
    while ((await poolCounts(admin)).ready < size) {
      if (Date.now() > deadline) throw new Error(`the pool of ${size} was not full within ${FILL_MS} ms`);
      await sleep(20);
    }
    // startPool's own connection may still be leaving: wait until only the keeper's 4 remain.
    let backends: number[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      backends = r.rows.map((x) => x.pid);
      if (backends.length <= 4) break;
      await sleep(10);
    }
    let taken0 = 0;
    let ready0 = 0;
    let looks = 0;
    let emptyLooks = 0;
    let readySum = 0;
    const checkpointer = Number(
      (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")).rows[0]?.pid ??
        0,
    );
    const cpuNow = () => ({
      keeper: cpuOf(info.keeperPid),
      backends: backends.reduce((s, p) => s + cpuOf(p), 0),
      checkpointer: checkpointer ? cpuOf(checkpointer) : 0,
    });
    let start = cpuNow();
    return {
      info,
      backends,
      async begin() {
        const first = await poolCounts(admin);
        taken0 = first.taken;
        ready0 = first.ready;
        start = cpuNow();
        looking = true;
        lookLoop = (async () => {
          while (looking) {
            const { ready } = await poolCounts(admin);
            looks += 1;
            readySum += ready;
            if (ready === 0) emptyLooks += 1;
            await sleep(LOOK_MS);
          }
        })();
      },
      async end() {
        const now = cpuNow();
        looking = false;
        await lookLoop;
        const last = await poolCounts(admin);
        return {
          keeperCpuS: now.keeper - start.keeper,
          backendsCpuS: now.backends - start.backends,
          checkpointerCpuS: now.checkpointer - start.checkpointer,
          copiesMade: last.taken - taken0 + last.ready - ready0,
          looks,
          emptyLooks,
          meanReady: looks ? readySum / looks : 0,
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Adds the time since `since` to a part of a test; returns now. */
export type Lap = (part: string, since: number) => number;

/**
 * One pooled test on client `c` (kept, on `postgres`): `SELECT pgtmpfs.take()`, a connection to
 * the copy, the body, disconnect, `SELECT pgtmpfs.give_back($1)`; the take's and the give-back's
 * ms pushed onto `takes` and `givesBack`.
 */
export async function pooledTest(
  c: pg.Client,
  connectTo: (database: string) => Promise<pg.Client>,
  body: readonly Command[],
  lap: Lap,
  takes: number[],
  givesBack: number[],
): Promise<void> {
  let t = performance.now();
  const name = (await c.query<{ name: string }>(`SELECT ${POOL_SCHEMA}.take() AS name`)).rows[0]?.name ?? '';
  const now = lap('take', t);
  takes.push(now - t);
  t = now;
  const test = await connectTo(name);
  t = lap('connect', t);
  try {
    await runScript(test, body);
  } finally {
    t = lap('the test', t);
    await test.end().catch(() => undefined);
    t = lap('disconnect', t);
  }
  await c.query(`SELECT ${POOL_SCHEMA}.give_back($1)`, [name]);
  givesBack.push(lap('give back', t) - t);
}
