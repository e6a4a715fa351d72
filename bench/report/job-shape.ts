/**
 * Section 8 (job_shape): seconds a job is blocked on PostgreSQL per job shape, with the steps'
 * parts and issue #12's target for `wait: false`.
 */
import type { CaseResult } from '../lib/results.js';
import { tunedNote } from './alternatives.js';
import { fmt, medianDetail, table } from './format.js';

/** Issue #12's target: blocked time with `wait: false` under this many seconds. */
export const BACKGROUND_TARGET_S = 0.1;

/** Section 8's table: blocked seconds per job shape, with the steps' parts. */
export function renderJobShape(sc: readonly CaseResult[]): string {
  const ms = (v: number | null) => (v === null ? '' : `${Math.round(v)} ms`);
  const rows = sc.map((c) => {
    const parts = [
      medianDetail(c, 'mainStepMs') !== null ? `main step ${ms(medianDetail(c, 'mainStepMs'))}` : '',
      medianDetail(c, 'waitStepMs') !== null
        ? `wait step ${ms(medianDetail(c, 'waitStepMs'))} (of which waiting ${ms(medianDetail(c, 'waitedMs'))})`
        : '',
      medianDetail(c, 'pullMs') !== null ? `pull ${ms(medianDetail(c, 'pullMs'))}` : '',
      medianDetail(c, 'healthyMs') !== null ? `healthy after ${ms(medianDetail(c, 'healthyMs'))}` : '',
      medianDetail(c, 'runnerSawHealthyMs') !== null
        ? `the runner saw it healthy ${ms(medianDetail(c, 'runnerSawHealthyMs'))} after docker create (${medianDetail(c, 'healthLooks')} looks)`
        : '',
      medianDetail(c, 'tunedWaitStepMs') !== null ? `the template's wait step ${ms(medianDetail(c, 'tunedWaitStepMs'))}` : '',
      medianDetail(c, 'startupMs') !== null ? `ready ${ms(medianDetail(c, 'startupMs'))} after the main step began` : '',
      c.id.endsWith('-background') && c.summary
        ? c.summary.median < BACKGROUND_TARGET_S
          ? `target < ${BACKGROUND_TARGET_S} s: met`
          : `target < ${BACKGROUND_TARGET_S} s: not met`
        : '',
      c.errors.length ? `⚠ ${c.errors.length} failed` : '',
    ].filter(Boolean);
    return [
      c.row,
      c.summary ? fmt(c.summary.median) : 'failed',
      c.summary ? `${fmt(c.summary.min)}–${fmt(c.summary.max)}` : '–',
      parts.join('; '),
    ];
  });
  return [
    table(['Job shape', 'blocked, median s', 'min–max s', 'parts (medians)'], ['l', 'r', 'r', 'l'], rows),
    '',
    'Blocked: the wall time of the steps that wait for PostgreSQL, each a `node dist/<step>.js` process started as the runner starts it (Node’s own start included); for the service container, the pull plus the runner’s first look after "healthy"; for the tuned services block, the pull, then from `docker create` until the runner’s look (at its own back-off, waited for) saw it healthy, then the template’s wait step. The other steps are a sleep here.',
    ...(tunedNote(sc, 'job_shape') ? ['', tunedNote(sc, 'job_shape')] : []),
  ].join('\n');
}
