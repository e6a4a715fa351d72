/**
 * What run() (proc.ts) takes and returns, and runSync() a part of: ProcOptions and ProcResult.
 * Kept apart from proc.ts so that the code running programs stays under 350 lines.
 * CLOSE_GRACE_MS below is proc.ts's: 2000 ms.
 */

/** What a finished program left. */
export interface ProcResult {
  /** Exit code; null when killed by a signal (e.g. the time limit). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, in ms. */
  ms: number;
  /** True when the time limit killed it. */
  timedOut: boolean;
  /**
   * With ProcOptions.endGroupOnExit: how many processes of its process group still ran when the
   * program exited (they were ended); else 0.
   */
  leftovers: number;
  /** Their PIDs (leftovers is its length): a caller that also finds them by other means counts each once. */
  leftoverPids: number[];
  /** True when ProcOptions.firstOutputMs killed it (no output in time); timedOut is then true too. */
  silent?: boolean;
}

/** Options for run(). */
export interface ProcOptions {
  /**
   * Deadline: kill (SIGKILL, the whole process group; the program alone with stopLeaderOnly) after
   * this many ms; run() then returns within CLOSE_GRACE_MS even if a child still holds its output.
   */
  timeoutMs: number;
  /**
   * A second, earlier deadline for the first output: when the program has written nothing to
   * stdout or stderr after this many ms, it is killed as by `timeoutMs` (ProcResult.silent). For
   * a program whose first words come from a server (`docker pull`'s `Pulling from`): a server that
   * accepts and never answers is given up on long before the whole program's deadline.
   */
  firstOutputMs?: number;
  /** What counts as that first output (tested on all stdout so far); default: any output. */
  firstOutputPattern?: RegExp;
  /** Extra environment, merged over process.env (over baseEnv when given). */
  env?: Record<string, string>;
  /** The environment to start from instead of this process's (native mode's PostgreSQL programs: serverEnv). */
  baseEnv?: Record<string, string>;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** Text or bytes written to the program's stdin (then closed); default: no stdin. */
  input?: string | Buffer;
  /**
   * Where the program's stdout goes as bytes (e.g. a file), instead of being collected
   * as text (ProcResult.stdout is then ''). run() resolves once this stream has finished too.
   */
  stdoutStream?: NodeJS.WritableStream;
  /** Called with each chunk of stdout and stderr as it arrives (both are still collected). */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** Names removed from the environment the program gets. */
  unsetEnv?: string[];
  /**
   * stopActive's SIGTERM goes to this program alone, not to its process group: for a program
   * that stops its own children. initdb does: on SIGTERM or SIGINT it lets the postgres it runs
   * finish its step (that postgres sees its input end), then removes its data directory and exits.
   * A SIGTERM sent to that postgres as well can end it without removing its shared memory (a
   * System V segment and /dev/shm files left behind). SIGKILL after the grace, and the deadline's
   * kill, go to the program alone too: its postgres then sees its input end and exits cleanly.
   */
  stopLeaderOnly?: boolean;
  /**
   * Done when the program itself exits, not when its output closes: what it left running in its
   * process group (a command ending in `&`) holds the output open and would keep run() waiting
   * until the deadline. Those processes get SIGTERM, and SIGKILL after CLOSE_GRACE_MS (ms); their
   * number is ProcResult.leftovers. Output a process outside the group still holds (a daemon that
   * called setsid) is no longer read CLOSE_GRACE_MS after that. For the init command.
   */
  endGroupOnExit?: boolean;
  /** A descriptor the program gets as fd 3 and its children inherit (orphans.ts openRunMarker). */
  markerFd?: number;
  /**
   * A descriptor (an open file) given to the program as its stdout and stderr instead of pipes
   * (ProcResult.stdout and stderr are then ''): for a program whose children outlive it and
   * inherit its output (pg_ctl on Windows: CMD and the server), which would otherwise keep run()
   * waiting for the pipes to close until the deadline. run() is done when the program exits.
   */
  outputFd?: number;
  /** Called with the program's PID once it is spawned (a caller that records it before it runs its course). */
  onSpawn?: (pid: number) => void;
}
