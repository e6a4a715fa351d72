/**
 * The pool's keeper killed at a random moment (issue #37): `up --template --pool 2` in Docker
 * mode, a client that takes copies, writes in each and gives each back in a loop, and a SIGKILL
 * to the keeper at a moment drawn from the seed. The client's next take must fail with the
 * pool's own "keeper … is not running" error (take() looks at the keeper's lock on every pass:
 * src/pool/sql.ts), not wait for its deadline and say the pool is empty; then `down` must leave
 * nothing (tests/helpers/kill-loop-leftovers.ts snapshot). Draws come from mulberry32, so a try replays.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { procStat } from '../../src/processes.js';
import { ROOT, TEST_IMAGES } from './infra.js';
import { snapshot } from './kill-loop-leftovers.js';
import { KL, prng, type LoopContext } from './kill-loop-plan.js';

const CLI = join(ROOT, 'dist', 'cli.js');

/** How long each take waits for a copy, ms: far longer than a failing take ever needs. */
const TAKE_TIMEOUT_MS = 30_000;

/** Most takes the client makes after the kill before it must have seen the keeper's error. */
const TAKES_AFTER_KILL = 50;

/** What a keeper-kill try did and left. */
export interface KeeperKillResult {
  /** ms after the client's first take the SIGKILL went. */
  killedAtMs: number;
  /** Copies taken, written in and given back before the kill. */
  takenBefore: number;
  /** The error of the client's first failing take after the kill ('' when none failed). */
  failure: string;
  /** What `down` left, and cleanup steps that failed. */
  leaks: string[];
}

/** Runs `node dist/cli.js args` to its end (deadline 180 s). */
export function cli(args: string[], env: NodeJS.ProcessEnv): { code: number; stdout: string; out: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** One client session on `database` that runs `fn`, closed after. */
async function session<T>(connection: pg.ClientConfig, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...connection, database, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * One try: start with a pool, take copies while the keeper is killed, down, compare.
 * @param n the try's number (its draws, its name `<KL>keeper<n>`: the loop's names)
 */
export async function keeperKillTry(ctx: LoopContext, seed: number, n: number): Promise<KeeperKillResult> {
  const rand = prng((seed * 1000003 + n + 7919) >>> 0);
  const before = snapshot(ctx.work);
  const name = `${KL}keeper${n}`;
  const env = { ...process.env, PG_TMPFS_STATE_DIR: join(ctx.work, `state-keeper-${n}`) };
  const leaks: string[] = [];
  let killedAtMs = -1;
  let takenBefore = 0;
  let failure = '';
  try {
    const up = cli(
      ['up', '--image', TEST_IMAGES[18], '--database', 'app', '--init', ctx.initFile, '--template', '--pool', '2'].concat([
        '--name',
        name,
        '--json',
      ]),
      env,
    );
    if (up.code !== 0) throw new Error(`up exited ${up.code}: ${up.out.slice(-600)}`);
    const started = JSON.parse(up.stdout) as {
      host: string;
      port: number;
      user: string;
      password: string;
      pool: { keeperPid: number };
    };
    const connection = { host: started.host, port: started.port, user: started.user, password: started.password };
    const keeper = started.pool.keeperPid;
    const killAfter = rand() * 1500;
    let sent = false;
    let killed = false;
    const t0 = performance.now();
    const killing = (async () => {
      await sleep(killAfter);
      sent = true;
      process.kill(keeper, 'SIGKILL');
      killedAtMs = Math.round(performance.now() - t0);
      // Killed, then reaped by init (it is detached): gone from /proc or a zombie.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !['Z', 'X'].includes(procStat(keeper)?.state ?? 'X')) await sleep(5);
      killed = true;
    })();
    let after = 0;
    await session(connection, 'postgres', async (maintenance) => {
      while (after < TAKES_AFTER_KILL) {
        if (killed) after++;
        let copy: string;
        try {
          copy = (await maintenance.query<{ c: string }>('SELECT pgtmpfs.take($1) AS c', [TAKE_TIMEOUT_MS])).rows[0]?.c ?? '';
        } catch (error) {
          if (!sent) throw new Error(`a take failed before the keeper was killed: ${(error as Error).message}`);
          await killing;
          failure = (error as Error).message;
          return;
        }
        await session(connection, copy, async (c) => {
          const rows = (await c.query<{ n: string }>('SELECT count(*) AS n FROM kl_items')).rows[0]?.n;
          if (rows !== '20000') throw new Error(`copy ${copy} holds ${rows} rows of kl_items, not the template's 20000`);
          await c.query('INSERT INTO kl_items VALUES (0, $1)', [copy]);
        });
        await maintenance.query('SELECT pgtmpfs.give_back($1)', [copy]);
        if (!killed) takenBefore++;
      }
    });
    await killing;
  } catch (error) {
    leaks.push(`try failed: ${(error as Error).message}`);
  }
  const down = cli(['down', '--name', name], env);
  if (down.code !== 0) leaks.push(`down exited ${down.code}: ${down.out.slice(-400)}`);
  leaks.push(...[...snapshot(ctx.work)].filter((x) => !before.has(x)));
  return { killedAtMs, takenBefore, failure, leaks };
}
