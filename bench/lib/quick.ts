/**
 * What a quick run (`npm run bench:quick`, `--quick`) leaves out, in one place. A quick run is the
 * benchmark's smoke test (tests/e2e/bench.test.ts runs it in CI): it must touch every section and
 * every kind of case, in under 3 minutes on a 2-core machine (issue #36), and its figures mean
 * nothing. So it cuts repetitions and repeated cases, never a section:
 *
 * - one client (`c1`) where a full run also runs 4 (options.clients);
 * - section 5 (settings) on tmpfs only, the storage the action uses (a full run adds the disk);
 * - section 1's npm rows for one major (the machine's, else the first with a build), not three;
 * - images pulled from the run's registry only in section 6, for the run's image's major; the
 *   other sections' "pulled" rows run with the image on the machine (section 8) or are left out
 *   (section 1's `cli-docker-pulled-*`, section 6's other majors);
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

/** Whether this run pulls images of `major` from its registry (rows `pulled`): in a quick run only section 6's image major. */
export function pullsMajor(ctx: Context, major: number | string, section: 'startup' | 'majors' | 'job_shape'): boolean {
  if (!ctx.options.quick) return true;
  return section === 'majors' && String(major) === imageMajor(ctx.options.image);
}

/** The major in an image reference's tag (`pg-tmpfs-test/postgres:15` → '15'), or '' when it has none. */
export function imageMajor(image: string): string {
  return /:(\d+)(?:[.-][^/]*)?$/.exec(image)?.[1] ?? '';
}

/** Label suffix for a row that runs with the image present in a quick run instead of pulling it. */
export function quickPresentNote(ctx: Context): string {
  return ctx.options.quick ? ' (quick run: image on the machine, not pulled)' : '';
}
