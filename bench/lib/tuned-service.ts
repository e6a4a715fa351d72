/**
 * "services, tuned (2026)" (issue #36): the container the 2026 services block
 * (templates/github/services.yaml, the job on the runner) creates, started as GitHub's runner
 * starts a job's services (actions/runner ContainerOperationProvider: `docker network create`,
 * then per service `docker create` with the arguments of DockerCommandManager.DockerCreate,
 * `docker start`, `docker ps` to see it running, `docker port`; then its health looked at until
 * it is no longer `starting`), then the template's wait step: a real query through the published
 * port. The service and the arguments come from testkit/runner-service.ts. Sections 1, 2, 8
 * and 11 use it.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ConnectionInfo } from '../../src/connection.js';
import { docker, dockerOk, healthStatus, logsTail, removeContainer } from '../../src/docker/engine.js';
import { inspectImage } from '../../src/docker/image.js';
import { run, tail } from '../../src/proc.js';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import { checkSettings, filesystemTypeOf, SETTINGS_QUERY, type PgSettingRow } from '../../src/verify.js';
import { throwIfInterrupted } from './cleanup.js';
import { publishedPort, waitHealthy } from './containers.js';
import type { Context } from './context.js';
import { runnerNetworkCreateArgs } from '../../testkit/runner-args.js';
import { runnerCreateArgs, servicesTemplate, waitStepArgv } from '../../testkit/runner-service.js';
import { runnerBackoffSeconds } from './service-container.js';

/** The variant key of the rows (`startup/service-tuned`, `workloads/…/service-tuned`, …). */
export const TUNED_KEY = 'service-tuned';

/** The variant's name in every table. */
export const TUNED_LABEL = 'services, tuned (2026)';

/** What the variant is and since when GitHub allows it. */
export const TUNED_SOURCE = 'GitHub services with command, actions/runner PR #4276';

/** How long the service may take to turn healthy, in ms. */
const HEALTHY_TIMEOUT_MS = 120_000;

/** Deadline of the wait step's process, in ms (its own loop gives up earlier). */
const WAIT_STEP_TIMEOUT_MS = 90_000;

/** A started service container of the tuned block. */
export interface TunedService {
  name: string;
  image: string;
  /** The image's PostgreSQL version (PG_VERSION in its environment, e.g. `15.18-0+deb12u1`), or ''. */
  imageVersion: string;
  /** TCP on 127.0.0.1 at the published port, with the service's user, password and database. */
  conn: ConnectionInfo;
  /** The same as a DATABASE_URL (what the wait step gets). */
  url: string;
  /** Milliseconds of `docker network create` (before the clock: the runner makes the network first). */
  networkMs: number;
  /** performance.now() just before `docker create`. */
  createAt: number;
  /** performance.now() after `docker start`, `docker ps` and `docker port` returned. */
  startedAt: number;
  /** performance.now() of the health look that saw it healthy. */
  healthyAt: number;
  /** Health looks made until then. */
  looks: number;
  /** Removes the container (with its anonymous volumes), then its network. */
  remove(): Promise<void>;
}

/** How to wait for health. */
export interface TunedOptions {
  /** `docker create` options added just before the image (e.g. the disk model's). */
  extraOptions?: readonly string[];
  /**
   * 'poll': every 100 ms, for the moment it turns healthy (the runner's look is then computed:
   * service-container.ts runnerNoticeSeconds); 'runner': at the runner's own times (right after the
   * start, then after 2, 4, 8 … s: runnerBackoffSeconds), as a job's steps would wait.
   */
  health: 'poll' | 'runner';
}

/**
 * The bench's one change to the runner's arguments: every published port goes to 127.0.0.1 on a
 * port Docker picks (`-p 127.0.0.1::5432`). The runner publishes `-p 5432` on every interface;
 * the benchmark publishes on 127.0.0.1 only (its rule), and a fixed host port (`5432:5432`) would
 * clash between servers of one run.
 */
export function localPorts(args: readonly string[]): string[] {
  return args.map((a, i) => {
    const flag = args[i - 1];
    if (i === 0 || (flag !== '-p' && flag !== '--publish')) return a;
    return `127.0.0.1::${a.split(':').at(-1) ?? a}`;
  });
}

/** `NAME=value` entries as a record. */
const envRecord = (entries: readonly string[]) =>
  Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));

/** Looks at the health at the runner's times until it is not `starting`. @returns when it saw `healthy`, and the looks */
async function runnerLooks(name: string): Promise<{ at: number; looks: number }> {
  const deadline = Date.now() + HEALTHY_TIMEOUT_MS;
  for (let retry = 0; ; retry++) {
    throwIfInterrupted();
    const status = await healthStatus(name);
    if (status === 'healthy') return { at: performance.now(), looks: retry + 1 };
    if (status !== 'starting') throw new Error(`service ${name} is ${status || 'without a health check'}`);
    if (Date.now() > deadline) throw new Error(`service ${name} not healthy within ${HEALTHY_TIMEOUT_MS} ms`);
    await sleep(runnerBackoffSeconds(retry) * 1000);
  }
}

/**
 * Starts the tuned service of `image` as the runner does: its network, `docker create` with
 * runnerCreateArgs (ports on 127.0.0.1: localPorts), `docker start`, `docker ps`, `docker port`,
 * then health as `opts.health` says. Network and container are registered for removal before
 * they are made.
 * @param name container name (starts with the run's prefix); the network is `<name>-net`
 * @throws Error when the image lacks PG_MAJOR, from docker, when the container is not running
 *   after its start, or is not healthy within 120 000 ms; what was made is removed first
 */
