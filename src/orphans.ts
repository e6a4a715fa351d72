/**
 * The programs a killed run leaves behind, and how the next cleanup ends them or waits for them.
 *
 * When `up`, the action's main step or a background start dies by SIGKILL, what it started runs
 * on as orphans: initdb with its bootstrap or single-user postgres, a postmaster spawned before
 * its PID was recorded. Removing their folder under them makes that postgres PANIC and abort(),
 * which leaves its System V segment and its /dev/shm/PostgreSQL.* files behind (seen here: 10 of
 * 20 cold native starts killed at a random 0.25-0.6 s, then `down`). So `down`, the next `up` of
 * a name, the post step and a cache fill first end the server processes working in the folder
 * (initdb, postgres and their children: serverTree), and only then remove it.
 *
 * Which processes are ours: those whose working directory is inside the folder. initdb runs
 * with its data directory as working directory (run() cwd), its postgres and any postmaster
 * change into their data directory at start (manual: "Creating a Database Cluster"; backend
 * ChangeToDataDir), and no other server works in a folder this project made with a random name.
 * No PID, process group or name is trusted alone (PIDs are reused; a DSM name is random).
 *
 * The init command is found by RUN_ENV in its environment, which its children inherit, or by the
 * run's marker descriptor (openRunMarker), which they inherit too: a child that drops RUN_ENV
 * and leaves the process group (`env -u PG_TMPFS_RUN setsid …`) still holds it. So is a
 * `docker pull` (Docker mode gives it the run's marker: a pull from a registry that never answers
 * would otherwise run on for minutes after its start was killed).
 *
 * In Docker mode the orphan is `docker run` itself (found by its run label argument): while it
 * runs, the daemon may still create the container, so the cleanup waits for it before listing.
 *
 * Linux only (/proc); elsewhere nothing is found and folders are removed as before.
 */
import { closeSync, openSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_ENV } from './proc.js';
import { argvOf, cwdOf, environHas, findProcesses, mappedFiles, openFiles, type ProcessInfo } from './processes.js';
import { removeSysvSegment, sysvRows } from './sysv.js';

/** A process working in a folder (processes.ts findProcesses). */
export type FolderProcess = ProcessInfo;

/** How long initdb (or a postmaster) may take to end after its signal: 15 000 ms. */
const END_GRACE_MS = 15_000;
/** How long processes may take to vanish after SIGKILL: 5000 ms. */
const KILL_WAIT_MS = 5_000;
/** Poll interval while waiting for processes to end: 10 ms. */
const POLL_MS = 10;

/** Whether `path` is `dir` or below it. */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * Waits until `find()` finds nothing or `ms` pass, polling every POLL_MS.
 * @returns what it found last
 */
async function waitNone(find: () => FolderProcess[], ms: number): Promise<FolderProcess[]> {
  const deadline = Date.now() + ms;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(POLL_MS);
    left = find();
  }
  return left;
}

/**
 * The live processes (zombies excluded) whose working directory is `dir` or below it, this
 * process excepted. A folder that was removed under them (`/path (deleted)`) still counts.
 * @returns [] off Linux, or when none
 */
function processesIn(dir: string): FolderProcess[] {
  if (!dir) return [];
  // /proc/<pid>/cwd is the resolved path: resolve `dir` too (a symlinked TMPDIR or cache-dir).
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // gone: its processes show the path it had
  }
  return findProcesses((pid) => {
    const cwd = cwdOf(pid);
    return within(cwd, real) || within(cwd, dir);
  });
}

/** The program's file name, e.g. `initdb` for `/usr/lib/postgresql/15/bin/initdb`. */
function programName(p: FolderProcess): string {
  return (p.argv[0] ?? '').split('/').pop() ?? '';
}

/**
 * The signal that ends `p` cleanly, or null when it must be left to end by itself:
 * - initdb: SIGTERM (it finishes its step, its postgres sees the end of its input and exits
 *   cleanly, then initdb removes its data directory; initdb's own signal handling);
 * - a postmaster (a postgres that is not initdb's `--boot`/`--single`, whose parent is no postgres
 *   in the folder): SIGQUIT, immediate shutdown, which removes its shared memory (manual:
 *   "Shutting Down the Server");
 * - initdb's postgres, a postmaster's children, a shell: none (SIGTERM or SIGQUIT to a bootstrap
 *   postgres ends it without removing its shared memory).
 */
