/**
 * The native `postgres` process: the user it runs as, its arguments, whether it is still ours
 * and alive, its log, and stopping it with everything its run made.
 * Over 300 lines because it is the one place that spawns, watches and stops the postgres process.
 */
import { spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SetupError } from '../../errors.js';
import type { Config } from '../../inputs.js';
import { runOk, runSync } from '../../proc.js';
import { argvOf, processAlive } from '../../processes.js';
import { LOG_TAIL_LINES, type NativeHandle } from '../../server.js';
import { exe } from '../source/installed.js';
import { teardownRam } from '../ramdir.js';
import { RUN_MARKER } from '../run-folder.js';
import { removeTablespaces } from './tablespaces.js';
import { removeStaleFills } from '../../store/removal.js';
import { serverEnv } from '../source/server-env.js';
import { NPM_WORK_NAME } from '../source/npm/kept.js';
import { removeBusyFolder, startWithPgCtl, waitForLauncher } from './windows.js';
import { postgresArgs, runSettings } from './server-config.js';
import { endProcessesIn } from '../../orphans.js';
import { removeSysvSegment } from '../../sysv.js';

export { RUN_MARKER } from '../run-folder.js';
import type { RunAs } from '../run-as.js';

/** The server log's file name inside the run folder. */
const SERVER_LOG = 'server.log';

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
    const r = runSync('getent', ['passwd', 'postgres'], { timeoutMs: 10_000 });
    if (r.code !== 0) throw new Error(`getent: ${r.timedOut ? 'timed out' : `exit code ${r.code}`}`);
    const [name, , uid, gid] = r.stdout.trim().split(':');
    return { name: name ?? 'postgres', uid: Number(uid), gid: Number(gid) };
  } catch {
    throw new SetupError(
      'PostgreSQL refuses to run as root, and there is no "postgres" user to run it as',
      'Run as a normal user, or create a postgres user (useradd postgres)',
    );
  }
}

/**
 * Starts postgres on the run folder's data directory, its output appended to the run folder's
 * server.log, with a clean environment (serverEnv: no PG* variable, no TZ). Linux and macOS:
 * postgres spawned detached, its settings as `-c` options. Windows: `pg_ctl start` (postgres
 * refuses an administrator's token; pg_ctl starts it with a restricted one: windows.ts), which
 * `started` waits for; the PID is then in postmaster.pid (postmasterPid).
 * @param runAs the user to run as (root runs postgres as `postgres`), or null
 * @param extraEnv variables added to that environment (the benchmark's disk model)
 * @param timeoutMs how long pg_ctl may wait for the server (Windows; the wait-timeout input), ms
 * @param onLauncher called with pg_ctl's PID once it runs (Windows: NativeHandle.launcherPid)
 * @returns its PID (0 on Windows), whether it has exited, and `started`, which resolves once the
 *   process runs (Windows: accepts connections) or rejects with windows.ts startWithPgCtl's errors
 */
