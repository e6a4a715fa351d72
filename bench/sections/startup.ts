/**
 * Section 1: time to the first answered query.
 *
 * - The action's Docker mode and native mode (initdb cache cold and warm), through start(): the
 *   wall time of the call, which includes the project's verification of settings and tmpfs.
 * - The CLI as users run it, `pg-tmpfs up` in native mode, the whole process (node start until it
 *   exits), initdb cache warm and cold, with the breakdown of where its time went (`up --json`
 *   reports phasesMs, src/timing.ts); `node -e 0` for Node's own start.
 * - Floors: the same `docker run` (buildRunPlan's arguments) with a query every 5 ms; `pg_ctl -w
 *   start` of a ready data directory on /dev/shm, then one query; native: copy the cached cluster
 *   (fs.cpSync, then chown), spawn `postgres` with the profile, poll `SELECT 1` on its socket
 *   every 2 ms, all inside this process (no process start of its own); `initdb --nosync` alone,
 *   for the cold start's target.
 * - What users do today: a stock container with its default disk volume (query every 5 ms); a
 *   GitHub-style service container with `--health-cmd pg_isready` (time until "healthy", and
 *   whether a real query right after it succeeds), at the usual 10 s interval and at 1 s.
 */
import {
  appendFileSync,
  chownSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildRunPlan } from '../../src/docker/run-plan.js';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import getPort from 'get-port';
import { CONTAINER_PASSWORD, imageLayout, publishedPort, runContainer, waitHealthy } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { BENCH_PASSWORD, placeCluster, withClient } from '../lib/pgserver.js';
import { run, runOk } from '../../src/proc.js';
import { ensureCluster, initdbArgs, type RunAs } from '../../src/native/initdb-cache.js';
import { dataDirOf, RUN_MARKER, spawnPostgres, stopPostgres } from '../../src/native/postgres.js';
import type { NativeHandle } from '../../src/server.js';
import { tryQuery, untilAnswered } from '../lib/query.js';
import { inputs, measureVariants, startRegistered, type Variant } from '../lib/timed.js';

/**
 * When GitHub's runner sees a service container healthy: it inspects right after starting it,
 * then after waits of 2, 4, 8, 16, 32, 32 ... s (actions/runner, ContainerOperationProvider
 * ContainerHealthcheck: BackoffTimerHelper.GetExponentialBackoff(retry, min 2 s, max 32 s,
 * delta 2 s), ±20 % jitter on the growing part, left out here).
 * @param healthySeconds when the container turned healthy, counted from the runner's first look
 * @returns the runner's first look at or after that moment, in seconds
 */
export function runnerNoticeSeconds(healthySeconds: number): number {
  let t = 0;
  for (let retry = 0; retry < 64; retry++) {
    if (t >= healthySeconds) return t;
    t += Math.min(2 + (2 ** retry - 1) * 2, 32);
  }
  return t;
}

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

/** The CLI's entry, as `npx pg-tmpfs` runs it. */
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

/** chown -R, the plain way (the native floor's copy). */
function chownAll(path: string, who: RunAs): void {
  chownSync(path, who.uid, who.gid);
  if (lstatSync(path).isDirectory()) for (const n of readdirSync(path)) chownAll(join(path, n), who);
}

/**
 * `pg-tmpfs up --mode native --json` as a separate process, timed from spawn to exit, then
 * `down` (registered for cleanup before it starts).
 * @returns seconds and the phases the CLI reported (phasesMs)
 */
async function cliUp(ctx: Context, name: string, cacheDir: string, stateDir: string, major: string) {
  const env = { PG_TMPFS_STATE_DIR: stateDir };
  const down = ctx.cleanup.add(`CLI instance ${name}`, async () => {
    const r = await run(process.execPath, [CLI, 'down', '--name', name], { timeoutMs: 60_000, env });
    if (r.code !== 0) throw new Error(`pg-tmpfs down: ${r.stderr.trim()}`);
  });
  try {
    const t0 = performance.now();
    const r = await run(
      process.execPath,
      [CLI, 'up', '--mode', 'native', '--postgres-version', major, '--name', name, '--cache-dir', cacheDir, '--json', '--quiet'],
      { timeoutMs: 120_000, env },
    );
    const seconds = (performance.now() - t0) / 1000;
    if (r.code !== 0) throw new Error(`pg-tmpfs up exited with ${r.code}: ${r.stderr.trim()}`);
    const out = JSON.parse(r.stdout) as { phasesMs: Record<string, number>; cacheHit: boolean; tmpfs: boolean };
    if (!out.tmpfs) throw new Error('pg-tmpfs up: PGDATA not on tmpfs');
    return { seconds, details: { phasesMs: out.phasesMs, cacheHit: out.cacheHit } };
  } finally {
    await down();
  }
}

