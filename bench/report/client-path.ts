/**
 * Section 4 (client_path): select-only latency and tps per way of reaching the container,
 * against the published port.
 */
import type { CaseResult } from '../lib/results.js';
import { cell, fmt, grid, ratio, table } from './format.js';

/** Section 4's table: one line per path (the cases' variants), from the section's one row. */
export function renderClientPath(sc: readonly CaseResult[]): string {
  const g = grid(sc);
  return table(
    ['Path', 'latency ms', 'tps', 'vs published port'],
    ['l', 'r', 'r', 'r'],
    g.cols.map((col) => {
      const c = g.at(g.rows[0] as string, col);
      const tps = c?.details.map((d) => d.tps).filter((v): v is number => typeof v === 'number') ?? [];
      return [
        col,
        cell(c),
        tps.length ? fmt(tps.sort((a, b) => a - b)[Math.floor(tps.length / 2)] as number) : '–',
        ratio(c, g.at(g.rows[0] as string, g.cols[0] as string)),
      ];
    }),
  );
}
