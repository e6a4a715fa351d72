/**
 * The Docker engine, through the `docker` CLI: argument arrays only (never a shell), and a
 * deadline on every call (src/proc.ts), so a daemon that stops answering cannot hang a step.
 * The action, the CLI, the benchmark and the tests all reach Docker through this module.
 * Over 300 lines because every docker CLI call and its output parsing is here, so deadlines and error texts are read in one place.
 */
import { SetupError } from '../errors.js';
import type { ProcOptions, ProcResult } from '../proc-types.js';
import { run } from '../proc.js';
import { apiGet, localEngineSocket, pathSafeName } from './api.js';
import { parseDockerPort, pgdataFromEnv } from './run-plan.js';

/** Deadline of a docker command that only asks the daemon something (inspect, port, logs, rm): 60 000 ms. */
export const DOCKER_TIMEOUT_MS = 60_000;

/** Deadline of `docker version`, the first question to the daemon: 15 000 ms (a healthy one answers in milliseconds). */
export const VERSION_TIMEOUT_MS = 15_000;

/** Deadline of `docker pull`: 600 000 ms (a large image over a slow link). */
export const PULL_TIMEOUT_MS = 600_000;

/** Deadline of `docker run --detach` (create and start; the image is already there), in ms. */
export const RUN_TIMEOUT_MS = 120_000;

/** Result of one docker command. */
interface DockerResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `docker ARGS`; never throws for a non-zero exit (look at exitCode).
 * @param env extra environment for the docker process (merged over process.env); credentials go
 *   here and reach the container as `--env NAME`, so they never show in argv
 * @param timeoutMs deadline in ms (default DOCKER_TIMEOUT_MS)
 * @throws SetupError when the docker CLI is not installed, or when the deadline passes
 */
