/**
 * Section 1's native cases: start() in native mode (initdb cache cold and warm), the CLI's whole
 * process (`pg-tmpfs up`, warm and cold), and the floors they are held against (`pg_ctl -w start`
 * of a ready data directory, a copy of the cached cluster spawned and queried in this process,
 * `initdb --nosync` alone, `node -e 0`); with the warm-ups they need.
 * Over 300 lines because each native variant and the floor it is held against are written side by side.
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
import getPort from 'get-port';
import { ensureCluster } from '../../src/native/cluster/initdb-cache.js';
import { dataDirOf, RUN_MARKER, spawnPostgres, stopPostgres } from '../../src/native/run/postgres.js';
import { run, runOk } from '../../src/proc.js';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import type { NativeHandle } from '../../src/server.js';
import type { Context } from '../lib/context.js';
import { cliUp as cliUpProcess } from '../lib/cli.js';
import { BENCH_PASSWORD, placeCluster, withClient } from '../lib/pgserver.js';
import { untilAnswered } from '../lib/query.js';
import { startRegistered, type Variant } from '../lib/timed.js';
import type { RunAs } from '../../src/native/run-as.js';
import { initdbArgs } from '../../src/native/cluster/cache-key.js';

/** chown -R, the plain way (the native floor's copy). */
function chownAll(path: string, who: RunAs): void {
  chownSync(path, who.uid, who.gid);
  if (lstatSync(path).isDirectory()) for (const n of readdirSync(path)) chownAll(join(path, n), who);
}

/**
 * `pg-tmpfs up --mode native` as a separate process (bench/lib/cli.ts cliUp), then `down`.
 * @returns seconds and the phases the CLI reported (phasesMs), and whether the initdb cache hit
 */
async function cliUp(ctx: Context, name: string, cacheDir: string, stateDir: string, major: string) {
  const { seconds, out } = await cliUpProcess(
    ctx,
    name,
    ['--mode', 'native', '--postgres-version', major, '--cache-dir', cacheDir],
    { env: { PG_TMPFS_STATE_DIR: stateDir }, timeoutMs: 120_000 },
  );
  return { seconds, details: { phasesMs: out.phasesMs, cacheHit: out.cacheHit } };
}

/** TCP on 127.0.0.1 as postgres with `password`, to database postgres. */
const tcp = (port: number, password: string) => ({
  host: '127.0.0.1',
  port,
  user: 'postgres',
  password,
  database: 'postgres',
});

/**
 * The pg_ctl floor's data directory (a ready cluster on /dev/shm with the profile in
 * postgresql.conf, its password set), registered for removal, and its variant `floor-pg-ctl`.
 * @returns the variant, and what removes the server and its folder
 */
async function pgctlFloor(ctx: Context): Promise<{ variant: Variant; remove: () => Promise<void> }> {
  const pgctlDir = mkdtempSync(join(ctx.shmWork, 'pgctl-'));
  const pgctlData = join(pgctlDir, 'data');
  const pgctlPort = await getPort({ host: '127.0.0.1' });
  const asPostgres = { cwd: pgctlDir, ...(ctx.runAs ? { uid: ctx.runAs.uid, gid: ctx.runAs.gid } : {}) };
  const pgCtl = join(ctx.bindir, 'pg_ctl');
  const pgctlLog = join(pgctlDir, 'server.log');
  const pgctlStart = () =>
    runOk(pgCtl, ['start', '-w', '-t', '60', '-D', pgctlData, '-l', pgctlLog], { timeoutMs: 90_000, ...asPostgres });
  const pgctlStop = () => runOk(pgCtl, ['stop', '-w', '-m', 'fast', '-D', pgctlData], { timeoutMs: 90_000, ...asPostgres });
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
    await pgctlStart();
    await withClient({ socketDir: pgctlData, conn: { host: '', port: pgctlPort, user: '', password: '', database: '' } }, (c) =>
      c.query(`ALTER ROLE postgres PASSWORD '${BENCH_PASSWORD}'`),
    );
    await pgctlStop();
  } catch (error) {
    await removePgctl();
    throw error;
  }
  const variant: Variant = {
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
  };
  return { variant, remove: removePgctl };
}

/** start() in native mode, initdb cache cold (a fresh cache folder each time) and warm (`warmCache`). */
function actionVariants(ctx: Context, major: string, warmCache: string): Variant[] {
  return [
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
  ];
}

/** The CLI's whole process, warm (`warmCache`) and cold, with its state in `cliState`; and Node's own start. */
function cliVariants(ctx: Context, major: string, warmCache: string, cliState: string): Variant[] {
  return [
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
  ];
}

/**
 * The native floor (a copy of the cached cluster `warmEntry`, spawned and queried in this process) and initdb alone.
 * Long because each floor is a short closure over the same warm-up state.
 */
function floorVariants(ctx: Context, warmEntry: string): Variant[] {
  return [
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
  ];
}

/**
 * Warms the initdb cache the warm starts copy (and, outside a quick run, the CLI's files), makes
 * the pg_ctl floor's data directory, and returns section 1's native variants; `remove` removes
 * the pg_ctl floor.
 */
export async function nativeStartupVariants(ctx: Context): Promise<{ variants: Variant[]; remove: () => Promise<void> }> {
  const major = String(ctx.major);
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
  // The CLI's files in the page cache; a quick run's figures mean nothing, so it goes without.
  if (!ctx.options.quick) await cliUp(ctx, 'warmup', warmCache, cliState, major);
  const pgctl = await pgctlFloor(ctx);
  return {
    variants: [
      ...actionVariants(ctx, major, warmCache),
      pgctl.variant,
      ...cliVariants(ctx, major, warmCache, cliState),
      ...floorVariants(ctx, warmEntry),
    ],
    remove: pgctl.remove,
  };
}
