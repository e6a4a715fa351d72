/**
 * Kills at random moments (issue #21), native mode (kill-loop-docker.test.ts has Docker mode, and
 * runs in the other lane at the same time): four seeded tries per native scenario of
 * tests/helpers/kill-loop.ts (CLI up and up --no-wait, the action's main and wait steps; cold and
 * warm, a server build from npm fetched every try from a registry of the test's own; init files
 * and an init command; SIGKILL, SIGTERM, SIGINT and the runner's cancel), each followed by `down`
 * (or `up` again, then `down`) or the post step, and nothing may be left; and a backend of a pool's
 * server (a crash restart) killed while a client takes copies. It runs in the isolated lane
 * (vitest.config.ts), so it starts no Docker-mode server: the pool's keeper killed (a Docker-mode
 * pool) is in kill-loop-docker.test.ts. The seed is
 * printed; replay a failure with
 * `PG_TMPFS_KILL_SEED=S PG_TMPFS_KILL_FIRST=N PG_TMPFS_KILL_TRIES=1 npx vitest run tests/e2e/kill-loop-native.test.ts`,
 * or soak longer with `npm run soak:kills -- --tries 500`. It counts only what the loop's own
 * starts could leave (see snapshot): the native lane's files run one at a time.
 */
import { expect, it } from 'vitest';
import { backendKillTry } from '../helpers/kill-backend.js';
import { killLoopFile } from '../helpers/kill-loop-file.js';

const loop = killLoopFile('native');
const seed = loop.seed;

/** PG_TMPFS_BACKEND_TRIES: tries of the backend kill (default 3). */
const backendTries = Number(process.env.PG_TMPFS_BACKEND_TRIES ?? 3);

// Each try: up with a pool (~3 s), the rounds, the crash restart (~1 s), down; 90 s each bounds it.
it(
  `a server process of a pool's server killed at a random moment (${backendTries} tries): the pool works again after the crash restart, down leaves nothing`,
  { timeout: 90_000 * backendTries },
  async () => {
    for (let n = 0; n < backendTries; n++) {
      const r = await backendKillTry(loop.context(), seed, n);
      console.log(
        `backend kill ${n} [seed ${seed}]: SIGKILL at ${r.killedAtMs} ms after ${r.roundsBefore} rounds; ${r.roundsAfter} rounds after; ${r.leaks.length ? `LEFT ${r.leaks.join('; ')}` : 'nothing left'}`,
      );
      expect(r.leaks, `seed ${seed}, backend try ${n}`).toEqual([]);
      expect(r.killedAtMs).toBeGreaterThanOrEqual(0);
      expect(r.roundsAfter).toBe(10);
    }
  },
);
