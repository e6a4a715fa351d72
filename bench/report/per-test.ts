/**
 * Section 9 (per_test): the ways of isolating a test side by side (table `isolation`), a fresh
 * database against the pool with tests that do real work (table `real_work`), and CREATE DATABASE
 * … STRATEGY FILE_COPY against WAL_LOG per server (table `strategy`).
 */
import { summarize, type CaseResult } from '../lib/results.js';
import { cell, fmt, fmtRatio, grid, medianDetail, ratio, ratioOf, spreadNote, table } from './format.js';
import { medianOf, poolTable } from './per-test-pool.js';

/** The tests of the isolation table's runs (details.tests, the most seen), e.g. `2000`, or `the`. */
function suiteTests(iso: readonly CaseResult[]): string {
  const counts = iso.flatMap((c) => c.details.map((d) => d.tests)).filter((x): x is number => typeof x === 'number');
  return counts.length ? String(Math.max(...counts)) : 'the';
}

/** One test's ms: `p50 / mean` (details.testMs p50; details.msPerTest), medians over repetitions. */
function msCell(c: CaseResult | undefined): string {
  const mean = c ? medianDetail(c, 'msPerTest') : null;
  const p50 = medianOf(c, (d) => (d.testMs as { p50?: number } | null | undefined)?.p50);
  return `${p50 === null ? '–' : fmt(p50)} / ${mean === null ? '–' : fmt(mean)}`;
}

/**
 * Table `isolation`: each way of isolating a test (rows) at each client count: tests per second,
 * one test's ms (p50 of the tests, details.testMs; mean: the wall time one client spends per
 * test, details.msPerTest), the suite's wall time (details.seconds), the speed relative to the
 * rolled-back test, and where the first client count's time goes; then the pool's table.
 */
function isolationTable(iso: readonly CaseResult[]): string[] {
  const out: string[] = [];
  const g = grid(iso);
  const rollback = (col: string) => iso.find((c) => c.variant === col && c.id.startsWith('per_test/rollback/'));
  const wall = (c: CaseResult | undefined) => {
    const v = c ? medianDetail(c, 'seconds') : null;
    return v === null ? '–' : fmt(v);
  };
  const first = g.cols[0] as string;
  /** `part ms; ...`: the median ms per test of each part (details.msPerTestByPart). */
  const parts = (c: CaseResult | undefined) => {
    const names = [...new Set(c?.details.flatMap((d) => Object.keys((d.msPerTestByPart ?? {}) as object)) ?? [])];
    return names
      .map((name) => {
        const v = summarize(
          (c?.details ?? [])
            .map((d) => (d.msPerTestByPart as Record<string, number> | undefined)?.[name])
            .filter((x): x is number => typeof x === 'number'),
        );
        return v ? `${name} ${fmt(v.median)}` : '';
      })
      .filter(Boolean)
      .join('; ');
  };
  out.push(
    table(
      [
        'Per test: what one test includes',
        ...g.cols.map((col) => `tests/s, ${col}`),
        ...g.cols.map((col) => `ms per test p50 / mean, ${col}`),
        ...g.cols.map((col) => `suite s, ${col}`),
        ...g.cols.map((col) => `vs rollback, ${col}`),
        `where the time goes, ${first} (ms per test)`,
      ],
      ['l', ...g.cols.flatMap(() => ['r', 'r', 'r', 'r'] as const), 'l'],
      g.rows.map((r) => [
        r,
        ...g.cols.map((col) => cell(g.at(r, col))),
        ...g.cols.map((col) => msCell(g.at(r, col))),
        ...g.cols.map((col) => wall(g.at(r, col))),
        ...g.cols.map((col) => ratio(g.at(r, col), rollback(col))),
        parts(g.at(r, first)),
      ]),
    ),
    '',
    `ms per test: p50 of the run's tests, each timed on its client; mean: the wall time one client spends per test. Suite s: the wall time of the run's ${suiteTests(iso)} tests, all clients together. Medians over repetitions. Each client has its own databases; the cases are interleaved in each repetition.`,
  );
  const pool = poolTable(iso);
  if (pool.length) out.push('', 'The pool: taking and giving back a copy, and its keeper at work during the suite:', '', ...pool);
  return out;
}

/**
 * Table `strategy`: per server, CREATE DATABASE … STRATEGY WAL_LOG and FILE_COPY at each client
 * count, FILE_COPY over WAL_LOG and whether the difference is outside the run-to-run spread, then
 * a count of the pairs where FILE_COPY is faster.
 */
