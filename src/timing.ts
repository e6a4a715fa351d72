/**
 * Where a start's time goes: named phases in the order they ran, each with its duration in ms.
 * The CLI (`up --json`, field `phasesMs`), the action (debug log) and the benchmark's startup
 * breakdown read them. Time comes from performance.now(), whose origin is the process start, so
 * the first phase of a CLI run can be "node start and module load".
 */
import { performance } from 'node:perf_hooks';

/** Phase name → ms, in the order the phases ended (a phase that ran twice adds up). */
export type PhasesMs = Record<string, number>;

/** Records phases: each end() closes the phase that began at the previous end() (or at `origin`). */
export class Phases {
  private last: number;
  private readonly ms: PhasesMs = {};

  /** @param origin ms (performance.now() scale) where the first phase began; 0 = process start */
  constructor(origin = performance.now()) {
    this.last = origin;
  }

  /** Closes phase `name` now. */
  end(name: string): void {
    const now = performance.now();
    this.ms[name] = Math.round(((this.ms[name] ?? 0) + now - this.last) * 10) / 10;
    this.last = now;
  }

  /** A copy of the phases so far, ms with one decimal. */
  snapshot(): PhasesMs {
    return { ...this.ms };
  }
}
