/**
 * The CLI rows of the interrupt tests (tests/e2e/interrupt-cli-*.test.ts): when `up` is signalled
 * and how, per mode. Docker mode's rows run on each engine.
 */
import { ALL, INTERRUPTS, KILLS, dockerArgs, nativeCold, nativeMount, nativeWarm, rows, type CliRow } from './interrupt-cli.js';
import { ANSWERED, CACHE_HIT, CACHE_MISS, DOCKER_RUN } from './interrupt.js';

/** Docker mode's rows, run on each engine. */
export const DOCKER_CLI_ROWS: CliRow[] = [
  // 150 ms: before anything is made; at the `docker run` line, 400 and 800 ms: while `docker run`
  // runs or the container starts; "Answered": during verification.
  ...rows(
    'docker',
    () => dockerArgs,
    [
      { kind: 'ms', ms: 150 },
      { kind: 'line', line: DOCKER_RUN, delay: 0 },
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: ANSWERED, delay: 0 },
    ],
    ALL,
  ),
  ...rows('docker', () => dockerArgs, [{ kind: 'line', line: DOCKER_RUN, delay: 0 }], ['SIGHUP']),
];

/** Native mode's rows (they and DOCKER_CLI_ROWS were one table, CLI_ROWS). */
export const NATIVE_CLI_ROWS: CliRow[] = [
  // 150 ms: before the run folder; postmaster.pid: while waiting for the first query; "Answered":
  // during verification (may finish first). At the cache-hit line (the cluster is being copied,
  // the signal is handled right after postgres is spawned): SIGKILL here, SIGTERM/SIGINT in
  // GAP_ROWS (gap A).
  ...rows(
    'native, warm cache',
    nativeWarm,
    [{ kind: 'ms', ms: 150 }, { kind: 'pidfile' }, { kind: 'line', line: ANSWERED, delay: 0 }],
    ALL,
  ),
  ...rows('native, warm cache', nativeWarm, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], KILLS),
  ...rows('native, warm cache', nativeWarm, [{ kind: 'pidfile' }], ['SIGHUP']),
  // 400 and 800 ms: while initdb runs (or the cache is filled); the cache-miss line: while the
  // cluster is copied: SIGKILL here, SIGTERM/SIGINT in GAP_ROWS (gaps B and A).
  ...rows(
    'native, fresh cache',
    nativeCold,
    [
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: CACHE_MISS, delay: 0 },
    ],
    KILLS,
  ),
  ...rows('native, fresh cache', nativeCold, [{ kind: 'pidfile' }], ALL),
  // A tmpfs mounted for the run (tmpfs-size given): the mount is recorded before it is made.
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'pidfile' }], ['SIGTERM', ...KILLS]),
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], KILLS),
];

/**
 * Interrupts that hit gaps A or B only sometimes (both fixed). Seen failing here:
 * "fresh cache: SIGTERM/SIGINT 400 ms after spawn" (gap B, every time on this machine: a System V
 * segment and two /dev/shm/PostgreSQL.* left); at 800 ms the signal often lands in the
 * synchronous copy into the cache instead and is handled only after it (~0.6-0.9 s later).
 */
export const GAP_ROWS: CliRow[] = [
  ...rows('native, warm cache', nativeWarm, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], INTERRUPTS),
  ...rows(
    'native, fresh cache',
    nativeCold,
    [
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: CACHE_MISS, delay: 0 },
    ],
    INTERRUPTS,
  ),
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], ['SIGTERM']),
];