function strategyTable(strategy: readonly CaseResult[]): string[] {
  const out: string[] = [];
  const parse = (c: CaseResult) => /^per_test\/clone-(wal-log|file-copy)\/c(\d+)\/(.+)$/.exec(c.id);
  const servers = [...new Set(strategy.map((c) => parse(c)?.[3]).filter((k): k is string => !!k))];
  const clients = [...new Set(strategy.map((c) => Number(parse(c)?.[2])).filter((n) => n > 0))].sort((a, b) => a - b);
  const at = (key: string, s: 'wal-log' | 'file-copy', n: number) =>
    strategy.find((c) => c.id === `per_test/clone-${s}/c${n}/${key}`);
  let faster = 0;
  let slower = 0;
  let pairs = 0;
  const rows = servers.map((key) => {
    const cells = clients.flatMap((n) => {
      const wal = at(key, 'wal-log', n);
      const copy = at(key, 'file-copy', n);
      const r = ratioOf(copy, wal);
      const outside = wal && copy ? spreadNote(copy, wal) === 'outside the spread' : false;
      if (r !== null) {
        pairs += 1;
        if (outside && r > 1) faster += 1;
        if (outside && r < 1) slower += 1;
      }
      return [cell(wal), cell(copy), r === null ? '–' : `${fmtRatio(r)} (${wal && copy ? spreadNote(copy, wal) : '–'})`];
    });
    const first = strategy.find((c) => parse(c)?.[3] === key);
    return [first?.row ?? key, ...cells];
  });
  const n = (k: number) => `${k} client${k === 1 ? '' : 's'}`;
  out.push(
    'CREATE DATABASE … STRATEGY per PostgreSQL major (a fresh database per test, as above; the two strategies interleaved):',
    '',
    table(
      [
        'Server (tmpfs, profile)',
        ...clients.flatMap((k) => [`WAL_LOG, ${n(k)}`, `FILE_COPY, ${n(k)}`, `FILE_COPY vs WAL_LOG, ${n(k)}`]),
      ],
      ['l', ...clients.flatMap(() => ['r', 'r', 'r'] as const)],
      rows,
    ),
    '',
    `FILE_COPY faster than WAL_LOG outside the spread in ${faster} of ${pairs} (server, clients) pairs; slower outside the spread in ${slower}.`,
  );
  return out;
}

/**
 * Table `real_work` (issue #43): a fresh database per test (FILE_COPY) against the pool, with tests
 * that do real work (bench/sql/per-test-body-real.sql): tests per second at each client count, one
 * test's ms (p50 / mean), and the pool over FILE_COPY with whether it is outside the spread.
 */
function realWorkTable(real: readonly CaseResult[]): string[] {
  const g = grid(real);
  const fresh = (col: string) => real.find((c) => c.variant === col && c.id.startsWith('per_test_real/real-clone-'));
  const vs = (c: CaseResult | undefined, col: string) => {
    const base = fresh(col);
    if (!c || !base || c === base) return '–';
    const r = ratioOf(c, base);
    return r === null ? '–' : `${fmtRatio(r)} (${spreadNote(c, base)})`;
  };
  return [
    'Tests that do real work (45 round trips: DDL, 5 orders of 4 items, stock, payments, 200 audit rows, joins and aggregates; bench/sql/per-test-body-real.sql):',
    '',
    table(
      [
        'Per test: what one test includes',
        ...g.cols.map((col) => `tests/s, ${col}`),
        ...g.cols.map((col) => `ms per test p50 / mean, ${col}`),
        ...g.cols.map((col) => `vs a fresh database, ${col}`),
      ],
      ['l', ...g.cols.flatMap(() => ['r', 'r', 'r'] as const)],
      g.rows.map((r) => [
        r,
        ...g.cols.map((col) => cell(g.at(r, col))),
        ...g.cols.map((col) => msCell(g.at(r, col))),
        ...g.cols.map((col) => vs(g.at(r, col), col)),
      ]),
    ),
  ];
}

/** Section 9's tables: `isolation`, `real_work`, then `strategy`, each when it has cases. */
export function renderPerTest(sc: readonly CaseResult[]): string {
  const out: string[] = [];
  const iso = sc.filter((c) => c.table === 'isolation');
  if (iso.length) out.push(...isolationTable(iso));
  const real = sc.filter((c) => c.table === 'real_work');
  if (real.length) {
    if (out.length) out.push('');
    out.push(...realWorkTable(real));
  }
  const strategy = sc.filter((c) => c.table === 'strategy');
  if (strategy.length) {
    if (out.length) out.push('');
    out.push(...strategyTable(strategy));
  }
  return out.join('\n');
}
