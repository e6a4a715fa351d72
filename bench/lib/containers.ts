/**
 * Containers the benchmark runs directly with `docker run` (the floors, the service container,
 * the client-path servers). Each is registered for removal (by name) before it is created.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDockerPort, pgdataFromEnv } from '../../src/docker-args.js';
import { throwIfInterrupted } from './cleanup.js';
import type { Context } from './context.js';
import { run, runOk, tail } from './proc.js';

/** Password of the benchmark's containers (POSTGRES_PASSWORD, passed by name, not in argv). */
export const CONTAINER_PASSWORD = 'bench';

/** A container this run started. */
export interface BenchContainer {
  name: string;
  id: string;
  /** Removes it with its anonymous volumes (`docker rm --force --volumes`). */
  remove(): Promise<void>;
}

/** Runs `docker ARGS` with a time limit; throws on failure. */
export async function dockerOk(args: readonly string[], timeoutMs = 60_000, env?: Record<string, string>): Promise<string> {
  return (await runOk('docker', args, { timeoutMs, env })).stdout;
}

/** Removes a container by name or id, with its anonymous volumes; ignores "no such container". */
export async function removeByName(name: string): Promise<void> {
  const r = await run('docker', ['rm', '--force', '--volumes', name], { timeoutMs: 60_000 });
  if (r.code !== 0 && !/No such container/i.test(r.stderr)) throw new Error(`docker rm ${name}: ${tail(r.stderr)}`);
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
      await dockerOk(['run', '--detach', '--name', name, ...Object.keys(env).flatMap((k) => ['--env', k]), ...args], 120_000, env)
    ).trim();
    ctx.containerIds.push(id);
    return { name, id, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The host port published for the container's 5432/tcp. */
export async function publishedPort(container: string): Promise<number> {
  return parseDockerPort(await dockerOk(['port', container, '5432/tcp']));
}

/** The image's PGDATA (from its environment). */
export async function imagePgdata(image: string): Promise<string> {
  const r = await run('docker', ['image', 'inspect', '--format', '{{json .Config.Env}}', image], { timeoutMs: 30_000 });
  if (r.code !== 0) {
    throw new Error(
      `image ${image} is not present (${tail(r.stderr)}); build the local test images: bash scripts/setup-test-infra.sh`,
    );
  }
  const pgdata = pgdataFromEnv(JSON.parse(r.stdout.trim() || '[]') as string[]);
  if (!pgdata) throw new Error(`image ${image} does not set PGDATA`);
  return pgdata;
}

/** `.State.Health.Status` of a container ('' when it has no health check). */
export async function healthStatus(container: string): Promise<string> {
  const r = await run('docker', ['inspect', '--format', '{{if .State.Health}}{{.State.Health.Status}}{{end}}', container], {
    timeoutMs: 30_000,
  });
  return r.code === 0 ? r.stdout.trim() : `inspect failed: ${tail(r.stderr)}`;
}

/** Whether the container is running. */
export async function running(container: string): Promise<boolean> {
  const r = await run('docker', ['inspect', '--format', '{{.State.Running}}', container], { timeoutMs: 30_000 });
  return r.code === 0 && r.stdout.trim() === 'true';
}

/**
 * Polls the health status every `everyMs` until it is `healthy`.
 * @returns when it turned healthy (performance.now() of the first poll that saw it)
 * @throws Error when it turns unhealthy, stops running, or `timeoutMs` passes
 */
export async function waitHealthy(container: string, timeoutMs: number, everyMs = 100): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    throwIfInterrupted();
    const status = await healthStatus(container);
    if (status === 'healthy') return performance.now();
    if (status === 'unhealthy' || status.startsWith('inspect failed')) throw new Error(`container ${container} is ${status}`);
    if (Date.now() > deadline) throw new Error(`container ${container} not healthy within ${timeoutMs} ms (status ${status})`);
    await sleep(everyMs);
  }
}
