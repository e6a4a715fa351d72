/**
 * The Docker engine, through the `docker` CLI: argument arrays only (never a shell), and a
 * deadline on every call (src/proc.ts), so a daemon that stops answering cannot hang a step.
 * The action, the CLI, the benchmark and the tests all reach Docker through this module, image.ts
 * (inspection) and pull.ts (pulls with retries).
 */
import { SetupError } from '../errors.js';
import type { ProcOptions, ProcResult } from '../proc-types.js';
import { run } from '../proc.js';
import { parseDockerPort } from './run-plan.js';

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
export async function dockerRun(args: readonly string[], options: ProcOptions): Promise<ProcResult> {
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
