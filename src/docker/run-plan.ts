/**
 * Building `docker run` arguments (pure; no Docker needed). Every value is a separate argv entry:
 * nothing is ever interpolated into a shell string.
 */
import type { Config } from '../inputs.js';
import { InputError } from '../errors.js';
import { effectiveSettings, INITDB_ARGS, settingsToArgs, type Setting } from '../profile.js';

/** Port the official image's server listens on inside the container. */
export const CONTAINER_PORT = 5432;

/** Label put on every container this project starts, so leftovers can be found. */
export const CONTAINER_LABEL = 'io.github.pg-tmpfs-action';

/** What `docker run` needs: its arguments, and environment for the docker process itself. */
interface RunPlan {
  /** Arguments after `docker`, starting with `run`. */
  args: string[];
  /**
   * Environment variables passed to the `docker` process. Credentials go through here with
   * `-e NAME` (no value in argv), so they do not show in `ps` output.
   */
  env: Record<string, string>;
}

/** What the run plan needs of the image (from `docker image inspect`). */
export interface ImageLayout {
  /** The image's PGDATA, e.g. `/var/lib/postgresql/18/docker`. */
  pgdata: string;
  /** The image's VOLUMEs, e.g. `['/var/lib/postgresql']`. */
  volumes: readonly string[];
}

/** Where the server's port goes: published on the host, or on the job container's network. */
export type Reach = { kind: 'publish' } | { kind: 'network'; network: string };

/** `path` without trailing slashes (`/` stays `/`), as Docker compares mount points. */
function trimSlash(path: string): string {
  return path.replace(/(.)\/+$/, '$1');
}

/** Whether `path` is `dir` or below it. */
function isBelow(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  return path === dir || path.startsWith(d);
}

/**
 * Where the tmpfs for an image's PGDATA goes: on every VOLUME that holds PGDATA (so Docker makes
 * no anonymous volume on disk for any of them at every start), else on PGDATA itself. Official
 * image layouts (docker-library/postgres Dockerfiles): up to 17 PGDATA = VOLUME =
 * /var/lib/postgresql/data; from 18 PGDATA /var/lib/postgresql/<major>/docker below VOLUME
 * /var/lib/postgresql, where a mount on /var/lib/postgresql/data would make the entrypoint refuse
 * to start. A derived image may nest VOLUMEs (e.g. /var/lib/postgresql and
 * /var/lib/postgresql/data): each gets a tmpfs, and Docker mounts the outer one first. Other
 * VOLUMEs (e.g. a derived image's /docker-entrypoint-initdb.d) keep Docker's volume, which
 * carries the image's files there; a tmpfs would start empty.
 * @returns the mount points, outermost first, without trailing slashes
 */
export function tmpfsPaths(layout: ImageLayout): string[] {
  const pgdata = trimSlash(layout.pgdata);
  const holders = [...new Set(layout.volumes.map(trimSlash))]
    .filter((v) => v !== '/' && isBelow(pgdata, v))
    .sort((a, b) => a.length - b.length);
  return holders.length ? holders : [pgdata];
}

/**
 * The `--tmpfs` values for tmpfsPaths(layout), `PATH:options`: mode 0700 on PGDATA itself, 1777
 * on a parent (the official image's /var/lib/postgresql is 1777, and the entrypoint creates
 * PGDATA in it); `size` (e.g. `1g`) caps each, none when null.
 */
export function tmpfsMounts(layout: ImageLayout, size: string | null): string[] {
  const sized = size ? [`size=${size}`] : [];
  const pgdata = trimSlash(layout.pgdata);
  return tmpfsPaths(layout).map((path) => `${path}:${['rw', path === pgdata ? 'mode=0700' : 'mode=1777', ...sized].join(',')}`);
}

/**
 * POSTGRES_INITDB_ARGS for `config`: `--nosync`, and the locale input when it names another
 * locale than the default C (with the default, the image keeps its own: en_US.utf8 in the
 * official Debian images). The schema cache's key holds it (docker/schema-cache.ts).
 */
export function initdbArgsEnv(config: Pick<Config, 'locale'>): string {
  return [...INITDB_ARGS, ...(config.locale !== 'C' ? [`--locale=${config.locale}`] : [])].join(' ');
}

/** The file whose existence tells a restore wrapper (RESTORE_WRAPPER) that the cluster is in place. */
export const RESTORED_MARKER = '/tmp/.pg-tmpfs-restored';

/** Deadline of writing a schema-cache entry into the container, in ms: 300 000 (a cluster of a few GB). */
export const RESTORE_TIMEOUT_MS = 300_000;

/**
 * The command a container starts with when a schema-cache entry is to be restored into it
 * (`--entrypoint sh`, then `-c RESTORE_WRAPPER pg-tmpfs SECONDS ENTRYPOINT… postgres ARGS…`): it
 * waits, at most SECONDS, until the restore has put the cluster into PGDATA and made
 * RESTORED_MARKER, then runs the image's own entrypoint, once, which finds PGDATA holding a
 * database and skips initdb and the init scripts ("PostgreSQL Database directory appears to
 * contain a database; Skipping initialization", docker-library/postgres docker-entrypoint.sh).
 * Inputs reach it only as arguments.
 */