export async function docker(
  args: readonly string[],
  env?: Record<string, string>,
  timeoutMs = DOCKER_TIMEOUT_MS,
): Promise<DockerResult> {
  const r = await dockerRun(args, { timeoutMs, env });
  if (r.timedOut) {
    throw new SetupError(
      `docker ${args[0] ?? ''} did not finish within ${Math.round(timeoutMs / 1000)} s`,
      'The Docker daemon is not answering; check it (`docker info`) and try again',
    );
  }
  return { exitCode: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs `docker ARGS` with run()'s options (src/proc.ts); never throws for a non-zero exit or a
 * deadline (read `code`, `timedOut`, `silent`).
 * @throws SetupError when the docker CLI is not installed
 */
async function dockerRun(args: readonly string[], options: ProcOptions): Promise<ProcResult> {
  try {
    return await run('docker', args, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SetupError(
        'The docker command was not found',
        'Install Docker (GitHub-hosted Ubuntu runners have it), or use mode: native with PostgreSQL binaries installed',
      );
    }
    throw error;
  }
}

/**
 * Like docker(), but throws on a non-zero exit.
 * @param what names the operation in the error, e.g. `docker port`
 * @param fix what the user should do, for the error
 * @returns docker's stdout
 * @throws SetupError with `what` and docker's stderr
 */
export async function dockerOk(
  args: readonly string[],
  what: string,
  fix: string,
  env?: Record<string, string>,
  timeoutMs = DOCKER_TIMEOUT_MS,
): Promise<string> {
  const result = await docker(args, env, timeoutMs);
  if (result.exitCode !== 0) {
    throw new SetupError(`${what} failed: ${result.stderr.trim() || `exit code ${result.exitCode}`}`, fix);
  }
  return result.stdout;
}

/**
 * Checks that a Docker engine answers.
 * @returns the engine's version, e.g. `20.10.24+dfsg1`
 * @throws SetupError when the CLI is missing or the daemon does not answer
 */
export async function engineVersion(): Promise<string> {
  const result = await docker(['version', '--format', '{{.Server.Version}}'], undefined, VERSION_TIMEOUT_MS);
  if (result.exitCode !== 0) {
    throw new SetupError(
      `The Docker daemon did not answer: ${result.stderr.trim().split('\n').pop() ?? ''}`,
      'Start Docker (e.g. `sudo systemctl start docker`), or use mode: native with PostgreSQL binaries installed',
    );
  }
  return result.stdout.trim();
}

/** The parts of `docker image inspect` this project reads. */
export interface ImageConfig {
  /** `Config.Env` entries, `NAME=value`. */
  env: string[];
  /** PGDATA from `Config.Env` (the official image sets it), or null. */
  pgdata: string | null;
  /** `Config.Volumes` paths, sorted. */
  volumes: string[];
  /**
   * The image ID (`Id`, `sha256:…`): what a tag points to now (the schema cache's key holds it).
   * The classic image store gives the config's digest (one platform); the containerd image store
   * (Docker 29's default) the digest of the manifest or index pulled, the same on every platform.
   */
  id: string;
  /** `Os/Architecture[/Variant]` of the image as it runs here, e.g. `linux/amd64`: what the ID alone may not tell. */
  platform: string;
  /** `Config.Entrypoint` (the official image: `["docker-entrypoint.sh"]`); [] when none. */
  entrypoint: string[];
}

/**
 * Inspects a local image; null when it is not present locally (or the daemon refused). Asks the
 * Engine API on its socket when the environment names it (api.ts: 1 to 2 ms), else, or when that
 * gives no usable answer, `docker image inspect` (15 to 30 ms: a process per call).
 * @param timeoutMs deadline in ms (default DOCKER_TIMEOUT_MS; VERSION_TIMEOUT_MS when it is the
 *   first question to the daemon)
 * @throws SetupError when the docker CLI is missing or the deadline passes; InterruptedError
 */
export async function inspectImage(image: string, timeoutMs = DOCKER_TIMEOUT_MS): Promise<ImageConfig | null> {
  const socket = pathSafeName(image) ? localEngineSocket() : null;
  const answer = socket ? await apiGet(socket, `/images/${image}/json`, 'docker image', timeoutMs) : null;
  if (answer?.status === 404) return null;
  if (answer?.status === 200) {
    try {
      const { Id, Config, Os, Architecture, Variant } = JSON.parse(answer.body) as {
        Id?: string;
        Config?: { Env?: string[] | null; Volumes?: Record<string, unknown> | null; Entrypoint?: string[] | null };
        Os?: string;
        Architecture?: string;
        Variant?: string;
      };
      return imageConfig({
        id: Id,
        env: Config?.Env,
        volumes: Config?.Volumes,
        entrypoint: Config?.Entrypoint,
        os: Os,
        architecture: Architecture,
        variant: Variant,
      });
    } catch {
      // not the answer expected: ask the CLI
    }
  }
  const result = await docker(
    [
      'image',
      'inspect',
      '--format',
      '{"id":{{json .Id}},"env":{{json .Config.Env}},"volumes":{{json .Config.Volumes}},"entrypoint":{{json .Config.Entrypoint}},"os":{{json .Os}},"architecture":{{json .Architecture}},"variant":{{json .Variant}}}',
      image,
    ],
    undefined,
    timeoutMs,
  );
  if (result.exitCode !== 0) return null;
  return imageConfig(JSON.parse(result.stdout.trim() || '{}') as InspectedImage);
}

/** What imageConfig reads of an inspected image (the Engine API's and the CLI's shapes alike). */
interface InspectedImage {
  id?: string;
  env?: string[] | null;
  volumes?: Record<string, unknown> | null;
  entrypoint?: string[] | null;
  os?: string;
  architecture?: string;
  variant?: string;
}

/** An ImageConfig from an image's ID, `Config.Env`, `Config.Volumes`, `Config.Entrypoint` and platform. */
function imageConfig({ id, env, volumes, entrypoint, os, architecture, variant }: InspectedImage): ImageConfig {
  return {
    env: env ?? [],
    pgdata: pgdataFromEnv(env),
    volumes: Object.keys(volumes ?? {}).sort(),
    id: id ?? '',
    platform: [os ?? '', architecture ?? '', ...(variant ? [variant] : [])].join('/'),
    entrypoint: entrypoint ?? [],
  };
}

/**
 * How long failed pulls of one image are retried, in ms (120 000): no new attempt starts after
 * it; an attempt already running may take up to PULL_TIMEOUT_MS.
 */
const PULL_RETRY_MS = 120_000;

/**
 * How long a pull attempt may wait for the registry's first answer, in ms (20 000): `docker pull`
 * prints `<tag>: Pulling from <repository>` once the registry has given the image's manifest
 * (Docker Hub, a mirror: under a few seconds). A registry that accepts connections and never
 * answers otherwise holds each attempt for the daemon's own time limits (25 s here: the ping's
 * 15 s, then plain HTTP), and the retries for PULL_RETRY_MS. startDocker lowers it to the
 * wait-timeout when that is shorter.
 */
export const PULL_ANSWER_MS = 20_000;

/** What `docker pull` prints once the registry has answered (its first progress line), e.g. `18: Pulling from library/postgres`. */
const PULL_ANSWERED = /Pulling from |^Digest: |^Status: /m;

/** What a failed `docker pull` means for the next step. */
type PullFailure = 'transient' | 'credentials' | 'not-found' | 'no-answer' | 'other';

/**
 * Classifies `docker pull` stderr: rate limits (HTTP 429), server errors (5xx) and dropped
 * connections are worth retrying; a registry asking for credentials, an unknown image or a host
 * name that does not resolve (a misspelt registry, as a rule) are not. Docker Hub answers
 * "repository does not exist or may require 'docker login'" for both unknown and private
 * images (the containerd image store: "repository does not exist or may require authorization"):
 * that counts as not found, and the error names both fixes, unless the daemon says it had no
 * credentials to send.
 * The daemon's own time-outs (awaiting headers, TLS handshake, i/o timeout) are `transient`, as
 * Docker Hub's passing hiccups are; `no-answer` is only what pullImage's own answer deadline
 * ends (a registry that accepts and never answers), never a classification of stderr.
 */
export function classifyPullError(stderr: string): Exclude<PullFailure, 'no-answer'> {
  const e = stderr.toLowerCase();
  // A registry that asked for credentials and got none: the containerd image store (Docker 29)
  // words it "pull access denied, repository does not exist or may require authorization:
  // authorization failed: no basic auth credentials", which would otherwise read as not found.
  if (/no basic auth credentials|authentication required/.test(e)) return 'credentials';
  if (/manifest unknown|not found|repository does not exist|name unknown|invalid reference|no such host/.test(e))
    return 'not-found';
  if (/unauthorized|authentication required|no basic auth credentials|requested access to the resource is denied/.test(e))
    return 'credentials';
  if (
    /toomanyrequests|too many requests|\b429\b|\b5\d\d\b|internal server error|bad gateway|service unavailable|gateway time-?out|connection refused|connection reset|i\/o timeout|tls handshake timeout|unexpected eof|\beof\b|temporary failure|client\.timeout exceeded|context deadline exceeded|request canceled|server misbehaving/.test(
      e,
    )
  )
    return 'transient';
  return 'other';
}

/**
 * The registry host (and port) of an image reference, as Docker reads it: the first path
 * component when it has a `.` or `:` or is `localhost`, else Docker Hub (`docker.io`).
 */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return /[.:]/.test(first) || first === 'localhost' ? first : 'docker.io';
}

/** Options of pullImage. */
interface PullOptions {
  /** How long the registry may take to answer each attempt, in ms (default PULL_ANSWER_MS). */
  answerMs?: number;
  /**
   * Extra environment of the `docker pull` process: the run's marker (RUN_ENV=token), so that
   * `down`, the next `up` of the name or the post step end a pull its killed start left running
   * (src/orphans.ts endMarkedProcesses).
   */
  env?: Record<string, string>;
}

/**
 * Pulls an image. Each attempt ends when the registry has not answered within `answerMs` (no
 * retry then: the registry is silent, not busy), and in any case after PULL_TIMEOUT_MS. Transient
 * failures (HTTP 429, 5xx, network) are retried after 1, 2, 4, 8, 16 … s for up to `retryMs` in
 * total, each retry reported through `onRetry`.
 * @throws SetupError naming the input to check: credentials (log in first, as
 *   docker/login-action does), an image that does not exist, a registry that does not answer, or
 *   retries exhausted
 */
export async function pullImage(
  image: string,
  onRetry: (message: string) => void = () => undefined,
  retryMs = PULL_RETRY_MS,
  options: PullOptions = {},
): Promise<void> {
  const answerMs = options.answerMs ?? PULL_ANSWER_MS;
  const t0 = Date.now();
  const deadline = t0 + retryMs;
  for (let attempt = 1; ; attempt++) {
    const result = await dockerRun(['pull', image], {
      timeoutMs: PULL_TIMEOUT_MS,
      firstOutputMs: answerMs,
      firstOutputPattern: PULL_ANSWERED,
      env: options.env,
    });
    if (result.timedOut && !result.silent) {
      throw new SetupError(
        `docker pull did not finish within ${Math.round(PULL_TIMEOUT_MS / 1000)} s (image "${image}")`,
        'The Docker daemon or the registry is too slow; check them (`docker info`), or pull the image in an earlier step',
      );
    }
    if (result.code === 0) return;
    const reason = result.silent
      ? `no answer within ${formatSeconds(answerMs)}`
      : result.stderr.trim().split('\n').pop() || `exit code ${result.code ?? 'none'}`;
    const kind: PullFailure = result.silent ? 'no-answer' : classifyPullError(result.stderr);
    if (kind === 'credentials') {
      throw new SetupError(
        `Image "${image}" needs registry credentials: ${reason}`,
        "Log in to its registry in an earlier step (e.g. docker/login-action), or check the inputs 'image' and 'registry'",
      );
    }
    if (kind === 'no-answer') {
      throw new SetupError(
        `Registry ${registryOf(image)} did not answer the pull of image "${image}" within ${formatSeconds(Math.min(answerMs, Date.now() - t0))}: ${reason}`,
        "Check the inputs 'registry' and 'image' (host and port of a registry that is up and reachable from the Docker daemon); it accepted the connection but sent nothing" +
          (answerMs < PULL_ANSWER_MS
            ? `. Input 'wait-timeout' bounds this wait (${formatSeconds(answerMs)}); raise it if the registry is only slow`
            : ''),
      );
    }
    const waitMs = Math.min(1000 * 2 ** (attempt - 1), 16_000);
    if (kind !== 'transient' || Date.now() + waitMs > deadline) {
      throw new SetupError(
        `Could not pull image "${image}"${kind === 'transient' ? ` after ${attempt} attempts in ${Math.round((Date.now() - t0) / 1000)} s` : ''}: ${reason}`,
        kind === 'transient'
          ? "The registry kept failing; try again later, or pull from a mirror with input 'registry'"
          : "Check the inputs 'postgres-version', 'image' and 'registry' (does that tag exist? is the registry's name right?), and log in first (docker/login-action) if the image is private",
      );
    }
    onRetry(`Pull of ${image} failed (${reason}); retrying in ${waitMs / 1000} s (attempt ${attempt + 1})`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/** A duration in ms as seconds for messages: `20 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Whether the container is running (false when it exited or does not exist). */
export async function isRunning(container: string): Promise<boolean> {
  const result = await docker(['container', 'inspect', '--format', '{{.State.Running}}', container]);
  return result.exitCode === 0 && result.stdout.trim() === 'true';
}

/** `.State.Health.Status` of a container: `starting`, `healthy`, `unhealthy`, or '' without a health check. */
export async function healthStatus(container: string): Promise<string> {
  const out = await dockerOk(
    ['container', 'inspect', '--format', '{{if .State.Health}}{{.State.Health.Status}}{{end}}', container],
    'docker container inspect',
    'Check that the container exists',
  );
  return out.trim();
}

/**
 * The host port published for the container's `containerPort`/tcp.
 * @throws SetupError when docker fails or nothing is published
 */
export async function publishedPort(container: string, containerPort: number): Promise<number> {
  const out = await dockerOk(['port', container, `${containerPort}/tcp`], 'docker port', 'See the Docker error');
  try {
    return parseDockerPort(out);
  } catch (error) {
    throw new SetupError(error instanceof Error ? error.message : String(error), 'See the Docker error');
  }
}

/** The last `lines` lines of the container's log (stdout and stderr as docker keeps them); '' when it is gone. */
export async function logsTail(container: string, lines: number): Promise<string> {
  const result = await docker(['logs', '--tail', String(lines), container]);
  return result.exitCode === 0 ? `${result.stdout}${result.stderr}`.trimEnd() : '';
}

/**
 * Removes a container and its anonymous volumes (`docker rm --force --volumes`). A container
 * that is already gone counts as removed.
 * @returns null on success, else docker's error text
 */
export async function removeContainer(container: string): Promise<string | null> {
  const result = await docker(['rm', '--force', '--volumes', container]);
  if (result.exitCode === 0 || /No such container/i.test(result.stderr)) return null;
  return result.stderr.trim() || `exit code ${result.exitCode}`;
}

/**
 * Removes every container matching all `filters` (`docker ps --filter` values, e.g.
 * `label=io.github.pg-tmpfs-action.run=<token>`, `name=^/pg-tmpfs-cli-x$`), with its anonymous
 * volumes: what a killed run left, found by its run label or its name.
 * @returns the IDs removed, one problem text per container that could not be removed, and
 *   `listError` when the containers could not be listed (e.g. no daemon), else null
 */
export async function removeMatching(
  filters: readonly string[],
): Promise<{ removed: string[]; problems: string[]; listError: string | null }> {
  const list = await docker(['ps', '--all', '--quiet', '--no-trunc', ...filters.flatMap((f) => ['--filter', f])]);
  if (list.exitCode !== 0) return { removed: [], problems: [], listError: `docker ps failed: ${list.stderr.trim()}` };
  const removed: string[] = [];
  const problems: string[] = [];
  for (const id of list.stdout.split('\n').filter(Boolean)) {
    const problem = await removeContainer(id);
    if (problem) problems.push(problem);
    else removed.push(id);
  }
  return { removed, problems, listError: null };
}
