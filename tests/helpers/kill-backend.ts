/**
 * A server process of a pool's server killed at a random moment (issue #43): `up --template
 * --pool 2` in native mode, a client that takes copies, writes in each and gives each back in a
 * loop, and a SIGKILL at a moment drawn from the seed to one of the server's client backends
 * (the postmaster then ends every session and restarts, emptying the pool's UNLOGGED
 * bookkeeping). The client reconnects, and its takes must work again: the keeper reconnects and
 * rebuilds (src/pool/keeper.ts). Then `down` must leave nothing. Draws come from mulberry32, so a
 * try replays.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { NATIVE_MAJOR } from './infra.js';
import { cli } from './kill-keeper.js';
import { snapshot } from './kill-loop-leftovers.js';
import { prng, type LoopContext } from './kill-loop-plan.js';

/** Copies the client must take, use and give back after the crash. */
const ROUNDS_AFTER = 10;

/** What a backend-kill try did and left. */
export interface BackendKillResult {
  /** ms after the client's first take the SIGKILL went (-1: not sent). */
  killedAtMs: number;
  /** Rounds the client finished before and after the crash. */
  roundsBefore: number;
  roundsAfter: number;
  /** What `down` left, and steps that failed. */
  leaks: string[];
}

/** One round: take a copy, check and write in it, give it back; each on sessions of its own. */
async function round(connection: pg.ClientConfig): Promise<void> {
  const open = async (database: string): Promise<pg.Client> => {
    const c = new pg.Client({ ...connection, database, connectionTimeoutMillis: 10_000 });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  const maintenance = await open('postgres');
  try {
    const copy = (await maintenance.query<{ c: string }>('SELECT pgtmpfs.take(30000) AS c')).rows[0]?.c ?? '';
    const c = await open(copy);
    try {
      const rows = (await c.query<{ n: string }>('SELECT count(*) AS n FROM kl_items')).rows[0]?.n;
      if (rows !== '20000') throw new Error(`copy ${copy} holds ${rows} rows of kl_items, not the template's 20000`);
      await c.query('INSERT INTO kl_items VALUES (0, $1)', [copy]);
    } finally {
      await c.end().catch(() => undefined);
    }
    await maintenance.query('SELECT pgtmpfs.give_back($1)', [copy]);
  } finally {
    await maintenance.end().catch(() => undefined);
  }
}

/**
 * One try: start with a pool, run rounds while a backend is killed, rounds after it, down, compare.
 * @param n the try's number (its draws, its name `klbackend<n>`)
 */
export async function backendKillTry(ctx: LoopContext, seed: number, n: number): Promise<BackendKillResult> {
  const rand = prng((seed * 1000033 + n + 104729) >>> 0);
  const before = snapshot(ctx.work);
  const name = `klbackend${n}`;
  const env = { ...process.env, PG_TMPFS_STATE_DIR: join(ctx.work, `state-backend-${n}`) };
  const leaks: string[] = [];
  let killedAtMs = -1;
  let roundsBefore = 0;
  let roundsAfter = 0;
  try {
    const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--database', 'app', '--init', ctx.initFile];
    const up = cli([...args, '--template', '--pool', '2', '--name', name, '--json'], env);
    if (up.code !== 0) throw new Error(`up exited ${up.code}: ${up.out.slice(-600)}`);
    const started = JSON.parse(up.stdout) as { host: string; port: number; user: string; password: string };
    const connection = { host: started.host, port: started.port, user: started.user, password: started.password };
    const t0 = performance.now();
    const killAfter = rand() * 1500;
    let crashed = false;
    const killing = (async () => {
      await sleep(killAfter);
      // Any client backend of the server: the client's own sessions, or the keeper's.
      const watcher = new pg.Client({ ...connection, database: 'postgres', connectionTimeoutMillis: 10_000 });
      watcher.on('error', () => undefined);
      await watcher.connect();
      const pids = (
        await watcher.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
        )
      ).rows.map((r) => r.pid);
      const victim =
        pids[Math.floor(rand() * pids.length)] ?? Number((await watcher.query('SELECT pg_backend_pid() AS p')).rows[0]?.p);
      process.kill(victim, 'SIGKILL');
      killedAtMs = Math.round(performance.now() - t0);
      crashed = true;
      await watcher.end().catch(() => undefined);
    })();
    // Rounds until the crash (a round the crash breaks is not counted), then ROUNDS_AFTER that must
    // all work, each tried again while the server is still restarting (at most 60 s in all).
    const deadline = Date.now() + 60_000;
    while (roundsAfter < ROUNDS_AFTER) {
      if (Date.now() > deadline) throw new Error(`only ${roundsAfter} rounds after the crash within 60 s`);
      const wasCrashed = crashed;
      try {
        await round(connection);
        if (wasCrashed) roundsAfter++;
        else roundsBefore++;
      } catch (error) {
        if (!crashed) throw new Error(`a round failed before the backend was killed: ${(error as Error).message}`);
        await sleep(100);
      }
    }
    await killing;
  } catch (error) {
    leaks.push(`try failed: ${(error as Error).message}`);
  }
  const down = cli(['down', '--name', name], env);
  if (down.code !== 0) leaks.push(`down exited ${down.code}: ${down.out.slice(-400)}`);
  leaks.push(...[...snapshot(ctx.work)].filter((x) => !before.has(x)));
  return { killedAtMs, roundsBefore, roundsAfter, leaks };
}
