/**
 * Native mode on Windows, where three things differ from Linux and macOS (each seen on a Windows
 * server under Wine 8.0, and each as PostgreSQL documents it for Windows):
 * - `postgres.exe` refuses to run with an administrator's token ("Execution of PostgreSQL by a
 *   user with administrative permissions is not permitted", src/backend/main/main.c check_root),
 *   and GitHub's Windows runners run jobs as an administrator. `pg_ctl start` starts it with a
 *   restricted token (src/bin/pg_ctl/pg_ctl.c CreateRestrictedProcess), so the server is started
 *   through pg_ctl, its settings in a configuration file of the run (runConf): pg_ctl hands its
 *   `-o` options to `CMD /C`, and none of the user's settings may pass through a shell.
 * - There is no Unix-socket client (node-postgres takes a `C:\…` socket folder for a host name)
 *   and no peer authentication: the first connection goes over TCP with a bootstrap password
 *   that the cluster's maker (initdb's `--pwfile`, the schema cache's save) wrote into the data
 *   directory (BOOTSTRAP_FILE), and which the first connection replaces with the run's.
 * - dynamic_shared_memory_type takes `windows` only (its default there).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SetupError } from '../../errors.js';
import { run } from '../../proc.js';
import { processAlive } from '../../processes.js';
import type { Setting } from '../../profile.js';
import { NotReadyError } from '../../readiness.js';
import { exe } from '../source/installed.js';
import { serverEnv } from '../source/server-env.js';

/**
 * Whether native mode reaches its server over a Unix socket with peer authentication on this
 * platform: everywhere but Windows.
 */
export function hasPeerSocket(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32';
}

/**
 * The file, in a cluster's data directory, that holds its superuser's password where there is no
 * peer socket (Windows): 64 hex digits, written by the initdb cache's fill and by the schema
 * cache's save, read and removed by the run's first connection (PostgreSQL ignores files it does
 * not know in PGDATA). The entry it is copied from is this user's alone (initdb-cache.ts), and a
 * run's data directory is too.
 */
export const BOOTSTRAP_FILE = 'pg_tmpfs.bootstrap';

/** A new bootstrap password: 32 random bytes as 64 hex digits. */
export function newBootstrapSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The bootstrap password of the cluster in `dataDir` (BOOTSTRAP_FILE).
 * @throws SetupError when the file is missing or does not hold 64 hex digits (a cluster not made
 *   by this project's caches on Windows)
 */
export function readBootstrapSecret(dataDir: string): string {
  let text: string;
  try {
    text = readFileSync(join(dataDir, BOOTSTRAP_FILE), 'utf8').trim();
  } catch (error) {
    throw new SetupError(
      `The cluster in ${dataDir} has no bootstrap password (${(error as Error).message}), which the first connection needs on Windows`,
      "Run again: a cache entry made before this version is not used (or empty input 'cache-dir')",
    );
  }
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new SetupError(`${join(dataDir, BOOTSTRAP_FILE)} does not hold a bootstrap password`, 'Remove the cache folder');
  }
  return text;
}

/** Removes the data directory's bootstrap password once the run's own is set (never throws: the run folder goes with the run anyway). */
export function dropBootstrapSecret(dataDir: string): void {
  try {
    rmSync(join(dataDir, BOOTSTRAP_FILE), { force: true });
  } catch {
    // busy or gone: it goes with the run folder
  }
}

/**
 * A setting as a line of a PostgreSQL configuration file: the name in lower case, the value
 * single-quoted, with `'` and `\` doubled (the file's string syntax: manual, "Parameter
 * Interaction via the Configuration File").
 * @throws SetupError for a name that is not a setting's, a directive (`include`, …), or a value
 *   with a line break (the settings input refuses all three before this)
 */
export function confLine(setting: Pick<Setting, 'name' | 'value'>): string {
  const name = setting.name.toLowerCase();
  if (!/^[a-z_][a-z0-9_.]*$/.test(name) || /^include(_dir|_if_exists)?$/.test(name) || /[\r\n\0]/.test(setting.value)) {
    throw new SetupError(
      `Setting ${JSON.stringify(setting.name)} cannot be written to a configuration file`,
      'Check input settings',
    );
  }
  // Lower case: PostgreSQL marks an earlier line of the same setting as overridden only when the
  // names match exactly (guc-file.l ParseConfigFp), and initdb writes them in lower case.
  return `${name} = '${setting.value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The run's configuration file, in the run folder beside `data` (run-folder.ts). */
const RUN_CONF = 'postgresql.conf';

/**
 * The run's configuration file: the cluster's own postgresql.conf included first (a path
 * relative to this file's folder: `data/postgresql.conf`), then each setting (later lines win).
 * @param settings what Linux passes as `-c name=value`, in the same order
 */
export function runConf(settings: ReadonlyArray<Pick<Setting, 'name' | 'value'>>): string {
  return [
    '# Written by pg-tmpfs for this run: the cluster configuration, then the run settings (later lines win).',
    "include 'data/postgresql.conf'",
    ...settings.map(confLine),
    '',
  ].join('\n');
}

/**
 * Characters that `CMD /C` reads even inside double quotes (`%` expands variables) or that end a
 * quoted argument (`"`). pg_ctl on Windows builds one command line for CMD from the data
 * directory, the postgres program's path, its `-o` options and the log file (pg_ctl.c
 * start_postmaster): a path holding one of these is refused before anything starts.
 */
