/**
 * The benchmark's "services, tuned (2026)" rows (issue #36): the one change the bench makes to the
 * runner's `docker create` arguments (ports on 127.0.0.1), and how the tables show the rows: the
 * real suite's speedup at the same flush latency, section 2's ratio column, the runner's look and
 * the wait step in section 1, and the line naming the image, its version and the command.
 */
import { describe, expect, it } from 'vitest';
import { summarize, type CaseResult, type Section } from '../lib/results.js';
import { localPorts } from '../lib/tuned-service.js';
import { isTuned, tunedNote } from '../report/alternatives.js';
import { renderJobShape } from '../report/job-shape.js';
import { renderRealSuite } from '../report/real-suite.js';
import { renderStartup } from '../report/startup.js';
import { renderWorkloads } from '../report/workloads.js';

/** The details every tuned row carries (bench/lib/tuned-service.ts tunedDetails). */
const ABOUT = { image: 'postgres:17', imageVersion: '17.6-1.pgdg13+1', serverVersion: '17.6 (Debian 17.6-1.pgdg13+1)' };

/** A case of `section` with `samples` and the same details on every sample. */
function c(section: Section, id: string, row: string, variant: string, samples: number[], details = {}): CaseResult {
  return {
    section,
    id: `${section}/${id}`,
    row,
    variant,
    metric: section === 'workloads' ? 'tps' : 'seconds',
    samples,
    details: samples.map(() => details),
    errors: [],
    summary: summarize(samples),
  };
}

/** The table line that starts with `| cell |`. */
const line = (out: string, cell: string) => out.split('\n').find((l) => l.startsWith(`| ${cell} |`)) ?? '';

describe('the tuned services block in the benchmark', () => {
  it('publishes every port of the runner’s arguments on 127.0.0.1 at a port Docker picks, and nothing else', () => {
    const args = ['create', '--name', 'n', '-p', '5432', '--publish', '15432:5432', '--tmpfs', '/p', 'img', '-p'];
    expect(localPorts(args)).toEqual([
      'create',
      '--name',
      'n',
      '-p',
      '127.0.0.1::5432',
      '--publish',
      '127.0.0.1::5432',
      '--tmpfs',
      '/p',
      'img',
      '-p',
    ]);
  });

  it('tells its rows by the variant key, in every section', () => {
    expect(isTuned(c('startup', 'service-tuned', 'r', 'seconds', [1]))).toBe(true);
    expect(isTuned(c('job_shape', 'docker-service-tuned', 'r', 'seconds', [1]))).toBe(true);
    expect(isTuned(c('real_suite', 'service-tuned-5ms', 'r', 'seconds', [1]))).toBe(true);
    expect(isTuned(c('workloads', 'rollback/c1/service-tuned', 'r', 'v', [1]))).toBe(true);
    expect(isTuned(c('real_suite', 'service-5ms', 'r', 'seconds', [1]))).toBe(false);
    expect(isTuned(c('job_shape', 'docker-service', 'r', 'seconds', [1]))).toBe(false);
  });

  it('names the image, its PostgreSQL version, the runner’s change and the command that repeats it', () => {
    const note = tunedNote([c('startup', 'service-tuned', 'r', 'seconds', [1], ABOUT)], 'startup');
    expect(note).toContain('image `postgres:17` (PostgreSQL 17.6 (Debian 17.6-1.pgdg13+1))');
    expect(note).toContain('actions/runner PR #4276');
    expect(note).toContain('Repeat: `npm run bench -- --only startup --image postgres:17`.');
    const other = tunedNote([c('startup', 'service-tuned', 'r', 'seconds', [1], { ...ABOUT, serverVersion: '17.6' })], 'startup');
    expect(other).toContain('(PostgreSQL 17.6, package 17.6-1.pgdg13+1)');
    expect(tunedNote([c('startup', 'service-1s', 'r', 'seconds', [1])], 'startup')).toBe('');
  });

  it('section 1: the runner’s look, then the wait step, and the job’s first answer', () => {
    const details = { ...ABOUT, runnerSeesHealthyAfterS: 2.5, waitStepMs: 120, firstQueryAfterRunnerS: 2.62 };
    const out = renderStartup([c('startup', 'service-tuned', 'tuned row', 'seconds', [1.7], details)]);
    expect(line(out, 'tuned row')).toContain(
      "its steps start after ≈2.50 s; then the wait step (120 ms here): the job's first answer after ≈2.62 s",
    );
    expect(out).toContain('Repeat: `npm run bench -- --only startup --image postgres:17`');
  });

  it('section 2: a column of its own and the action’s server against it', () => {
    const row = 'rollback, 1 client';
    const out = renderWorkloads([
      c('workloads', 'rollback/c1/durable-disk', row, 'durable, disk', [100]),
      c('workloads', 'rollback/c1/durable-tmpfs', row, 'durable, tmpfs', [150]),
      c('workloads', 'rollback/c1/off-tmpfs', row, 'off, tmpfs', [200]),
      c('workloads', 'rollback/c1/service-tuned', row, 'services, tuned (2026)', [160], ABOUT),
    ]);
    expect(out.split('\n')[0]).toContain('| services, tuned (2026) | off, tmpfs vs durable, disk |');
    expect(out.split('\n')[0]).toContain('| off, tmpfs vs services, tuned (2026) |');
    expect(line(out, row)).toBe('| rollback, 1 client | 100 | 150 | 200 | 160 | 2.00× | 1.33× | 1.25× |');
    expect(out).toContain('--only workloads --image postgres:17');
  });

  it('section 8: when the runner saw it healthy, in how many looks, and the wait step', () => {
    const details = { ...ABOUT, pullMs: 7000, runnerSawHealthyMs: 2900, healthLooks: 2, tunedWaitStepMs: 130 };
    const out = renderJobShape([c('job_shape', 'docker-service-tuned', 'tuned job', 'seconds', [10], details)]);
    expect(line(out, 'tuned job')).toContain(
      "pull 7000 ms; the runner saw it healthy 2900 ms after docker create (2 looks); the template's wait step 130 ms",
    );
    expect(out).toContain('--only job_shape --image postgres:17');
  });

  it('section 11: the tuned block against the services container at the same flush latency', () => {
    const out = renderRealSuite([
      c('real_suite', 'service', 'services', 'seconds', [10]),
      c('real_suite', 'service-1ms', 'services 1', 'seconds', [20]),
      c('real_suite', 'service-5ms', 'services 5', 'seconds', [40]),
      c('real_suite', 'service-tuned', 'tuned', 'seconds', [8], ABOUT),
      c('real_suite', 'service-tuned-1ms', 'tuned 1', 'seconds', [5], ABOUT),
      c('real_suite', 'service-tuned-5ms', 'tuned 5', 'seconds', [4], ABOUT),
      c('real_suite', 'action-native', 'native', 'seconds', [5]),
    ]);
    expect(line(out, 'Speedup of the suite over the services container')).toBe(
      '| Speedup of the suite over the services container | this disk | flush +1 ms | flush +5 ms |',
    );
    expect(line(out, 'services, tuned (2026)')).toBe('| services, tuned (2026) | 1.25× | 4.00× | 10× |');
    // The action's row in the speedup table (its first line is the setups table's).
    expect(out.split('\n').filter((l) => l.startsWith('| native |'))[1]).toBe('| native | 2.00× | 4.00× | 8.00× |');
    expect(out).toContain('--only real_suite --image postgres:17');
  });
});
