/**
 * Background starts (issue #12): the step or command that asks for PostgreSQL returns at once,
 * with the connection already known, while a detached process of the same program pulls the
 * image and starts the server. The job's later steps (checkout, dependencies) run meanwhile; a
 * wait (the `wait` sub-action, `pg-tmpfs wait`, or the post step) collects the outcome.
 *
 * The launcher hands the job to the child on its stdin (the password never lands in a job file);
 * the child writes everything it prints to a log file, never to the job's log, and reports its
 * handle and its outcome as JSON data (never commands). The waiter shows the log whole, once the
 * start has ended, so nothing appears out of order.
 */
import { PULL_TIMEOUT_MS, RUN_TIMEOUT_MS } from './docker/engine.js';
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectionUri, type ConnectionInfo } from './connection.js';
import { InputError, SetupError } from './errors.js';
import type { Config } from './inputs.js';
import { launchDetached, LaunchError, readStdinJson } from './launch.js';
import { argvOf, processAlive } from './processes.js';
import type { Server } from './server.js';

/** First argument that turns an entry (dist/main.js, dist/cli.js) into a background start. */
export const BACKGROUND_FLAG = '--pg-tmpfs-background';

/** What the launcher hands the child on its stdin. */
interface BackgroundJob<Extra = unknown> {
  /** The configuration, with the mode resolved (`docker` or `native`) and the port fixed. */
  config: Config;
  /** The connection the launcher published; the child fails when the server ends up elsewhere. */
  connection: ConnectionInfo;
  /** Date.now() when the launching step or command began, ms since the epoch. */
  startedAtMs: number;
  /** What the caller adds (the CLI: the instance record). */
  extra: Extra;
}

/** An error as data: what the waiter rebuilds and reports. */
export interface ErrorRecord {
  /** `input` for an InputError (names the input), `setup` for a SetupError, `other` otherwise. */
  kind: 'input' | 'setup' | 'other';
  input?: string;
  problem: string;
  fix?: string;
  /** Server log lines (or the failing SQL line), when the error came with them. */
  detail?: string;
  /** What `detail` is (InputError.detailTitle). */
  detailTitle?: string;
  /** The SQL file, line and column at fault (InputError.location). */
  location?: { file: string; line: number; column: number };
}

/** How a background start ended. */
export type Outcome =
  | {
      ok: true;
      server: Server;
      /** Date.now() when the server answered and was verified, ms since the epoch. */
      readyAtMs: number;
    }
  | { ok: false; error: ErrorRecord };

/** What awaitOutcome found. */
export type Awaited =
  | { kind: 'ended'; outcome: Outcome }
  /** The child is gone without an outcome (killed): what it made is named by its handle. */
  | { kind: 'died' }
  /** The deadline passed with the child still running. */
  | { kind: 'timeout' };

/** Time for initdb and the initdb cache in a background start's deadline, in ms. */
const INITDB_MARGIN_MS = 180_000;

/**
 * Longest a background start may run, in ms, beyond the configured wait-timeout: the image pull's
 * deadline, `docker run`'s, and a margin for initdb and the cache. Waiters stop waiting (and stop
 * the child) after it.
 */
const DEADLINE_MARGIN_MS = PULL_TIMEOUT_MS + RUN_TIMEOUT_MS + INITDB_MARGIN_MS;

/**
 * When waiters give up on a background start begun at `startedAtMs`, ms since the epoch: the
 * wait timeout and the margin, plus, when init files or an init command are asked for, their
 * budget (init-timeout for the command and for the files' statements: twice init-timeout).
 */
export function backgroundDeadline(
  config: Pick<Config, 'waitTimeoutMs'> & Partial<Pick<Config, 'initTimeoutMs' | 'init' | 'initCommand'>>,
  startedAtMs: number,
): number {
  const init = (config.init?.length ?? 0) > 0 || Boolean(config.initCommand) ? 2 * (config.initTimeoutMs ?? 0) : 0;
  return startedAtMs + config.waitTimeoutMs + DEADLINE_MARGIN_MS + init;
}

/**
 * Starts `node <entry> --pg-tmpfs-background`, detached from this process (its own process group,
 * stdout and stderr appended to `logFile`, created 0600), and hands it `job` as JSON on its stdin
 * (launch.ts launchDetached).
 * @param env the child's environment (without the step's file commands: the child must not write them)
 * @param beforeJob called with the child's PID before the job is handed over (the CLI records
 *   the child as the owner of the start first, so the child's own record updates come after)
 * @returns the child's PID
 * @throws SetupError when the process cannot be started or takes no job within
 *   HANDOVER_TIMEOUT_MS (10 000 ms; it is killed then, having made nothing)
 */
