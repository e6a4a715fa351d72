/**
 * Section 11 (real_suite): SQLAlchemy's ORM tests against a GitHub services container and the
 * tuned services block of 2026 (each on this disk and under the disk model) and the action's
 * Docker and native modes: the suite's wall time per setup, then the speedup of the tuned block
 * and of the action over the services container by the disk's flush latency (the README's
 * headline figure).
 */
import type { CaseResult } from '../lib/results.js';
import { TUNED_LABEL } from '../lib/tuned-service.js';
import { isTuned, tunedNote } from './alternatives.js';
import { cell, fmt, medianDetail, ratio, table } from './format.js';
import { pgliteSuiteNote } from './pglite.js';

/** The variant key of a section 11 case (`real_suite/<key>`). */
const keyOf = (c: CaseResult) => c.id.slice('real_suite/'.length);

/** `passed/failed/errors/skipped` of a case's first run, or '–'. */
function counts(c: CaseResult): string {
  const d = c.details[0];
  return d ? (['passed', 'failed', 'errors', 'skipped'] as const).map((k) => String(d[k])).join(' / ') : '–';
}

/** Section 11's tables. */
export function renderRealSuite(sc: readonly CaseResult[]): string {
  const commit = (c: CaseResult) => {
    const ms = medianDetail(c, 'commitMs');
    return ms === null ? '–' : fmt(ms);
  };
  const setups = table(
    ['Setup', 'one commit (ms, median of 20)', 'suite wall time (s)', 'tests passed / failed / errors / skipped'],
    ['l', 'r', 'r', 'r'],
    sc.map((c) => [c.row, commit(c), cell(c), counts(c)]),
  );
  const services = sc.filter((c) => /^service(-\d+ms)?$/.test(keyOf(c)));
  const actions = sc.filter((c) => keyOf(c).startsWith('action-'));
  const flushOf = (c: CaseResult) => /-(\d+)ms$/.exec(keyOf(c))?.[1] ?? null;
  const head = (c: CaseResult) => {
    const ms = flushOf(c);
    return ms ? `flush +${ms} ms` : 'this disk';
  };
  // The tuned services block (issue #36) against the services container at the same flush latency.
  const tuned = sc.filter(isTuned);
  const tunedAt = (s: CaseResult) => tuned.find((t) => flushOf(t) === flushOf(s));
  const tunedRow = tuned.length ? [[TUNED_LABEL, ...services.map((s) => ratio(tunedAt(s), s))]] : [];
  const speedup = table(
    ['Speedup of the suite over the services container', ...services.map(head)],
    ['l', ...services.map(() => 'r' as const)],
    [...tunedRow, ...actions.map((a) => [a.row, ...services.map((s) => ratio(a, s))])],
  );
  const note = tunedNote(sc, 'real_suite');
  return [
    setups,
    '',
    speedup,
    '',
    'Every run of every setup must pass, fail and skip the same tests; a difference is listed under Errors. ' +
      'The flush latencies come from the disk model (docs/performance.md#the-disk-model); the action’s servers ' +
      'are on tmpfs and do not wait for flushes, so one measurement of each serves every column; the tuned ' +
      'services block is measured under each latency (its PGDATA is on tmpfs and its durability off, so little ' +
      'waits for a flush), each against the services container at the same latency.',
    ...(note ? ['', note] : []),
    ...[pgliteSuiteNote(sc)].filter(Boolean).map((t) => `\n${t}`),
  ].join('\n');
}