export function endSignal(p: FolderProcess, all: readonly FolderProcess[]): NodeJS.Signals | null {
  const name = programName(p);
  if (name === 'initdb' || name === 'initdb.exe') return 'SIGTERM';
  if (!/^postgres(\.exe)?$/.test(name) && !/^postgres:/.test(p.argv[0] ?? '')) return null;
  if (p.argv.some((a) => a === '--boot' || a === '--single' || a === '--check')) return null;
  const parent = all.find((q) => q.pid === p.ppid);
  if (parent && /postgres/.test(parent.argv[0] ?? '')) return null;
  return 'SIGQUIT';
}

/**
 * Of the processes working in a folder, those a start made: initdb and postgres processes, and
 * their descendants (the shell initdb runs postgres through). A shell or a client someone opened
 * in the folder is not one of them, and is never signalled.
 */
export function serverTree(found: readonly FolderProcess[]): FolderProcess[] {
  const kept = new Set(
    found
      .filter((p) => /^(initdb|postgres)(\.exe)?$/.test(programName(p)) || /^postgres:/.test(p.argv[0] ?? ''))
      .map((p) => p.pid),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const p of found) {
      if (!kept.has(p.pid) && kept.has(p.ppid)) {
        kept.add(p.pid);
        grew = true;
      }
    }
  }
  return found.filter((p) => kept.has(p.pid));
}

/** Sends a signal; a process already gone is no problem. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}

/** The /dev/shm files a process has mapped (PostgreSQL's POSIX dynamic shared memory). */
function mappedShm(pid: number): string[] {
  return mappedFiles(pid).filter((f) => /^\/dev\/shm\/PostgreSQL\.\d+$/.test(f));
}

/** Whether any live process but this one maps `file` (findProcesses: a zombie maps nothing). */
function mappedByAnyone(file: string): boolean {
  return findProcesses((pid) => mappedFiles(pid).includes(file)).length > 0;
}

/**
 * Ends every process a start left working in `dir` (processesIn, then serverTree), so that the
 * folder can be removed:
 * initdb and postmasters get the signal that ends them cleanly (endSignal), the rest end with
 * them. Those still there after `graceMs` are killed (SIGKILL), and the shared memory they held
 * is removed: the System V segments they created (creator PID) and the /dev/shm/PostgreSQL.*
 * files they had mapped, once nothing else is attached. Never another server's memory: only
 * what these processes created or mapped.
 * @param graceMs how long the clean end may take, in ms (default END_GRACE_MS)
 * @returns one text per problem (a process that would not die, a segment that could not be
 *   removed); [] when nothing works there any more. Never throws.
 */
