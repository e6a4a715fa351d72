/**
 * The Docker engine, through the `docker` CLI (argument arrays only, never a shell).
 */
import { getExecOutput } from '@actions/exec';
import { SetupError } from './errors.js';

/** Result of one docker command. */
export interface DockerResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `docker ARGS`; never throws for a non-zero exit (look at exitCode).
 * @param env extra environment for the docker process (merged over process.env)
 * @throws SetupError when the docker CLI is not installed
 */
export async function docker(args: string[], env?: Record<string, string>): Promise<DockerResult> {
  try {
    const out = await getExecOutput('docker', args, {
      silent: true,
      ignoreReturnCode: true,
      env: env ? ({ ...process.env, ...env } as Record<string, string>) : undefined,
    });
    return { exitCode: out.exitCode, stdout: out.stdout, stderr: out.stderr };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/Unable to locate executable|ENOENT/.test(message)) {
      throw new SetupError(
        'The docker command was not found',
        'Install Docker (GitHub-hosted Ubuntu runners have it), or use mode: native with PostgreSQL binaries installed',
      );
    }
    throw error;
  }
}

/** Like docker(), but throws SetupError with `what` and docker's stderr on a non-zero exit. */
export async function dockerOk(args: string[], what: string, fix: string, env?: Record<string, string>): Promise<string> {
  const result = await docker(args, env);
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
  const result = await docker(['version', '--format', '{{.Server.Version}}']);
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
}

/** Inspects a local image; null when it is not present locally. */
export async function inspectImage(image: string): Promise<ImageConfig | null> {
  const result = await docker(['image', 'inspect', '--format', '{{json .Config.Env}}', image]);
  if (result.exitCode !== 0) return null;
  return { env: (JSON.parse(result.stdout.trim() || '[]') as string[] | null) ?? [] };
}

/**
 * Pulls an image.
 * @throws SetupError (naming the `image` / `postgres-version` input) when the pull fails
 */
export async function pullImage(image: string): Promise<void> {
  const result = await docker(['pull', '--quiet', image]);
  if (result.exitCode !== 0) {
    throw new SetupError(
      `Could not pull image "${image}": ${result.stderr.trim().split('\n').pop() ?? ''}`,
      "Check the inputs 'postgres-version' and 'image' (does that tag exist?) and the runner's access to the registry",
    );
  }
}

/** Whether the container is running (false when it exited or does not exist). */
export async function isRunning(container: string): Promise<boolean> {
  const result = await docker(['container', 'inspect', '--format', '{{.State.Running}}', container]);
  return result.exitCode === 0 && result.stdout.trim() === 'true';
}

/** The last `lines` lines of the container's log (stdout and stderr interleaved as docker keeps them). */
export async function logsTail(container: string, lines: number): Promise<string> {
  const result = await docker(['logs', '--tail', String(lines), container]);
  return `${result.stdout}${result.stderr}`.trimEnd();
}

/**
 * Removes a container and its anonymous volumes (`docker rm --force --volumes`).
 * @returns null on success, else docker's error text
 */
export async function removeContainer(container: string): Promise<string | null> {
  const result = await docker(['rm', '--force', '--volumes', container]);
  return result.exitCode === 0 ? null : result.stderr.trim();
}