export async function launchBackground(
  entry: string,
  job: BackgroundJob,
  logFile: string,
  env: NodeJS.ProcessEnv,
  beforeJob: (pid: number) => void = () => undefined,
): Promise<number> {
  const fd = openSync(logFile, 'a', 0o600);
  try {
    return (await launchDetached({ entry, flag: BACKGROUND_FLAG, job, output: fd, env, beforeJob })).pid;
  } catch (error) {
    if (error instanceof SetupError) throw error;
    if (error instanceof LaunchError && error.stage === 'start') {
      throw new SetupError(`Could not start the background process: ${error.message}`, 'Check that node can run here');
    }
    throw new SetupError(`Could not hand the start to the background process: ${(error as Error).message}`, 'Try again');
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the job the launcher hands over on stdin.
 * @throws Error when stdin closes without a job, or none arrives within 10 000 ms
 */
export async function readJob<Extra>(): Promise<BackgroundJob<Extra>> {
  const job = await readStdinJson<BackgroundJob<Extra>>();
  if (!job?.config || !job.connection) throw new Error('stdin did not hold a background job');
  return job;
}

/**
 * Checks that the server is reached where the launcher said it would be.
 * @throws SetupError naming both URIs (password hidden) when they differ
 */
export function checkPlanned(planned: ConnectionInfo, server: Server): void {
  const got = server.connection;
  if (got.host !== planned.host || got.port !== planned.port || got.user !== planned.user || got.database !== planned.database) {
    const hide = (c: ConnectionInfo) => connectionUri({ ...c, password: '***' });
    throw new SetupError(
      `The background start reached PostgreSQL at ${hide(got)}, not at ${hide(planned)} as published`,
      'Report this as a bug; start without the background option meanwhile',
    );
  }
}

/** An error as data (InputError and SetupError keep their input, fix and server log). */
export function errorRecord(error: unknown): ErrorRecord {
  if (error instanceof InputError) {
    return {
      kind: 'input',
      input: error.input,
      problem: error.problem,
      fix: error.fix,
      detail: error.detail,
      detailTitle: error.detailTitle,
      location: error.location,
    };
  }
  if (error instanceof SetupError) return { kind: 'setup', problem: error.problem, fix: error.fix, detail: error.detail };
  return { kind: 'other', problem: error instanceof Error ? error.message : String(error) };
}

/** The error an ErrorRecord describes, as the class it was thrown as. */
export function errorFrom(record: ErrorRecord): Error {
  if (record.kind === 'input') {
    const error = new InputError(record.input ?? '', record.problem, record.fix ?? '', record.detail, record.detailTitle);
    if (record.location) error.location = record.location;
    return error;
  }
  if (record.kind === 'setup') return new SetupError(record.problem, record.fix ?? '', record.detail);
  return new Error(record.problem);
}

/**
 * Writes JSON atomically (temporary file, then rename), 0600; the temporary file is removed when
 * either fails (a full folder).
 * @throws the write's or rename's error as Node gives it
 */
export function writeJson(file: string, value: unknown): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, JSON.stringify(value, null, 2), { mode: 0o600 });
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Reads a JSON file; null when it does not exist or cannot be parsed. */
export function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is a live background start of this program (its command line carries
 * BACKGROUND_FLAG, so a reused PID is not mistaken for it; where /proc is missing, any live
 * process counts).
 */
export function backgroundAlive(pid: number): boolean {
  if (!(pid > 0) || !processAlive(pid)) return false;
  try {
    return argvOf(pid).includes(BACKGROUND_FLAG);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
}

/**
 * Polls `read` (every `intervalMs`, 10 by default) until the background start `pid` reports an
 * outcome, dies without one, or `deadlineAtMs` (ms since the epoch) passes.
 * @param onWaiting called once, when the first look finds the start still running
 */
export async function awaitOutcome(
  read: () => Outcome | null,
  pid: number,
  deadlineAtMs: number,
  onWaiting: () => void = () => undefined,
  intervalMs = 10,
): Promise<Awaited> {
  for (let first = true; ; first = false) {
    const outcome = read();
    if (outcome) return { kind: 'ended', outcome };
    if (!backgroundAlive(pid)) {
      const late = read(); // written just before it exited
      return late ? { kind: 'ended', outcome: late } : { kind: 'died' };
    }
    if (Date.now() >= deadlineAtMs) return { kind: 'timeout' };
    if (first) onWaiting();
    await sleep(intervalMs);
  }
}

/**
 * Stops a background start: SIGTERM (it removes what it made, as an interrupted start does),
 * then SIGKILL after `graceMs` (15 000 by default: its cleanup has its own deadlines).
 * @returns true when it is gone
 */
export async function stopBackground(pid: number, graceMs = 15_000): Promise<boolean> {
  if (!backgroundAlive(pid)) return true;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return !backgroundAlive(pid);
  }
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!backgroundAlive(pid)) return true;
    await sleep(20);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
  await sleep(50);
  return !backgroundAlive(pid);
}
