/**
 * What every section's renderer shares: numbers, cells (median and range), ratios between two
 * cases, Markdown tables, a section's cases as a grid of rows and columns, and the table that
 * shows every column relative to the first.
 */
import { summarize, type CaseResult, type Metric } from '../lib/results.js';

/** A section's tables (Markdown) from its cases, in the order they were recorded. */
export type Renderer = (cases: readonly CaseResult[]) => string;

/** Unit of each metric as the tables print it. */
export const UNITS: Record<Metric, string> = { seconds: 's', tps: 'tps', latency_ms: 'ms' };

/** A number with sensible precision: 3 significant digits, no more than needed for big values. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toString();
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** `median (min–max)` of a case, or the error marker. */
export function cell(c: CaseResult | undefined): string {
  if (!c) return '–';
  if (!c.summary) return c.errors.length ? 'failed' : '–';
  const { median, min, max, n } = c.summary;
  const range = n > 1 ? ` (${fmt(min)}–${fmt(max)})` : '';
  return `${fmt(median)}${range}${c.errors.length ? ' ⚠' : ''}`;
}

/** Ratio of two cases' medians, oriented so that > 1 means "a is better"; null when either is missing. */
export function ratioOf(a: CaseResult | undefined, b: CaseResult | undefined): number | null {
  if (!a?.summary || !b?.summary || b.summary.median === 0 || a.summary.median === 0) return null;
  return a.metric === 'tps' ? a.summary.median / b.summary.median : b.summary.median / a.summary.median;
}

/** A ratio as the tables show it: `1.04×`, `39×`, or `–`. */
export function fmtRatio(r: number | null): string {
  return r === null ? '–' : `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

/** Ratio of two cases' medians, oriented so that > 1 means "a is better". */
export function ratio(a: CaseResult | undefined, b: CaseResult | undefined): string {
  return fmtRatio(ratioOf(a, b));
}

/** Whether two cases' difference is inside the run-to-run spread: their min–max ranges overlap. */
export function spreadNote(a: CaseResult, b: CaseResult): string {
  if (!a.summary || !b.summary || a.summary.n < 2 || b.summary.n < 2) return 'one sample: no spread';
  return a.summary.min <= b.summary.max && b.summary.min <= a.summary.max ? 'ranges overlap' : 'outside the spread';
}

/** A Markdown table: header, alignment per column (`l` or `r`), rows of cells. */
export function table(header: string[], align: Array<'l' | 'r'>, rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

/** Rows and columns of a section's cases, in first-seen order. */
export function grid(cases: readonly CaseResult[]): {
  rows: string[];
  cols: string[];
  at: (row: string, col: string) => CaseResult | undefined;
} {
  const rows = [...new Set(cases.map((c) => c.row))];
  const cols = [...new Set(cases.map((c) => c.variant))];
  const byKey = new Map(cases.map((c) => [`${c.row}\u0000${c.variant}`, c]));
  return { rows, cols, at: (row, col) => byKey.get(`${row}\u0000${col}`) };
}

/** Median of one numeric detail across a case's repetitions, or null. */
export function medianDetail(c: CaseResult, key: string): number | null {
  const v = c.details.map((d) => d[key]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length ? (summarize(v)?.median ?? null) : null;
}

/**
 * Every column of a section relative to its first (section 7, and section 5 in runs before its
 * per-storage tables): `cell ratio` per column, then `note`.
 */
export function relativeTable(sc: readonly CaseResult[], note: string): string {
  const g = grid(sc);
  const base = g.cols[0] as string;
  return [
    table(
      ['Workload (unit)', ...g.cols],
      ['l', ...g.cols.map(() => 'r' as const)],
      g.rows.map((r) => {
        const unit = UNITS[(g.at(r, base) ?? sc[0])?.metric ?? 'tps'];
        return [
          `${r} (${unit})`,
          ...g.cols.map((col) =>
            col === base ? cell(g.at(r, col)) : `${cell(g.at(r, col))} ${ratio(g.at(r, col), g.at(r, base))}`,
          ),
        ];
      }),
    ),
    '',
    note,
  ].join('\n');
}
