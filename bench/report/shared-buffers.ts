/**
 * Section 3 (shared_buffers): each workload at every size, and the smallest and largest size
 * against PostgreSQL's default.
 */
import type { CaseResult } from '../lib/results.js';
import { cell, grid, ratio, table } from './format.js';

/** Section 3's table; the column whose label names the default is the reference (else the first). */
export function renderSharedBuffers(sc: readonly CaseResult[]): string {
  const g = grid(sc);
  const def = g.cols.find((c) => c.includes('default')) ?? (g.cols[0] as string);
  const first = g.cols[0] as string;
  const last = g.cols[g.cols.length - 1] as string;
  return table(
    ['Workload', ...g.cols, `${first} vs default`, `${last} vs default`],
    ['l', ...g.cols.map(() => 'r' as const), 'r', 'r'],
    g.rows.map((r) => [
      r,
      ...g.cols.map((col) => cell(g.at(r, col))),
      ratio(g.at(r, first), g.at(r, def)),
      ratio(g.at(r, last), g.at(r, def)),
    ]),
  );
}
