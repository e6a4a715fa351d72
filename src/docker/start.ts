/**
 * Docker mode: PostgreSQL from an image built on the official one, PGDATA on a tmpfs, durability
 * off, ready when a real query is answered through the published port, then verified. The
 * container's stop and removal are in stop.ts, the inputs Docker mode refuses in input-errors.ts.
 * Over 300 lines because startDocker's stages share its cleanup (see there).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { performance } from 'node:perf_hooks';
import { choosePort, defaultPasswordWarnings, publishHostWarnings, type ConnectionInfo } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import { InterruptedError, throwIfInterrupted } from '../interrupt.js';
import { DEFAULTS, type Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { effectiveSettings } from '../profile.js';
import { NotReadyError, notReadyError, waitForQuery } from '../readiness.js';
import { RUN_ENV } from '../proc.js';
import { LOG_TAIL_LINES, type DockerHandle, type DockerServer } from '../server.js';
import { Phases } from '../timing.js';
import { filesystemTypeOf, isRamFilesystem, verifyServer } from '../verify.js';
import {
  docker,
  dockerOk,
  engineVersion,
  isRunning,
  logsTail,
  publishedPort,
  RUN_TIMEOUT_MS,
  VERSION_TIMEOUT_MS,
} from './engine.js';
import { inspectImage, type ImageConfig } from './image.js';
import { pullImage, PULL_ANSWER_MS } from './pull.js';
import { detectJobNetwork } from './job-container.js';
import type { SchemaCache } from '../schema-cache/cache.js';
import { dockerIdentity, readEntry, restoreDocker } from './schema-cache.js';
import type { StoreEntry } from '../schema-cache/store.js';
import { EntryNotStarted } from '../schema-cache/restored.js';
import { checkDockerInputs, runError } from './input-errors.js';
import { buildRunPlan, CONTAINER_PORT, RESTORE_WRAPPER, tmpfsPaths, type Reach } from './run-plan.js';
import { stopDocker } from './stop.js';
import { DamagedEntryError } from '../store/manifest.js';

/**
 * Pause between readiness attempts, in ms (5): as often as the benchmark's raw `docker run` floor
 * polls. An attempt that finds nothing listening costs a connect to Docker's port proxy, well under
 * a millisecond.
 */
const READY_INTERVAL_MS = 5;

/**
 * When the readiness wait first asks Docker whether the container still runs, in ms after
 * `docker run` returned (1500); then every 500 ms (waitForQuery's aliveEveryMs). Each check is a
 * `docker container inspect` process, 20 to 30 ms of CPU taken from the starting server on a
 * 2-core machine; a container dies no earlier than its initdb ends (0.7 to 1 s here), and a
 * normal start answers before 1.5 s, so it makes no check. A container that dies at once is
 * reported up to 1 s later than with a check at 500 ms.
 */
const FIRST_ALIVE_CHECK_MS = 1500;

/** Most bytes of /proc/self/mounts read through the server (1 MiB); a longer table is read with `docker exec`. */
const MOUNTS_MAX_BYTES = 1_048_576;

/**
 * Starts PostgreSQL in Docker.
 * Long because each stage (pull, run, wait, verify) removes what the earlier ones made when it fails,
 * and that cleanup reads one set of local state; the stages themselves are in engine.ts, run-plan.ts, readiness.ts and verify.ts.
 * @param onHandle called with the container's handle as soon as the container exists (so a post
 *   step can remove it even if this function never returns)
 * @param phases where the time goes (`up --json` phasesMs)
 * @returns the running, verified server
 * @throws SetupError (no container left behind) when Docker is missing, the image cannot be had,
 *   the server does not answer within config.waitTimeoutMs, or a setting did not take
 */
