/**
 * Running programs: argument arrays only (never a shell), a deadline on every call (the process
 * group is killed when it passes), output collected, and the wall time measured around the call.
 * The Docker engine wrapper, native mode's helpers and the benchmark all use it. Finding
 * processes by /proc (alive, state, process group members) is in processes.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { ProcOptions, ProcResult } from './proc-types.js';
import { groupMembers } from './processes.js';

/**
 * The programs run() has started and that have not exited yet: process group ID → whether
 * stopActive's SIGTERM goes to the program alone (ProcOptions.stopLeaderOnly).
 */
const active = new Map<number, boolean>();

/**
 * Sends `signal` to every program run() started that is still running (each leaves the set as it
 * exits): to its whole process group, or to the program alone when it was started with
 * stopLeaderOnly (its children end when their input does; see ProcOptions.stopLeaderOnly).
 * @returns how many were signalled
 */
export function killActive(signal: NodeJS.Signals = 'SIGKILL'): number {
  let signalled = 0;
  for (const [pid, leaderOnly] of active) {
    try {
      // Windows has no process groups: the program itself.
      process.kill(leaderOnly || process.platform === 'win32' ? pid : -pid, signal);
      signalled += 1;
    } catch {
      active.delete(pid); // already gone
    }
  }
  return signalled;
}

/**
 * Stops every program run() started that still runs: SIGTERM first, so they clean up after
 * themselves (to the process group, or to the program alone when started with stopLeaderOnly),
 * then SIGKILL after `graceMs` (ms) to each process group that still runs, and to a
 * stopLeaderOnly program alone: its children end when their input does, and whoever removes
 * their folder waits for them (src/orphans.ts).
 */
export async function stopActive(graceMs = 2000): Promise<void> {
  if (killActive('SIGTERM') === 0) return;
  const deadline = Date.now() + graceMs;
  while (active.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  killActive('SIGKILL');
}

/** After the deadline killed a program, how long run() waits for its pipes to close: 2000 ms. */
const CLOSE_GRACE_MS = 2000;

/** How much of a program's stderr run() keeps: its last 1 MiB (characters). */
const STDERR_KEPT = 1 << 20;

/**
 * The environment variable that marks an init command, and what it starts, or a `docker pull`,
 * with its run's token
 * (src/orphans.ts ends what a killed start left running by it). Programs run() starts and postgres
 * do not inherit it: a server started from inside an init command is not that run's to end.
 */
export const RUN_ENV = 'PG_TMPFS_RUN';

/** This process's environment without RUN_ENV: what the programs it starts inherit. */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return withoutNames(process.env, [RUN_ENV]);
}

/** A copy of `env` without `names` (or `env` itself when there are none). */
function withoutNames(env: NodeJS.ProcessEnv, names: string[] | undefined): NodeJS.ProcessEnv {
  if (!names?.length) return env;
  const copy = { ...env };
  for (const name of names) delete copy[name];
  return copy;
}

/**
 * Runs `program args` and waits for it; never throws for a non-zero exit (read `code`). Long
 * because its timers, output and exit handlers share one child's state and must settle it once.
 * @throws Error only when the program cannot be started (e.g. not installed: `code` ENOENT)
 */