const CMD_UNSAFE = /[%"\r\n]/;

/**
 * Checks that a path can go through pg_ctl's command line on Windows (CMD_UNSAFE).
 * @param what names the path and where it comes from, for the message (e.g. `the run folder (RUNNER_TEMP)`)
 * @throws SetupError naming the path and the character
 */
export function checkCmdSafe(path: string, what: string): void {
  const bad = CMD_UNSAFE.exec(path);
  if (bad) {
    throw new SetupError(
      `${what} ${path} holds ${JSON.stringify(bad[0])}, which pg_ctl's command line (CMD) on Windows would change`,
      `Use a folder without ${JSON.stringify(bad[0])} in its path`,
    );
  }
}

/**
 * pg_ctl's arguments to start the server on `dataDir` with the run's configuration file (RUN_CONF
 * in `runDir`), its output appended to `logFile`, waiting (`-w`) up to `timeoutS` seconds for the
 * server to accept connections (pg_ctl reads postmaster.pid's status, and sees the server exit).
 * @returns e.g. `['start', '-w', '-t', '60', '-s', '-D', data, '-l', log, '-o', '-c "config_file=…"']`
 */
export function pgCtlStartArgs(runDir: string, dataDir: string, logFile: string, timeoutS: number): string[] {
  return [
    'start',
    '-w',
    '-t',
    String(timeoutS),
    '-s',
    '-D',
    dataDir,
    '-l',
    logFile,
    '-o',
    `-c "config_file=${join(runDir, RUN_CONF)}"`,
  ];
}

/** Deadline of icacls: 30 000 ms. */
const ICACLS_TIMEOUT_MS = 30_000;

/**
 * Grants this user full control of the run folder, inherited by all it will hold (`icacls <dir>
 * /grant <user>:(OI)(CI)F`). The files this process copies in (the initdb cache's cluster, a
 * schema-cache entry) are made with its administrator's token, and may inherit from the folder
 * above rights that only Administrators have; the server runs with a restricted token in which
 * Administrators is deny-only (pg_ctl.c CreateRestrictedProcess; pg_ctl leaves its own log file
 * to the server for this reason), and must write them. Never throws.
 * @returns [] when granted, else one warning text (the start goes on: the server says what it cannot write)
 */
export async function grantRunFolder(runDir: string): Promise<string[]> {
  let user: string;
  try {
    user = userInfo().username;
  } catch (error) {
    return [`Could not name this user to grant it the run folder: ${(error as Error).message}`];
  }
  try {
    const r = await run('icacls', [runDir, '/grant', `${user}:(OI)(CI)F`, '/Q'], { timeoutMs: ICACLS_TIMEOUT_MS });
    if (r.code === 0) return [];
    return [`icacls could not grant ${user} the run folder ${runDir} (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`];
  } catch (error) {
    return [`icacls could not be run to grant ${user} the run folder ${runDir}: ${(error as Error).message}`];
  }
}

/** How long a stop waits for a `pg_ctl start` that a killed start left running: 30 000 ms. */
const LAUNCHER_WAIT_MS = 30_000;

/**
 * Waits until the `pg_ctl start` a killed start left (NativeHandle.launcherPid) has ended: it
 * ends once the server accepts connections or has exited (it is never killed: after this long
 * its PID may name another program). Never throws.
 * @returns [] once it has ended, else one problem text after LAUNCHER_WAIT_MS
 */
export async function waitForLauncher(pid: number, timeoutMs = LAUNCHER_WAIT_MS): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return [`pg_ctl (pid ${pid}) of a killed start still runs after ${timeoutMs / 1000} s`];
    await sleep(50);
  }
  return [];
}

/** How long removing a run folder waits for what a killed start left working in it: 60 000 ms. */
const BUSY_FOLDER_WAIT_MS = 60_000;