export async function startDocker(
  config: Config,
  log: Logger,
  onHandle: (handle: DockerHandle) => void = () => undefined,
  phases: Phases = new Phases(),
  schema: SchemaCache | null = null,
): Promise<DockerServer> {
  checkDockerInputs(config);
  // The image's layout is the one answer `docker run` waits for, so it is the only question asked
  // before it, with the job container's network when in one (both on the Engine API's socket
  // where the environment names it: api.ts). An image that answers proves that the daemon
  // answers; only when the inspection fails does `docker version` run, to report a daemon that
  // does not answer (it costs 20 to 25 ms: the daemon runs `runc --version` and
  // `docker-init --version` for it). Both questions keep the deadline of `docker version`
  // (VERSION_TIMEOUT_MS).
  const [inspected, jobNetwork] = await Promise.all([
    inspectImage(config.image, VERSION_TIMEOUT_MS).catch((error: unknown) => {
      if (error instanceof SetupError || error instanceof InterruptedError) throw error; // no docker CLI, no answer in time
      return null;
    }),
    detectJobNetwork(VERSION_TIMEOUT_MS),
  ]);
  if (!inspected) log.info(`Docker engine ${await engineVersion()}`);
  phases.end('image inspect');
  if (config.cacheDir && !config.schemaCache) {
    log.warning(
      "Input 'cache-dir' applies to native mode and to the schema cache only (Docker mode caches the image, not a cluster)",
    );
  }
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

  const handle: DockerHandle = {
    mode: 'docker',
    containerId: '',
    containerName: config.containerName,
    token: randomBytes(8).toString('hex'),
  };
  let pullMs = 0;
  let image = inspected;
  if (!image) {
    // Recorded before the pull, which carries the run's marker: a start killed during the pull
    // leaves a `docker pull` that `down`, the next `up` of the name or the post step end
    // (lifecycle.ts stop: endMarkedProcesses).
    throwIfInterrupted();
    onHandle({ ...handle, pulling: true });
    const t0 = performance.now();
    await log.group(`Pulling ${config.image}`, async () => {
      await pullImage(config.image, (message) => log.warning(message), undefined, {
        answerMs: Math.min(PULL_ANSWER_MS, config.waitTimeoutMs),
        env: { [RUN_ENV]: handle.token },
      });
      pullMs = Math.round(performance.now() - t0);
      log.info(`Pulled ${config.image} in ${pullMs} ms`);
    });
    image = await inspectImage(config.image);
    phases.end('pull');
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
  // On a job container's network only the job reaches the server: no warning there.
  const warnings =
    reach.kind === 'publish'
      ? [...publishHostWarnings(config.publishHost), ...defaultPasswordWarnings(config.password, config.publishHost)]
      : [];
  for (const w of warnings) log.warning(w);
  const entry = schema && image ? await schemaEntry(schema, image, config, log) : null;
  if (schema) phases.end('schema cache lookup');
  const layout = { pgdata, volumes: image?.volumes ?? [] };
  const plan = buildRunPlan(config, layout, reach, handle.token, entry && image ? { entrypoint: image.entrypoint } : null);
  const onTmpfs = tmpfsPaths(layout);
  log.info(
    `PGDATA ${pgdata} on tmpfs${onTmpfs.join() !== pgdata ? ` (tmpfs on VOLUME ${onTmpfs.join(' and ')})` : ''}` +
      `${config.tmpfsSize ? `, size ${config.tmpfsSize}` : ''}; /dev/shm ${config.shmSize}`,
  );
  log.info(`docker ${plan.args.map((a) => (a === RESTORE_WRAPPER ? "'<wait for the schema cache restore>'" : a)).join(' ')}`);
  // Recorded before the container exists: a run killed from here on leaves a container that
  // the run label finds.
  throwIfInterrupted();
  onHandle({ ...handle });
  try {
    const running = docker(plan.args, plan.env, RUN_TIMEOUT_MS);
    // The entry's tar is read and checked while Docker creates the container.
    const restore = entry ? readRestore(entry) : null;
    const run = await running;
    if (run.exitCode !== 0) throw runError(run.stderr, config);
    handle.containerId = run.stdout.trim();
    onHandle({ ...handle });
    phases.end('docker run');
    if (restore && schema) {
      try {
        if ('problem' in restore) throw new DamagedEntryError(entry?.dir ?? '', restore.problem);
        await restoreDocker(handle.containerId, restore.tar, config);
        phases.end('schema cache restore, password set');
      } catch (error) {
        if (!(error instanceof SetupError || error instanceof DamagedEntryError)) throw error;
        // The entry did not restore: this container goes, the entry is dropped, and the start
        // is made again as a miss (init runs).
        const problem = await stopDocker(handle);
        if (problem) log.warning(`Could not remove container ${handle.containerName}: ${problem}`);
        schema.damaged(error instanceof DamagedEntryError ? error.problem : error.message, error instanceof EntryNotStarted);
        return await startDocker(config, log, onHandle, phases, schema);
      }
    }
    const firstAliveCheck = performance.now() + FIRST_ALIVE_CHECK_MS;

    const port =
      reach.kind === 'network'
        ? CONTAINER_PORT
        : config.port !== 0
          ? config.port
          : await publishedPort(handle.containerId, CONTAINER_PORT);
    phases.end('docker port');
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
      intervalMs: READY_INTERVAL_MS,
      isAlive: async () => performance.now() < firstAliveCheck || isRunning(handle.containerId),
    }).catch(async (error: unknown) => {
      if (error instanceof NotReadyError) throw notReadyError(error, await logsTail(handle.containerId, LOG_TAIL_LINES));
      throw error;
    });
    phases.end('first query answered');
    const startupMs = Math.round(performance.now());
    log.info(`Answered a query after ${startupMs} ms (${ready.attempts} attempts): PostgreSQL ${ready.serverVersion}`);
    try {
      const verified = await verifyServer(
        ready.client,
        effectiveSettings(config.settings),
        async (dir) => filesystemTypeOf(dir, await containerMounts(ready.client, dir, handle.containerId)) ?? 'unknown',
        true,
      );
      phases.end('settings and tmpfs verified');
      return {
        ...handle,
        connection,
        image: config.image,
        serverVersion: ready.serverVersion,
        binariesSource: `docker ${config.image}`,
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
 * Looks the schema cache up for this image. An image without an ENTRYPOINT cannot be handed over
 * to after a restore: the schema cache is then not used (a warning; nothing saved).
 * @returns the entry to restore (read later: readRestore), or null
 */
async function schemaEntry(schema: SchemaCache, image: ImageConfig, config: Config, log: Logger): Promise<StoreEntry | null> {
  if (image.entrypoint.length === 0) {
    log.warning(
      `Input 'schema-cache': the image ${config.image} has no ENTRYPOINT to start after a restore (the official image's is docker-entrypoint.sh); the schema cache is not used`,
    );
    return null;
  }
  return schema.open(dockerIdentity(image, config));
}

/** The entry's tar, checked against its manifest (readEntry), or what is wrong with it. */
function readRestore(entry: StoreEntry): { tar: Buffer } | { problem: string } {
  try {
    return { tar: readEntry(entry) };
  } catch (error) {
    if (error instanceof DamagedEntryError) return { problem: error.problem };
    throw error;
  }
}

/**
 * The container's mount table (/proc/mounts format): as the server's own process reads it,
 * `pg_read_file('/proc/self/mounts', 0, MOUNTS_MAX_BYTES)` on the connected client (one round
 * trip; POSTGRES_USER is the cluster's superuser in the official image, which reading a file
 * outside the data directory needs); else, when that fails, is cut at MOUNTS_MAX_BYTES or names
 * no mount holding `dir`, `docker exec CONTAINER cat /proc/mounts` (a process in the container,
 * 60 to 90 ms here).
 * @throws SetupError when `docker exec` is needed and fails
 */
async function containerMounts(client: pg.Client, dir: string, containerId: string): Promise<string> {
  const viaServer = await client
    .query<{ m: string }>('SELECT pg_read_file($1, 0, $2) AS m', ['/proc/self/mounts', MOUNTS_MAX_BYTES])
    .then((r) => r.rows[0]?.m ?? '')
    .catch(() => '');
  if (viaServer.length < MOUNTS_MAX_BYTES && filesystemTypeOf(dir, viaServer) !== null) return viaServer;
  return dockerOk(['exec', containerId, 'cat', '/proc/mounts'], 'docker exec cat /proc/mounts', 'The image needs `cat`');
}
