/**
 * Docker mode: PostgreSQL from an image built on the official one, PGDATA on a tmpfs, durability
 * off, ready when a real query is answered through the published port, then verified.
 */
import { performance } from 'node:perf_hooks';
import type { ConnectionInfo } from './connection.js';
import { buildRunPlan, CONTAINER_PORT, parseDockerPort, pgdataFromEnv } from './docker-args.js';
import { docker, dockerOk, engineVersion, inspectImage, isRunning, logsTail, pullImage, removeContainer } from './docker.js';
import { SetupError } from './errors.js';
import type { Config } from './inputs.js';
import type { Logger } from './log.js';
import { NotReadyError, waitForQuery } from './readiness.js';
import { effectiveSettings } from './settings.js';
import { LOG_TAIL_LINES, verifyServer, type Started } from './server.js';
import { filesystemTypeOf, isRamFilesystem } from './verify.js';

/**
 * Starts PostgreSQL in Docker.
 * @param onContainer called with the container ID as soon as it exists (so a post step can
 *   remove it even if this function never returns)
 * @returns the running, verified server
 * @throws SetupError (no container left behind) when Docker is missing, the image cannot be had,
 *   the server does not answer within config.waitTimeoutMs, or a setting did not take
 */
export async function startDocker(
  config: Config,
  log: Logger,
  onContainer: (id: string) => void = () => undefined,
): Promise<Started> {
  // Two independent docker calls: run them side by side (each is a process spawn).
  const [engine, inspected] = await Promise.all([engineVersion(), inspectImage(config.image).catch(() => null)]);
  log.info(`Docker engine ${engine}`);

  let pullMs = 0;
  let image = inspected;
  if (!image) {
    const t0 = performance.now();
    await log.group(`Pulling ${config.image}`, async () => {
      await pullImage(config.image);
      pullMs = Math.round(performance.now() - t0);
      log.info(`Pulled ${config.image} in ${pullMs} ms`);
    });
    image = await inspectImage(config.image);
  }
  const pgdata = pgdataFromEnv(image?.env);
  if (!pgdata) {
    throw new SetupError(
      `Image "${config.image}" does not set PGDATA`,
      "Input 'image' must name an image built on the official postgres image (docker-library/postgres), which sets PGDATA",
    );
  }

  const plan = buildRunPlan(config, pgdata);
  log.info(`PGDATA ${pgdata} on tmpfs${config.tmpfsSize ? ` (size ${config.tmpfsSize})` : ''}; /dev/shm ${config.shmSize}`);
  log.info(`docker ${plan.args.join(' ')}`);
  const run = await docker(plan.args, plan.env);
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
  const containerId = run.stdout.trim();
  onContainer(containerId);

  try {
    const port =
      config.port !== 0
        ? config.port
        : parseDockerPort(await dockerOk(['port', containerId, `${CONTAINER_PORT}/tcp`], 'docker port', 'See the Docker error'));
    const connection: ConnectionInfo = {
      host: config.publishHost === '0.0.0.0' || config.publishHost === '::' ? '127.0.0.1' : config.publishHost,
      port,
      user: config.user,
      password: config.password,
      database: config.database,
    };
    const ready = await waitForQuery(connection, {
      timeoutMs: config.waitTimeoutMs,
      intervalMs: 20,
      isAlive: () => isRunning(containerId),
    }).catch(async (error: unknown) => {
      if (error instanceof NotReadyError) {
        throw new SetupError(
          `PostgreSQL did not answer a query: ${error.message}; last error: ${error.lastError}`,
          error.died ? 'The server exited; its log is below' : "Raise input 'wait-timeout', or read the server log below",
          await logsTail(containerId, LOG_TAIL_LINES),
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
            await dockerOk(['exec', containerId, 'cat', '/proc/mounts'], 'docker exec cat /proc/mounts', 'The image needs `cat`'),
          ) ?? 'unknown',
        true,
      );
      return {
        mode: 'docker',
        connection,
        containerId,
        source: config.image,
        serverVersion: ready.serverVersion,
        ...verified,
        tmpfs: isRamFilesystem(verified.filesystem),
        startupMs,
        pullMs,
        socketDirectory: '',
        cacheHit: null,
      };
    } finally {
      await ready.client.end().catch(() => undefined);
    }
  } catch (error) {
    const problem = await removeContainer(containerId);
    if (problem) log.warning(`Could not remove container ${containerId}: ${problem}`);
    throw error;
  }
}