export const RESTORE_WRAPPER = [
  'end=$(( $(date +%s) + $1 )); shift',
  `while [ ! -e ${RESTORED_MARKER} ]; do`,
  '  if [ "$(date +%s)" -ge "$end" ]; then echo "pg-tmpfs: the schema cache restore did not arrive" >&2; exit 1; fi',
  '  sleep 0.01',
  'done',
  'exec "$@"',
].join('\n');

/** How long the restore wrapper waits for the entry, in seconds: the restore's deadline and wait-timeout, as the restore's `docker exec` has them. */
function restoreWaitSeconds(config: Pick<Config, 'waitTimeoutMs'>): number {
  return Math.ceil((RESTORE_TIMEOUT_MS + config.waitTimeoutMs) / 1000);
}

/**
 * The `docker run -d` plan for `config` and the image's layout: its VOLUMEs and PGDATA on tmpfs
 * (tmpfsMounts), and the port published on `config.publishHost` (default 127.0.0.1), or, in a
 * `container:` job, the container on the job's network under its name. `token` (this run's
 * random token) goes into the label `io.github.pg-tmpfs-action.run`, which finds the container
 * when the run was killed before `docker run` returned its ID. With `restore` (the image's
 * entrypoint), the container starts with RESTORE_WRAPPER (`--entrypoint sh`), which waits for a
 * schema-cache entry and then runs the image's entrypoint.
 * The official image reads POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB and
 * POSTGRES_INITDB_ARGS, and passes arguments starting with `-` to `postgres`
 * (docker-library/postgres, "Environment Variables" in the image docs).
 */
export function buildRunPlan(
  config: Config,
  layout: ImageLayout,
  reach: Reach = { kind: 'publish' },
  token = '',
  restore: { entrypoint: readonly string[] } | null = null,
): RunPlan {
  const publish = `${config.publishHost.includes(':') ? `[${config.publishHost}]` : config.publishHost}:${
    config.port === 0 ? '' : config.port
  }:${CONTAINER_PORT}`;
  const env = {
    POSTGRES_USER: config.user,
    POSTGRES_PASSWORD: config.password,
    POSTGRES_DB: config.database,
    POSTGRES_INITDB_ARGS: initdbArgsEnv(config),
  };
  const args = [
    'run',
    '--detach',
    '--name',
    config.containerName,
    '--label',
    `${CONTAINER_LABEL}=1`,
    ...(token ? ['--label', `${CONTAINER_LABEL}.run=${token}`] : []),
    ...tmpfsMounts(layout, config.tmpfsSize).flatMap((m) => ['--tmpfs', m]),
    '--shm-size',
    config.shmSize,
    ...(reach.kind === 'network'
      ? ['--network', reach.network, '--network-alias', config.containerName]
      : ['--publish', publish]),
    ...Object.keys(env).flatMap((name) => ['--env', name]),
    ...(restore ? ['--entrypoint', 'sh'] : []),
    config.image,
    ...(restore
      ? ['-c', RESTORE_WRAPPER, 'pg-tmpfs', String(restoreWaitSeconds(config)), ...restore.entrypoint, 'postgres']
      : []),
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

/**
 * The most bytes of `name=value` the settings input may hold in all in Docker mode: 30 000. The
 * image's entrypoint hands every server argument to `pg_ctl -o` as one shell-quoted string
 * (docker-entrypoint.sh docker_temp_server_start: `printf '%q '`), and Linux limits one argument
 * to 128 KiB (MAX_ARG_STRLEN, 131 072 bytes); quoting takes up to 4 bytes per byte (`$'\303'`).
 * Beyond it the entrypoint fails with "Argument list too long".
 */
export const DOCKER_SETTINGS_MAX_BYTES = 30_000;

/**
 * Checks that Docker mode can pass the settings input (DOCKER_SETTINGS_MAX_BYTES).
 * @throws InputError (settings) for settings of more than DOCKER_SETTINGS_MAX_BYTES bytes in all, naming the longest
 */
export function checkDockerSettings(settings: readonly Setting[]): void {
  const sizes = settings.map((s) => ({ name: s.name, bytes: Buffer.byteLength(`${s.name}=${s.value}`) }));
  const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
  if (total <= DOCKER_SETTINGS_MAX_BYTES) return;
  const longest = sizes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  throw new InputError(
    'settings',
    `are ${total} bytes in all (${longest.name} alone ${longest.bytes}), and Docker mode passes at most ${DOCKER_SETTINGS_MAX_BYTES}: the image's entrypoint hands them to pg_ctl as one argument, which Linux limits to 128 KiB once quoted`,
    `Shorten ${longest.name}, set it in an init file instead (ALTER DATABASE … SET ${longest.name} = …), or use mode: native`,
  );
}
