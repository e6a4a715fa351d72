/**
 * Section 9's pool table (issue #37): per pool size and client count, the take's and the
 * give-back's latency, how full the pool stayed, the rate the keeper made copies at and what the
 * keeper cost, and the issue's targets, each marked met or not met: the take at 4 clients (p50 ≤
 * 1 ms, p99 ≤ 5 ms), a whole pooled test ≤ 0.5× CREATE per test, and the ratio to TRUNCATE as
 * measured.
 */
import { summarize, type CaseResult } from '../lib/results.js';
import { fmt, fmtRatio, medianDetail, table } from './format.js';

/** Issue #37's targets. */
export const POOL_TARGETS = Object.freeze({
  /** Client count the take's targets hold at. */
  clients: 4,
  /** Take p50 at most this many ms. */
  takeP50Ms: 1,
  /** Take p99 at most this many ms. */
  takeP99Ms: 5,
  /** A whole pooled test at most this fraction of CREATE per test's (mean ms per test). */
  overCreate: 0.5,
});

/** `pool-<size>/c<clients>` of a case id `per_test/pool-<size>/c<clients>/<server>`, or null. */
export function parsePoolId(id: string): { size: number; clients: number; server: string } | null {
  const m = /^per_test\/pool-(\d+)\/c(\d+)\/(.+)$/.exec(id);
  return m ? { size: Number(m[1]), clients: Number(m[2]), server: m[3] as string } : null;
}

/** Median over repetitions of a number found in each repetition's details by `pick`, or null. */
export function medianOf(c: CaseResult | undefined, pick: (d: Record<string, unknown>) => unknown): number | null {
  const v = (c?.details ?? []).map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return summarize(v)?.median ?? null;
}

/** A detail of the pool's record (details.pool), by path: `takeMs.p99`, `keeperCpuS`. */
const poolDetail = (path: string) => (d: Record<string, unknown>) =>
  path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), d.pool);

/** `x ms (target ≤ t ms: met)`, or `–`. */
function msTarget(value: number | null, limit: number): string {
  if (value === null) return '–';
  return `${fmt(value)} ms (target ≤ ${limit} ms: ${value <= limit ? 'met' : 'not met'})`;
}

/** `r× what` of two cases' mean ms per test (details.msPerTest, lower is better: pooled over other), or null. */
function overMs(pooled: CaseResult | undefined, other: CaseResult | undefined): number | null {
  const a = pooled ? medianDetail(pooled, 'msPerTest') : null;
  const b = other ? medianDetail(other, 'msPerTest') : null;
  return a === null || b === null || b === 0 ? null : a / b;
}

/**
 * The pool table: one row per pool case (size, clients), and under it the targets as sentences.
 * `iso` holds the isolation table's cases: the pool's, CREATE per test's (`clone-file-copy`) and
 * TRUNCATE's, at the same client counts.
 * @returns Markdown lines; none when there is no pool case
 */
export function poolTable(iso: readonly CaseResult[]): string[] {
  const pools = iso
    .map((c) => ({ c, p: parsePoolId(c.id) }))
    .filter((x): x is { c: CaseResult; p: NonNullable<ReturnType<typeof parsePoolId>> } => x.p !== null)
    .sort((a, b) => a.p.size - b.p.size || a.p.clients - b.p.clients);
  if (pools.length === 0) return [];
  const other = (key: string, clients: number, server: string) =>
    iso.find((c) => c.id === `per_test/${key}/c${clients}/${server}`);
  const num = (v: number | null, digits = fmt) => (v === null ? '–' : digits(v));
  const rows = pools.map(({ c, p }) => {
    const d = (path: string) => medianOf(c, poolDetail(path));
    const wall = medianDetail(c, 'seconds');
    const keeper = d('keeperCpuS');
    const backends = d('backendsCpuS');
    const checkpointer = d('checkpointerCpuS');
    const made = d('copiesMade');
    const looks = d('looks');
    const empty = d('emptyLooks');
    const share =
      keeper !== null && backends !== null && wall ? ` (${Math.round((100 * (keeper + backends)) / wall)}% of one core)` : '';
    return [
      `pool of ${p.size}, ${p.clients} client${p.clients === 1 ? '' : 's'}`,
      `${num(d('takeMs.p50'))} / ${num(d('takeMs.p95'))} / ${num(d('takeMs.p99'))}`,
      num(d('giveBackMs.p50')),
      `${num(d('meanReady'))} (${looks ? Math.round((100 * (empty ?? 0)) / looks) : 0}% of looks found none)`,
      made !== null && wall ? fmt(made / wall) : '–',
      `${num(keeper)} + ${num(backends)}${share}; checkpointer ${num(checkpointer)}`,
      fmtRatio(overMs(c, other('clone-file-copy', p.clients, p.server))),
      fmtRatio(overMs(c, other('truncate', p.clients, p.server))),
    ];
  });
  const targets = [...new Set(pools.map((x) => x.p.size))].flatMap((size) => {
    const at = (n: number) => pools.find((x) => x.p.size === size && x.p.clients === n);
    const four = at(POOL_TARGETS.clients);
    const clients = pools.filter((x) => x.p.size === size);
    const vsCreate = clients.map(({ c, p }) => {
      const r = overMs(c, other('clone-file-copy', p.clients, p.server));
      const mark =
        r === null ? '' : ` (target ≤ ${POOL_TARGETS.overCreate}×: ${r <= POOL_TARGETS.overCreate ? 'met' : 'not met'})`;
      return `${fmtRatio(r)} at ${p.clients} client${p.clients === 1 ? '' : 's'}${mark}`;
    });
    const vsTruncate = clients.map(
      ({ c, p }) =>
        `${fmtRatio(overMs(c, other('truncate', p.clients, p.server)))} at ${p.clients} client${p.clients === 1 ? '' : 's'}`,
    );
    const take = four
      ? `take at ${POOL_TARGETS.clients} clients p50 ${msTarget(medianOf(four.c, poolDetail('takeMs.p50')), POOL_TARGETS.takeP50Ms)}, p99 ${msTarget(medianOf(four.c, poolDetail('takeMs.p99')), POOL_TARGETS.takeP99Ms)}`
      : `take at ${POOL_TARGETS.clients} clients not measured`;
    return [
      `- Pool of ${size}: ${take}; a whole pooled test against CREATE per test (mean ms per test): ${vsCreate.join(', ')}; against TRUNCATE: ${vsTruncate.join(', ')} (as measured).`,
    ];
  });
  return [
    table(
      [
        'Pool, clients',
        'take p50 / p95 / p99, ms',
        'give back p50, ms',
        'ready copies, mean of looks every 50 ms',
        'copies made per s',
        "keeper's CPU s: process + its backends; the server's checkpointer",
        'ms per test vs CREATE per test',
        'ms per test vs TRUNCATE',
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      rows,
    ),
    '',
    'Medians over repetitions; take and give back: percentiles over every test of a run. CPU seconds over the run (/proc/<pid>/stat utime + stime), the keeper’s process and backends as a share of one core over the suite’s wall time in parentheses; the checkpointer works for every CREATE DATABASE … FILE_COPY, and the clients make none in a pool run. Ratios: mean ms per test (lower is better), same client count.',
    '',
    ...targets,
  ];
}
