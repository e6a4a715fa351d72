/**
 * The benchmark's result model, statistics, and the interleaving of variants.
 */

/** The benchmark's sections, in run order. */
export const SECTIONS = [
  'startup',
  'workloads',
  'shared_buffers',
  'client_path',
  'settings',
  'majors',
  'pg18',
  'job_shape',
  'per_test',
  'per_test_real',
  'schema_cache',
  'real_suite',
] as const;
export type Section = (typeof SECTIONS)[number];

/** What a case measures. */
export type Metric = 'seconds' | 'tps' | 'latency_ms';

/** Whether a lower or a higher value is better, per metric. */
export const BETTER: Record<Metric, 'lower' | 'higher'> = { seconds: 'lower', tps: 'higher', latency_ms: 'lower' };

/** Median and range of a case's samples. */
export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

/** One measured case: a row (e.g. a workload) under one variant (e.g. a server). */
export interface CaseResult {
  section: Section;
  /** Unique id, stable between runs, e.g. `workloads/truncate/c1/off-tmpfs`. */
  id: string;
  /** The row: what is measured, e.g. `TRUNCATE per test`. */
  row: string;
  /** The column: which variant, e.g. `off, tmpfs`. */
  variant: string;
  /**
   * Which of the section's tables the case belongs to, when a section has several (section 5:
   * `tmpfs`, `disk`); absent: the section's only table. Cases of one table are compared with
   * each other only.
   */
  table?: string;
  metric: Metric;
  /** One value per repetition, in run order. */
  samples: number[];
  /** Per-repetition details (e.g. whether the first query after "healthy" succeeded). */
  details: Array<Record<string, unknown>>;
  /** Errors met; a case with errors makes the run fail. */
  errors: string[];
  summary: Summary | null;
}

/** Median (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * The `q` quantile (0–1) of values sorted ascending, linear between the closest ranks (R's and
 * NumPy's default, type 7): q 0.5 is the median.
 * @throws Error when `sorted` is empty
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no values');
  const at = (sorted.length - 1) * Math.min(Math.max(q, 0), 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

/** Summary of samples, or null when there are none. */
export function summarize(samples: readonly number[]): Summary | null {
  if (samples.length === 0) return null;
  return { n: samples.length, median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
}

/**
 * Variant order for repetition `rep`: rotated by one each repetition (A B C, B C A, C A B, ...),
 * so every variant runs interleaved with the others and none is always first or last.
 */
export function rotation<T>(variants: readonly T[], rep: number): T[] {
  const k = variants.length === 0 ? 0 : rep % variants.length;
  return [...variants.slice(k), ...variants.slice(0, k)];
}

/** Collects the cases of one run. */
export class Results {
  readonly cases = new Map<string, CaseResult>();

  /** The case `id`, created on first use (in `table` of its section, when given). */
  get(section: Section, id: string, row: string, variant: string, metric: Metric, table?: string): CaseResult {
    let c = this.cases.get(id);
    if (!c) {
      c = { section, id, row, variant, ...(table ? { table } : {}), metric, samples: [], details: [], errors: [], summary: null };
      this.cases.set(id, c);
    }
    return c;
  }

  /** Adds a sample (and its details) to a case. */
  add(c: CaseResult, value: number, details: Record<string, unknown> = {}): void {
    c.samples.push(value);
    c.details.push(details);
    c.summary = summarize(c.samples);
  }

  /** Records an error on a case. */
  fail(c: CaseResult, error: unknown): void {
    c.errors.push(error instanceof Error ? error.message : String(error));
  }

  /** Cases of a section, in insertion order. */
  of(section: Section): CaseResult[] {
    return [...this.cases.values()].filter((c) => c.section === section);
  }

  /** All cases. */
  all(): CaseResult[] {
    return [...this.cases.values()];
  }
}
