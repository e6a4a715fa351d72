/**
 * Images on the Docker engine: what `docker image inspect` (or the Engine API on its socket) says
 * about a local image. Pulling is in pull.ts; the docker CLI calls in engine.ts.
 */
import { apiGet, localEngineSocket, pathSafeName } from './api.js';
import { docker, DOCKER_TIMEOUT_MS } from './engine.js';
import { pgdataFromEnv } from './run-plan.js';

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
