/**
 * Interruptions: a cancelled CI job or a Ctrl-C sends SIGINT or SIGTERM (GitHub's runner: SIGINT,
 * then SIGTERM 7.5 s later). While a start is under way, the handler stops the programs it runs
 * (stopActive: SIGTERM, then SIGKILL), lets the start unwind (each step that makes something first calls
 * throwIfInterrupted), removes what the start made, and exits with 128 + the signal's number.
 * SIGKILL cannot be caught: for it, what is made is recorded before it is made, and the next
 * `down`, `up` or post step removes it.
 */
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { killActive, stopActive } from './proc.js';

/** The signals a cancelled job or a terminal sends. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long the interrupted start may take to unwind before cleanup runs anyway: 5000 ms. */
const UNWIND_MS = 5000;

/** The signal that interrupted this process, or null. */
let interruptedBy: NodeJS.Signals | null = null;

/** A signal that came while held (holdSignals), not yet taken over by cleanupOnInterrupt. */
let held: NodeJS.Signals | null = null;
const hold = (signal: NodeJS.Signals): void => {
  held ??= signal;
};

/**
 * Holds SIGINT, SIGTERM and SIGHUP from now on: one that comes is kept (the process does not
 * die of it) until cleanupOnInterrupt takes it over, or releaseSignals hands it back. For steps
 * before the start that already make something (the CLI's instance record), so a signal between
 * them and the start's own handler is still cleaned up.
 */
export function holdSignals(): void {
  for (const signal of SIGNALS) process.on(signal, hold);
}

/**
 * Stops holding signals (holdSignals).
 * @returns the signal that came meanwhile, or null; the caller removes what it made and exits
 *   with 128 + its number (signalExitCode)
 */
export function releaseSignals(): NodeJS.Signals | null {
  for (const signal of SIGNALS) process.off(signal, hold);
  const signal = held;
  held = null;
  return signal;
}

/** The exit code of a process a signal ended: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

/** Thrown by throwIfInterrupted: the start stops before making anything more. */
export class InterruptedError extends Error {
  constructor(readonly signal: string) {
    super(`interrupted by ${signal}`);
    this.name = 'InterruptedError';
  }
}

/** The signal that interrupted this process, or null when none did. */
export function interrupted(): NodeJS.Signals | null {
  return interruptedBy;
}

/**
 * Called before every step that makes something (a container, a mount, a run folder, a
 * process), and in waiting loops.
 * @throws InterruptedError once a signal has arrived
 */
export function throwIfInterrupted(): void {
  if (interruptedBy) throw new InterruptedError(interruptedBy);
}

/**
 * Runs `fn`; when SIGINT, SIGTERM or SIGHUP arrives before it settles: stops the programs it
 * runs (stopActive), waits up to UNWIND_MS for it to settle, awaits `cleanup(signal)` (further signals are
 * ignored meanwhile; cleanup has its own deadlines), then exits the process with 128 + the
 * signal's number (130 for SIGINT, 143 for SIGTERM). A signal held since holdSignals is handled
 * the same way at once, without running `fn`.
 * @param options.untilExit keep the handlers after `fn` settles, until the process exits (the
 *   caller checks interrupted() before exiting)
 * @returns what `fn` returns (the handlers are then removed, unless untilExit); never settles once interrupted
 * @throws what `fn` throws, when uninterrupted
 */
export async function cleanupOnInterrupt<T>(
  fn: () => Promise<T>,
  cleanup: (signal: string) => Promise<void>,
  options: { untilExit?: boolean } = {},
): Promise<T> {
  let settled: Promise<unknown> = Promise.resolve();
  const handler = (signal: NodeJS.Signals): void => {
    if (interruptedBy) return;
    interruptedBy = signal;
    void (async () => {
      await stopActive();
      await Promise.race([settled.catch(() => undefined), sleep(UNWIND_MS)]);
      killActive();
      await cleanup(signal).catch(() => undefined);
      process.exit(signalExitCode(signal));
    })();
  };
  for (const signal of SIGNALS) process.on(signal, handler);
  // A signal held before this call (holdSignals): fn does not run; what was made before is removed.
  const early = releaseSignals();
  if (early) {
    handler(early);
    return new Promise<never>(() => undefined);
  }
  const running = fn();
  settled = running;
  const outcome = await running.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  // Interrupted: the handler cleans up and exits; nothing after this point may run.
  if (interruptedBy) return new Promise<never>(() => undefined);
  // untilExit: a signal after fn succeeded still cleans up (the caller exits right away, unless
  // interrupted() says the handler has taken over).
  if (!options.untilExit) for (const signal of SIGNALS) process.off(signal, handler);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
