/**
 * The benchmark's "compared with" table (bench/report/compared.ts, issue #36): one column per
 * alternative and per mode, every figure the median of this run's case, the real suite's failures
 * counted, and nothing when the run has none of its columns.
 */
import { describe, expect, it } from 'vitest';
import { renderCompared } from '../report/compared.js';
import { summarize, type CaseResult, type Section } from '../lib/results.js';

/** A case `id` (section from its first part) with `samples` (seconds) and the first sample's details. */
function c(id: string, samples: number[], details: Record<string, unknown> = {}): CaseResult {
  return {
    section: id.split('/')[0] as Section,
    id,
    row: `row ${id}`,
    variant: 'v',
    metric: 'seconds',
    samples,
    details: samples.map(() => details),
    errors: [],
    summary: summarize(samples),
  };
}

/** The cells of the table line whose first cell is `name`. */
function cells(out: string, name: string): string[] {
  const l = out.split('\n').find((x) => x.startsWith(`| ${name} |`)) ?? '';
  return l
    .split(' | ')
    .slice(1)
    .map((x) => x.replace(/ \|$/, ''));
}

describe('the compared-with table', () => {
  it('takes each cell from its case, and says what was not measured', () => {
    const out = renderCompared([
      c('job_shape/docker-service', [19.5, 20, 19]),
      c('job_shape/docker-service-tuned', [12]),
      c('job_shape/docker-background', [0.29]),
      c('startup/service-10s', [11], { runnerSeesHealthyAfterS: 14 }),
      c('startup/service-tuned', [3.1]),
      c('startup/pglite-fresh', [0.6]),
      c('startup/pglite-socket-fresh', [0.8]),
      c('startup/action-docker', [1.2]),
      c('startup/npm-warm-15', [0.31]),
      c('real_suite/service', [60.9], { passed: 1675, failed: 0, errors: 0, skipped: 3 }),
      c('real_suite/pglite-socket', [30], { passed: 100, failed: 40, errors: 3, skipped: 1 }),
      c('schema_cache/native-hit', [0.56]),
      c('schema_cache/native-init', [2.1]),
    ]);
    expect(cells(out, 'time blocked (s; section 8)')).toEqual([
      '19.5 s',
      '12.0 s',
      '0.600 s in each test process',
      '0.290 s',
      '–',
      '–',
    ]);
    expect(cells(out, 'time to the first query (s; section 1)')).toEqual([
      '11.0 s; the job’s first step: 14.0 s',
      '3.10 s',
      '0.600 s; socket 0.800 s',
      '1.20 s',
      '–',
      '0.310 s',
    ]);
    expect(cells(out, 'the real suite, this disk (s; section 11)').slice(0, 3)).toEqual([
      '60.9 s (1675 passed, 3 skipped)',
      '–',
      '30.0 s (100 passed, 40 failed, 3 errors, 1 skipped)',
    ]);
    // PGlite never waits for a flush: its one measurement serves every disk column.
    expect(cells(out, 'the real suite, flush +5 ms (s; section 11)')[2]).toBe(
      '30.0 s (100 passed, 40 failed, 3 errors, 1 skipped)',
    );
    const schema = cells(out, 'schema cache (s to the first query with the schema; section 10)');
    expect(schema[0]).toBe('no: init runs in every job');
    expect(schema[4]).toBe('hit 0.560 s (init: 2.10 s)');
    expect(schema[5]).toBe('yes, as native (not run again)');
  });

  it('is left out of a run without any of its columns', () => {
    expect(renderCompared([c('workloads/truncate/c1/off-tmpfs', [1])])).toBe('');
  });
});
