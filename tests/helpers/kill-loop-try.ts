/**
 * One try of the kill loop (tests/helpers/kill-loop.ts): a scenario's start (CLI `up`, `up
 * --no-wait`, the action's main step and its wait step), a signal at the drawn moment, the
 * cleanup a user would do (`down`, `up` again, the post step), and what it left (snapshot diff).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEEP_FLAG } from '../../src/native/source/npm/keep.js';
import { ENGINE29_HOST, liveProcesses, NATIVE_MAJOR, TEST_IMAGES } from './infra.js';
import { describeLeft, scrub, snapshot } from './kill-loop-leftovers.js';
import { INIT_COMMAND, KL, type LoopContext, type Scenario, type TryPlan } from './kill-loop-plan.js';
import {
  awaitGone,
  baseEnv,
  CLI,
  MAIN,
  POST,
  running,
  runToEnd,
  sendSignal,
  start,
  WAIT,
  type Running,
} from './kill-loop-processes.js';
import { jobFiles } from './runner-env.js';

const IMAGE = TEST_IMAGES[18];

/** The PostgreSQL version of the npm scenarios: a build of another major than the installed one. */
const NPM_VERSION = '17';

/** What a try did and what it left. */
export interface TryResult {
  plan: TryPlan;
  /** ms after the start's spawn the signal went; null when the start had ended first. */
  killedAtMs: number | null;
  /** The last lines of output before the kill (the phase it landed in). */
  phase: string;
  /** What the cleanup left, and cleanup steps that failed. */
  leaks: string[];
}

/** The post step's output of the latest action try ('' for a CLI try), shown with what it left. */
let lastPostOutput = '';

/** The schema cache's inputs of a scenario (its store in the scenario's cache folder), or none. */
function schemaInputs(s: Scenario, ctx: LoopContext, cache: string, n: number): Record<string, string> {
  if (!s.schema) return {};
  return {
    'schema-cache': 'true',
    'schema-cache-files': ctx.initFile,
    'schema-cache-key': s.schema === 'hit' ? 'kl-hit' : `kl-miss-${n}`,
    'cache-dir': cache || join(ctx.work, 'cache-schema'),
  };
}

/** `up` flags (CLI) for a scenario. */
function cliArgs(s: Scenario, ctx: LoopContext, cache: string, n: number): string[] {
  const mode =
    s.mode === 'docker'
      ? ['--image', IMAGE]
      : s.binaries === 'npm'
        ? ['--binaries', 'npm', '--postgres-version', NPM_VERSION, '--cache-dir', cache]
        : ['--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', cache];
  const init = s.init ? ['--init', ctx.initFile, '--init-command', INIT_COMMAND] : [];
  const pool = s.pool ? ['--database', 'app', '--template', '--pool', String(s.pool)] : [];
  const schema = Object.entries(schemaInputs(s, ctx, cache, n)).flatMap(([input, value]) =>
    input === 'schema-cache' ? ['--schema-cache'] : input === 'cache-dir' && s.mode === 'native' ? [] : [`--${input}`, value],
  );
  return [...mode, ...init, ...pool, ...schema];
}