/**
 * Removes a run folder on Windows, where a folder that a process works in (its current folder:
 * an initdb that a killed start left filling the cache, a server it started) cannot be removed
 * (EBUSY, EPERM): each try first stops a server the folder's postmaster.pid names (`stopServer`),
 * then removes what it can; a busy folder is tried again every 250 ms until BUSY_FOLDER_WAIT_MS
 * (an initdb ends within seconds). Never throws.
 * @returns [] once the folder is gone, else one problem text naming it
 */
export async function removeBusyFolder(
  dir: string,
  stopServer: () => Promise<string[]>,
  timeoutMs = BUSY_FOLDER_WAIT_MS,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stopped = await stopServer();
    try {
      rmSync(dir, { recursive: true, force: true });
      return stopped;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const why = (error as Error).message;
      if (!['EBUSY', 'EPERM', 'ENOTEMPTY', 'EACCES'].includes(code)) return [...stopped, `Could not remove ${dir}: ${why}`];
      if (Date.now() > deadline) {
        return [...stopped, `Could not remove ${dir} within ${timeoutMs / 1000} s (${why}): a program still works in it`];
      }
      await sleep(250);
    }
  }
}

/** Whether the data directory's postmaster.pid names a process that runs. */
function pidFileProcessAlive(dataDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim());
    return Number.isInteger(pid) && pid > 0 && processAlive(pid);
  } catch {
    return false;
  }
}

/** pg_ctl's own output (its errors: `-s`), in the run folder. */
const PG_CTL_LOG = 'pg_ctl.log';

/** How much longer than pg_ctl's own wait its deadline is: 15 000 ms. */
const PG_CTL_GRACE_MS = 15_000;

/**
 * Starts the server with `pg_ctl start` (writes RUN_CONF into `runDir` first) and waits until
 * pg_ctl says it accepts connections.
 * @param settings the server's settings, as Linux passes them on the command line
 * @param timeoutMs how long the server may take (the wait-timeout input), ms
 * @param onSpawn called with pg_ctl's PID as soon as it runs (NativeHandle.launcherPid)
 * @throws SetupError when a path is unsafe for CMD (checkCmdSafe) or pg_ctl cannot be run; NotReadyError (the last error:
 *   pg_ctl's output; died unless the wait ran out) when the server did not start: the caller maps
 *   it with the server log (readiness.ts notReadyError)
 */
export async function startWithPgCtl(
  bindir: string,
  runDir: string,
  dataDir: string,
  logFile: string,
  settings: ReadonlyArray<Pick<Setting, 'name' | 'value'>>,
  timeoutMs: number,
  onSpawn: (pid: number) => void = () => undefined,
): Promise<void> {
  const pgCtl = join(bindir, exe('pg_ctl', 'win32'));
  checkCmdSafe(join(bindir, exe('postgres', 'win32')), 'The server program');
  checkCmdSafe(runDir, 'The run folder');
  writeFileSync(join(runDir, RUN_CONF), runConf(settings));
  const timeoutS = Math.max(1, Math.ceil(timeoutMs / 1000));
  // pg_ctl's own output to a file: CMD and the server inherit it, and outlive pg_ctl.
  const outputFile = join(runDir, PG_CTL_LOG);
  const outputFd = openSync(outputFile, 'a');
  let result;
  try {
    result = await run(pgCtl, pgCtlStartArgs(runDir, dataDir, logFile, timeoutS), {
      timeoutMs: timeoutS * 1000 + PG_CTL_GRACE_MS,
      baseEnv: serverEnv(),
      // In the run folder: while it runs (a start killed meanwhile leaves it), the folder cannot go.
      cwd: runDir,
      outputFd,
      onSpawn,
    }).catch((error: unknown) => {
      throw new SetupError(`${pgCtl} could not be run: ${(error as Error).message}`, 'Check the PostgreSQL installation (PGBIN)');
    });
  } finally {
    closeSync(outputFd);
  }
  if (result.code === 0) return;
  let output = '';
  try {
    output = readFileSync(outputFile, 'utf8');
  } catch {
    // gone with the run folder
  }
  const said = output.trim().split(/\r?\n/).filter(Boolean).slice(-3).join(' | ');
  // pg_ctl's wait ran out while the server still starts (its message may be in another language:
  // the state says it): postmaster.pid names a live process.
  const late = result.timedOut || pidFileProcessAlive(dataDir);
  throw new NotReadyError(
    late ? `the server did not accept connections within ${timeoutS} s` : 'the server stopped before answering a query',
    `pg_ctl start: ${said || `exit code ${result.code}`}`,
    !late,
  );
}
