/**
 * Processes as /proc shows them (Linux; signal 0 elsewhere): whether one is alive (a zombie counts
 * as exited), its state, parent and process group, the processes a predicate selects (one walk of
 * /proc), the members of a process group, and what /proc tells of one process (argvOf, environHas,
 * cwdOf, mappedFiles, openFiles). run() (proc.ts) ends with it what a program left in its group;
 * orphans.ts finds with it what a killed start left running. Source: proc(5).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Whether a process with this PID exists and has not exited (signal 0; EPERM counts as existing:
 * the process runs under another user). On Linux a zombie counts as exited: an orphan that died
 * waits as one until PID 1 reaps it, which some containers' PID 1 never does (/proc/PID/stat
 * state Z).
 */
export function processAlive(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Whether /proc says the process is a zombie (Linux; false elsewhere or when unreadable). */
function isZombie(pid: number): boolean {
  return process.platform === 'linux' && procStat(pid)?.state === 'Z';
}

/**
 * Parses `/proc/<pid>/stat` (Linux).
 * @returns the state letter (`R`, `S`, `Z` …), parent PID and process group; null when it cannot be read
 */
export function procStat(pid: number): { state: string; ppid: number; pgid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return null;
  }
}

/** A live process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  /** Parent PID. */
  ppid: number;
  /** Process group ID. */
  pgid: number;
  /** Its command line, e.g. `['/usr/lib/postgresql/15/bin/postgres', '--boot', …]`. */
  argv: string[];
}

/**
 * The live processes (zombies excluded) for which `match(pid)` holds, this process excepted, with
 * their command lines: one walk of /proc. `match` reads what it needs from /proc/<pid>/ and may
 * throw when it cannot (a process that ended, or another user's when not root): that process is
 * skipped.
 * @returns [] off Linux, or when none
 */
export function findProcesses(match: (pid: number) => boolean): ProcessInfo[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!/^\d+$/.test(name) || pid === process.pid) continue;
    try {
      if (!match(pid)) continue;
    } catch {
      continue; // gone, a zombie, or another user's (not ours to end)
    }
    const stat = procStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    let argv: string[] = [];
    try {
      argv = argvOf(pid).filter(Boolean);
    } catch {
      // exited meanwhile
    }
    found.push({ pid, ppid: stat.ppid, pgid: stat.pgid, argv });
  }
  return found;
}

/**
 * The live processes (zombies excluded) of process group `pgid`. On Linux from /proc
 * (findProcesses); elsewhere `[pgid]` when signal 0 reaches any member of the group (zombies
 * included), else [].
 * @returns their PIDs
 */
export function groupMembers(pgid: number): number[] {
  if (!(pgid > 1)) return [];
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM' ? [pgid] : [];
    }
  }
  return findProcesses((pid) => procStat(pid)?.pgid === pgid).map((p) => p.pid);
}

/**
 * The command line of `pid`: /proc/<pid>/cmdline split at its NUL bytes (an empty argument kept,
 * the final terminator dropped), e.g. `['node', '/x/dist/cli.js', '--pg-tmpfs-background']`.
 * @throws Error from the read (ENOENT: no such process, or no /proc; EACCES: another user's)
 */
export function argvOf(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  if (argv.at(-1) === '') argv.pop();
  return argv;
}

/**
 * Whether the environment `pid` started with holds `entry` (`NAME=value`, whole): /proc/<pid>/environ.
 * @throws Error from the read (a process of another user is not readable unless root)
 */
export function environHas(pid: number, entry: string): boolean {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
}

/**
 * The working directory of `pid`, resolved (/proc/<pid>/cwd); a folder removed under it still
 * gives the path it had (without the ` (deleted)` the link then ends with).
 * @throws Error from readlink (ENOENT: gone; EACCES: another user's)
 */
export function cwdOf(pid: number): string {
  return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
}

/**
 * The files `pid` has mapped into its memory (/proc/<pid>/maps: the path column; a removed file
 * without its ` (deleted)`), each once, in the order first mapped.
 * @returns [] when it cannot be read (gone, another user's, not Linux)
 */
export function mappedFiles(pid: number): string[] {
  try {
    const paths = readFileSync(`/proc/${pid}/maps`, 'utf8')
      .split('\n')
      .map((line) => /^\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\/.*)$/.exec(line)?.[1]?.replace(/ \(deleted\)$/, ''))
      .filter((path): path is string => path !== undefined);
    return [...new Set(paths)];
  } catch {
    return [];
  }
}

/**
 * What the open descriptors of `pid` point to (/proc/<pid>/fd/*: a path, with ` (deleted)` when
 * the file was removed; `pipe:[…]`, `socket:[…]` …). A descriptor closed meanwhile is left out.
 * @throws Error from reading the folder (gone; another user's unless root)
 */
export function openFiles(pid: number): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // closed meanwhile
    }
  }
  return targets;
}
