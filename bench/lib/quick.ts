/**
 * What a quick run (`npm run bench:quick`, `--quick`) leaves out, in one place. A quick run is the
 * benchmark's smoke test (tests/e2e/bench.test.ts runs it in CI): it must touch every section and
 * every kind of case, in under 3 minutes on a 2-core machine (issue #36), and its figures mean
 * nothing. So it cuts repetitions and repeated cases, never a section:
 *
 * - one client (`c1`) where a full run also runs 4 (options.clients);
 * - section 5 (settings) on tmpfs only, the storage the action uses (a full run adds the disk);
 * - section 1's npm rows for one major (the machine's, else the first with a build), not three;
 * - no image pulled from the run's registry: the full copy and one pull took 44 s here, a quarter
 *   of the budget. Section 1's `cli-docker-pulled-*` and section 6's `pulled-*` rows are left out,
 *   and section 8's Docker rows start the image on the machine (a full run pulls every time;
 *   tests/e2e/registry.test.ts tests the action's pull);
 * - the disk model's +5 ms flush modelled at +1 ms (bench/lib/disk-model.ts QUICK_LATENCY_CAP_MS):
 *   still loaded and checked, without the longest waits;
 * - the real suite's smallest file (bench/lib/real-suite.ts SLICE.quick).
 */
import type { Context } from './context.js';

/** Client counts of a run: [1] in a quick run, else [1, 4]. */
export function runClients(quick: boolean): number[] {
  return quick ? [1] : [1, 4];
}

/** Storages section 5 compares the settings on: tmpfs only in a quick run. */
export function settingsStorages(ctx: Context): Array<'tmpfs' | 'disk'> {
  return ctx.options.quick ? ['tmpfs'] : ['tmpfs', 'disk'];
}

/** Whether this run pulls images from its registry (the `pulled` rows): never in a quick run. */
export function pullsImages(ctx: Context): boolean {
  return !ctx.options.quick;
}

/** Label suffix for a row that runs with the image present in a quick run instead of pulling it. */
export function quickPresentNote(ctx: Context): string {
  return ctx.options.quick ? ' (quick run: image on the machine, not pulled)' : '';
}