/** Action inputs for a scenario. */
function actionInputs(s: Scenario, ctx: LoopContext, cache: string, n: number): Record<string, string> {
  return {
    ...(s.mode === 'docker'
      ? { image: IMAGE }
      : s.binaries === 'npm'
        ? { binaries: 'npm', 'postgres-version': NPM_VERSION, 'cache-dir': cache }
        : { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': cache }),
    ...(s.init ? { init: ctx.initFile, 'init-command': INIT_COMMAND } : {}),
    ...(s.pool ? { database: 'app', template: 'true', pool: String(s.pool) } : {}),
    ...schemaInputs(s, ctx, cache, n),
    ...(s.kind === 'action-wait' ? { wait: 'false' } : {}),
    'container-name': `pg-tmpfs-${KL}-${n}`,
    port: '0',
  };
}

/**
 * The environment a try adds: for an npm scenario, the loop's registry, a fresh npm cache (else
 * npm would not fetch again) and, for the action, a fresh tool cache; for a Docker 29 scenario,
 * DOCKER_HOST; {} for other scenarios.
 * @throws Error when the loop has no registry (LoopContext.npmEnv)
 */
function tryEnv(s: Scenario, ctx: LoopContext, n: number): Record<string, string> {
  if (s.engine === 'docker29') return { DOCKER_HOST: ENGINE29_HOST };
  if (s.binaries !== 'npm') return {};
  if (!ctx.npmEnv) throw new Error(`scenario "${s.id}" needs npmEnv (a registry) in the loop's context`);
  return {
    ...ctx.npmEnv,
    npm_config_cache: join(ctx.work, `npm-cache-${n}`),
    RUNNER_TOOL_CACHE: join(ctx.work, `toolcache-${n}`),
  };
}

/** The phase of a try whose signal went to the keep of its build taken into RAM. */
export const KEEP_PHASE = 'the keep of the build taken into RAM';

/** A process a try may signal. */
interface Victim {
  pid: number;
  done: () => boolean;
  output: () => string;
}

/**
 * The keep of a try's build taken into RAM (src/native/source/npm/keep.ts), for a scenario with `keep`:
 * found by its flag and the try's own npm cache in its environment. `victim` is null when none
 * runs (or the scenario has none); `ended` waits (up to 90 s) until none runs.
 */
function keepOf(s: Scenario, ctx: LoopContext, n: number): { victim: () => Victim | null; ended: () => Promise<void> } {
  const mark = `npm_config_cache=${join(ctx.work, `npm-cache-${n}`)}`;
  const find = () =>
    s.keep
      ? liveProcesses(
          (argv, pid) => argv.includes(KEEP_FLAG) && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(mark),
        )
      : [];
  return {
    victim: () => {
      const pid = find()[0]?.pid;
      return pid ? { pid, done: () => !running(pid), output: () => KEEP_PHASE } : null;
    },
    ended: async () => {
      const deadline = Date.now() + 90_000;
      while (find().length > 0 && Date.now() < deadline) await sleep(20);
    },
  };
}

/**
 * Runs one try (or, with `plan` null, the scenario unkilled: calibration).
 * @param scenarioMs the scenario's calibrated start time, ms (the kill goes at plan.at × this)
 * @returns what was left (leaks), when the signal went, and the start's time (for calibration)
 */
export async function runTry(
  ctx: LoopContext,
  scenario: Scenario,
  n: number,
  plan: TryPlan | null,
  scenarioMs: number,
): Promise<TryResult & { startMs: number }> {
  lastPostOutput = '';
  const before = snapshot(ctx.work);
  const cache = scenario.mode === 'native' ? (scenario.cold ? join(ctx.work, `cache-${n}`) : ctx.warmCache) : '';
  const problems: string[] = [];
  let killedAtMs: number | null = null;
  let phase = '';
  let startMs = 0;
  const t0 = performance.now();
  const delay = plan ? plan.at * scenarioMs : Infinity;
  const keep = keepOf(scenario, ctx, n);
  /**
   * Sends the signal to whichever process `pick` names at the drawn moment (if the start still
   * runs); in a scenario with its keep, to the keep once the start's own process is done.
   */
  const armKill = (pick: () => Victim | null): Promise<void> =>
    plan && Number.isFinite(delay)
      ? (async () => {
          await sleep(delay);
          const first = pick();
          const victim = first && !first.done() ? first : (keep.victim() ?? first);
          if (!victim) phase = 'not sent: no process to signal yet';
          if (!victim || victim.done()) return;
          killedAtMs = Math.round(performance.now() - t0);
          phase = victim.output().trimEnd().split('\n').slice(-2).join(' | ').slice(0, 200);
          await sendSignal(victim.pid, plan.signal, victim.done);
        })()
      : Promise.resolve();

  const extraEnv = tryEnv(scenario, ctx, n);
  if (scenario.kind === 'cli' || scenario.kind === 'cli-bg') {
    const state = join(ctx.work, `state-${n}`);
    const env = { ...baseEnv(), ...extraEnv, PG_TMPFS_STATE_DIR: state };
    const name = `${KL}${n}`;
    const upArgs = [
      'up',
      ...cliArgs(scenario, ctx, cache, n),
      '--name',
      name,
      '--json',
      ...(scenario.kind === 'cli-bg' ? ['--no-wait'] : []),
    ];
    const up = start(CLI, upArgs, env);
    const record = (): { ownerPid?: number; state?: string } => {
      try {
        return JSON.parse(readFileSync(join(state, `${name}.json`), 'utf8')) as { ownerPid?: number; state?: string };
      } catch {
        return {};
      }
    };
    const ownerPid = () => record().ownerPid ?? 0;
    const bgLog = () => {
      try {
        return readFileSync(join(state, `${name}.log`), 'utf8');
      } catch {
        return '';
      }
    };
    const killing = armKill(() => {
      if (scenario.kind === 'cli' || !up.isDone()) return { pid: up.pid, done: up.isDone, output: up.output };
      const pid = ownerPid();
      return pid > 0 && pid !== up.pid ? { pid, done: () => !running(pid), output: bgLog } : null;
    });
    const code = await up.exited;
    if (scenario.kind === 'cli-bg') {
      // The background start ends when the server is ready (it records `running`) or it fails.
      const bg = ownerPid();
      const deadline = Date.now() + 120_000;
      while (bg > 0 && bg !== up.pid && running(bg) && Date.now() < deadline) {
        if (!plan && record().state === 'running') break;
        await sleep(5);
      }
    }
    if (!plan) await keep.ended();
    startMs = performance.now() - t0;
    await killing;
    await awaitGone(up.pid, 30_000);
    if (scenario.kind === 'cli-bg') await awaitGone(ownerPid(), 30_000);
    if (!plan && code !== 0) problems.push(`calibration: up exited ${code}: ${up.output().slice(-400)}`);
    // `up` of the same name cleans up what a killed start left; a start that finished first (or was
    // killed after its record said running) leaves a running server, which `up` rightly refuses.
    if (plan?.upAgain && killedAtMs !== null && record().state !== 'running') {
      const again = await runToEnd(
        CLI,
        upArgs.filter((a) => a !== '--no-wait'),
        env,
      );
      if (again.code !== 0) problems.push(`up again exited ${again.code}: ${again.output.slice(-400)}`);
    }
    const down = await runToEnd(CLI, ['down', '--name', name], env);
    if (down.code !== 0) problems.push(`down exited ${down.code}: ${down.output.slice(-400)}`);
    if (existsSync(state)) problems.push(...readdirSync(state).map((f) => `state file ${join(state, f)}`));
    rmSync(state, { recursive: true, force: true });
  } else {
    const jobDir = join(ctx.work, `job-${n}`);
    const job = jobFiles(jobDir, actionInputs(scenario, ctx, cache, n));
    Object.assign(job.env, extraEnv);
    const main = start(MAIN, [], job.env);
    let waitStep: Running | null = null;
    let mainSignalled = false;
    const background = () => {
      try {
        return (JSON.parse(job.state().background ?? '{}') as { pid?: number }).pid ?? 0;
      } catch {
        return 0;
      }
    };
    const killing = armKill(() => {
      if (plan?.target === 'background') {
        const pid = background();
        return pid > 0 ? { pid, done: () => !running(pid), output: () => '' } : null;
      }
      if (!main.isDone()) {
        mainSignalled = true;
        return { pid: main.pid, done: main.isDone, output: main.output };
      }
      return waitStep ? { pid: waitStep.pid, done: waitStep.isDone, output: waitStep.output } : null;
    });
    const mainCode = await main.exited;
    // A cancelled or killed main step: the runner runs no later step of the job, only the post step.
    if (scenario.kind === 'action-wait' && !mainSignalled) {
      waitStep = start(WAIT, [], { ...job.env, ...job.exported() });
      const waitCode = await waitStep.exited;
      if (!plan && waitCode !== 0) problems.push(`calibration: wait step exited ${waitCode}: ${waitStep.output().slice(-400)}`);
    }
    if (!plan) await keep.ended();
    startMs = performance.now() - t0;
    if (!plan && mainCode !== 0) problems.push(`calibration: main step exited ${mainCode}: ${main.output().slice(-400)}`);
    await killing;
    await awaitGone(main.pid, 30_000);
    if (waitStep) await awaitGone(waitStep.pid, 30_000);
    const saved = job.state();
    const post = await runToEnd(POST, [], {
      ...job.env,
      ...job.exported(),
      STATE_server: saved.server ?? '',
      STATE_background: saved.background ?? '',
    });
    // A background start killed before it gave a server, with no wait step to say so, fails the
    // job in the post step (#26): expected after a kill, not a leak.
    const unread =
      /::error::The background start of PostgreSQL \(wait: false\) did not give the job its database, and no wait step read it/;
    if (post.code !== 0 && !(post.code === 1 && killedAtMs !== null && unread.test(post.output))) {
      problems.push(`post step exited ${post.code}: ${post.output.slice(-400)}`);
    }
    lastPostOutput = post.output;
    problems.push(...readdirSync(job.runnerTemp).map((f) => `state file ${join(job.runnerTemp, f)}`));
    rmSync(jobDir, { recursive: true, force: true });
  }
  const found = [...snapshot(ctx.work)].filter((x) => !before.has(x));
  // What each left process was doing (state, parent, folder), and whether it was gone 1 s later:
  // a leak to find, never to rerun.
  const added = await Promise.all(found.map(describeLeft));
  if (added.length && lastPostOutput) added.push(`(the post step said: ${lastPostOutput.slice(-600)})`);
  if (added.length) await scrub(added);
  if (scenario.cold) rmSync(cache, { recursive: true, force: true });
  for (const name of ['npm-cache', 'toolcache']) rmSync(join(ctx.work, `${name}-${n}`), { recursive: true, force: true });
  return {
    plan: plan ?? { n, scenario, signal: 'SIGKILL', target: 'up', at: Infinity, upAgain: false },
    killedAtMs,
    phase,
    leaks: [...problems, ...added],
    startMs,
  };
}
