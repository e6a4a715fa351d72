/**
 * The PGlite rows' notes in sections 1, 2, 10 and 11 (issue #36): where a fresh PGlite's time
 * goes, how it stands against the schema cache's hits, what section 2 could not run on it and
 * why, and the real suite's failures there; each table's footnote names PGlite's and
 * pglite-socket's versions and the command that repeats the rows.
 */
import { SUITE_DATABASE } from '../lib/real-suite.js';
import type { CaseResult } from '../lib/results.js';
import { fmt, medianDetail } from './format.js';

/** Whether a case is one of the PGlite rows (its id names pglite). */
export const isPglite = (c: CaseResult): boolean => /\/pglite(-|$)/.test(c.id);

/** The first detail `key` (a string or an object) of the first PGlite case that has it. */
function firstDetail<T>(sc: readonly CaseResult[], key: string): T | undefined {
  for (const c of sc.filter(isPglite)) for (const d of c.details) if (d[key] !== undefined) return d[key] as T;
  return undefined;
}

/** Median of case `id`, or null. */
function medianOf(cases: readonly CaseResult[], id: string): number | null {
  return cases.find((c) => c.id === id)?.summary?.median ?? null;
}

/**
 * Sections 1 and 10's note on a PGlite row: the part in the process and Node's start (medians of
 * details.inProcessMs, bootMs); in section 1 Node's start alone (`startup/node-start`); in
 * section 10 the row over the schema cache's hits. '' for other rows.
 */
export function pgliteNote(c: CaseResult, all: readonly CaseResult[]): string {
  if (!isPglite(c) || !c.summary) return '';
  const notes: string[] = [];
  const inProcess = medianDetail(c, 'inProcessMs');
  const boot = medianDetail(c, 'bootMs');
  if (inProcess !== null && boot !== null) {
    const where = c.id.includes('socket') ? 'until pglite-socket listens' : 'until SELECT 1 is answered';
    notes.push(`in the process ${fmt(inProcess / 1000)} s ${where}, after Node's start ${fmt(boot / 1000)} s`);
  }
  const first = medianDetail(c, 'firstQueryMs');
  if (first !== null) notes.push(`the first query through the socket ${fmt(first / 1000)} s`);
  const node = medianOf(all, 'startup/node-start');
  if (c.section === 'startup' && node !== null) notes.push(`Node's start alone (node -e 0) ${fmt(node)} s`);
  if (c.section === 'schema_cache') {
    for (const mode of ['native', 'docker']) {
      const hit = medianOf(all, `schema_cache/${mode}-hit`);
      if (hit) notes.push(`${(c.summary.median / hit).toFixed(2)}× the ${mode} hit`);
    }
  }
  return notes.join('; ');
}

/**
 * A table's footnote for its PGlite rows: the versions and the command that repeats them (from
 * the rows' details), `what` (the section's own words) and a list; '' when the table has none.
 */
export function pgliteFootnote(sc: readonly CaseResult[], what: string, list: readonly string[] = []): string {
  if (!sc.some(isPglite)) return '';
  const pglite = firstDetail<string>(sc, 'pglite') ?? '?';
  const socket = firstDetail<string>(sc, 'pgliteSocket') ?? '?';
  const repeat = firstDetail<string>(sc, 'repeat') ?? 'npm run bench';
  const text = `PGlite ${pglite}, pglite-socket ${socket} (PostgreSQL 18 in WASM; read from node_modules at run time). ${what} Repeat: \`${repeat}\`.`;
  return list.length ? `${text}\n\n${list.join('\n')}` : text;
}

/** Section 2's footnote: what ran on PGlite, and what did not and why (details.notRun of its commit row). */
export function pgliteWorkloadsNote(sc: readonly CaseResult[]): string {
  const notRun = firstDetail<Record<string, string>>(sc, 'notRun') ?? {};
  const max = firstDetail<number>(sc, 'maxConnections');
  const lines = Object.entries(notRun).map(([k, why]) => `- not run: ${k === 'c4' ? 'every workload at 4 clients' : k}: ${why}`);
  return pgliteFootnote(
    sc,
    `The PGlite column is one PGlite process serving 127.0.0.1 with pglite-socket (maxConnections ${max ?? '?'}), ` +
      'the same pgbench scripts at 1 client; pgbench’s tables are generated on the server (`-I dtGvp`: COPY FROM STDIN, ' +
      'its default, fails through pglite-socket).',
    lines,
  );
}

/** Section 11's footnote: PGlite's setup, and the first failures of its first run (details.failures). */
export function pgliteSuiteNote(sc: readonly CaseResult[]): string {
  const c = sc.find(isPglite);
  if (!c) return '';
  const d = c.details[0] ?? {};
  const failures = (d.failures ?? []) as Array<{ test: string; reason: string }>;
  const failed = Number(d.failed ?? 0) + Number(d.errors ?? 0);
  const reasons = (d.reasons ?? []) as Array<{ reason: string; count: number }>;
  const lines = [
    ...reasons.map((r) => `- ${r.count}× ${r.reason.slice(0, 300)}`),
    ...failures.map((f) => `- \`${f.test}\`: ${f.reason.slice(0, 300)}`),
  ];
  return pgliteFootnote(
    sc,
    `The PGlite row: a fresh PGlite with citext and hstore loaded (the suite creates both), pglite-socket with ` +
      `maxConnections ${String(d.maxConnections ?? '?')}; CREATE DATABASE ${SUITE_DATABASE} ${String(d.createDatabase ?? '?')}, so the suite runs there. ` +
      `${failed ? `${failed} test(s) failed or erred in its first run; its reasons by count (the most frequent 5) and its first failures, from its JUnit XML:` : 'No test failed.'}`,
    lines,
  );
}

/** Section 1's words on its PGlite rows. */
export const STARTUP_PGLITE =
  'Each PGlite row is a new `node` process (bench/lib/pglite-child.mjs, plain JavaScript, no tsx) from spawn until the answer: ' +
  'it loads PGlite, which creates an in-memory database (initdb in WASM) and answers SELECT 1 in the process, or serves it with ' +
  'pglite-socket on 127.0.0.1 and answers node-postgres’s first query through it. A suite that already runs in Node pays the part in the process only.';

/** Section 10's words on its PGlite rows. */
export const SCHEMA_CACHE_PGLITE =
  'The PGlite rows are a new `node` process (bench/lib/pglite-child.mjs) until SELECT 1 is answered in it: fresh, with the same ' +
  'migration files run in name order, each in one transaction (in database postgres: PGlite opens only a database that exists, ' +
  'the CLI’s rows use `--database app`); and started from that state as dumpDataDir() saved it (loadDataDir), the schema cache’s counterpart.';
