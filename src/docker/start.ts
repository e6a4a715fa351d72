/**
 * Docker mode: PostgreSQL from an image built on the official one, PGDATA on a tmpfs, durability
 * off, ready when a real query is answered through the published port, then verified.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { choosePort, publishHostWarnings, type ConnectionInfo } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import { throwIfInterrupted } from '../interrupt.js';
import { DEFAULTS, type Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { effectiveSettings } from '../profile.js';
import { NotReadyError, notReadyError, waitForQuery } from '../readiness.js';
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
  removeMatching,
} from './engine.js';
import { detectJobNetwork } from './job-container.js';
import { buildRunPlan, CONTAINER_LABEL, CONTAINER_PORT, type Reach } from './run-plan.js';

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
  checkDockerInputs(config);
  // Independent docker calls: run them side by side (each is a process spawn).
  const [engine, inspected, jobNetwork] = await Promise.all([
    engineVersion(),
    inspectImage(config.image).catch(() => null),
    detectJobNetwork(),
  ]);
  log.info(`Docker engine ${engine}`);
  if (config.cacheDir) log.warning("Input 'cache-dir' applies to native mode only (Docker mode caches the image, not a cluster)");
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
    throw new InputError(
      'image',
      `"${config.image}" does not set PGDATA`,
      'Name an image built on the official postgres image (docker-library/postgres), which sets PGDATA',
    );
  }

  if (reach.kind === 'publish' && config.port !== 0) await choosePort(config.publishHost, config.port);
  const warnings = reach.kind === 'publish' ? publishHostWarnings(config.publishHost) : [];
  for (const w of warnings) log.warning(w);
  const handle: DockerHandle = {
    mode: 'docker',
    containerId: '',
    containerName: config.containerName,
    token: randomBytes(8).toString('hex'),
  };
  const plan = buildRunPlan(config, { pgdata, volumes: image?.volumes ?? [] }, reach, handle.token);
  log.info(
    `PGDATA ${pgdata} on tmpfs${config.tmpfsSize ? ` (size ${config.tmpfsSize})` : ''}` +
      `${image?.volumes.length ? `, VOLUME ${image.volumes.join(', ')} on tmpfs` : ''}; /dev/shm ${config.shmSize}`,
  );
  log.info(`docker ${plan.args.join(' ')}`);
  // Recorded before the container exists: a run killed from here on leaves a container that
  // the run label finds.
  throwIfInterrupted();
  onHandle({ ...handle });
  try {
    const run = await docker(plan.args, plan.env, RUN_TIMEOUT_MS);
    if (run.exitCode !== 0) throw runError(run.stderr, config);
    handle.containerId = run.stdout.trim();
    onHandle({ ...handle });

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
      if (error instanceof NotReadyError) throw notReadyError(error, await logsTail(handle.containerId, LOG_TAIL_LINES));
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
        warnings,
        tmpfs: isRamFilesystem(verified.filesystem),
        startupMs,
        pullMs,
      };
    } finally {
      await ready.client.end().catch(() => undefined);
    }
  } catch (error) {
    const problem = await stopDocker(handle);
    if (problem) log.warning(`Could not remove container ${handle.containerName}: ${problem}`);
    throw error;
  }
}

/**
 * Checks that Docker mode can carry the inputs, before anything starts: the official image passes
 * the password to initdb through `--pwfile`, which keeps only its first line.
 * @throws InputError (input `password`) for a password with a line break
 */
export function checkDockerInputs(config: Config): void {
  if (/[\r\n]/.test(config.password)) {
    throw new InputError(
      'password',
      "holds a line break, which Docker mode cannot carry (the image's initdb reads only the first line of the password)",
      'Use a password without line breaks, or mode: native',
    );
  }
}

/** The error for a failed `docker run`, naming the input at fault when Docker's message shows one. */
function runError(stderr: string, config: Config): Error {
  const text = stderr.trim();
  if (/port is already allocated|address already in use/i.test(text)) {
    return new InputError(
      'port',
      `port ${config.port} is in use (${text.split('\n').pop() ?? ''})`,
      'Choose another port, or 0 for a free one',
    );
  }
  if (/cannot assign requested address|invalid IP address/i.test(text)) {
    return new InputError(
      'publish-host',
      `Docker cannot publish on ${config.publishHost} (${text.split('\n').pop() ?? ''})`,
      'Use an address of this machine: 127.0.0.1 (default), or 0.0.0.0 for every interface',
    );
  }
  if (/Conflict\. The container name .* is already in use/i.test(text)) {
    return new InputError(
      'container-name',
      `a container named "${config.containerName}" exists already`,
      'Choose another name, or remove that container (docker rm -f NAME)',
    );
  }
  return new SetupError(`docker run failed: ${text}`, 'See the Docker error above');
}

/**
 * Removes the container and its anonymous volumes; a container already gone counts as removed.
 * @returns null on success, else docker's error text
 */
export async function stopDocker(handle: DockerHandle): Promise<string | null> {
  // The container carries this run's label, also when `docker run` was killed before it
  // returned the ID; then the daemon may still be creating it, so look once more after 1 s.
  const problems: string[] = [];
  for (let pass = 0; pass < (handle.containerId ? 1 : 2); pass++) {
    if (pass > 0) await sleep(1000);
    const swept = await removeMatching([`label=${CONTAINER_LABEL}.run=${handle.token}`]);
    problems.push(...swept.problems, ...(swept.listError ? [swept.listError] : []));
  }
  return problems.length ? problems.join('; ') : null;
}

/** Whether the container is still running. */
export function dockerAlive(handle: DockerHandle): Promise<boolean> {
  return isRunning(handle.containerId || handle.containerName);
}

/** The last `lines` lines of the container's log; '' when it is gone. */
export function dockerLogTail(handle: DockerHandle, lines: number): Promise<string> {
  return logsTail(handle.containerId || handle.containerName, lines);
}
