/**
 * Kills at random moments (issue #21), Docker mode (kill-loop-native.test.ts has native mode, and
 * runs in the other lane at the same time): four seeded tries per Docker scenario of
 * tests/helpers/kill-loop.ts (CLI up and up --no-wait, the action's main and wait steps, on the
 * first engine and on Docker 29; init files and an init command, the schema cache, a pool;
 * SIGKILL, SIGTERM, SIGINT and the runner's cancel), each followed by `down` (or `up` again, then
 * `down`) or the post step, and nothing may be left. The seed is printed; replay a failure with
 * `PG_TMPFS_KILL_SEED=S PG_TMPFS_KILL_FIRST=N PG_TMPFS_KILL_TRIES=1 npx vitest run tests/e2e/kill-loop-docker.test.ts`.
 * It counts only what the loop's own starts could leave (see snapshot): its names (`kd` in the
 * Docker lane), its folder, its containers and dangling volumes.
 */
import { killLoopFile } from '../helpers/kill-loop-file.js';

killLoopFile('docker');