export function run(program: string, args: readonly string[], options: ProcOptions): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: withoutNames({ ...(options.baseEnv ?? inheritedEnv()), ...options.env }, options.unsetEnv),
      stdio: [
        options.input === undefined ? 'ignore' : 'pipe',
        options.outputFd ?? 'pipe',
        options.outputFd ?? 'pipe',
        ...(options.markerFd !== undefined ? [options.markerFd] : []),
      ],
      // A process group of its own (the deadline and stopActive end the group). On Windows,
      // detached keeps it out of Node's kill-on-close job: a program a killed start leaves (pg_ctl,
      // initdb, which waits for its restricted copy of itself) then runs to its end, and the stop
      // waits for it (windows.ts) instead of finding a server or an initdb with no parent.
      detached: true,
      windowsHide: true,
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
    });
    if (child.pid) active.set(child.pid, options.stopLeaderOnly ?? false);
    if (child.pid) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let leftoverPids: number[] = [];
    let silent = false;
    let spoke = false;
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => undefined); // EPIPE: the program stopped reading; its exit says why
      child.stdin.end(options.input);
    }
    // A binary stdout is piped on; run() settles after that stream has finished as well.
    const piped = options.stdoutStream
      ? new Promise<void>((done) => {
          const out = options.stdoutStream as NodeJS.WritableStream;
          // 'close': a file stream closes once its bytes are written.
          out.on('close', () => done());
          out.on('error', () => {
            // The pipe stops on an error (ENOSPC): keep reading, or the program blocks on a full pipe.
            child.stdout?.resume();
            done();
          });
          child.stdout?.pipe(out);
        })
      : Promise.resolve();
    if (!options.stdoutStream)
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        spoke ||= options.firstOutputPattern ? options.firstOutputPattern.test(stdout) : true;
        options.onOutput?.(d, 'stdout');
      });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      // Its tail is what errors quote: a program that writes without end must not fill this process's memory.
      stderr = (stderr + d).slice(-STDERR_KEPT);
      spoke ||= !options.firstOutputPattern;
      options.onOutput?.(d, 'stderr');
    });
    /** Stops waiting for the output (a child may hold it) CLOSE_GRACE_MS from now. */
    const stopReading = (code: number | null): void => {
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(code);
      }, CLOSE_GRACE_MS).unref();
    };
    const kill = (): void => {
      timedOut = true;
      try {
        // A stopLeaderOnly program alone: SIGKILL to its postgres would leave shared memory.
        if (child.pid) process.kill(options.stopLeaderOnly ? child.pid : -child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      // The program exited before its deadline, and a process outside its group (setsid) still
      // holds the output: no 'exit' is to come, so the deadline ends the wait here.
      if (child.exitCode !== null || child.signalCode !== null) stopReading(child.exitCode);
    };
    const timer = setTimeout(kill, options.timeoutMs);
    const silenceTimer =
      options.firstOutputMs !== undefined && options.firstOutputMs < options.timeoutMs
        ? setTimeout(() => {
            if (spoke) return;
            silent = true;
            kill();
          }, options.firstOutputMs)
        : undefined;
    let settled = false;
    const finish = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(silenceTimer);
      if (child.pid) active.delete(child.pid);
      // The bytes piped on are settled by then, or given up on CLOSE_GRACE_MS later.
      let graceTimer: NodeJS.Timeout | undefined;
      const settledOutput = options.stdoutStream
        ? Promise.race([piped, new Promise<void>((done) => (graceTimer = setTimeout(done, CLOSE_GRACE_MS)))]).finally(() =>
            clearTimeout(graceTimer),
          )
        : piped;
      void settledOutput.then(() =>
        resolve({
          code,
          stdout,
          stderr,
          ms: performance.now() - t0,
          timedOut,
          leftovers: leftoverPids.length,
          leftoverPids,
          ...(silent ? { silent } : {}),
        }),
      );
    };
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(silenceTimer);
      if (child.pid) active.delete(child.pid);
      settled = true;
      reject(error);
    });
    // 'close' waits for the pipes, which a child of the program may hold on (initdb's postgres
    // after the program alone was killed, a daemon in another process group): once the deadline
    // has killed the program, its exit ends the wait after CLOSE_GRACE_MS at the latest.
    child.on('exit', (code) => {
      if (timedOut) stopReading(code);
      else if (options.endGroupOnExit && child.pid) void endGroup(child.pid).then(() => stopReading(code));
    });
    /** Ends what the program left in its process group (endGroupOnExit). */
    const endGroup = async (pgid: number): Promise<void> => {
      const left = groupMembers(pgid);
      if (left.length === 0 || timedOut) return;
      leftoverPids = left;
      const signal = (sig: NodeJS.Signals): void => {
        try {
          process.kill(-pgid, sig);
        } catch {
          // the group is gone
        }
      };
      const gone = async (ms: number): Promise<boolean> => {
        const deadline = Date.now() + ms;
        while (groupMembers(pgid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        return groupMembers(pgid).length === 0;
      };
      signal('SIGTERM');
      if (await gone(CLOSE_GRACE_MS)) return;
      // A SIGKILLed process is gone only once the kernel has run its exit: wait for that too, so
      // that run() returns after the group has ended (seen under load: still there right after).
      signal('SIGKILL');
      await gone(CLOSE_GRACE_MS);
    };
    child.on('close', (code) => finish(code));
  });
}

/** The last lines of a program's output, for error messages. */
export function tail(text: string, lines = 6): string {
  return text.trimEnd().split('\n').slice(-lines).join(' | ');
}

/** What runSync() takes: run()'s options for a probe (its deadline, environment, folder and user). */
export type SyncOptions = Pick<ProcOptions, 'timeoutMs' | 'env' | 'baseEnv' | 'cwd' | 'uid' | 'gid' | 'unsetEnv'>;

/**
 * run()'s synchronous sibling, for probes in synchronous code (Facts.get callbacks, SourceProbes):
 * the same environment rules (baseEnv or this process's without RUN_ENV, `env` over it, `unsetEnv`
 * removed), no stdin, SIGKILL at `timeoutMs` (ms), and it never throws for a non-zero exit. Its
 * limit: spawnSync kills the program alone, not a process group, and waits for its output to
 * close, so it is only for programs that start no children.
 * @returns a ProcResult (leftovers 0); output beyond 1 MiB ends the program (code null, the cause in stderr)
 * @throws Error only when the program cannot be started (e.g. not installed: `code` ENOENT)
 */
export function runSync(program: string, args: readonly string[], options: SyncOptions): ProcResult {
  const t0 = performance.now();
  const r = spawnSync(program, args, {
    cwd: options.cwd,
    env: withoutNames({ ...(options.baseEnv ?? inheritedEnv()), ...options.env }, options.unsetEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    windowsHide: true,
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
  });
  const why = (r.error as NodeJS.ErrnoException | undefined)?.code;
  if (r.error && !r.pid) throw r.error; // not started
  const stderr = `${r.stderr ?? ''}${r.error && why !== 'ETIMEDOUT' ? r.error.message : ''}`.slice(-STDERR_KEPT);
  const code = r.error ? null : r.status;
  return {
    code,
    stdout: r.stdout ?? '',
    stderr,
    ms: performance.now() - t0,
    timedOut: why === 'ETIMEDOUT',
    leftovers: 0,
    leftoverPids: [],
  };
}

/**
 * Like run(), but throws when the program fails or times out.
 * @throws Error naming the program, its exit and the tail of its stderr
 */
export async function runOk(program: string, args: readonly string[], options: ProcOptions): Promise<ProcResult> {
  const r = await run(program, args, options);
  if (r.code !== 0) {
    const why = r.timedOut ? `timed out after ${options.timeoutMs} ms` : `exit code ${r.code}`;
    throw new Error(`${program} ${args.slice(0, 3).join(' ')} … ${why}: ${tail(r.stderr || r.stdout)}`);
  }
  return r;
}
