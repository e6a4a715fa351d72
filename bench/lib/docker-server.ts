/**
 * The benchmark's one way of starting a PostgreSQL container itself (the floors, section 4's
 * client paths, section 7's servers, section 9's Docker majors): the action's inputs, the run
 * plan (buildRunPlan: tmpfs on the image's VOLUMEs and PGDATA, the profile's settings), `docker
 * run` with those options, the published port, and a real query polled until it is answered.
 * start() itself is timed through bench/lib/timed.ts startRegistered instead.
 */
import { performance } from 'node:perf_hooks';
import type { ConnectionInfo } from '../../src/connection.js';
import { buildRunPlan, type ImageLayout } from '../../src/docker/run-plan.js';
import type { Config } from '../../src/inputs.js';
import { publishedPort, runContainer, type BenchContainer } from './containers.js';
import type { Context } from './context.js';
import { untilAnswered } from './query.js';
import { inputs } from './timed.js';

/**
 * buildRunPlan's arguments without `run --detach --name N --label L`: runContainer adds the
 * first three, and the project's label would make concurrently running e2e tests count the
 * container as one of theirs. Everything that affects the server stays.
 */
export function runOptions(planArgs: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < planArgs.length; i++) {
    const a = planArgs[i] as string;
    if (i < 2 && (a === 'run' || a === '--detach')) continue;
    if (a === '--name' || a === '--label') {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** What container to run and how to wait for it. */
export interface DockerServerSpec {
  /** Container name (starts with the run's prefix). */
  name: string;
  image: string;
  /** The image's PGDATA and VOLUMEs (containers.ts imageLayout). */
  layout: ImageLayout;
  /** The action's `settings` input (default: none beyond the profile). */
  settings?: string;
  /** POSTGRES_INITDB_ARGS instead of the plan's (e.g. `--no-data-checksums` added). */
  initdbArgs?: readonly string[];
  /** docker run options added just before the image (e.g. a bind mount). */
  extraOptions?: readonly string[];
  /**
   * On the host network (`--network host`, no published port), listening on 127.0.0.1 at this
   * port (`-c port=… -c listen_addresses=127.0.0.1` after the plan's settings).
   */
  hostNetworkPort?: number;
  /** Interval of the readiness poll, ms (the floors: 5). */
  pollMs: number;
}

/** A container that answered a query. */
export interface DockerServer {
  name: string;
  /** The action's inputs it was planned from (user, password, database, settings). */
  config: Config;
  /** TCP on 127.0.0.1 with the password, to database `postgres`. */
  conn: ConnectionInfo;
  /** Seconds from just before `docker run` until the first answered query. */
  seconds: number;
  /** Queries tried until one was answered. */
  attempts: number;
  /** Removes the container with its anonymous volumes. */
  remove(): Promise<void>;
}

/**
 * Runs a container for `spec` (registered for removal before it is created) and polls a query
 * every `spec.pollMs` ms until it is answered, for at most 120 000 ms; the clock starts just
 * before `docker run`.
 * @throws Error from docker run, or NotReadyError when no query is answered in time; the
 *   container is removed first
 */
export async function startDockerServer(ctx: Context, spec: DockerServerSpec): Promise<DockerServer> {
  const config = inputs({
    mode: 'docker',
    image: spec.image,
    port: '0',
    'container-name': spec.name,
    ...(spec.settings ? { settings: spec.settings } : {}),
  });
  const plan = buildRunPlan(config, spec.layout);
  let options = runOptions(plan.args);
  if (spec.hostNetworkPort !== undefined)
    options = options.filter((a, i, all) => a !== '--publish' && all[i - 1] !== '--publish');
  const imageAt = options.indexOf(spec.image);
  const args = [
    ...options.slice(0, imageAt),
    ...(spec.extraOptions ?? []),
    ...(spec.hostNetworkPort !== undefined ? ['--network', 'host'] : []),
    ...options.slice(imageAt),
    ...(spec.hostNetworkPort !== undefined ? ['-c', `port=${spec.hostNetworkPort}`, '-c', 'listen_addresses=127.0.0.1'] : []),
  ];
  const env = spec.initdbArgs ? { ...plan.env, POSTGRES_INITDB_ARGS: spec.initdbArgs.join(' ') } : plan.env;
  const t0 = performance.now();
  const container: BenchContainer = await runContainer(ctx, spec.name, args, env);
  try {
    const port = spec.hostNetworkPort ?? (await publishedPort(spec.name));
    const conn = { host: '127.0.0.1', port, user: config.user, password: config.password, database: 'postgres' };
    const attempts = await untilAnswered(conn, 120_000, spec.pollMs);
    const seconds = (performance.now() - t0) / 1000;
    return { name: spec.name, config, conn, seconds, attempts, remove: () => container.remove() };
  } catch (error) {
    await container.remove();
    throw error;
  }
}
