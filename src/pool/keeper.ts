/**
 * The pool's keeper (issue #37): a process of its own, started with the server (start.ts), that
 * keeps `size` current copies of the template ready in the maintenance database's bookkeeping
 * (sql.ts), numbers each one for take()'s tickets once its CREATE DATABASE has committed, and
 * drops the copies given back. It holds KEEPER_LOCK_KEY for its whole session, so take() fails at
 * once when it is gone, and it ends when its connection does (the server stopped): it never
 * outlives the server by more than a query's deadline. `down` and the post step end it like any
 * process of the run (RUN_ENV in its environment: orphans.ts endMarkedProcesses).
 *
 * It writes nothing to the job's log once running: its problems go to pgtmpfs.keeper.note, which
 * take() repeats in its error.
 *
 * A server process that ends abnormally (a backend killed with SIGKILL) makes the postmaster end
 * every session and restart, emptying the UNLOGGED bookkeeping (manual: "restart_after_crash",
 * "UNLOGGED"). The keeper then reconnects within RECONNECT_MS and rebuilds it (rebuild): the
 * copies made before the crash are left alone (which were handed out is lost with the tables),
 * and numbering goes on after the last ticket drawn, so no ticket meets an old copy. The reconnect
 * loop is keeper-run.ts's; copies whose taker is gone are given back after reclaim.ts's wait.
 */
import { statfsSync } from 'node:fs';
import type pg from 'pg';
import type { ConnectionInfo } from '../connection.js';
import { cloneStrategy, freshName } from '../databases.js';
import { openClient } from '../readiness.js';
import { Reclaimer } from './reclaim.js';
import { KEEPER_LOCK_KEY, POOL_CHANNEL, POOL_SCHEMA } from './sql.js';
import { RECLAIM, SELECT_STATE, type PoolState } from './state-sql.js';

/** What start.ts hands the keeper on its stdin (JSON). */
export interface KeeperJob {
  /** The server's connection as verified; the keeper uses database `postgres`. */
  connection: ConnectionInfo;
  /** The template database to copy. */
  template: string;
  /** Number of current copies to keep ready (the pool input). */
  size: number;
  /** Whether PGDATA is on tmpfs (picks STRATEGY FILE_COPY: databases.ts cloneStrategy). */
  tmpfs: boolean;
  /** PGDATA, where this process can see it and it is in RAM (native mode, tmpfs): the keeper keeps HEADROOM_BYTES free there. */
  dataDirectory?: string;
  /**
   * PGDATA in native mode, where postmaster.pid tells a crash restart (the postmaster stays) from
   * a stop (it is gone): the keeper ends at once then, rather than trying to reconnect.
   */
  serverDirectory?: string;
  /** How long a taken copy stays unheld before the keeper gives it back, in ms (reclaim.ts reclaimMs). */
  reclaimMs: number;
}

/**
 * Room the keeper leaves free on PGDATA's filesystem beside two copies, in bytes (64 MiB: a few
 * WAL segments and a checkpoint's files). A tmpfs filled to the last byte makes the checkpointer
 * PANIC ("could not write to file … No space left on device") and the server restart.
 */
const HEADROOM_BYTES = 64 * 1048576;

/** Longest pause after a copy failed for lack of room (SQLSTATE 53100), in ms; it doubles from 1 s. */
const FULL_PAUSE_MAX_MS = 30_000;

/** CREATE DATABASEs the keeper runs at once (each on a connection of its own). */
export const MAKERS = 2;

/** The longest the keeper sleeps between looks when nothing wakes it, in ms (a changed template is seen within this). */
const IDLE_LOOK_MS = 100;

/** How long the keeper waits for its lock, in ms. */
const LOCK_WAIT_MS = 5_000;

/** Deadline of each of the keeper's statements, in ms. */
const STATEMENT_TIMEOUT_MS = 60_000;

/** SQLSTATEs after which the keeper's connection is of no more use: the server is going away. */
const FATAL = new Set(['57P01', '57P02', '57P03', '08006', '08003']);

/** SQLSTATE the server ends sessions with when it shuts down (admin_shutdown). */
const ADMIN_SHUTDOWN = '57P01';

/** SQLSTATE of DROP DATABASE refused because a session is connected to the database. */
const IN_USE = '55006';

/**
 * Rebuilds the bookkeeping after a reconnect: the keeper row again when the crash restart emptied
 * it, with `made` at the last ticket drawn (takers draw only for copies numbered after it).
 * @returns the slot the next copy gets
 */
async function rebuild(main: pg.Client, job: KeeperJob): Promise<number> {
  await main.query(
    `INSERT INTO ${POOL_SCHEMA}.keeper (template, size, made, note, rebuilt_at)
     SELECT $1, $2, CASE WHEN is_called THEN last_value ELSE 0 END,
            'the server restarted after a crash; the copies made before it are left until the server stops',
            clock_timestamp()
       FROM ${POOL_SCHEMA}.tickets
     ON CONFLICT (only_row) DO NOTHING`,
    [job.template, job.size],
  );
  return Number((await main.query<{ made: string }>(`SELECT made FROM ${POOL_SCHEMA}.keeper`)).rows[0]?.made ?? 0) + 1;
}

