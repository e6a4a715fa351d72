/**
 * The random kill loop (issue #21): starts PostgreSQL the ways users do (CLI `up` in the
 * foreground and with `--no-wait`, the action's main step with and without `wait: false` and its
 * wait step), in both modes, with a cold or warm initdb cache and with init files and an init
 * command, sends a signal at a random moment of the start, cleans up as a user would (`down`, the
 * next `up` of the name, the post step), and compares what is left with what was there before:
 * System V segments, /dev/shm/PostgreSQL.*, run and staging folders and tmpfs mounts, initdb cache
 * temporaries, labelled containers and volumes, postgres, initdb, docker-run, background and
 * init-command processes, and state files.
 *
 * Every draw comes from the seed and the try's number (mulberry32), so one try replays alone:
 * `--seed S --first N --tries 1` (scripts/soak-kills.ts) or PG_TMPFS_KILL_SEED / _FIRST / _TRIES
 * (tests/e2e/kill-loop-native.test.ts, kill-loop-docker.test.ts). The kill moment is uniform over 0 to 1.15 times the scenario's
 * own start time, measured unkilled once per scenario first (calibration, itself checked for
 * leftovers), so kills land in each phase (initdb, copy, spawn, readiness, verification, init
 * files, init command, background) in proportion to the time it takes.
 *
 * Its parts: kill-loop-plan.ts (the scenarios, the draws, the loop's folders), kill-loop-try.ts
 * (one try), kill-loop-processes.ts (spawning, signals) and kill-loop-leftovers.ts (what could be
 * left: snapshot, describeLeft, scrub).
 */
import { join } from 'node:path';
import { NATIVE_MAJOR } from './infra.js';
import { KL, planTry, SCENARIOS, type LoopContext, type Scenario } from './kill-loop-plan.js';
import { baseEnv, CLI, runToEnd } from './kill-loop-processes.js';
import { KEEP_PHASE, runTry, type TryResult } from './kill-loop-try.js';

/** What a loop found. */
export interface LoopReport {
  seed: number;
  results: TryResult[];
  /** Each scenario's calibrated start time, ms. */
  calibration: Record<string, number>;
  /** Tries that left something (or whose cleanup failed), calibration included. */
  leaking: TryResult[];
}

/**
 * Runs the loop: calibrates each scenario (one unkilled start, checked too), then tries
 * `first` to `first + tries - 1` of `seed`.
 * @param log receives one line per try (and the calibration)
 */
export async function killLoop(
  ctx: LoopContext,
  options: { seed: number; tries: number; first?: number; scenarios?: readonly Scenario[]; log?: (line: string) => void },
): Promise<LoopReport> {
  const { seed, tries } = options;
  const first = options.first ?? 0;
  const scenarios = options.scenarios ?? SCENARIOS;
  const log = options.log ?? (() => undefined);
  const calibration: Record<string, number> = {};
  const leaking: TryResult[] = [];
  const results: TryResult[] = [];
  let cal = 0;
  // The warm cache (native starts only: Docker mode has none) is filled before anything is measured.
  if (scenarios.some((s) => s.mode === 'native')) {
    const state = { ...baseEnv(), PG_TMPFS_STATE_DIR: join(ctx.work, 'state-warm') };
    const warm = ['--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', ctx.warmCache, '--name', `${KL}warm`];
    const fill = await runToEnd(CLI, ['up', ...warm], state);
    if (fill.code !== 0) throw new Error(`could not fill the warm initdb cache: ${fill.output}`);
    await runToEnd(CLI, ['down', '--name', `${KL}warm`], state);
  }
  for (const s of scenarios) {
    const r = await runTry(ctx, s, 100_000 + cal++, null, 0);
    calibration[s.id] = Math.round(r.startMs);
    log(`calibration ${s.id}: ${Math.round(r.startMs)} ms${r.leaks.length ? `; LEFT ${r.leaks.join(', ')}` : ''}`);
    if (r.leaks.length) leaking.push(r);
  }
  for (let n = first; n < first + tries; n++) {
    const plan = planTry(seed, n, scenarios);
    const r = await runTry(ctx, plan.scenario, n, plan, calibration[plan.scenario.id] ?? 1000);
    results.push(r);
    const to = r.phase === KEEP_PHASE ? 'the keep' : plan.target;
    const what = `${plan.scenario.id}: ${plan.signal} to ${to}${plan.upAgain ? ' (then up again)' : ''} at ${Math.round(plan.at * 100)}% (${r.killedAtMs !== null ? `${r.killedAtMs} ms` : r.phase || 'ended first'})`;
    log(
      `try ${n} [seed ${seed}]: ${what}: ${r.leaks.length ? `LEFT ${r.leaks.join('; ')} [phase: ${r.phase}]` : 'nothing left'}`,
    );
    if (r.leaks.length) leaking.push(r);
  }
  return { seed, results, calibration, leaking };
}
