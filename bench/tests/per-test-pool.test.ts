/**
 * Section 9's pool (issue #37) in the benchmark: the percentiles of the take (bench/lib/results.ts
 * quantile), a process's CPU seconds from /proc/<pid>/stat (bench/sections/per-test-pool.ts), and
 * the pool's table (bench/report/per-test-pool.ts) with the issue's targets marked met or not met
 * from the medians over repetitions.
 */
import { describe, expect, it } from 'vitest';
import { quantile, summarize, type CaseResult } from '../lib/results.js';
import { parsePoolId, poolTable } from '../report/per-test-pool.js';
import { renderPerTest } from '../report/per-test.js';
import { percentiles, statCpuSeconds } from '../sections/per-test-pool.js';

/** An isolation-table case `per_test/<key>/c<clients>/off-tmpfs` with one detail record per sample. */
function c(key: string, clients: number, details: Array<Record<string, unknown>>): CaseResult {
  const samples = details.map((d) => Number(d.tests) / Number(d.seconds));
  return {
    section: 'per_test',
    id: `per_test/${key}/c${clients}/off-tmpfs`,
    row: `row ${key}`,
    variant: `${clients} client${clients === 1 ? '' : 's'}`,
    table: 'isolation',
    metric: 'tps',
    samples,
    details,
    errors: [],
    summary: summarize(samples),
  };
}

/** A run's details: 2000 tests, `msPerTest` mean, and the pool's record when given. */
function run(msPerTest: number, clients: number, pool?: Record<string, unknown>): Record<string, unknown> {
  const seconds = (2000 * msPerTest) / clients / 1000;
  return { tests: 2000, seconds, msPerTest, testMs: { p50: msPerTest * 0.9, mean: msPerTest }, ...(pool ? { pool } : {}) };
}

/** A pool record: take p50 and p99 in ms, keeper CPU. */
const pool = (takeP50: number, takeP99: number) => ({
  size: 8,
  takeMs: { p50: takeP50, p95: takeP99 / 2, p99: takeP99, mean: takeP50, max: takeP99 },
  giveBackMs: { p50: 0.6, p95: 1, p99: 2, mean: 0.7, max: 3 },
  keeperCpuS: 1,
  backendsCpuS: 3,
  checkpointerCpuS: 0.5,
  copiesMade: 2000,
  looks: 100,
  emptyLooks: 25,
  meanReady: 2.5,
});

