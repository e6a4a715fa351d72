/**
 * Kills at random moments (issue #21), Docker mode (kill-loop-native.test.ts has native mode, and
 * runs in the other lane at the same time): four seeded tries per Docker scenario of
 * tests/helpers/kill-loop.ts (CLI up and up --no-wait, the action's main and wait steps, on the
 * first engine and on Docker 29; init files and an init command, the schema cache, a pool;
 * SIGKILL, SIGTERM, SIGINT and the runner's cancel), each followed by `down` (or `up` again, then
 * `down`) or the post step, and nothing may be left. The seed is printed; replay a failure with
 * `PG_TMPFS_KILL_SEED=S PG_TMPFS_KILL_FIRST=N PG_TMPFS_KILL_TRIES=1 npx vitest run tests/e2e/kill-loop-docker.test.ts`.
 * Also a Docker-mode pool's keeper killed at a random moment while a client takes copies.
 * It counts only what the loop's own starts could leave (see snapshot): its names (`kd` in the
 * Docker lane), its folder, its containers and dangling volumes.
 */
import { expect, it } from 'vitest';
import { keeperKillTry } from '../helpers/kill-keeper.js';
import { killLoopFile } from '../helpers/kill-loop-file.js';

const loop = killLoopFile('docker');
const seed = loop.seed;

/** PG_TMPFS_KEEPER_TRIES: tries of the keeper kill (default 3). */
const keeperTries = Number(process.env.PG_TMPFS_KEEPER_TRIES ?? 3);

// Each try: up with a pool (~5 s), the takes, down; 60 s each bounds it.
it(
  `the pool's keeper killed at a random moment while a client takes copies (${keeperTries} tries): the next take says so, down leaves nothing`,
  { timeout: 60_000 * keeperTries },
  async () => {
    for (let n = 0; n < keeperTries; n++) {
      const r = await keeperKillTry(loop.context(), seed, n);
      console.log(
        `keeper kill ${n} [seed ${seed}]: SIGKILL at ${r.killedAtMs} ms after ${r.takenBefore} copies; next take: ${r.failure.slice(0, 160)}; ${r.leaks.length ? `LEFT ${r.leaks.join('; ')}` : 'nothing left'}`,
      );
      expect(r.leaks, `seed ${seed}, keeper try ${n}`).toEqual([]);
      expect(r.killedAtMs).toBeGreaterThanOrEqual(0);
      expect(r.failure).toMatch(/^pg-tmpfs pool: the keeper of the pool of app is not running, so no copy is made/);
    }
  },
);
