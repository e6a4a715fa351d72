/**
 * Native mode: PostgreSQL from binaries already on the machine, its data directory in RAM,
 * the cluster copied from the initdb cache, the same durability settings as Docker mode.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import getPort from 'get-port';
import type { ConnectionInfo } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { NotReadyError, waitForQuery } from '../readiness.js';
import { LOG_TAIL_LINES, verifyServer, type Started } from '../server.js';
import { effectiveSettings, settingsToArgs } from '../settings.js';
import { filesystemTypeOf, isRamFilesystem } from '../verify.js';
import { exe, findBinaries, type Binaries } from './binaries.js';
import { chownTree, copyCluster, defaultCacheDir, ensureCluster, type RunAs } from './initdb-cache.js';
import { chooseLinux, diskPlan, macRamDiskPlan, sizeToBytes, tempBase, type Command, type RamDirPlan } from './ramdir.js';

const execFileP = promisify(execFile);

/** File in a run folder that marks it as made by this project; removal checks it. */
export const RUN_MARKER = '.pg-tmpfs-run';

/** Room asked of /dev/shm when tmpfs-size is not given: 1 GiB. */
export const DEFAULT_NATIVE_BYTES = 1024 ** 3;

/** What the post step / `down` needs to undo a native start. */
export interface NativeState {
  /** postmaster PID (0 before start). */
  pid: number;
  /** The run folder this run created (holds data/ and server.log); the only folder removed. */
  runDir: string;
  /** Token written into RUN_MARKER. */
  token: string;
  /** Commands that undo the RAM setup (unmount, detach), with DEVICE already filled in. */
  teardown: Command[];
  /** Folder with pg_ctl (Windows stops through it). */
  bindir: string;
}

/** A started native server. */
export interface NativeStarted extends Started {
  native: NativeState;
}

/** The OS user to run postgres as: none when not root, else `postgres`. */
export function runAsUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const [name, , uid, gid] = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim().split(':');
    return { name: name ?? 'postgres', uid: Number(uid), gid: Number(gid) };
  } catch {
    throw new SetupError(
      'PostgreSQL refuses to run as root, and there is no "postgres" user to run it as',
      'Run as a normal user, or create a postgres user (useradd postgres)',
    );
  }
}

/** The server's `-c` arguments: the shared durability settings, user settings, and where to listen. */
export function postgresArgs(dataDir: string, port: number, config: Pick<Config, 'settings'>): string[] {
  return [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dataDir}`,
    ...settingsToArgs(effectiveSettings(config.settings)),
  ];
}

async function run(c: Command): Promise<string> {
  return (await execFileP(c.program, c.args, { encoding: 'utf8' })).stdout;
}

/** Makes the RAM base folder for this platform; returns base folder and plan with DEVICE filled in. */
async function prepareRam(config: Config, name: string, log: Logger): Promise<{ base: string; plan: RamDirPlan }> {
  const bytes = config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES;
  if (process.platform === 'linux') {
    const chosen = chooseLinux(bytes);
    for (const c of chosen.plan.setup) await run(c);
    return chosen;
  }
  if (process.platform === 'darwin') {
    const plan = macRamDiskPlan(bytes, name);
    const device = (await run(plan.setup[0] as Command)).trim().split(/\s+/)[0] ?? '';
    const fill = (c: Command): Command => ({ ...c, args: c.args.map((a) => (a === 'DEVICE' ? device : a)) });
    await run(fill(plan.setup[1] as Command));
    return { base: `/Volumes/${name}`, plan: { ...plan, teardown: plan.teardown.map(fill) } };
  }
  log.debug('no RAM disk on this platform');
  return { base: tempBase(), plan: diskPlan('Windows has no RAM disk without extra drivers') };
}

/** Runs teardown commands, reporting problems as warnings. */
async function teardown(commands: Command[], log: Logger): Promise<void> {
  for (const c of commands) {
    try {
      await run(c);
    } catch (error) {
      log.warning(`${c.program} ${c.args.join(' ')} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is our running postmaster: its data directory's postmaster.pid names it (as
 * pg_ctl checks; the file goes when the postmaster exits, even while an orphaned postmaster
 * waits as a zombie to be reaped) and the process exists. Guards against signalling a PID that
 * the system has since given to another process.
 */
export function postmasterRunning(dataDir: string, pid: number): boolean {
  try {
    const first = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim();
    return first === String(pid) && processAlive(pid);
  } catch {
    return false;
  }
}