describe('section 9: the pool', () => {
  it('takes quantiles linearly between the closest ranks, the median at 0.5', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10], 0.99)).toBe(10);
    expect(quantile([0, 100], 0.95)).toBeCloseTo(95, 9);
    expect(() => quantile([], 0.5)).toThrow(/no values/);
    const p = percentiles(Array.from({ length: 101 }, (_, i) => 100 - i));
    expect(p).toEqual({ p50: 50, p95: 95, p99: 99, mean: 50, max: 100 });
    expect(percentiles([])).toBeNull();
  });

  it('reads utime + stime from /proc/<pid>/stat, a command name with spaces and parentheses included', () => {
    const stat = '4242 (node (keeper) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 25 3 4 20 0 11 0 900 1 2';
    expect(statCpuSeconds(stat)).toBe(1.75);
    expect(statCpuSeconds('4242 (short) S 1')).toBeNull();
  });

  it('parses pool case ids', () => {
    expect(parsePoolId('per_test/pool-32/c4/off-tmpfs')).toEqual({ size: 32, clients: 4, server: 'off-tmpfs' });
    expect(parsePoolId('per_test/clone-file-copy/c4/off-tmpfs')).toBeNull();
  });

  it('marks the take at 4 clients and the whole test against CREATE per test, and sets it against TRUNCATE as measured', () => {
    const cases = [
      c('clone-file-copy', 1, [run(30, 1), run(29, 1)]),
      c('clone-file-copy', 4, [run(60, 4)]),
      c('pool-8', 1, [run(14, 1, pool(0.5, 3)), run(16, 1, pool(0.7, 4))]),
      // Medians: take p50 1.2 ms (not met), p99 4 ms (met); 36/60 = 0.60× CREATE (not met).
      c('pool-8', 4, [run(36, 4, pool(1.2, 4))]),
      c('truncate', 1, [run(7.5, 1)]),
      c('truncate', 4, [run(15, 4)]),
    ];
    const text = poolTable(cases).join('\n');
    expect(text).toContain(
      '- Pool of 8: take at 4 clients p50 1.20 ms (target ≤ 1 ms: not met), p99 4.00 ms (target ≤ 5 ms: met); a whole pooled test against CREATE per test (mean ms per test): 0.51× at 1 client (target ≤ 0.5×: not met), 0.60× at 4 clients (target ≤ 0.5×: not met); against TRUNCATE: 2.00× at 1 client, 2.40× at 4 clients (as measured).',
    );
    // Row: medians of the two runs at 1 client (15 ms per test, 30 s of wall time); 25 of 100 looks
    // found the pool empty; 2000 copies in 30 s; 4 CPU s of the keeper over 30 s.
    expect(text).toContain(
      '| pool of 8, 1 client | 0.600 / 1.75 / 3.50 | 0.600 | 2.50 (25% of looks found none) | 66.7 | 1.00 + 3.00 (13% of one core); checkpointer 0.500 | 0.51× | 2.00× |',
    );
    expect(poolTable(cases.filter((x) => !x.id.includes('pool')))).toEqual([]);
  });

  it('meets the take and the whole-test targets at their limits, and says when 4 clients were not run', () => {
    const atLimit = [c('clone-file-copy', 4, [run(60, 4)]), c('pool-8', 4, [run(30, 4, pool(1, 5))])];
    expect(poolTable(atLimit).join('\n')).toContain(
      'p50 1.00 ms (target ≤ 1 ms: met), p99 5.00 ms (target ≤ 5 ms: met); a whole pooled test against CREATE per test (mean ms per test): 0.50× at 4 clients (target ≤ 0.5×: met)',
    );
    const oneClient = [c('pool-8', 1, [run(14, 1, pool(0.5, 3))])];
    expect(poolTable(oneClient).join('\n')).toContain('take at 4 clients not measured');
  });

  it('shows p50 / mean ms per test and the suite’s wall time in the isolation table', () => {
    const out = renderPerTest([c('rollback', 1, [run(2, 1)]), c('pool-8', 1, [run(14, 1, pool(0.5, 3))])]);
    expect(out).toContain('| row rollback | 500 | 1.80 / 2.00 | 4.00 | 1.00× |');
    expect(out).toContain('| row pool-8 | 71.4 | 12.6 / 14.0 | 28.0 | 0.14× |');
    expect(out).toContain("Suite s: the wall time of the run's 2000 tests");
  });

  it('table real_work: the pool against a fresh database with tests that do real work, with the spread', () => {
    const real = (key: string, clients: number, ms: number[]) => ({
      ...c(
        key,
        clients,
        ms.map((m) => run(m, clients)),
      ),
      section: 'per_test_real' as const,
      id: `per_test_real/${key}/c${clients}/off-tmpfs`,
      table: 'real_work',
    });
    const out = renderPerTest([real('real-clone-file-copy', 1, [20, 21, 22]), real('real-pool-8', 1, [14, 14.5, 15])]);
    expect(out).toContain('Tests that do real work (45 round trips');
    expect(out).toContain('| row real-clone-file-copy | 47.6 (45.5–50.0) | 18.9 / 21.0 | – |');
    expect(out).toMatch(/\| row real-pool-8 \| 69\.0 \(66\.7–71\.4\) \| 13\.1 \/ 14\.5 \| 1\.45× \(outside the spread\) \|/);
  });
});
