/**
 * Section 5 (settings): one table per storage, every variant relative to the profile as
 * shipped, the best of each row in bold, and the rows where the shipped profile misses issue
 * #11's targets. Runs from before the per-storage tables get section 7's relative table.
 */
import type { CaseResult } from '../lib/results.js';
import { cell, fmtRatio, grid, ratio, ratioOf, relativeTable, spreadNote, table, UNITS } from './format.js';

/**
 * Issue #11's targets for the profile as shipped, per storage of section 5: on every row at least
 * `best` times the best variant's speed and, where given, at least `defaults` times PostgreSQL's
 * defaults.
 */
export const SETTINGS_TARGETS: Readonly<Record<string, { best: number; defaults?: number }>> = {
  tmpfs: { best: 0.97, defaults: 1 },
  disk: { best: 0.95 },
};

/** The variant key of a case: its id's last part, e.g. `tmpfs-profile`. */
function variantKey(c: CaseResult): string {
  return c.id.split('/').pop() ?? '';
}

/** Section 5's shipped profile and stock server, by variant key (`profile` in runs before the per-storage tables). */
export const isShipped = (c: CaseResult) => variantKey(c) === 'profile' || variantKey(c).endsWith('-profile');
const isDefaults = (c: CaseResult) => variantKey(c).endsWith('-defaults');

/** Section 5's cases split by table (storage), in first-seen order. */
export function byTable(cases: readonly CaseResult[]): Array<[string, CaseResult[]]> {
  const tables = new Map<string, CaseResult[]>();
  for (const c of cases) tables.set(c.table ?? '', [...(tables.get(c.table ?? '') ?? []), c]);
  return [...tables.entries()];
}

/** The case of a row with the best median (highest tps, lowest latency), or undefined when none ran. */
function bestOf(cases: ReadonlyArray<CaseResult | undefined>): CaseResult | undefined {
  let best: CaseResult | undefined;
  for (const c of cases) {
    if (!c?.summary) continue;
    if (!best?.summary) best = c;
    else if ((ratioOf(c, best) ?? 0) > 1) best = c;
  }
  return best;
}

/** Why a row misses its storage's target (`row: ratio of variant (spread); ...`), or null when it meets it. */
function missOf(
  row: string,
  target: { best: number; defaults?: number },
  shipped: CaseResult,
  best: CaseResult,
  defaults: CaseResult | undefined,
): string | null {
  const vsBest = ratioOf(shipped, best);
  const vsDefaults = ratioOf(shipped, defaults);
  if (vsBest === null) return null;
  const why: string[] = [];
  const belowDefaults =
    target.defaults !== undefined && defaults !== undefined && vsDefaults !== null && vsDefaults < target.defaults;
  if (vsBest < target.best) why.push(`${fmtRatio(vsBest)} of ${best.variant} (${spreadNote(shipped, best)})`);
  if (belowDefaults && defaults !== best)
    why.push(`${fmtRatio(vsDefaults)} of ${defaults.variant} (${spreadNote(shipped, defaults)})`);
  else if (belowDefaults && vsBest >= target.best)
    why.push(`${fmtRatio(vsDefaults)} of ${defaults.variant}, the best (${spreadNote(shipped, defaults)})`);
  return why.length ? `${row}: ${why.join('; ')}` : null;
}

/** The lines of one storage's table (`name`: tmpfs or disk), its geometric means and its target. */
function storageTable(name: string, tc: readonly CaseResult[]): string[] {
  const out: string[] = [];
  const g = grid(tc);
  const shippedCol = tc.find(isShipped)?.variant ?? (g.cols[0] as string);
  const defaultsCol = tc.find(isDefaults)?.variant;
  const target = SETTINGS_TARGETS[name];
  const misses: string[] = [];
  const rows = g.rows.map((r) => {
    const shipped = g.at(r, shippedCol);
    const defaults = defaultsCol ? g.at(r, defaultsCol) : undefined;
    const best = bestOf(g.cols.map((col) => g.at(r, col)));
    const unit = UNITS[(shipped ?? tc[0])?.metric ?? 'tps'];
    const vsBest = ratioOf(shipped, best);
    const vsDefaults = ratioOf(shipped, defaults);
    const miss = target && shipped && best ? missOf(r, target, shipped, best, defaults) : null;
    if (miss) misses.push(miss);
    return [
      `${r} (${unit})`,
      ...g.cols.map((col) => {
        const c = g.at(r, col);
        const text = col === shippedCol ? cell(c) : `${cell(c)} ${ratio(c, shipped)}`;
        return c && c === best ? `**${text}**` : text;
      }),
      best === shipped ? `${fmtRatio(vsBest)} (the best)` : `${fmtRatio(vsBest)}${best ? ` (${best.variant})` : ''}`,
      ...(defaultsCol ? [fmtRatio(vsDefaults)] : []),
    ];
  });
  const geomean = (col: string): string => {
    const rs = g.rows.map((r) => ratioOf(g.at(r, col), g.at(r, shippedCol))).filter((x): x is number => x !== null);
    return rs.length ? fmtRatio(Math.exp(rs.reduce((a, x) => a + Math.log(x), 0) / rs.length)) : '–';
  };
  rows.push([
    'Geometric mean over the rows, relative to the shipped profile',
    ...g.cols.map((col) => (col === shippedCol ? '1.00×' : geomean(col))),
    '',
    ...(defaultsCol ? [''] : []),
  ]);
  if (name) out.push(`**${name === 'tmpfs' ? 'On tmpfs (/dev/shm)' : name === 'disk' ? 'On disk' : name}**`, '');
  out.push(
    table(
      ['Workload (unit)', ...g.cols, 'shipped vs best', ...(defaultsCol ? ['shipped vs defaults'] : [])],
      ['l', ...g.cols.map(() => 'r' as const), 'r', ...(defaultsCol ? ['r' as const] : [])],
      rows,
    ),
    '',
  );
  if (target) {
    const goal = `≥ ${target.best}× the best variant${target.defaults !== undefined ? ` and ≥ ${target.defaults}× PostgreSQL defaults` : ''}`;
    out.push(
      misses.length
        ? `Target (shipped ${goal} on every row) missed on ${misses.length} of ${g.rows.length} rows:`
        : `Target (shipped ${goal} on every row): met on all ${g.rows.length} rows.`,
      ...(misses.length ? ['', ...misses.map((m) => `- ${m}`)] : []),
      '',
    );
  }
  return out;
}

/**
 * Section 5: one table per storage (storageTable), then how to read the cells; a run from before
 * the per-storage tables (cases without a table) gets the table relative to its first column.
 */
export function renderSettings(cases: readonly CaseResult[]): string {
  if (!cases.some((c) => c.table)) {
    return relativeTable(
      cases,
      `Each restored setting is shown with its speed relative to the full profile (below 1× = slower).`,
    );
  }
  const out: string[] = [];
  for (const [name, tc] of byTable(cases)) out.push(...storageTable(name, tc));
  out.push(
    `Cells: median (min–max), then the speed relative to "${cases.find(isShipped)?.variant ?? 'the profile'}" (above 1× = faster); the best median of each row in bold. Servers of one storage are compared with each other only, interleaved; each pgbench run starts after a CHECKPOINT, so a suite that runs longer than checkpoint_timeout meets checkpoints these runs do not. PostgreSQL 18’s data checksums and io_method: section 7.`,
  );
  return out.join('\n');
}
