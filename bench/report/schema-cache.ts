/**
 * Section 10 (schema_cache): the whole `pg-tmpfs up` process per variant, with issue #23's
 * targets: a hit at most 1.3× a start without init (same mode), a miss at most 1.1× the init
 * without the cache, and Docker mode's cluster without init from the cache at most 0.6× the raw
 * `docker run` floor.
 */
import type { CaseResult } from '../lib/results.js';
import { fmt, table } from './format.js';
import { isPglite, pgliteFootnote, pgliteNote, SCHEMA_CACHE_PGLITE } from './pglite.js';

/** Issue #23's targets, as ratios of medians. */
export const SCHEMA_CACHE_TARGETS = { hitOverBare: 1.3, missOverInit: 1.1, bareHitOverFloor: 0.6 } as const;

/** `r× what (target ≤ t×: met)` for case `id` over case `over`, or ''. */
function target(cases: readonly CaseResult[], id: string, over: string, limit: number, what: string): string {
  const a = cases.find((c) => c.id === `schema_cache/${id}`)?.summary;
  const b = cases.find((c) => c.id === `schema_cache/${over}`)?.summary;
  if (!a || !b || b.median <= 0) return '';
  const r = a.median / b.median;
  return `${r.toFixed(2)}× ${what} (target ≤ ${limit}×: ${r <= limit ? 'met' : 'not met'})`;
}

/** Where a case's time went, from the CLI's phasesMs (median of each phase over 20 ms). */
function phases(c: CaseResult): string {
  const all = c.details.map((d) => d.phasesMs).filter((p): p is Record<string, number> => typeof p === 'object' && p !== null);
  if (!all.length) return '';
  const names = Object.keys(all[0] ?? {});
  const med = (name: string) => {
    const v = all.map((p) => p[name] ?? 0).sort((x, y) => x - y);
    return v[Math.floor(v.length / 2)] ?? 0;
  };
  return names
    .map((n) => [n, med(n)] as const)
    .filter(([, ms]) => ms >= 20)
    .map(([n, ms]) => `${n} ${Math.round(ms)} ms`)
    .join(', ');
}

/** Section 10's table. */
export function renderSchemaCache(sc: readonly CaseResult[]): string {
  const { hitOverBare, missOverInit, bareHitOverFloor } = SCHEMA_CACHE_TARGETS;
  const note = (c: CaseResult): string => {
    if (isPglite(c)) return '';
    const mode = c.id.includes('/native-') ? 'native' : 'docker';
    if (c.id.endsWith('-hit') && !c.id.endsWith('bare-hit'))
      return target(sc, `${mode}-hit`, `${mode}-bare`, hitOverBare, 'the start without init');
    if (c.id.endsWith('-miss')) return target(sc, `${mode}-miss`, `${mode}-init`, missOverInit, 'the init without the cache');
    if (c.id.endsWith('-init'))
      return target(sc, `${mode}-init`, `${mode}-hit`, Infinity, 'the hit').replace(/ \(target.*\)$/, '');
    if (c.id.endsWith('docker-bare-hit'))
      return target(sc, 'docker-bare-hit', 'floor-docker-run', bareHitOverFloor, 'the raw docker run');
    return '';
  };
  const rows = sc.map((c) => [
    c.row,
    c.summary ? fmt(c.summary.median) : 'failed',
    c.summary ? `${fmt(c.summary.min)}–${fmt(c.summary.max)}` : '–',
    [note(c), phases(c), pgliteNote(c, sc)].filter(Boolean).join('; '),
  ]);
  return [
    table(
      ['Start', 'median s', 'min–max s', 'against its target; where the time went (medians ≥ 20 ms)'],
      ['l', 'r', 'r', 'l'],
      rows,
    ),
    '',
    'Each row is the CLI’s whole process (`pg-tmpfs up --json`, Node’s start included) until it exits with the server ready, then `down`. The init: 300 migration files (20 in a quick run), each a table, an index, 200 rows and an ALTER, one transaction each. A miss saves the copy before `up` exits (the job waits for it); a hit copies the saved cluster into RAM and sets the password.',
    ...[pgliteFootnote(sc, SCHEMA_CACHE_PGLITE)].filter(Boolean).map((t) => `\n${t}`),
  ].join('\n');
}
