/**
 * What users run today: a GitHub-style service container (`--health-cmd pg_isready`), timed until
 * Docker says healthy, and when GitHub's runner would notice (sections 1 and 8).
 */
import { performance } from 'node:perf_hooks';
import { CONTAINER_PASSWORD, publishedPort, runContainer } from './containers.js';
import { waitHealthy } from './containers.js';
import type { Context } from './context.js';

/**
 * When GitHub's runner sees a service container healthy: it inspects right after starting it,
 * then after waits of 2, 4, 8, 16, 32, 32 ... s (actions/runner, ContainerOperationProvider
 * ContainerHealthcheck: BackoffTimerHelper.GetExponentialBackoff(retry, min 2 s, max 32 s,
 * delta 2 s), ±20 % jitter on the growing part, left out here).
 * @param healthySeconds when the container turned healthy, counted from the runner's first look
 * @returns the runner's first look at or after that moment, in seconds
 */
export function runnerNoticeSeconds(healthySeconds: number): number {
  let t = 0;
  for (let retry = 0; retry < 64; retry++) {
    if (t >= healthySeconds) return t;
    t += runnerBackoffSeconds(retry);
  }
  return t;
}

/**
 * The runner's wait before its health look number `retry + 1` (retry from 0): 2, 4, 8, 16, 32,
 * 32 ... s, without the jitter (runnerNoticeSeconds gives the source).
 */
export function runnerBackoffSeconds(retry: number): number {
  return Math.min(2 + (2 ** Math.min(retry, 16) - 1) * 2, 32);
}

/**
 * The health-check interval a quick run uses instead of a longer one: the same health check,
 * noticed sooner (a quick run's figures mean nothing; that the case runs is what it checks).
 */
export const QUICK_HEALTH_INTERVAL = '1s';

/**
 * The interval to run with: `interval` (e.g. `10s`), or QUICK_HEALTH_INTERVAL in a quick run when
 * that is shorter; `quickNote` says so for the label (` (quick run: every 1s)`, else '').
 */
export function healthInterval(ctx: Context, interval: string): { interval: string; quickNote: string } {
  const seconds = (s: string) => Number(/^(\d+)s$/.exec(s)?.[1] ?? NaN);
  if (!ctx.options.quick || !(seconds(interval) > seconds(QUICK_HEALTH_INTERVAL))) return { interval, quickNote: '' };
  return { interval: QUICK_HEALTH_INTERVAL, quickNote: ` (quick run: every ${QUICK_HEALTH_INTERVAL})` };
}

/** A service container that turned healthy. */
export interface ServiceContainer {
  /** Host port published for 5432/tcp on 127.0.0.1. */
  port: number;
  /** performance.now() just before `docker run`. */
  runAt: number;
  /** performance.now() when `docker run` returned. */
  runReturnedAt: number;
  /** performance.now() of the first health poll that saw it healthy. */
  healthyAt: number;
  /** Removes the container with its anonymous volumes. */
  remove(): Promise<void>;
}

/**
 * `docker run --publish 127.0.0.1::5432 --health-cmd pg_isready OPTIONS... IMAGE` with
 * POSTGRES_PASSWORD (CONTAINER_PASSWORD), then its health polled every 100 ms for at most
 * 120 000 ms.
 * @param health more `docker run` options: health options (`--health-interval 10s`), the disk
 *   model's (diskModelDockerArgs)
 * @throws Error from docker run, or when it is not healthy in time; the container is removed first
 */
export async function startServiceContainer(
  ctx: Context,
  name: string,
  image: string,
  health: readonly string[],
): Promise<ServiceContainer> {
  const runAt = performance.now();
  const c = await runContainer(ctx, name, ['--publish', '127.0.0.1::5432', '--health-cmd', 'pg_isready', ...health, image], {
    POSTGRES_PASSWORD: CONTAINER_PASSWORD,
  });
  const runReturnedAt = performance.now();
  try {
    const port = await publishedPort(name);
    const healthyAt = await waitHealthy(name, 120_000, 100);
    return { port, runAt, runReturnedAt, healthyAt, remove: () => c.remove() };
  } catch (error) {
    await c.remove();
    throw error;
  }
}
