/**
 * Docker mode: PostgreSQL from an image built on the official one, PGDATA on a tmpfs, durability
 * off, ready when a real query is answered through the published port, then verified.
 */
import { performance } from 'node:perf_hooks';
import type { ConnectionInfo } from '../connection.js';
import { SetupError } from '../errors.js';
import { DEFAULTS, type Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { effectiveSettings } from '../profile.js';
import { NotReadyError, waitForQuery } from '../readiness.js';
import { LOG_TAIL_LINES, type DockerHandle, type DockerServer } from '../server.js';
import { filesystemTypeOf, isRamFilesystem, verifyServer } from '../verify.js';
import {
  docker,
  dockerOk,
  engineVersion,
  inspectImage,
  isRunning,
  logsTail,
  publishedPort,
  pullImage,
  removeContainer,
} from './engine.js';
import { detectJobNetwork } from './job-container.js';
import { buildRunPlan, CONTAINER_PORT, type Reach } from './run-plan.js';

/** Deadline of `docker run --detach` (create and start; the image is already there): 120 000 ms. */
const RUN_TIMEOUT_MS = 120_000;

/**
 * Starts PostgreSQL in Docker.
 * @param onHandle called with the container's handle as soon as the container exists (so a post
 *   step can remove it even if this function never returns)
 * @returns the running, verified server
 * @throws SetupError (no container left behind) when Docker is missing, the image cannot be had,
 *   the server does not answer within config.waitTimeoutMs, or a setting did not take
 */
export async function startDocker(
  config: Config,
  log: Logger,
  onHandle: (handle: DockerHandle) => void = () => undefined,
): Promise<DockerServer> {
  // Independent docker calls: run them side by side (each is a process spawn).
  const [engine, inspected, jobNetwork] = await Promise.all([
    engineVersion(),
    inspectImage(config.image).catch(() => null),
    detectJobNetwork(),
  ]);
  log.info(`Docker engine ${engine}`);
  const reach: Reach = jobNetwork ? { kind: 'network', network: jobNetwork.network } : { kind: 'publish' };
  if (jobNetwork) {
    log.info(
      `Running in a job container on network ${jobNetwork.network}: PostgreSQL joins it as ${config.containerName}:${CONTAINER_PORT} (no port published on the host)`,
    );
  }
  if (jobNetwork && (config.port !== Number(DEFAULTS.port) || config.publishHost !== DEFAULTS['publish-host'])) {
    log.warning(
      `Inputs 'port' and 'publish-host' do not apply in a job container: the server is reached as ${config.containerName}:${CONTAINER_PORT} on the job's network`,
    );
  }

  let pullMs = 0;
  let image = inspected;
  if (!image) {
    const t0 = performance.now();
    await log.group(`Pulling ${config.image}`, async () => {
      await pullImage(config.image, (message) => log.warning(message));
      pullMs = Math.round(performance.now() - t0);
      log.info(`Pulled ${config.image} in ${pullMs} ms`);
    });
    image = await inspectImage(config.image);
  }
  const pgdata = image?.pgdata;
  if (!pgdata) {
    throw new SetupError(
      `Image "${config.image}" does not set PGDATA`,
      "Input 'image' must name an image built on the official postgres image (docker-library/postgres), which sets PGDATA",
    );
  }

  const plan = buildRunPlan(config, { pgdata, volumes: image?.volumes ?? [] }, reach);
  log.info(
    `PGDATA ${pgdata} on tmpfs${config.tmpfsSize ? ` (size ${config.tmpfsSize})` : ''}` +
      `${image?.volumes.length ? `, VOLUME ${image.volumes.join(', ')} on tmpfs` : ''}; /dev/shm ${config.shmSize}`,
  );
  log.info(`docker ${plan.args.join(' ')}`);
  const run = await docker(plan.args, plan.env, RUN_TIMEOUT_MS);
  if (run.exitCode !== 0) {
    const nameTaken = /already in use/.test(run.stderr);
    const portTaken = /port is already allocated|address already in use/i.test(run.stderr);
    throw new SetupError(
      `docker run failed: ${run.stderr.trim()}`,
      nameTaken
        ? "Input 'container-name': choose another name or remove the old container"
        : portTaken
          ? "Input 'port': that port is taken; choose another or use 0 for a free one"
          : 'See the Docker error above',
    );
  }
  const handle: DockerHandle = { mode: 'docker', containerId: run.stdout.trim() };
  onHandle(handle);

  try {
    const port =
      reach.kind === 'network'
        ? CONTAINER_PORT
        : config.port !== 0
          ? config.port
          : await publishedPort(handle.containerId, CONTAINER_PORT);
    const host =
      reach.kind === 'network'
        ? config.containerName
        : config.publishHost === '0.0.0.0' || config.publishHost === '::'
          ? '127.0.0.1'
          : config.publishHost;
    const connection: ConnectionInfo = {
      host,
      port,
      user: config.user,
      password: config.password,
      database: config.database,
    };
    const ready = await waitForQuery(connection, {
      timeoutMs: config.waitTimeoutMs,
      intervalMs: 20,
      isAlive: () => isRunning(handle.containerId),
    }).catch(async (error: unknown) => {
      if (error instanceof NotReadyError) {
        throw new SetupError(
          `PostgreSQL did not answer a query: ${error.message}; last error: ${error.lastError}`,
          error.died ? 'The server exited; its log is below' : "Raise input 'wait-timeout', or read the server log below",
          await logsTail(handle.containerId, LOG_TAIL_LINES),
        );
      }
      throw error;
    });
    const startupMs = Math.round(performance.now());
    log.info(`Answered a query after ${startupMs} ms (${ready.attempts} attempts): PostgreSQL ${ready.serverVersion}`);
    try {
      const verified = await verifyServer(
        ready.client,
        effectiveSettings(config.settings),
        async (dir) =>
          filesystemTypeOf(
            dir,
            await dockerOk(
              ['exec', handle.containerId, 'cat', '/proc/mounts'],
              'docker exec cat /proc/mounts',
              'The image needs `cat`',
            ),
          ) ?? 'unknown',
        true,
      );
      return {
        ...handle,
        connection,
        image: config.image,
        serverVersion: ready.serverVersion,
        ...verified,
        tmpfs: isRamFilesystem(verified.filesystem),
        startupMs,
        pullMs,
      };
    } finally {
      await ready.client.end().catch(() => undefined);
    }
  } catch (error) {
    const problem = await stopDocker(handle);
    if (problem) log.warning(`Could not remove container ${handle.containerId}: ${problem}`);
    throw error;
  }
}

/**
 * Removes the container and its anonymous volumes; a container already gone counts as removed.
 * @returns null on success, else docker's error text
 */
export function stopDocker(handle: DockerHandle): Promise<string | null> {
  return removeContainer(handle.containerId);
}

/** Whether the container is still running. */
export function dockerAlive(handle: DockerHandle): Promise<boolean> {
  return isRunning(handle.containerId);
}

/** The last `lines` lines of the container's log; '' when it is gone. */
export function dockerLogTail(handle: DockerHandle, lines: number): Promise<string> {
  return logsTail(handle.containerId, lines);
}
