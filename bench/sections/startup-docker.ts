/**
 * Section 1's Docker cases: start() in Docker mode, its raw `docker run` floor (the run plan's
 * arguments, a query every 5 ms), and what users do today: a stock container on its default disk
 * volume, a GitHub-style service container at the usual 10 s health interval and at 1 s, and the
 * tuned services block of 2026 (bench/lib/tuned-service.ts).
 */
import { performance } from 'node:perf_hooks';
import type { ImageLayout } from '../../src/docker/run-plan.js';
import { CONTAINER_PASSWORD, publishedPort, runContainer } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { startDockerServer } from '../lib/docker-server.js';
import { tryQuery, untilAnswered } from '../lib/query.js';
import { healthInterval, runnerNoticeSeconds, startServiceContainer } from '../lib/service-container.js';
import { startRegistered, type Variant } from '../lib/timed.js';
import { checkTuned, runWaitStep, startTunedService, TUNED_KEY, TUNED_LABEL, tunedDetails } from '../lib/tuned-service.js';

/** TCP on 127.0.0.1 as postgres with `password`, to database postgres. */
const tcp = (port: number, password: string) => ({
  host: '127.0.0.1',
  port,
  user: 'postgres',
  password,
  database: 'postgres',
});

/**
 * A GitHub-style service container of `image` with `pg_isready` every `interval` (a quick run:
 * healthInterval's shorter one), until healthy; whether a real query right after it succeeds,
 * and when the runner would see it healthy.
 */
function serviceContainer(ctx: Context, image: string, interval: string): Variant {
  const health = healthInterval(ctx, interval);
  return {
    key: `service-${interval}`,
    label: `GitHub-style service container, pg_isready every ${interval}${health.quickNote}: until healthy`,
    async measure(rep) {
      const name = `${ctx.prefix}-service-${interval}-${rep}`;
      const c = await startServiceContainer(ctx, name, image, [
        '--health-interval',
        health.interval,
        '--health-timeout',
        '5s',
        '--health-retries',
        '5',
      ]);
      try {
        const firstQueryError = await tryQuery(tcp(c.port, CONTAINER_PASSWORD));
        return {
          seconds: (c.healthyAt - c.runAt) / 1000,
          details: {
            firstQueryOk: firstQueryError === null,
            firstQueryError,
            runnerSeesHealthyAfterS:
              (c.runReturnedAt - c.runAt) / 1000 + runnerNoticeSeconds((c.healthyAt - c.runReturnedAt) / 1000),
          },
        };
      } finally {
        await c.remove();
      }
    },
  };
}

/**
 * The tuned services block (issue #36): created and started as the runner does, health polled
 * every 100 ms, then the template's wait step (its own process: a real query through the
 * published port); the clock runs from `docker create` until the wait step exits (the job's
 * network is made before it). Details: when the runner would see it healthy, and the wait step's
 * end counted from that look (when a job on GitHub would have its first answer).
 */
function tunedService(ctx: Context, image: string): Variant {
  return {
    key: TUNED_KEY,
    label: `${TUNED_LABEL}: created and started as the runner does, until healthy, then the wait step's query`,
    async measure(rep) {
      const svc = await startTunedService(ctx, `${ctx.prefix}-tuned-${rep}`, image, { health: 'poll' });
      try {
        const waitMs = await runWaitStep(svc);
        const seconds = (performance.now() - svc.createAt) / 1000;
        const { serverVersion } = await checkTuned(svc.conn);
        const runnerSeesHealthyAfterS =
          (svc.startedAt - svc.createAt) / 1000 + runnerNoticeSeconds((svc.healthyAt - svc.startedAt) / 1000);
        return {
          seconds,
          details: {
            ...tunedDetails(svc, serverVersion),
            healthyMs: Math.round(svc.healthyAt - svc.createAt),
            waitStepMs: Math.round(waitMs),
            runnerSeesHealthyAfterS,
            firstQueryAfterRunnerS: runnerSeesHealthyAfterS + waitMs / 1000,
          },
        };
      } finally {
        await svc.remove();
      }
    },
  };
}

/** Section 1's Docker variants, by key: action-docker, floor-docker-run, docker-disk-durable, service-10s, service-1s, service-tuned. */
export function dockerStartupVariants(ctx: Context, image: string, layout: ImageLayout): Variant[] {
  return [
    {
      key: 'action-docker',
      label: 'Action, Docker mode: start() until verified',
      async measure(rep) {
        const { seconds, server: running } = await startRegistered(ctx, {
          mode: 'docker',
          image,
          port: '0',
          'container-name': `${ctx.prefix}-docker-${rep}`,
          'wait-timeout': '120',
        });
        if (!running.tmpfs) throw new Error(`Docker mode data directory on ${running.filesystem}`);
        return { seconds, details: { filesystem: running.filesystem } };
      },
    },
    {
      key: 'floor-docker-run',
      label: 'Floor: the same docker run (image, tmpfs, settings), a query every 5 ms',
      async measure(rep) {
        const server = await startDockerServer(ctx, { name: `${ctx.prefix}-floor-${rep}`, image, layout, pollMs: 5 });
        await server.remove();
        return { seconds: server.seconds, details: { attempts: server.attempts } };
      },
    },
    {
      key: 'docker-disk-durable',
      label: 'Stock container: default disk volume, durable, a query every 5 ms',
      async measure(rep) {
        const name = `${ctx.prefix}-disk-${rep}`;
        const t0 = performance.now();
        const c = await runContainer(ctx, name, ['--publish', '127.0.0.1::5432', image], {
          POSTGRES_PASSWORD: CONTAINER_PASSWORD,
        });
        try {
          const port = await publishedPort(name);
          const attempts = await untilAnswered(tcp(port, CONTAINER_PASSWORD), 120_000, 5);
          return { seconds: (performance.now() - t0) / 1000, details: { attempts } };
        } finally {
          await c.remove();
        }
      },
    },
    serviceContainer(ctx, image, '10s'),
    serviceContainer(ctx, image, '1s'),
    tunedService(ctx, image),
  ];
}