/**
 * Keeps the pool on one set of connections until they end or the process is signalled.
 * Long because the loop's three kinds of work (look, make, drop) share the one state they read.
 * @param first whether this is the keeper's first session (start.ts wrote the bookkeeping); else it is rebuilt
 * @returns `shutdown` when the server said it is shutting down (57P01), else `lost` (a crash restart, a killed backend)
 * @throws connection errors of its first connection, and a lock timeout when another keeper holds the lock
 */
export async function keepPool(job: KeeperJob, first: boolean): Promise<'shutdown' | 'lost'> {
  const target = { ...job.connection, database: 'postgres' };
  const timeouts = { connectTimeoutMs: 10_000, queryTimeoutMs: STATEMENT_TIMEOUT_MS };
  const main = await openClient(target, timeouts).catch((error: unknown) => {
    if (first) throw error;
    return null;
  });
  if (!main) return 'lost';
  let ended = false;
  let wake: () => void = () => undefined;
  // The server said it is shutting down (57P01: pg_ctl stop, `down`, the post step): the keeper
  // ends with it rather than reconnecting; a crash restart says 57P02, or just closes the connection.
  let shutdown = false;
  const finish = (error?: unknown): void => {
    if ((error as { code?: string } | undefined)?.code === ADMIN_SHUTDOWN) shutdown = true;
    ended = true;
    wake();
  };
  main.on('end', finish);
  main.on('error', finish);
  const opened: pg.Client[] = [main];
  const open = async (): Promise<pg.Client> => {
    const client = await openClient(target, timeouts);
    opened.push(client);
    client.on('end', finish);
    // Without a listener an error on an idle connection (its backend terminated) ends the process.
    client.on('error', finish);
    return client;
  };
  let startSlot: number;
  let copyClause: string;
  let makers: pg.Client[];
  let dropper: pg.Client;
  let lastNote: string | null = null;
  try {
    // Waited for, not tried: start.ts (and take()) look at it with a shared lock for a moment.
    // Another keeper holding it makes this one fail after lock_timeout.
    await main.query(`SET lock_timeout = ${LOCK_WAIT_MS}`);
    await main.query(`SELECT pg_advisory_lock(${KEEPER_LOCK_KEY})`);
    startSlot = first ? 1 : await rebuild(main, job);
    // The rebuild's note stands until the first copy is made again.
    if (!first)
      lastNote = (await main.query<{ note: string | null }>(`SELECT note FROM ${POOL_SCHEMA}.keeper`)).rows[0]?.note ?? null;
    await main.query('SET lock_timeout = 0');
    await main.query(`SET application_name = 'pg-tmpfs pool keeper'`);
    await main.query(`LISTEN ${POOL_CHANNEL}`);
    main.on('notification', () => wake());
    const version = Number((await main.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]?.v);
    const strategy = cloneStrategy(version, job.tmpfs);
    copyClause = strategy === 'default' ? '' : ` STRATEGY ${strategy}`;
    makers = await Promise.all(Array.from({ length: MAKERS }, open));
    dropper = await open();
  } catch (error) {
    for (const client of opened) await client.end().catch(() => undefined);
    throw error;
  }
  const idle = [...makers];
  let making = 0;
  let nextSlot = startSlot;
  let inserting: Promise<unknown> = Promise.resolve();
  // Why no copy can be made now, from the template's side (SELECT_STATE's fingerprint is null).
  const templateNotes = {
    busy: `a session is connected to the template ${job.template}, so no copy of it can be made until it ends`,
    gone: `the template ${job.template} no longer exists (dropped or renamed), so no copy of it can be made`,
  };
  const dropping = new Set<string>();
  const reclaimer = new Reclaimer(job.reclaimMs);

  const note = async (text: string | null): Promise<void> => {
    if (text === lastNote) return;
    lastNote = text;
    await main.query(`UPDATE ${POOL_SCHEMA}.keeper SET note = $1`, [text]).catch(() => undefined);
  };
  const fingerprint = async (client: pg.Client): Promise<string | null> =>
    (await client.query<{ f: string | null }>(`SELECT ${POOL_SCHEMA}.fingerprint($1) AS f`, [job.template])).rows[0]?.f ?? null;
  // Never WITH (FORCE): a copy given back while a session is on it is dropped once that session
  // ends (SELECT_STATE leaves it out until then), never under it.
  const drop = async (client: pg.Client, name: string): Promise<void> => {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}`);
  };

  let bytes: string | null = null;
  let fullUntil = 0;
  let fullPause = 1_000;
  /** Whether PGDATA's filesystem has room for two more copies and HEADROOM_BYTES (native mode; else true). */
  const roomFor = async (copyBytes: number): Promise<boolean> => {
    if (!job.dataDirectory) return true;
    let free: number;
    try {
      const s = statfsSync(job.dataDirectory);
      free = s.bavail * s.bsize;
    } catch {
      return true;
    }
    if (free >= 2 * copyBytes + HEADROOM_BYTES) return true;
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
    await note(
      `PGDATA's filesystem has ${mb(free)} free, and the keeper leaves ${mb(HEADROOM_BYTES)} beside two copies of ${mb(copyBytes)}: give back copies, or raise tmpfs-size`,
    );
    return false;
  };
  /**
   * One copy: made, then numbered if the template's fingerprint is still `before` (read by the
   * loop before this began: a session on the template since then changes it, and the copy is
   * dropped).
   */
  const make = async (client: pg.Client, before: string): Promise<void> => {
    const name = freshName(`${job.template}_pool`);
    try {
      await client.query(
        `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(job.template)}${copyClause}`,
      );
    } catch (error) {
      const e = error as { code?: string; message: string };
      // 55006: a session connected to the template between the look and the copy.
      if (e.code !== '55006') throw error;
      return;
    }
    if ((await fingerprint(client)) !== before) {
      await drop(client, name);
      return;
    }
    // Measured on the first copy only: each look walks the copy's files.
    bytes ??= (await client.query<{ b: string }>('SELECT pg_database_size($1) AS b', [name])).rows[0]?.b ?? '0';
    // Numbered one at a time, in the order made: slots stay dense, so every ticket meets its copy.
    const insert = inserting.then(async () => {
      await main.query(
        `WITH made AS (INSERT INTO ${POOL_SCHEMA}.copies (slot, name, fingerprint, bytes) VALUES ($1, $2, $3, $4))
         UPDATE ${POOL_SCHEMA}.keeper SET made = $1`,
        [nextSlot, name, before, bytes],
      );
      nextSlot++;
    });
    inserting = insert.catch(() => undefined);
    await insert;
  };

  const failed = (error: unknown): void => {
    const e = error as { code?: string; message?: string };
    if (e.code && FATAL.has(e.code)) finish(error);
    void note(`${e.message ?? String(error)}${e.code ? ` (SQLSTATE ${e.code})` : ''}`);
  };

  while (!ended) {
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let state: PoolState;
    try {
      state = (await main.query<PoolState>(SELECT_STATE, [job.template])).rows[0] as PoolState;
    } catch (error) {
      failed(error);
      if (ended) break;
      await Promise.race([woken, sleep(IDLE_LOOK_MS)]);
      continue;
    }
    if (state.fingerprint === null) {
      await note(state.templateExists ? templateNotes.busy : templateNotes.gone);
    } else if (lastNote === templateNotes.busy || lastNote === templateNotes.gone) {
      await note(null);
    }
    // Copies whose taker's session ended without giving them back: given back after the wait.
    for (const name of reclaimer.due(state.unheld, Date.now())) {
      await main.query(RECLAIM, [name]).catch(failed);
    }
    // Stale or used copies at the head of the queue are retired (their tickets spent, then dropped).
    if (state.fingerprint !== null && state.headReady === false) {
      await main.query(`SELECT ${POOL_SCHEMA}.retire_stale($1)`, [job.template]).catch(failed);
    }
    // Never more than twice the pool waits untaken.
    let wanted = state.fingerprint === null ? 0 : Math.min(job.size - state.fresh, 2 * job.size - state.untaken) - making;
    if (wanted > 0 && (Date.now() < fullUntil || !(await roomFor(Number(bytes ?? 0))))) wanted = 0;
    while (wanted > 0 && idle.length > 0) {
      const client = idle.pop() as pg.Client;
      making++;
      wanted--;
      void make(client, state.fingerprint as string)
        .then(() => {
          fullPause = 1_000;
          return note(null);
        })
        // A copy that fails is tried again after a pause, not in a tight loop; for lack of room
        // (53100) the pause doubles up to FULL_PAUSE_MAX_MS.
        .catch(async (error: unknown) => {
          failed(error);
          if ((error as { code?: string }).code === '53100') {
            fullUntil = Date.now() + fullPause;
            fullPause = Math.min(fullPause * 2, FULL_PAUSE_MAX_MS);
          }
          await sleep(IDLE_LOOK_MS);
        })
        .finally(() => {
          making--;
          idle.push(client);
          wake();
        });
    }
    for (const name of state.returned) {
      if (dropping.has(name)) continue;
      dropping.add(name);
      void drop(dropper, name)
        .then(() => main.query(`DELETE FROM ${POOL_SCHEMA}.copies WHERE name = $1`, [name]))
        // A session connected between the look and the drop: tried again once it has ended.
        .catch((error: unknown) => ((error as { code?: string }).code === IN_USE ? undefined : failed(error)))
        .finally(() => {
          dropping.delete(name);
          wake();
        });
    }
    await Promise.race([woken, sleep(IDLE_LOOK_MS)]);
  }
  for (const client of opened) await client.end().catch(() => undefined);
  return shutdown ? 'shutdown' : 'lost';
}

/** A timer that never keeps the process alive on its own. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