/** The last LOG_TAIL_LINES lines of a native server's log ('' when there is none). */
export function nativeLogTail(runDir: string): string {
  try {
    return readFileSync(join(runDir, 'server.log'), 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
  } catch {
    return '';
  }
}

/**
 * Stops a native server with an immediate shutdown (SIGQUIT; pg_ctl -m immediate on Windows),
 * removes the run folder (only when its marker matches), and undoes the RAM setup.
 * Problems are warnings: this never throws.
 */
export async function stopNative(state: NativeState, log: Logger): Promise<void> {
  const dataDir = join(state.runDir, 'data');
  if (state.pid > 0 && postmasterRunning(dataDir, state.pid)) {
    try {
      if (process.platform === 'win32') {
        await execFileP(join(state.bindir, exe('pg_ctl', 'win32')), [
          'stop',
          '-m',
          'immediate',
          '-D',
          join(state.runDir, 'data'),
        ]);
      } else {
        process.kill(state.pid, 'SIGQUIT');
      }
      for (let i = 0; i < 500 && postmasterRunning(dataDir, state.pid); i++) await sleep(5);
      if (postmasterRunning(dataDir, state.pid)) process.kill(state.pid, 'SIGKILL');
    } catch (error) {
      log.warning(`Could not stop postgres (pid ${state.pid}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const marker = join(state.runDir, RUN_MARKER);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === state.token) {
    rmSync(state.runDir, { recursive: true, force: true });
  } else if (existsSync(state.runDir)) {
    log.warning(`Not removing ${state.runDir}: it does not carry this run's marker`);
  }
  await teardown(state.teardown, log);
}

/**
 * Starts PostgreSQL from installed binaries.
 * @param onState called as soon as there is something to undo, and again once postgres runs
 * @param binaries binaries already found (by chooseMode); else they are looked up
 * @returns the running, verified server
 * @throws InputError for a port in use; SetupError for missing binaries, initdb failures, or a
 *   server that does not answer. Nothing is left running or on disk then.
 */
export async function startNative(
  config: Config,
  log: Logger,
  onState: (s: NativeState) => void = () => undefined,
  binaries?: Binaries,
): Promise<NativeStarted> {
  const bins = binaries ?? findBinaries(config.major);
  log.info(`PostgreSQL ${bins.major} binaries: ${bins.bindir} (${bins.source})`);
  const runAs = runAsUser();
  if (runAs) log.info(`Running as root: postgres runs as user ${runAs.name}`);

  const port = config.port === 0 ? await getPort({ host: '127.0.0.1' }) : config.port;
  if (config.port !== 0 && (await getPort({ host: '127.0.0.1', port: config.port })) !== config.port) {
    throw new InputError('port', `port ${config.port} on 127.0.0.1 is in use`, 'Choose another port, or 0 for a free one.');
  }

  const ram = await prepareRam(config, config.containerName, log);
  const state: NativeState = { pid: 0, runDir: '', token: '', teardown: ram.plan.teardown, bindir: bins.bindir };
  onState(state);
  if (ram.plan.warning) log.warning(ram.plan.warning);
  try {
    state.runDir = mkdtempSync(join(ram.base, `${config.containerName}-`));
    state.token = `${process.pid}-${Date.now()}`;
    writeFileSync(join(state.runDir, RUN_MARKER), state.token);
    if (runAs) chownSync(state.runDir, runAs.uid, runAs.gid);
    onState(state);
    const dataDir = join(state.runDir, 'data');

    const cacheDir = config.cacheDir || defaultCacheDir();
    const cache = await ensureCluster(
      cacheDir,
      { bindir: bins.bindir, user: config.user, locale: config.locale },
      runAs,
      state.runDir,
    );
    log.info(
      cache.hit
        ? `initdb cache hit: ${cache.entry}`
        : `initdb cache miss: ran initdb --nosync in ${cache.initdbMs} ms into ${cache.entry}`,
    );
    copyCluster(cache.entry, dataDir, runAs);
    if (runAs) chownTree(state.runDir, runAs);

    const logFd = openSync(join(state.runDir, 'server.log'), 'a');
    const child = spawn(join(bins.bindir, exe('postgres', process.platform)), postgresArgs(dataDir, port, config), {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      cwd: state.runDir,
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    closeSync(logFd);
    let exited = false;
    child.on('exit', () => (exited = true));
    child.unref();
    state.pid = child.pid ?? 0;
    onState(state);

    const notReady = (error: unknown): never => {
      if (error instanceof NotReadyError) {
        throw new SetupError(
          `PostgreSQL did not answer a query: ${error.message}; last error: ${error.lastError}`,
          error.died ? 'The server exited; its log is below' : "Raise input 'wait-timeout', or read the server log below",
          nativeLogTail(state.runDir),
        );
      }
      throw error;
    };
    // First query through the Unix socket (trust; no password set yet), polled every 5 ms.
    const local = await waitForQuery(
      { host: dataDir, port, user: config.user, password: '', database: 'postgres' },
      {
        timeoutMs: config.waitTimeoutMs,
        intervalMs: 5,
        isAlive: async () => !exited && processAlive(state.pid),
        aliveEveryMs: 50,
      },
    ).catch(notReady);
    try {
      await local.client.query(
        `ALTER ROLE ${local.client.escapeIdentifier(config.user)} PASSWORD ${local.client.escapeLiteral(config.password)}`,
      );
      if (config.database !== 'postgres') {
        await local.client.query(`CREATE DATABASE ${local.client.escapeIdentifier(config.database)}`);
      }
    } finally {
      await local.client.end().catch(() => undefined);
    }
    // Then the path the user will use: TCP with the password.
    const connection: ConnectionInfo = {
      host: '127.0.0.1',
      port,
      user: config.user,
      password: config.password,
      database: config.database,
    };
    const ready = await waitForQuery(connection, { timeoutMs: config.waitTimeoutMs, intervalMs: 5 }).catch(notReady);
    const startupMs = Math.round(performance.now());
    log.info(`Answered a query after ${startupMs} ms: PostgreSQL ${ready.serverVersion}`);
    try {
      const expectRam = ram.plan.kind !== 'disk';
      const verified = await verifyServer(
        ready.client,
        effectiveSettings(config.settings),
        async (dir) => {
          if (process.platform === 'linux') return filesystemTypeOf(dir, readFileSync('/proc/mounts', 'utf8')) ?? 'unknown';
          return ram.plan.kind === 'ramdisk' ? 'ramdisk' : 'disk';
        },
        expectRam,
      );
      return {
        mode: 'native',
        connection,
        containerId: '',
        source: bins.bindir,
        serverVersion: ready.serverVersion,
        ...verified,
        tmpfs: isRamFilesystem(verified.filesystem) || verified.filesystem === 'ramdisk',
        startupMs,
        pullMs: 0,
        socketDirectory: dataDir,
        cacheHit: cache.hit,
        native: state,
      };
    } finally {
      await ready.client.end().catch(() => undefined);
    }
  } catch (error) {
    await stopNative(state, log);
    throw error;
  }
}