export async function endProcessesIn(dir: string, graceMs = END_GRACE_MS): Promise<string[]> {
  const find = () => serverTree(processesIn(dir));
  const found = find();
  if (found.length === 0) return [];
  for (const p of found) {
    const sig = endSignal(p, found);
    if (sig) signal(p.pid, sig);
  }
  const left = await waitNone(find, graceMs);
  if (left.length === 0) return [];
  // Escalation: note what they hold before it is orphaned, then kill them.
  const pids = new Set(left.map((p) => p.pid));
  const files = [...new Set(left.flatMap((p) => mappedShm(p.pid)))];
  for (const p of left) signal(p.pid, 'SIGKILL');
  const stuck = await waitNone(find, KILL_WAIT_MS);
  const problems = stuck.map((p) => `Process ${p.pid} (${p.argv.join(' ').slice(0, 80)}) in ${dir} did not end`);
  // The segments they created (creator PID), once nothing is attached.
  for (const row of sysvRows().filter((f) => pids.has(Number(f[4])))) problems.push(...(await removeSysvSegment(Number(row[1]))));
  for (const file of files) {
    try {
      if (!mappedByAnyone(file)) rmSync(file, { force: true });
    } catch (error) {
      problems.push(`Could not remove ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return problems;
}

/**
 * The live processes (zombies excluded) that have `arg` as one of their arguments, this process
 * excepted; e.g. the `docker run` of a run, by its `--label io.github.pg-tmpfs-action.run=TOKEN`.
 * @returns [] off Linux, or when none
 */
export function processesWithArg(arg: string): FolderProcess[] {
  if (!arg) return [];
  return findProcesses((pid) => argvOf(pid).includes(arg));
}

/**
 * Waits until no process has `arg` among its arguments (see processesWithArg), up to `ms`; then
 * kills those left (SIGKILL) and waits up to KILL_WAIT_MS more.
 * @returns true when some had to be killed (what they were doing may still be under way, e.g. a
 *   container the daemon is creating), false when they ended by themselves or there were none
 */
export async function awaitProcessesWithArg(arg: string, ms: number): Promise<boolean> {
  const left = await waitNone(() => processesWithArg(arg), ms);
  if (left.length === 0) return false;
  for (const p of left) signal(p.pid, 'SIGKILL');
  await waitNone(() => processesWithArg(arg), KILL_WAIT_MS);
  return true;
}

/** Where a run's marker file lives for a moment (openRunMarker): `<temp folder>/pg-tmpfs-mark-<token>`. */
function runMarkerPath(token: string): string {
  return join(tmpdir(), `pg-tmpfs-mark-${token}`);
}

/**
 * Opens the descriptor that marks what run `token`'s init command starts: a file made (mode 0600,
 * never there before) and removed at once, so only the descriptor remains. Given to the command
 * as a descriptor of its own (fd 3), it is inherited by every process it starts that does not
 * close it, whatever environment or session they take: /proc/<pid>/fd shows
 * `<runMarkerPath> (deleted)`. Close it when the command has ended.
 * @returns the open descriptor
 * @throws Error from open (e.g. EEXIST for a file of that name, which a run never reuses)
 */
export function openRunMarker(token: string): number {
  const path = runMarkerPath(token);
  const fd = openSync(path, 'wx', 0o600);
  rmSync(path, { force: true });
  return fd;
}

/** Closes a marker descriptor (openRunMarker); never throws. */
export function closeRunMarker(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * The live processes (zombies excluded) marked by run `token`: RUN_ENV=token in their
 * environment, or holding its marker descriptor (openRunMarker) open, this process excepted
 * (/proc/<pid>/environ and fd: a process of another user is not readable unless root).
 * @returns their PIDs and process groups; [] off Linux, or when none
 */
export function processesMarked(token: string): FolderProcess[] {
  if (!token) return [];
  const entry = `${RUN_ENV}=${token}`;
  const marker = `${runMarkerPath(token)} (deleted)`;
  return findProcesses((pid) => environHas(pid, entry) || openFiles(pid).includes(marker));
}

/**
 * Ends the init command or `docker pull` a killed start left running, and what they started
 * (processesMarked): SIGTERM to each process group, SIGKILL to what is left after `graceMs` (ms).
 * Removes the run's marker file, should a kill have come between its making and its removal.
 * @returns one text per process that would not end; never throws
 */
export async function endMarkedProcesses(token: string, graceMs = 5_000): Promise<string[]> {
  if (token) rmSync(runMarkerPath(token), { force: true });
  return endFound(() => processesMarked(token), graceMs, `run ${token}`);
}

/**
 * The live processes with `entry` (`NAME=value`) in their environment, this process excepted
 * (/proc/<pid>/environ: a process of another user is not readable unless root).
 * @returns their PIDs and process groups; [] off Linux, or when none
 */
function processesWithEnv(entry: string): FolderProcess[] {
  return findProcesses((pid) => environHas(pid, entry));
}

/**
 * Ends what a program left running that carries `entry` in its environment (processesWithEnv):
 * a daemon it started in a session of its own (setsid), out of the process group run() ends.
 * @param graceMs how long SIGTERM has before SIGKILL, ms
 * @returns one text per process that would not end; never throws
 */
export async function endProcessesWithEnv(entry: string, graceMs = 1_000): Promise<string[]> {
  return endFound(() => processesWithEnv(entry), graceMs, entry);
}

/** SIGTERM to the process groups of what `find` finds, SIGKILL to what is left after `graceMs` (ms). */
async function endFound(find: () => FolderProcess[], graceMs: number, of: string): Promise<string[]> {
  const found = find();
  if (found.length === 0) return [];
  // Process groups of their own (run() starts the command detached); never group 0 or 1.
  const groups = [...new Set(found.map((p) => p.pgid))].filter((g) => g > 1 && g !== process.pid);
  for (const g of groups) signal(-g, 'SIGTERM');
  const stubborn = await waitNone(find, graceMs);
  // Only the groups that still hold a marked process: a group that is gone may have a reused ID.
  for (const g of new Set(stubborn.map((p) => p.pgid))) if (groups.includes(g)) signal(-g, 'SIGKILL');
  for (const p of stubborn) signal(p.pid, 'SIGKILL');
  const left = await waitNone(find, KILL_WAIT_MS);
  return left.map((p) => `Process ${p.pid} (${p.argv.join(' ').slice(0, 80)}) of ${of} did not end`);
}
