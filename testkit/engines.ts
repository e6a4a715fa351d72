/**
 * The second Docker engine (issue #25): Docker 29 with the containerd image store, the engine
 * GitHub's runners have, which scripts/setup-test-infra.sh (section 8) starts beside the first on
 * a socket of its own. The tests run rows on it; the benchmark measures the Docker-mode start on
 * both (DOCKER_HOST switched for a whole measurement: the project's code and the docker CLI read
 * it per call).
 */
import { run } from '../src/proc.js';

/** Where the setup starts the second engine; PG_TMPFS_ENGINE29_HOST names another. */
export const ENGINE29_HOST = process.env.PG_TMPFS_ENGINE29_HOST || 'unix:///run/pg-tmpfs-engine29/docker.sock';

/**
 * The second engine's DOCKER_HOST when it answers `docker version` within 15 000 ms, else null.
 * @returns its host and server version, or null
 */
export async function engine29(): Promise<{ host: string; version: string } | null> {
  const r = await run('docker', ['version', '--format', '{{.Server.Version}}'], {
    timeoutMs: 15_000,
    env: { DOCKER_HOST: ENGINE29_HOST },
  }).catch(() => null);
  return r?.code === 0 ? { host: ENGINE29_HOST, version: r.stdout.trim() } : null;
}

/** Runs `fn` with DOCKER_HOST set to `host`, and restores it after. */
export async function withDockerHost<T>(host: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = host;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
}
