/**
 * Containers the benchmark runs directly with `docker run` (the floors, the service container,
 * the client-path servers), through the project's Docker wrapper (src/docker/engine.ts). Each is
 * registered for removal (by name) before it is created.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { dockerOk, healthStatus, publishedPort as enginePublishedPort, removeContainer } from '../../src/docker/engine.js';
import { inspectImage } from '../../src/docker/image.js';
import { CONTAINER_PORT, type ImageLayout } from '../../src/docker/run-plan.js';
import { throwIfInterrupted } from './cleanup.js';
import type { Context } from './context.js';

/** Password of the benchmark's containers (POSTGRES_PASSWORD, passed by name, not in argv). */
export const CONTAINER_PASSWORD = 'bench';

/** The local test images, one per real major (tests/images/build.sh). */
export const MAJOR_IMAGES: Record<string, string> = {
  15: 'pg-tmpfs-test/postgres:15',
  17: 'pg-tmpfs-test/postgres:17',
  18: 'pg-tmpfs-test/postgres:18',
};

/** A container this run started. */
export interface BenchContainer {
  name: string;
  id: string;
  /** Removes it with its anonymous volumes (`docker rm --force --volumes`). */
  remove(): Promise<void>;
}

/** Removes a container by name or id, with its anonymous volumes; one already gone counts as removed. */
async function removeByName(name: string): Promise<void> {
  const problem = await removeContainer(name);
  if (problem) throw new Error(`docker rm ${name}: ${problem}`);
}

/**
 * `docker run --detach --name NAME ARGS...` (ARGS: options, then image and its arguments).
 * @param env variables for the docker process, passed to the container with `--env NAME` before ARGS
 */
export async function runContainer(
  ctx: Context,
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<BenchContainer> {
  const remove = ctx.cleanup.add(`container ${name}`, () => removeByName(name));
  try {
    const id = (
      await dockerOk(
        ['run', '--detach', '--name', name, ...Object.keys(env).flatMap((k) => ['--env', k]), ...args],
        'docker run',
        'See the Docker error',
        env,
        120_000,
      )
    ).trim();
    ctx.containerIds.push(id);
    return { name, id, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The host port published for the container's 5432/tcp. */
export function publishedPort(container: string): Promise<number> {
  return enginePublishedPort(container, CONTAINER_PORT);
}

/** Names of the Docker volumes mounted in a container (`docker container inspect`): its anonymous volumes, for the benchmark's containers. */
export async function containerVolumes(container: string): Promise<string[]> {
  const out = await dockerOk(
    ['container', 'inspect', '--format', '{{range .Mounts}}{{if eq .Type "volume"}}{{println .Name}}{{end}}{{end}}', container],
    'docker container inspect',
    'Check that the container exists',
  );
  return out.split('\n').filter(Boolean);
}

/**
 * Checks that volumes are gone (after their container was removed with `--volumes`); removes any
 * that is left.
 * @throws Error naming the volumes that were left
 */
export async function expectVolumesGone(names: readonly string[]): Promise<void> {
  if (!names.length) return;
  const all = new Set((await dockerOk(['volume', 'ls', '--quiet'], 'docker volume ls', '')).split('\n'));
  const left = names.filter((n) => all.has(n));
  if (!left.length) return;
  await dockerOk(['volume', 'rm', '--force', ...left], 'docker volume rm', '');
  throw new Error(`anonymous volume(s) left after docker rm --volumes: ${left.join(', ')}`);
}

/** The image's PGDATA and VOLUMEs (from `docker image inspect`), as buildRunPlan takes them. */
export async function imageLayout(image: string): Promise<ImageLayout> {
  const inspected = await inspectImage(image);
  if (!inspected) {
    throw new Error(`image ${image} is not present; build the local test images: bash scripts/setup-test-infra.sh`);
  }
  if (!inspected.pgdata) throw new Error(`image ${image} does not set PGDATA`);
  return { pgdata: inspected.pgdata, volumes: inspected.volumes };
}

/**
 * Polls the health status every `everyMs` until it is `healthy`.
 * @returns when it turned healthy (performance.now() of the first poll that saw it)
 * @throws Error when it turns unhealthy, cannot be inspected, or `timeoutMs` passes
 */
export async function waitHealthy(container: string, timeoutMs: number, everyMs = 100): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    throwIfInterrupted();
    const status = await healthStatus(container);
    if (status === 'healthy') return performance.now();
    if (status === 'unhealthy') throw new Error(`container ${container} is ${status}`);
    if (Date.now() > deadline) throw new Error(`container ${container} not healthy within ${timeoutMs} ms (status ${status})`);
    await sleep(everyMs);
  }
}
