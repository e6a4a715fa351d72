/**
 * The native `postgres` process: the user it runs as, its arguments, whether it is still ours
 * and alive, its log, and stopping it with everything its run made.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { runOk } from '../proc.js';
import { effectiveSettings, settingsToArgs } from '../profile.js';
import { LOG_TAIL_LINES, type NativeHandle } from '../server.js';
import { exe } from './binaries.js';
import type { RunAs } from './initdb-cache.js';
import { teardownRam } from './ramdir.js';

/** File in a run folder that marks it as made by this project; removal checks its token. */
export const RUN_MARKER = '.pg-tmpfs-run';

/** The server log's file name inside the run folder. */
export const SERVER_LOG = 'server.log';

/** The data directory inside a run folder. */
export function dataDirOf(runDir: string): string {
  return join(runDir, 'data');
}

/**
 * The OS user to run postgres as: none when not root, else `postgres` (PostgreSQL refuses to run
 * as root: manual, "Starting the Database Server").
 * @throws SetupError when running as root and there is no `postgres` user
 */
export function runAsUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const [name, , uid, gid] = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8', timeout: 10_000 })
      .trim()
      .split(':');
    return { name: name ?? 'postgres', uid: Number(uid), gid: Number(gid) };
  } catch {
    throw new SetupError(
      'PostgreSQL refuses to run as root, and there is no "postgres" user to run it as',
      'Run as a normal user, or create a postgres user (useradd postgres)',
    );
  }
}

/**
 * The server's arguments: data directory, port, TCP on 127.0.0.1 only, the Unix socket in the
 * (0700) data directory, then the durability profile with the user's settings over it.
 * @returns e.g. `['-D', dir, '-p', '5432', '-c', 'listen_addresses=127.0.0.1', …, '-c', 'fsync=off', …]`
 */
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

/**
 * Spawns postgres detached on the run folder's data directory, its output appended to the run
 * folder's server.log.
 * @param runAs the user to run as (root runs postgres as `postgres`), or null
 * @returns its PID, and a function telling whether it has exited
 */
export function spawnPostgres(
  bindir: string,
  runDir: string,
  port: number,
  config: Pick<Config, 'settings'>,
  runAs: RunAs | null,
): { pid: number; exited: () => boolean } {
  const logFile = join(runDir, SERVER_LOG);
  const logFd = openSync(logFile, 'a');
  if (runAs) chownSync(logFile, runAs.uid, runAs.gid);
  const child = spawn(join(bindir, exe('postgres', process.platform)), postgresArgs(dataDirOf(runDir), port, config), {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    cwd: runDir,
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
  closeSync(logFd);
  let exited = false;
  child.on('exit', () => (exited = true));
  child.unref();
  return { pid: child.pid ?? 0, exited: () => exited };
}

/** Whether a process with this PID exists (signal 0). */
export function processAlive(pid: number): boolean {
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

/** Whether the handle's postmaster still runs. */
export function postgresAlive(handle: NativeHandle): boolean {
  return handle.pid > 0 && postmasterRunning(dataDirOf(handle.runDir), handle.pid);
}

/** The last `lines` lines of a native server's log ('' when there is none). */
export function postgresLogTail(runDir: string, lines = LOG_TAIL_LINES): string {
  if (!runDir) return '';
  try {
    return readFileSync(join(runDir, SERVER_LOG), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Deadline of `pg_ctl stop` (Windows): 30 000 ms. */
const PG_CTL_TIMEOUT_MS = 30_000;

/**
 * Stops a native server with an immediate shutdown (SIGQUIT, then SIGKILL after 2.5 s; `pg_ctl
 * stop -m immediate` on Windows), removes the run folder (only when its marker carries the
 * handle's token), and undoes the RAM setup. Never throws.
 * @returns one text per problem; [] when everything is gone
 */
export async function stopPostgres(handle: NativeHandle): Promise<string[]> {
  const problems: string[] = [];
  const dataDir = dataDirOf(handle.runDir);
  if (postgresAlive(handle)) {
    try {
      if (process.platform === 'win32') {
        await runOk(join(handle.bindir, exe('pg_ctl', 'win32')), ['stop', '-m', 'immediate', '-D', dataDir], {
          timeoutMs: PG_CTL_TIMEOUT_MS,
        });
      } else {
        process.kill(handle.pid, 'SIGQUIT');
      }
      for (let i = 0; i < 500 && postmasterRunning(dataDir, handle.pid); i++) await sleep(5);
      if (postmasterRunning(dataDir, handle.pid)) process.kill(handle.pid, 'SIGKILL');
    } catch (error) {
      problems.push(`Could not stop postgres (pid ${handle.pid}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (handle.runDir) {
    const marker = join(handle.runDir, RUN_MARKER);
    if (existsSync(marker) && readFileSync(marker, 'utf8') === handle.token) {
      rmSync(handle.runDir, { recursive: true, force: true });
    } else if (existsSync(handle.runDir)) {
      problems.push(`Not removing ${handle.runDir}: it does not carry this run's marker`);
    }
  }
  problems.push(...(await teardownRam(handle.teardown)));
  return problems;
}