export function spawnPostgres(
  bindir: string,
  runDir: string,
  port: number,
  config: Pick<Config, 'settings' | 'publishHost'>,
  runAs: RunAs | null,
  extraEnv: Record<string, string> = {},
  timeoutMs = 60_000,
  onLauncher: (pid: number) => void = () => undefined,
): { pid: number; exited: () => boolean; started: Promise<void> } {
  const logFile = join(runDir, SERVER_LOG);
  if (process.platform === 'win32') {
    const dataDir = dataDirOf(runDir);
    let failed = false;
    const started: Promise<void> = startWithPgCtl(
      bindir,
      runDir,
      dataDir,
      logFile,
      runSettings(dataDir, port, config),
      timeoutMs,
      onLauncher,
    ).catch((error: unknown) => {
      failed = true;
      throw error;
    });
    // A start that fails before it awaits this (a throw while postgres starts) must not leave a
    // rejection nobody handles: Node would end the process in the middle of the cleanup.
    started.catch(() => undefined);
    return { pid: 0, exited: () => failed, started };
  }
  const logFd = openSync(logFile, 'a');
  if (runAs) chownSync(logFile, runAs.uid, runAs.gid);
  const child = spawn(join(bindir, exe('postgres', process.platform)), postgresArgs(dataDirOf(runDir), port, config), {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    cwd: runDir,
    env: { ...serverEnv(), ...extraEnv },
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
  closeSync(logFd);
  let exited = false;
  child.on('exit', () => (exited = true));
  child.unref();
  return { pid: child.pid ?? 0, exited: () => exited, started: Promise.resolve() };
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

/**
 * The postmaster's PID: the handle's, else the first line of the data directory's
 * postmaster.pid (a run killed between spawning postgres and recording its PID); 0 when none.
 */
export function postmasterPid(handle: NativeHandle): number {
  if (handle.pid > 0) return handle.pid;
  if (!handle.runDir) return 0;
  try {
    const pid = Number(
      readFileSync(join(dataDirOf(handle.runDir), 'postmaster.pid'), 'utf8')
        .split('\n')[0]
        ?.trim(),
    );
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

/** Whether the handle's postmaster still runs. */
export function postgresAlive(handle: NativeHandle): boolean {
  const pid = postmasterPid(handle);
  return pid > 0 && postmasterRunning(dataDirOf(handle.runDir), pid);
}

/**
 * Whether `pid` is a postgres started on `dataDir` that has not written postmaster.pid yet (a
 * start interrupted right after the spawn): Linux reads its command line; elsewhere false.
 */
function startingPostgres(pid: number, dataDir: string): boolean {
  if (process.platform !== 'linux' || !processAlive(pid)) return false;
  try {
    const argv = argvOf(pid);
    return argv.includes(dataDir) && /postgres$/.test(argv[0] ?? '');
  } catch {
    return false;
  }
}

/** The SysV shared memory id a data directory's postmaster.pid names (line 7: key and id); null when none. */
function sysvSegment(dataDir: string): number | null {
  try {
    const line = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '';
    const id = Number(line.trim().split(/\s+/)[1]);
    return Number.isInteger(id) && id >= 0 && line.trim() !== '' ? id : null;
  } catch {
    return null;
  }
}

/**
 * Whether a run folder is this run's to remove: its marker holds the run's token, or (a run
 * killed between making the folder and writing the marker) it has no marker, is empty, and its
 * name ends with the token.
 */
export function isOurRunDir(runDir: string, token: string): boolean {
  if (!token) return false;
  try {
    const marker = join(runDir, RUN_MARKER);
    if (existsSync(marker)) return readFileSync(marker, 'utf8') === token;
    return basename(runDir).endsWith(`-${token}`) && readdirSync(runDir).length === 0;
  } catch {
    return false; // not a folder, or unreadable: not ours to remove
  }
}

/** Whether the run folder's name ends with the run's token (for a folder that is already gone). */
function nameHasToken(handle: NativeHandle): boolean {
  return handle.token !== '' && basename(handle.runDir).endsWith(`-${handle.token}`);
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
 * How long an immediate shutdown may take before the server's processes are killed: 2500 ms.
 * It takes milliseconds: the postmaster sends SIGQUIT on to its children and exits once they are
 * gone, removing its shared memory. Its own escalation comes later (SIGKILL to children after
 * 5 s, SIGKILL_CHILDREN_AFTER_SECS in src/backend/postmaster/postmaster.c), and a cancelled job
 * step has 7.5 s in all before the runner's SIGTERM; so this one comes first, and kills the
 * whole server.
 */
const IMMEDIATE_STOP_MS = 2_500;

/**
 * Stops the handle's postmaster, when it runs, with an immediate shutdown (SIGQUIT; `pg_ctl stop
 * -m immediate` on Windows); one still there after IMMEDIATE_STOP_MS is killed with its children
 * (orphans.ts endProcessesIn on Linux). Never throws.
 * @returns one text per problem; [] when none runs any more
 */
async function stopPostmaster(handle: NativeHandle): Promise<string[]> {
  const dataDir = dataDirOf(handle.runDir);
  const pid = postmasterPid(handle);
  if (pid <= 0 || !(postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir))) return [];
  const problems: string[] = [];
  try {
    if (process.platform === 'win32') {
      // A pg_ctl stop that fails (or times out) is not the end: the server is killed below.
      await runOk(join(handle.bindir, exe('pg_ctl', 'win32')), ['stop', '-m', 'immediate', '-D', dataDir], {
        timeoutMs: PG_CTL_TIMEOUT_MS,
      }).catch(() => undefined);
    } else {
      process.kill(pid, 'SIGQUIT');
    }
    const ours = () => postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir);
    const deadline = Date.now() + IMMEDIATE_STOP_MS;
    while (ours() && Date.now() < deadline) await sleep(5);
    if (ours()) {
      // It and its children work in the run folder (spawnPostgres: cwd), which holds this postmaster.pid.
      if (process.platform === 'linux') problems.push(...(await endProcessesIn(handle.runDir, 0)));
      else process.kill(pid, 'SIGKILL');
    }
    // The children exit once the postmaster is gone; give them a moment to let go of the folder.
    for (let i = 0; i < 200 && processAlive(pid); i++) await sleep(5);
  } catch (error) {
    problems.push(`Could not stop postgres (pid ${pid}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

/**
 * Stops a native server and removes what its run made. On Windows it first waits for a `pg_ctl
 * start` a killed start left running (windows.ts waitForLauncher). The postmaster gets an
 * immediate shutdown (stopPostmaster). It then ends what a killed start left working in the run
 * folder (initdb and its postgres, an unrecorded postmaster: orphans.ts on Linux, up to about
 * 20 s when they will not end; on Windows, where a folder a program works in cannot go, the
 * removal waits for them: windows.ts removeBusyFolder), removes the run folder (only when
 * isOurRunDir) with the tablespace folders its server made outside it (tablespaces.ts), undoes
 * the RAM mount, and removes the fills of killed runs in the handle's initdb cache. Something
 * already gone counts as removed. Never throws.
 * @returns one text per problem; [] when everything is gone
 */
export async function stopPostgres(handle: NativeHandle): Promise<string[]> {
  const problems: string[] = [];
  const dataDir = dataDirOf(handle.runDir);
  // Windows: a pg_ctl a killed start left is still starting a postmaster; it ends first.
  if (process.platform === 'win32' && handle.launcherPid) problems.push(...(await waitForLauncher(handle.launcherPid)));
  // The SysV segment the postmaster named (postmaster.pid line 7), read before anything goes.
  const segment = sysvSegment(dataDir);
  problems.push(...(await stopPostmaster(handle)));
  const ours =
    handle.runDir !== '' && (existsSync(handle.runDir) ? isOurRunDir(handle.runDir, handle.token) : nameHasToken(handle));
  // What a killed run left working in its folder (initdb and its postgres, a postmaster spawned
  // before its PID was recorded) ends before the folder goes: removed under them, they would
  // leave their shared memory (orphans.ts).
  if (ours) problems.push(...(await endProcessesIn(handle.runDir)));
  if (segment !== null) problems.push(...(await removeSysvSegment(segment)));
  if (handle.runDir && existsSync(handle.runDir)) {
    if (ours) {
      problems.push(...removeTablespaces(dataDir));
      // Windows: a folder a program works in cannot go; what a killed start left there ends first.
      if (process.platform === 'win32') problems.push(...(await removeBusyFolder(handle.runDir, () => stopPostmaster(handle))));
      else rmSync(handle.runDir, { recursive: true, force: true });
    } else {
      problems.push(`Not removing ${handle.runDir}: it does not carry this run's marker`);
    }
  }
  problems.push(...(await teardownRam(handle.ram)));
  // Cache fills of runs that were killed while copying into the cache, or fetching a server build.
  for (const dir of [handle.cacheDir, ...(handle.npmFills ?? [])])
    if (dir) problems.push(...(await removeStaleFills(dir)).problems);
  // The action's fetch folder in RUNNER_TEMP is the run's own: it goes once nothing is in it.
  for (const dir of (handle.npmFills ?? []).filter((d) => basename(d) === NPM_WORK_NAME)) {
    try {
      rmdirSync(dir);
    } catch {
      // gone, or another start's fill is in it
    }
  }
  return problems;
}
