/**
 * Section 2 (workloads): each workload on the four servers of the 2x2 matrix, and the action's
 * server (off, tmpfs) against the stock one (durable, disk) and against durable on tmpfs.
 */
import type { CaseResult } from '../lib/results.js';
import { cell, grid, ratio, table } from './format.js';

/** Section 2's table; columns in the matrix's order: durable/disk, off/disk, durable/tmpfs, off/tmpfs. */
export function renderWorkloads(sc: readonly CaseResult[]): string {
  const g = grid(sc);
  const stock = g.cols[0] as string;
  const action = g.cols[g.cols.length - 1] as string;
  const durableTmpfs = g.cols[g.cols.length - 2] as string;
  return table(
    ['Workload', ...g.cols, `${action} vs ${stock}`, `${action} vs ${durableTmpfs}`],
    ['l', ...g.cols.map(() => 'r' as const), 'r', 'r'],
    g.rows.map((r) => [
      r,
      ...g.cols.map((col) => cell(g.at(r, col))),
      ratio(g.at(r, action), g.at(r, stock)),
      ratio(g.at(r, action), g.at(r, durableTmpfs)),
    ]),
  );
}
