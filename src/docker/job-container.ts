/**
 * `container:` jobs. GitHub runs such a job's steps inside a job container on a user-defined
 * bridge network (`job.container.network`), with the host's Docker socket mounted; 127.0.0.1 there
 * is the job container itself, so a port published on the host's 127.0.0.1 cannot be reached.
 * The server joins the job's network instead and is reached by its container name on port 5432,
 * as GitHub's own service containers are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { apiGet, localEngineSocket, pathSafeName } from './api.js';
import { docker, DOCKER_TIMEOUT_MS } from './engine.js';

/** The network of the job container this process runs in. */
interface JobNetwork {
  /** ID (or host name) of the job container. */
  container: string;
  /** The user-defined network to join, e.g. `github_network_0a1b…`. */
  network: string;
}

/** Docker's own networks, which are not a job's network. */
const BUILTIN_NETWORKS = new Set(['bridge', 'host', 'none']);

/**
 * The ID of the container this process runs in, from /proc/self/mountinfo: Docker bind-mounts
 * /etc/hostname, /etc/hosts and /etc/resolv.conf from `<data-root>/containers/<id>/`.
 * @returns the 64-hex-digit ID, or null when none is named there
 */
export function containerIdFromMountinfo(mountinfo: string): string | null {
  return /\/containers\/([0-9a-f]{64})\/(?:hostname|hosts|resolv\.conf)\b/.exec(mountinfo)?.[1] ?? null;
}

/**
 * The network to join, from `docker container inspect --format '{{json .NetworkSettings.Networks}}'`.
 * @returns the first user-defined network by name, or null when the container is only on
 *   Docker's own networks (bridge, host: there the host's published port works as today)
 */
export function userNetwork(networksJson: string): string | null {
  const networks = JSON.parse(networksJson || '{}') as Record<string, unknown> | null;
  return (
    Object.keys(networks ?? {})
      .filter((n) => !BUILTIN_NETWORKS.has(n))
      .sort()[0] ?? null
  );
}

/**
 * Finds the job's network when this process runs in a container (/.dockerenv exists) that the
 * Docker engine knows (the socket is mounted into it): asks the Engine API on its socket where
 * the environment names it (api.ts), else `docker container inspect`.
 * @param timeoutMs deadline of the question, in ms
 * @returns null on a host, in a container the engine does not know, or on Docker's own networks
 * @throws SetupError when the docker CLI is missing or the deadline passes; InterruptedError
 */
export async function detectJobNetwork(timeoutMs = DOCKER_TIMEOUT_MS): Promise<JobNetwork | null> {
  if (!existsSync('/.dockerenv')) return null;
  let container: string = hostname();
  try {
    container = containerIdFromMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')) ?? container;
  } catch {
    // not Linux, or no /proc: the host name is Docker's default for it (the short ID)
  }
  const socket = pathSafeName(container) ? localEngineSocket() : null;
  const answer = socket ? await apiGet(socket, `/containers/${container}/json`, 'docker container', timeoutMs) : null;
  let networks: string | null = null;
  if (answer?.status === 404) return null;
  if (answer?.status === 200) {
    try {
      networks = JSON.stringify(
        (JSON.parse(answer.body) as { NetworkSettings?: { Networks?: unknown } }).NetworkSettings?.Networks ?? {},
      );
    } catch {
      // not the answer expected: ask the CLI
    }
  }
  if (networks === null) {
    const r = await docker(
      ['container', 'inspect', '--format', '{{json .NetworkSettings.Networks}}', container],
      undefined,
      timeoutMs,
    );
    if (r.exitCode !== 0) return null;
    networks = r.stdout.trim();
  }
  const network = userNetwork(networks);
  return network ? { container, network } : null;
}