export async function runStartup(ctx: Context): Promise<void> {
  const image = ctx.options.image;
  const layout = await imageLayout(image);
  const major = String(ctx.major);

  // Warm-ups (not measured): the image's files in the page cache, and the warm initdb cache.
  ctx.log('startup: warming up (image files, native initdb cache)');
  await runOk('docker', ['run', '--rm', '--entrypoint', 'postgres', image, '--version'], { timeoutMs: 120_000 });
  const warmCache = join(ctx.diskWork, 'warm-cache');
  await startRegistered(ctx, {
    mode: 'native',
    'postgres-version': major,
    port: '0',
    'container-name': `${ctx.prefix}-warmup`,
    'cache-dir': warmCache,
  });
  // The entry the warm starts copy (the floor copies the same one), and the CLI's state folder.
  const warmEntry = (await ensureCluster(warmCache, { bindir: ctx.bindir, user: 'postgres', locale: 'C' }, ctx.runAs, undefined))
    .entry;
  const cliState = join(ctx.diskWork, 'cli-state');
  mkdirSync(cliState, { mode: 0o700 });
  await cliUp(ctx, 'warmup', warmCache, cliState, major);

  // The pg_ctl floor's data directory: a ready cluster on /dev/shm with the profile in postgresql.conf.
  const pgctlDir = mkdtempSync(join(ctx.shmWork, 'pgctl-'));
  const pgctlData = join(pgctlDir, 'data');
  const pgctlPort = await getPort({ host: '127.0.0.1' });
  const asPostgres = { cwd: pgctlDir, ...(ctx.runAs ? { uid: ctx.runAs.uid, gid: ctx.runAs.gid } : {}) };
  const pgCtl = join(ctx.bindir, 'pg_ctl');
  const removePgctl = ctx.cleanup.add(`pg_ctl server ${pgctlDir}`, async () => {
    await run(pgCtl, ['stop', '-D', pgctlData, '-m', 'immediate', '-w'], { timeoutMs: 30_000, ...asPostgres });
    rmSync(pgctlDir, { recursive: true, force: true });
  });
  try {
    if (ctx.runAs) chownSync(pgctlDir, ctx.runAs.uid, ctx.runAs.gid);
    await placeCluster(ctx, pgctlData);
    const conf = [
      `port = ${pgctlPort}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${pgctlData}'`,
      ...DURABILITY_SETTINGS.map((s) => `${s.name} = '${s.value}'`),
    ];
    appendFileSync(join(pgctlData, 'postgresql.conf'), `\n# pg-tmpfs-action benchmark\n${conf.join('\n')}\n`);
    const pgctlLog = join(pgctlDir, 'server.log');
    const pgctlStart = () =>
      runOk(pgCtl, ['start', '-w', '-t', '60', '-D', pgctlData, '-l', pgctlLog], { timeoutMs: 90_000, ...asPostgres });
    const pgctlStop = () => runOk(pgCtl, ['stop', '-w', '-m', 'fast', '-D', pgctlData], { timeoutMs: 90_000, ...asPostgres });
    await pgctlStart();
    await withClient({ socketDir: pgctlData, conn: { host: '', port: pgctlPort, user: '', password: '', database: '' } }, (c) =>
      c.query(`ALTER ROLE postgres PASSWORD '${BENCH_PASSWORD}'`),
    );
    await pgctlStop();

    const tcp = (port: number, password: string) => ({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password,
      database: 'postgres',
    });

    const serviceContainer = (interval: string): Variant => ({
      key: `service-${interval}`,
      label: `GitHub-style service container, pg_isready every ${interval}: until healthy`,
      async measure(rep) {
        const name = `${ctx.prefix}-service-${interval}-${rep}`;
        const t0 = performance.now();
        const c = await runContainer(
          ctx,
          name,
          [
            '--publish',
            '127.0.0.1::5432',
            '--health-cmd',
            'pg_isready',
            '--health-interval',
            interval,
            '--health-timeout',
            '5s',
            '--health-retries',
            '5',
            image,
          ],
          { POSTGRES_PASSWORD: CONTAINER_PASSWORD },
        );
        try {
          const started = performance.now();
          const port = await publishedPort(name);
          const healthyAt = await waitHealthy(name, 120_000, 100);
          const firstQueryError = await tryQuery(tcp(port, CONTAINER_PASSWORD));
          const seconds = (healthyAt - t0) / 1000;
          return {
            seconds,
            details: {
              firstQueryOk: firstQueryError === null,
              firstQueryError,
              runnerSeesHealthyAfterS: (started - t0) / 1000 + runnerNoticeSeconds((healthyAt - started) / 1000),
            },
          };
        } finally {
          await c.remove();
        }
      },
    });

    const variants: Variant[] = [
      {
        key: 'action-docker',
        label: 'Action, Docker mode: start() until verified',
        async measure(rep) {
          const { seconds, server: running } = await startRegistered(ctx, {
            mode: 'docker',
            image,
            port: '0',
            'container-name': `${ctx.prefix}-docker-${rep}`,
            'wait-timeout': '120',
          });
          if (!running.tmpfs) throw new Error(`Docker mode data directory on ${running.filesystem}`);
          return { seconds, details: { filesystem: running.filesystem } };
        },
      },
      {
        key: 'action-native-cold',
        label: 'Action, native mode, initdb cache cold: start() until verified',
        async measure(rep) {
          const cacheDir = join(ctx.diskWork, `cold-cache-${rep}`);
          const removeCache = ctx.cleanup.add(`cache ${cacheDir}`, () => rmSync(cacheDir, { recursive: true, force: true }));
          try {
            const { seconds, server: running } = await startRegistered(ctx, {
              mode: 'native',
              'postgres-version': major,
              port: '0',
              'container-name': `${ctx.prefix}-native-cold-${rep}`,
              'cache-dir': cacheDir,
            });
            if (running.mode !== 'native' || running.cacheHit) throw new Error('cold start found a filled initdb cache');
            return { seconds, details: { filesystem: running.filesystem, cacheHit: running.cacheHit } };
          } finally {
            await removeCache();
          }
        },
      },
      {
        key: 'action-native-warm',
        label: 'Action, native mode, initdb cache warm: start() until verified',
        async measure(rep) {
          const { seconds, server: running } = await startRegistered(ctx, {
            mode: 'native',
            'postgres-version': major,
            port: '0',
            'container-name': `${ctx.prefix}-native-warm-${rep}`,
            'cache-dir': warmCache,
          });
          if (running.mode !== 'native' || !running.cacheHit) throw new Error('warm start missed the initdb cache');
          return { seconds, details: { filesystem: running.filesystem, cacheHit: running.cacheHit } };
        },
      },
      {
        key: 'floor-docker-run',
        label: 'Floor: the same docker run (image, tmpfs, settings), a query every 5 ms',
        async measure(rep) {
          const name = `${ctx.prefix}-floor-${rep}`;
          const config = inputs({ mode: 'docker', image, port: '0', 'container-name': name });
          const plan = buildRunPlan(config, layout);
          const args = runOptions(plan.args);
          const t0 = performance.now();
          const c = await runContainer(ctx, name, args, plan.env);
          try {
            const port = await publishedPort(name);
            const attempts = await untilAnswered(tcp(port, config.password), 120_000, 5);
            return { seconds: (performance.now() - t0) / 1000, details: { attempts } };
          } finally {
            await c.remove();
          }
        },
      },
      {
        key: 'floor-pg-ctl',
        label: 'Floor: pg_ctl -w start of a ready data directory on /dev/shm, then a query',
        async measure() {
          const t0 = performance.now();
          await pgctlStart();
          try {
            const attempts = await untilAnswered(tcp(pgctlPort, BENCH_PASSWORD), 30_000, 5);
            return { seconds: (performance.now() - t0) / 1000, details: { attempts } };
          } finally {
            await pgctlStop();
          }
        },
      },
      {
        key: 'cli-native-warm',
        label: 'CLI `pg-tmpfs up`, native mode, initdb cache warm: the whole process',
        async measure(rep) {
          const r = await cliUp(ctx, `bw${rep}`, warmCache, cliState, major);
          if (!r.details.cacheHit) throw new Error('warm CLI start missed the initdb cache');
          return r;
        },
      },
      {
        key: 'cli-native-cold',
        label: 'CLI `pg-tmpfs up`, native mode, initdb cache cold: the whole process',
        async measure(rep) {
          const cacheDir = join(ctx.diskWork, `cli-cold-cache-${rep}`);
          const removeCache = ctx.cleanup.add(`cache ${cacheDir}`, () => rmSync(cacheDir, { recursive: true, force: true }));
          try {
            const r = await cliUp(ctx, `bc${rep}`, cacheDir, cliState, major);
            if (r.details.cacheHit) throw new Error('cold CLI start found a filled initdb cache');
            return r;
          } finally {
            await removeCache();
          }
        },
      },
      {
        key: 'node-start',
        label: 'Node alone: `node -e 0`',
        async measure() {
          const t0 = performance.now();
          await runOk(process.execPath, ['-e', '0'], { timeoutMs: 30_000 });
          return { seconds: (performance.now() - t0) / 1000 };
        },
      },
      {
        key: 'floor-native',
        label: 'Floor: copy the cached cluster (cpSync, chown), spawn postgres, SELECT 1 on its socket every 2 ms',
        async measure(rep) {
          const runDir = mkdtempSync(join(ctx.shmWork, `floor-native-${rep}-`));
          const handle: NativeHandle = { mode: 'native', pid: 0, runDir, token: `floor-${rep}`, ram: null, bindir: ctx.bindir };
          // stopPostgres removes only a folder that carries its run's marker.
          writeFileSync(join(runDir, RUN_MARKER), handle.token);
          const remove = ctx.cleanup.add(`floor server ${runDir}`, async () => {
            const problems = await stopPostgres(handle);
            rmSync(runDir, { recursive: true, force: true });
            if (problems.length) throw new Error(problems.join('; '));
          });
          try {
            if (ctx.runAs) chownSync(runDir, ctx.runAs.uid, ctx.runAs.gid);
            const dataDir = dataDirOf(runDir);
            const port = await getPort({ host: '127.0.0.1' });
            const t0 = performance.now();
            cpSync(warmEntry, dataDir, { recursive: true });
            if (ctx.runAs) chownAll(dataDir, ctx.runAs);
            const postgres = spawnPostgres(ctx.bindir, runDir, port, { settings: [], publishHost: '127.0.0.1' }, ctx.runAs);
            handle.pid = postgres.pid;
            const attempts = await untilAnswered(
              { host: dataDir, port, user: 'postgres', password: '', database: 'postgres' },
              30_000,
              2,
            );
            return { seconds: (performance.now() - t0) / 1000, details: { attempts } };
          } finally {
            await remove();
          }
        },
      },
      {
        key: 'floor-initdb',
        label: 'initdb --nosync alone (the project’s arguments), for the cold start’s target',
        async measure(rep) {
          const dir = mkdtempSync(join(ctx.shmWork, `initdb-${rep}-`));
          const remove = ctx.cleanup.add(`initdb folder ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
          try {
            if (ctx.runAs) chownSync(dir, ctx.runAs.uid, ctx.runAs.gid);
            const t0 = performance.now();
            await runOk(
              join(ctx.bindir, 'initdb'),
              ['-D', join(dir, 'data'), ...initdbArgs({ bindir: ctx.bindir, user: 'postgres', locale: 'C' })],
              {
                timeoutMs: 300_000,
                cwd: dir,
                env: { LC_ALL: '', LANG: '' },
                ...(ctx.runAs ? { uid: ctx.runAs.uid, gid: ctx.runAs.gid } : {}),
              },
            );
            return { seconds: (performance.now() - t0) / 1000 };
          } finally {
            await remove();
          }
        },
      },
      {
        key: 'docker-disk-durable',
        label: 'Stock container: default disk volume, durable, a query every 5 ms',
        async measure(rep) {
          const name = `${ctx.prefix}-disk-${rep}`;
          const t0 = performance.now();
          const c = await runContainer(ctx, name, ['--publish', '127.0.0.1::5432', image], {
            POSTGRES_PASSWORD: CONTAINER_PASSWORD,
          });
          try {
            const port = await publishedPort(name);
            const attempts = await untilAnswered(tcp(port, CONTAINER_PASSWORD), 120_000, 5);
            return { seconds: (performance.now() - t0) / 1000, details: { attempts } };
          } finally {
            await c.remove();
          }
        },
      },
      serviceContainer('10s'),
      serviceContainer('1s'),
    ];

    await measureVariants(ctx, 'startup', variants);
  } finally {
    await removePgctl();
  }
}