export async function startTunedService(ctx: Context, name: string, image: string, opts: TunedOptions): Promise<TunedService> {
  const inspected = await inspectImage(image);
  if (!inspected) throw new Error(`image ${image} is not present`);
  const imageEnv = envRecord(inspected.env);
  const major = Number(imageEnv.PG_MAJOR);
  if (!(major > 0)) throw new Error(`image ${image} sets no PG_MAJOR: the tmpfs path of the services block depends on it`);
  const svc = servicesTemplate('runner', major, image);
  const network = `${name}-net`;
  const removeNetwork = ctx.cleanup.add(`network ${network}`, async () => {
    const r = await docker(['network', 'rm', network]);
    if (r.exitCode !== 0 && !/not found/i.test(r.stderr)) throw new Error(`docker network rm ${network}: ${r.stderr.trim()}`);
  });
  const removeService = ctx.cleanup.add(`container ${name}`, async () => {
    const problem = await removeContainer(name);
    if (problem) throw new Error(`docker rm ${name}: ${problem}`);
  });
  const remove = async () => {
    await removeService();
    await removeNetwork();
  };
  try {
    const n0 = performance.now();
    await dockerOk(runnerNetworkCreateArgs(network, ctx.prefix), 'docker network create', 'See the Docker error');
    const networkMs = performance.now() - n0;
    const args = localPorts(runnerCreateArgs(svc, { name, network, alias: 'postgres', label: ctx.prefix }));
    const at = args.lastIndexOf(svc.image);
    const createArgs = [...args.slice(0, at), ...(opts.extraOptions ?? []), ...args.slice(at)];
    const createAt = performance.now();
    const id = (await dockerOk(createArgs, 'docker create', 'See the Docker error', undefined, 120_000)).trim();
    ctx.containerIds.push(id);
    await dockerOk(['start', id], 'docker start', 'See the Docker error', undefined, 120_000);
    const ps = await dockerOk(
      ['ps', '--all', '--filter', `id=${id}`, '--filter', 'status=running', '--no-trunc', '--format', '{{.ID}} {{.Status}}'],
      'docker ps',
      'See the Docker error',
    );
    if (!ps.startsWith(id)) throw new Error(`service ${name} is not running after its start: ${await logsTail(name, 8)}`);
    const port = await publishedPort(name);
    const startedAt = performance.now();
    const healthy =
      opts.health === 'poll' ? { at: await waitHealthy(name, HEALTHY_TIMEOUT_MS, 100), looks: 0 } : await runnerLooks(name);
    const user = svc.env.POSTGRES_USER || 'postgres';
    const conn = {
      host: '127.0.0.1',
      port,
      user,
      password: svc.env.POSTGRES_PASSWORD ?? '',
      database: svc.env.POSTGRES_DB || user,
    };
    const url = `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(conn.password)}@127.0.0.1:${port}/${encodeURIComponent(conn.database)}`;
    return {
      name,
      image,
      imageVersion: imageEnv.PG_VERSION ?? '',
      conn,
      url,
      networkMs,
      createAt,
      startedAt,
      healthyAt: healthy.at,
      looks: healthy.looks,
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Runs the template's wait step (waitStepArgv) for the service, as the job's first step: its own
 * process, 90 000 ms deadline, GITHUB_ENV set to /dev/null (the runner always sets it; what the
 * step appends there is not needed here).
 * @returns its wall time in ms (spawn to exit)
 * @throws Error with its output when it fails
 */
export async function runWaitStep(svc: TunedService): Promise<number> {
  const [program, ...args] = waitStepArgv(svc.url);
  const r = await run(program as string, args, { timeoutMs: WAIT_STEP_TIMEOUT_MS, env: { GITHUB_ENV: '/dev/null' } });
  if (r.code !== 0)
    throw new Error(`the wait step exited with ${r.code}${r.timedOut ? ' (deadline)' : ''}: ${tail(r.stderr || r.stdout)}`);
  return r.ms;
}

/**
 * Checks that the block's settings took: every setting of the durability profile (src/profile.ts)
 * as pg_settings shows it, and PGDATA on tmpfs (the server's /proc/self/mounts).
 * @returns the server's version (server_version) and PGDATA's filesystem
 * @throws Error naming the settings not in effect, or PGDATA's filesystem when it is not tmpfs
 */
export async function checkTuned(conn: ConnectionInfo): Promise<{ serverVersion: string; filesystem: string }> {
  const client = new pg.Client({ ...conn, connectionTimeoutMillis: 10_000, statement_timeout: 30_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const names = DURABILITY_SETTINGS.map((s) => s.name.toLowerCase());
    const rows = (await client.query<PgSettingRow>(SETTINGS_QUERY, [names])).rows;
    const bad = checkSettings(DURABILITY_SETTINGS, rows).filter((s) => !s.ok);
    if (bad.length) throw new Error(`${TUNED_LABEL}: the profile is not in effect: ${JSON.stringify(bad)}`);
    const r = await client.query<{ v: string; d: string; m: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('data_directory') AS d, pg_read_file('/proc/self/mounts') AS m",
    );
    const row = r.rows[0];
    const filesystem = (row && filesystemTypeOf(row.d, row.m)) ?? 'unknown';
    if (filesystem !== 'tmpfs') throw new Error(`${TUNED_LABEL}: PGDATA ${row?.d ?? '?'} is on ${filesystem}, not tmpfs`);
    return { serverVersion: row?.v ?? '', filesystem };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What every row's details carry about the alternative: the image, its version, the server's. */
export function tunedDetails(svc: TunedService, serverVersion: string): Record<string, unknown> {
  return { image: svc.image, imageVersion: svc.imageVersion, serverVersion, networkMs: Math.round(svc.networkMs) };
}
