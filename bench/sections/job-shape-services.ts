/**
 * Section 8's service-container rows (job-shape.ts runs them with its other job shapes): a job
 * whose PostgreSQL is a `services:` container, which the runner starts before the first step and
 * waits for until its health check says healthy.
 * - `docker-service`: the GitHub-style service container users have written for years
 *   (`pg_isready` every 10 s), its runner's look computed (runnerNoticeSeconds);
 * - `docker-service-tuned`: the tuned services block of 2026 (issue #36,
 *   bench/lib/tuned-service.ts), created and started as the runner does, its health looked at on
 *   the runner's own schedule, then the template's wait step (the job's first step).
 */
import { performance } from 'node:perf_hooks';
import { dockerOk } from '../../src/docker/engine.js';
import type { Context } from '../lib/context.js';
import { quickPresentNote } from '../lib/quick.js';
import { healthInterval, runnerNoticeSeconds, startServiceContainer } from '../lib/service-container.js';
import type { Variant } from '../lib/timed.js';
import { checkTuned, runWaitStep, startTunedService, TUNED_KEY, TUNED_LABEL, tunedDetails } from '../lib/tuned-service.js';

/** One timed job: blocked seconds and its parts. */
export type Timed = () => Promise<{ seconds: number; details: Record<string, unknown> }>;

/** `docker pull --quiet REF` (600 000 ms deadline) when `pulls`; a quick run starts the image on the machine. @returns its seconds */
async function pull(ref: string, pulls: boolean): Promise<number> {
  if (!pulls) return 0;
  const t0 = performance.now();
  await dockerOk(['pull', '--quiet', ref], 'docker pull', 'See the Docker error', undefined, 600_000);
  return (performance.now() - t0) / 1000;
}

/**
 * A GitHub-style service container of `ref` (pulled through `pulled` when `pulls`): the pull, then until the
 * runner would see it healthy at `pg_isready` every 10 s (a quick run: healthInterval's shorter one).
 */
export function serviceVariant(ctx: Context, ref: string, pulls: boolean, pulled: (fn: Timed) => Timed): Variant {
  const health = healthInterval(ctx, '10s');
  return {
    key: 'docker-service',
    label: `GitHub-style service container, image pulled, pg_isready every 10 s${health.quickNote}${quickPresentNote(ctx)}: pull, then until the runner sees it healthy`,
    measure: pulled(async () => {
      const pullS = await pull(ref, pulls);
      const name = `${ctx.prefix}-jobsvc-${Date.now()}`;
      const c = await startServiceContainer(ctx, name, ref, ['--health-interval', health.interval]);
      try {
        const seenS = runnerNoticeSeconds((c.healthyAt - c.runAt) / 1000);
        return {
          seconds: pullS + seenS,
          details: { pullMs: Math.round(pullS * 1000), healthyMs: Math.round(c.healthyAt - c.runAt) },
        };
      } finally {
        await c.remove();
      }
    }),
  };
}

/**
 * The tuned services block with `ref` (pulled through `pulled` when `pulls`): the pull, then from `docker
 * create` until the runner's look sees it healthy (real waits at the runner's back-off), then the
 * template's wait step until its query is answered. The job's network is made off the clock.
 */
export function tunedServiceVariant(ctx: Context, ref: string, pulls: boolean, pulled: (fn: Timed) => Timed): Variant {
  return {
    key: `docker-${TUNED_KEY}`,
    label: `${TUNED_LABEL}, image pulled${quickPresentNote(ctx)}: pull, until the runner sees it healthy, then the wait step`,
    measure: pulled(async () => {
      const pullS = await pull(ref, pulls);
      const svc = await startTunedService(ctx, `${ctx.prefix}-jobtuned-${Date.now()}`, ref, { health: 'runner' });
      try {
        const waitMs = await runWaitStep(svc);
        const seconds = pullS + (performance.now() - svc.createAt) / 1000;
        const { serverVersion } = await checkTuned(svc.conn);
        return {
          seconds,
          details: {
            ...tunedDetails(svc, serverVersion),
            // The image it is a full copy of (the copy's name is the local registry's).
            image: ctx.options.image,
            pulled: ref,
            pullMs: Math.round(pullS * 1000),
            runnerSawHealthyMs: Math.round(svc.healthyAt - svc.createAt),
            healthLooks: svc.looks,
            tunedWaitStepMs: Math.round(waitMs),
          },
        };
      } finally {
        await svc.remove();
      }
    }),
  };
}
