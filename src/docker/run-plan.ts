/**
 * Building `docker run` arguments (pure; no Docker needed). Every value is a separate argv entry:
 * nothing is ever interpolated into a shell string.
 */
import type { Config } from '../inputs.js';
import { effectiveSettings, INITDB_ARGS, settingsToArgs } from '../profile.js';

/** Port the official image's server listens on inside the container. */
export const CONTAINER_PORT = 5432;

/** Label put on every container this project starts, so leftovers can be found. */
export const CONTAINER_LABEL = 'io.github.pg-tmpfs-action';

/** What `docker run` needs: its arguments, and environment for the docker process itself. */
export interface RunPlan {
  /** Arguments after `docker`, starting with `run`. */
  args: string[];
  /**
   * Environment variables passed to the `docker` process. Credentials go through here with
   * `-e NAME` (no value in argv), so they do not show in `ps` output.
   */
  env: Record<string, string>;
}

/**
 * The `docker run -d` plan for `config`, with `pgdata` (the image's own PGDATA, from
 * `docker image inspect`) on a tmpfs.
 * The official image reads POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB and
 * POSTGRES_INITDB_ARGS, and passes arguments starting with `-` to `postgres`
 * (docker-library/postgres, "Environment Variables" in the image docs).
 */
export function buildRunPlan(config: Config, pgdata: string): RunPlan {
  const tmpfsOptions = ['rw', 'mode=0700', ...(config.tmpfsSize ? [`size=${config.tmpfsSize}`] : [])];
  const publish = `${config.publishHost.includes(':') ? `[${config.publishHost}]` : config.publishHost}:${
    config.port === 0 ? '' : config.port
  }:${CONTAINER_PORT}`;
  const env = {
    POSTGRES_USER: config.user,
    POSTGRES_PASSWORD: config.password,
    POSTGRES_DB: config.database,
    POSTGRES_INITDB_ARGS: INITDB_ARGS.join(' '),
  };
  const args = [
    'run',
    '--detach',
    '--name',
    config.containerName,
    '--label',
    `${CONTAINER_LABEL}=1`,
    '--tmpfs',
    `${pgdata}:${tmpfsOptions.join(',')}`,
    '--shm-size',
    config.shmSize,
    '--publish',
    publish,
    ...Object.keys(env).flatMap((name) => ['--env', name]),
    config.image,
    ...settingsToArgs(effectiveSettings(config.settings)),
  ];
  return { args, env };
}

/**
 * Parses `docker port CONTAINER 5432/tcp` output ("127.0.0.1:49153", possibly several lines,
 * IPv6 as "[::1]:49153").
 * @returns the first published host port
 * @throws Error when no port is found
 */
export function parseDockerPort(output: string): number {
  for (const line of output.split('\n')) {
    const match = /:(\d+)\s*$/.exec(line.trim());
    if (match) return Number(match[1]);
  }
  throw new Error(`no published port in docker port output: ${JSON.stringify(output)}`);
}

/**
 * Reads PGDATA from an image's `Config.Env` (as `docker image inspect` gives it). The official
 * image sets it: /var/lib/postgresql/data up to 17, /var/lib/postgresql/<major>/docker from 18.
 * @returns the path, or null when the image does not set PGDATA
 */
export function pgdataFromEnv(env: readonly string[] | null | undefined): string | null {
  for (const entry of env ?? []) {
    if (entry.startsWith('PGDATA=')) return entry.slice('PGDATA='.length) || null;
  }
  return null;
}
