/**
 * The one guarded start that the action's main step, its background process, the CLI's `up` and
 * the CLI's background process share: start() with its handle saved as soon as it exists, an
 * interrupt that removes what was made, the planned connection checked (background starts), and
 * one failure record. Where each piece goes is a StartSink, as actions/cache's IStateProvider
 * gives one interface with a backing per place (GITHUB_STATE, the background folder, the CLI's
 * instance record).
 */
import { checkPlanned, errorRecord, type ErrorRecord } from './background.js';
import type { ConnectionInfo } from './connection.js';
import type { Config } from './inputs.js';
import { cleanupOnInterrupt } from './interrupt.js';
import { start, stop, sweepLeftovers } from './lifecycle.js';
import type { Logger } from './log.js';
import type { Server, ServerHandle } from './server.js';
import type { Phases } from './timing.js';
import type { RemoteCache } from './schema-cache/cache.js';

/** A start that failed or was interrupted: the one failure record of action and CLI. */
interface Failure {
  /** What was thrown, or for an interrupt the sink's interruptedError. */
  error: unknown;
  /** The same as data (background.ts errorRecord), for a waiter in another process. */
  record: ErrorRecord;
  /** Whether a signal stopped the start (the error is then the sink's interruptedError). */
  interrupted: boolean;
  /** What could not be removed (its handle, and why), or null when nothing is left. */
  left: { handle: ServerHandle; problems: string[] } | null;
}

/** Where a guarded start puts what it learns, as it learns it. */
interface StartSink {
  /** The handle, each time it grows (before the step it names runs): what an interrupt or a later `down` removes. */
  saveHandle(handle: ServerHandle): void;
  /**
   * The server, answered and checked. Runs inside the guard: a signal up to its end still
   * removes the server. @throws whatever it throws; the server is then stopped
   */
  saveServer(server: Server): void | Promise<void>;
  /** The start failed, or was interrupted (then after what it made was removed). */
  saveFailure(failure: Failure): void;
  /** The error an interrupt by `signal` is recorded as (what its waiters read). */
  interruptedError(signal: string): Error;
}

/** How a guarded start differs between callers. */
interface GuardOptions {
  /** The connection already published (background starts): the server must answer there. */
  planned?: ConnectionInfo;
  /** Phase timings of the CLI's `up --json`. */
  phases?: Phases;
  /** A container name whose leftovers an interrupt also removes (the CLI: names derive from --name). */
  sweepName?: string;
  /** A cache beyond this machine the schema cache restores from (the action's @actions/cache). */
  remote?: RemoteCache;
}

/**
 * Starts the server as `config` says, under the interrupt guard, reporting to `sink`.
 * @returns the running server (saved by sink.saveServer)
 * @throws InputError / SetupError from the start, the planned-connection check or the sink; what
 *   the start made is removed first (sink.saveFailure says what could not be). Interrupted, it
 *   never settles: the handler removes what was made, records sink.interruptedError and exits
 *   (interrupt.ts). The handlers stay after it returns, until the process exits: a signal then
 *   still removes the server, so the caller's entry must wait, not exit, once interrupted() says so.
 */
export async function guardedStart(config: Config, log: Logger, sink: StartSink, options: GuardOptions = {}): Promise<Server> {
  let handle: ServerHandle | null = null;
  try {
    return await cleanupOnInterrupt(
      async () => {
        const server = await start(
          config,
          log,
          (h) => {
            handle = h;
            sink.saveHandle(h);
          },
          options.phases,
          options.remote ?? null,
        );
        try {
          if (options.planned) checkPlanned(options.planned, server);
          await sink.saveServer(server);
        } catch (error) {
          for (const problem of await stop(server)) log.warning(problem);
          throw error;
        }
        return server;
      },
      async (signal) => {
        log.warning(`Interrupted by ${signal}: removing what was started`);
        const problems = handle ? await stop(handle) : [];
        if (options.sweepName) problems.push(...(await sweepLeftovers(options.sweepName)).problems);
        for (const problem of problems) log.warning(problem);
        sink.saveFailure(failure(sink.interruptedError(signal), handle, problems, true));
      },
      // Until the process exits: a signal while the caller publishes the server (outputs, the job
      // summary, the CLI's print) still removes it. Every entry checks interrupted() before exiting.
      { untilExit: true },
    );
  } catch (error) {
    // start() removed what it made (it only warns when it could not): check once more.
    const problems = handle ? await stop(handle) : [];
    sink.saveFailure(failure(error, handle, problems, false));
    throw error;
  }
}

/** A Failure from what was thrown and what could not be removed. */
function failure(error: unknown, handle: ServerHandle | null, problems: string[], interrupted: boolean): Failure {
  return { error, record: errorRecord(error), interrupted, left: handle && problems.length ? { handle, problems } : null };
}
