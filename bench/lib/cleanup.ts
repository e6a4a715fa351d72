/**
 * Everything the benchmark starts (servers, containers, folders) is registered here the moment
 * it exists. Each case undoes its own things in a `finally`; whatever is still registered when
 * the run ends, fails or is interrupted (SIGINT, SIGTERM) is undone by runAll().
 */

/** Thrown by throwIfInterrupted() once the run was interrupted. */
export class Interrupted extends Error {
  constructor(signal: string) {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

let interruptedBy: string | null = null;

/** The signal that interrupted the run, or null. */
export function interruption(): string | null {
  return interruptedBy;
}

/** Throws Interrupted when the run was interrupted: long loops call it so the run unwinds. */
export function throwIfInterrupted(): void {
  if (interruptedBy) throw new Interrupted(interruptedBy);
}

interface Task {
  what: string;
  fn: () => Promise<void> | void;
  /** DOCKER_HOST when it was registered (engines.ts switches it per measurement); undefined: unset. */
  dockerHost: string | undefined;
}

/** A last-in-first-out list of undo actions. */
export class Cleanup {
  private readonly tasks = new Map<number, Task>();
  private next = 0;
  /** Problems met while undoing (reported at the end of the run). */
  readonly problems: string[] = [];

  /**
   * Registers an undo action, before the thing is created: throws Interrupted once the run was
   * interrupted, so nothing new starts.
   * @returns a function that runs it now (once) and unregisters it
   */
  add(what: string, fn: () => Promise<void> | void): () => Promise<void> {
    throwIfInterrupted();
    return this.adopt(what, fn);
  }

  /**
   * Registers an undo action for something that already exists (e.g. reported by a callback of
   * the project's start()); never throws.
   * @returns a function that runs it now (once) and unregisters it
   */
  adopt(what: string, fn: () => Promise<void> | void): () => Promise<void> {
    const id = this.next++;
    this.tasks.set(id, { what, fn, dockerHost: process.env.DOCKER_HOST });
    return async () => {
      const task = this.tasks.get(id);
      if (!task) return;
      this.tasks.delete(id);
      await this.runTask(task);
    };
  }

  /** Number of undo actions still registered. */
  get size(): number {
    return this.tasks.size;
  }

  private async runTask(task: Task): Promise<void> {
    try {
      await task.fn();
    } catch (error) {
      this.problems.push(`cleanup of ${task.what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Runs every registered undo action, newest first, each with the DOCKER_HOST it was registered
   * under (a forced cleanup may run while a measurement has switched to the other engine), and
   * restores DOCKER_HOST after.
   */
  async runAll(): Promise<void> {
    const ids = [...this.tasks.keys()].sort((a, b) => b - a);
    const saved = process.env.DOCKER_HOST;
    const setHost = (host: string | undefined) => {
      if (host === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = host;
    };
    try {
      for (const id of ids) {
        const task = this.tasks.get(id);
        if (!task) continue;
        this.tasks.delete(id);
        setHost(task.dockerHost);
        await this.runTask(task);
      }
    } finally {
      setHost(saved);
    }
  }
}

/**
 * On SIGINT, SIGTERM or SIGHUP: marks the run interrupted, so nothing new starts and the current
 * step unwinds through its `finally` blocks (the caller then runs runAll() and exits). A second
 * signal, or 60 s without an exit, undoes everything at once and exits with 130.
 * @returns a function that removes the handlers
 */
export function cleanupOnSignals(cleanup: Cleanup, log: (m: string) => void): () => void {
  let forced = false;
  const force = () => {
    if (forced) return;
    forced = true;
    log(`removing ${cleanup.size} started things now, then exiting`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  const handler = (signal: NodeJS.Signals) => {
    if (interruptedBy) return force();
    interruptedBy = signal;
    log(`${signal}: stopping after the current step and removing everything (send it again to force)`);
    setTimeout(force, 60_000).unref();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}
