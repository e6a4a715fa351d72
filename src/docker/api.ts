/**
 * The Engine API on its Unix socket, for the questions a Docker start waits on before
 * `docker run`: the image's layout (`GET /images/{name}/json`, the call `docker image inspect`
 * makes) and, in a container, that container's networks (`GET /containers/{id}/json`). Asked
 * directly the daemon answers in 1 to 2 ms; through the docker CLI, a process started per call,
 * in 15 to 30 ms here. Only where the environment alone tells which socket the CLI would
 * use; anywhere else (a context, tcp, ssh, not Linux) the caller asks the CLI.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import { interrupted, InterruptedError } from '../interrupt.js';

/** The Engine API's socket when nothing else is named (Linux). */
export const DEFAULT_SOCKET = '/var/run/docker.sock';

/** How often a pending request looks for an interruption, in ms (50). */
const INTERRUPT_POLL_MS = 50;

/**
 * The Unix socket the docker CLI would talk to, as the CLI resolves it (docker/cli,
 * cli/command/cli.go resolveContextName): DOCKER_CONTEXT first, then DOCKER_HOST, then
 * `currentContext` of the CLI's config, else the default socket. Only the default context names
 * a socket without reading the context store, so any other context gives null.
 * @param env the environment (DOCKER_CONTEXT, DOCKER_HOST)
 * @param configText the text of the CLI's config.json, or null when there is none
 * @param platform process.platform
 * @returns the socket's path, or null when the CLI may talk to something else
 */
export function engineSocket(env: NodeJS.ProcessEnv, configText: string | null, platform: string): string | null {
  if (platform !== 'linux') return null;
  if (env.DOCKER_CONTEXT && env.DOCKER_CONTEXT !== 'default') return null;
  if (env.DOCKER_HOST) return /^unix:\/\/\/./.test(env.DOCKER_HOST) ? env.DOCKER_HOST.slice('unix://'.length) : null;
  if (!env.DOCKER_CONTEXT && configText) {
    try {
      const current = (JSON.parse(configText) as { currentContext?: unknown }).currentContext;
      if (current && current !== 'default') return null;
    } catch {
      return null; // the CLI would refuse it too; let it say so
    }
  }
  return DEFAULT_SOCKET;
}

/** The text of the docker CLI's config.json ($DOCKER_CONFIG, else ~/.docker), or null when there is none. */
function cliConfigText(): string | null {
  try {
    return readFileSync(join(process.env.DOCKER_CONFIG || join(homedir(), '.docker'), 'config.json'), 'utf8');
  } catch {
    return null;
  }
}

/** The socket for this process's environment (engineSocket), or null. */
export function localEngineSocket(): string | null {
  return engineSocket(process.env, cliConfigText(), process.platform);
}

/**
 * Whether a name can go into an API path as it is: an image reference or a container name or ID
 * (letters, digits, `._/:@-`) without `.` or `..` segments, which the daemon's router would
 * resolve to another path.
 */
export function pathSafeName(name: string): boolean {
  return /^[a-z0-9][a-z0-9._/:@-]*$/i.test(name) && !name.split('/').some((s) => s === '.' || s === '..');
}

/**
 * `GET path` on the Engine API's Unix socket, with a deadline; stops when the process is
 * interrupted (SIGINT, SIGTERM, SIGHUP).
 * @param what the docker command this stands for, for the timeout error, e.g. `docker image`
 * @param timeoutMs deadline for the whole answer, in ms
 * @returns the status and body; null when the socket cannot be reached (missing, no permission,
 *   refused, closed): the caller then asks the CLI, which reports it as usual
 * @throws SetupError when the answer does not come within timeoutMs (as docker() words it);
 *   InterruptedError
 */
export function apiGet(
  socketPath: string,
  path: string,
  what: string,
  timeoutMs: number,
): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve, reject) => {
    let failure: Error | null = null;
    const req = http.request({ socketPath, path, method: 'GET', agent: false, headers: { host: 'docker' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(() => resolve({ status: res.statusCode ?? 0, body })));
      res.on('error', () => done(() => (failure ? reject(failure) : resolve(null))));
    });
    const stop = (error: Error) => {
      failure = error;
      req.destroy(error);
    };
    const timer = setTimeout(
      () =>
        stop(
          new SetupError(
            `${what} did not finish within ${Math.round(timeoutMs / 1000)} s`,
            'The Docker daemon is not answering; check it (`docker info`) and try again',
          ),
        ),
      timeoutMs,
    );
    const poll = setInterval(() => {
      const signal = interrupted();
      if (signal) stop(new InterruptedError(signal));
    }, INTERRUPT_POLL_MS);
    const done = (settle: () => void) => {
      clearTimeout(timer);
      clearInterval(poll);
      settle();
    };
    req.on('error', () => done(() => (failure ? reject(failure) : resolve(null))));
    req.end();
  });
}
