/**
 * Sections 1 and 6 (startup, majors): one table of start times with their notes (the service
 * container's first query and the runner's first look, the pull, the raw floors and native
 * floors with issue #11's targets), and for section 1 where the CLI's time goes.
 */
import { summarize, type CaseResult } from '../lib/results.js';
import { tunedNote } from './alternatives.js';
import { fmt, medianDetail, table } from './format.js';
import { pgliteFootnote, pgliteNote, STARTUP_PGLITE } from './pglite.js';
import { isNpmRow, NPM_TABLE_NOTE, npmColumn, npmNote } from './startup-npm.js';

/** The service containers' notes: the first real query after "healthy", and when GitHub's runner sees it. */
function startupNotes(c: CaseResult): string {
  const notes: string[] = [];
  const ok = c.details.filter((d) => d.firstQueryOk === true).length;
  const tried = c.details.filter((d) => 'firstQueryOk' in d).length;
  if (tried) {
    const errors = [...new Set(c.details.map((d) => d.firstQueryError).filter((e): e is string => typeof e === 'string'))];
    notes.push(`first real query right after "healthy": ${ok}/${tried} answered${errors.length ? ` (else: ${errors[0]})` : ''}`);
  }
  const seen = c.details.map((d) => d.runnerSeesHealthyAfterS).filter((v): v is number => typeof v === 'number');
  if (seen.length) {
    const sorted = [...seen].sort((a, b) => a - b);
    notes.push(
      `GitHub's runner looks at 0, 2, 6, 14, 30 s: its steps start after ≈${fmt(sorted[Math.floor(sorted.length / 2)] as number)} s`,
    );
  }
  // The tuned services block: its wait step's answer, counted from the runner's look.
  const answered = medianDetail(c, 'firstQueryAfterRunnerS');
  const waitStep = medianDetail(c, 'waitStepMs');
  if (answered !== null && waitStep !== null)
    notes.push(`then the wait step (${Math.round(waitStep)} ms here): the job's first answer after ≈${fmt(answered)} s`);
  return notes.join('; ');
}

/** The pull's own time (start()'s pullMs), median and range, for cases that pulled. */
function pullNote(c: CaseResult): string {
  const ms = c.details
    .map((d) => d.pullMs)
    .filter((v): v is number => typeof v === 'number')
    .sort((a, b) => a - b);
  if (!ms.length) return '';
  return `of which pull ${fmt((ms[Math.floor(ms.length / 2)] as number) / 1000)} s (${fmt((ms[0] as number) / 1000)}–${fmt((ms[ms.length - 1] as number) / 1000)})`;
}

/** Issue #11's target for Docker mode: start() at most this many times its raw `docker run` floor (median over median). */
export const DOCKER_FLOOR_TARGET = 1.05;

/**
 * The raw `docker run` floor a case is held against: section 1's `floor-docker-run` for
 * `action-docker` (each on its engine); section 6's floor (a) of the same major (`floor-plan-<major>`, the run plan's
 * own arguments) for start() with the image present and for floor (b).
 */
function floorOf(c: CaseResult, cases: readonly CaseResult[]): CaseResult | undefined {
  const major = /^majors\/(?:present|floor-pgdata)-(\d+)$/.exec(c.id)?.[1];
  const action = /^startup\/action-docker(-engine29)?$/.exec(c.id);
  const id = action ? `startup/floor-docker-run${action[1] ?? ''}` : major ? `majors/floor-plan-${major}` : null;
  return id ? cases.find((f) => f.id === id) : undefined;
}

/**
 * A case's median over its floor's (floorOf), e.g. `1.03× floor (a) (target ≤ 1.05×)`; for
 * floor (b) also the anonymous volumes Docker made per start (details.anonymousVolumes).
 */
function floorNote(c: CaseResult, cases: readonly CaseResult[]): string {
  const notes: string[] = [];
  const floor = floorOf(c, cases);
  if (floor?.summary && c.summary && floor.summary.median > 0) {
    const r = c.summary.median / floor.summary.median;
    const name = c.section === 'majors' ? 'floor (a)' : 'the same docker run';
    notes.push(`${r.toFixed(2)}× ${name}${c.id.includes('floor-') ? '' : ` (target ≤ ${DOCKER_FLOOR_TARGET}×)`}`);
  }
  const volumes = c.details.map((d) => d.anonymousVolumes).filter((v): v is number => typeof v === 'number');
  if (volumes.length && c.id.startsWith('majors/floor-')) {
    const most = Math.max(...volumes);
    notes.push(most ? `Docker made ${most} anonymous volume(s) per start (removed after)` : 'no anonymous volume');
  }
  return notes.join('; ');
}

/**
 * Targets for native mode: the warm CLI's whole process at most 1.6× Node's own start plus the
 * native floor (copy, postgres, first query: issue #34 put Node's start in, which the CLI cannot
 * avoid and the in-process floor does not pay); cold at most 1.25× (initdb + warm CLI).
 */
export const NATIVE_WARM_TARGET = 1.6;
export const NATIVE_COLD_TARGET = 1.25;

/** Median of a case by id, or null. */
function medianOf(cases: readonly CaseResult[], id: string): number | null {
  const c = cases.find((x) => x.id === id);
  return c?.summary ? c.summary.median : null;
}

/**
 * Native mode against its floors: start() over `floor-native`; the warm CLI over it and over
 * `node-start` + `floor-native` (its target); the cold CLI over `floor-initdb` + the warm CLI.
 */
function nativeNote(c: CaseResult, cases: readonly CaseResult[]): string {
  if (!c.summary) return '';
  const floor = medianOf(cases, 'startup/floor-native');
  const node = medianOf(cases, 'startup/node-start');
  if (c.id === 'startup/action-native-warm' && floor) return `${(c.summary.median / floor).toFixed(2)}× the native floor`;
  if (c.id === 'startup/cli-native-warm' && floor) {
    const withNode = node
      ? `; ${(c.summary.median / (node + floor)).toFixed(2)}× Node's start + the native floor (target ≤ ${NATIVE_WARM_TARGET}×: ${c.summary.median / (node + floor) <= NATIVE_WARM_TARGET ? 'met' : 'not met'})`
      : '';
    return `${(c.summary.median / floor).toFixed(2)}× the native floor${withNode}`;
  }
  const initdb = medianOf(cases, 'startup/floor-initdb');
  const warm = medianOf(cases, 'startup/cli-native-warm');
  if (c.id === 'startup/cli-native-cold' && initdb && warm) {
    return `${(c.summary.median / (initdb + warm)).toFixed(2)}× (initdb alone + warm CLI) (target ≤ ${NATIVE_COLD_TARGET}×)`;
  }
  return '';
}

/** The main table's column name for a CLI case in the phases table. */
function cacheColumn(c: CaseResult): string {
  return c.id.endsWith('warm') ? 'warm cache' : c.id.endsWith('cold') ? 'cold cache' : c.row;
}

/**
 * Where the CLI's time goes: for each CLI case, the median ms of each phase it reported
 * (details.phasesMs, src/timing.ts), in the order the phases ran, a column per case named by
 * `column`; '' when there is none.
 */
function phasesTable(cases: readonly CaseResult[], column: (c: CaseResult) => string): string {
  const cli = cases.filter((c) => c.details.some((d) => d.phasesMs && typeof d.phasesMs === 'object'));
  if (!cli.length) return '';
  const phases: string[] = [];
  for (const c of cli)
    for (const d of c.details)
      for (const p of Object.keys((d.phasesMs ?? {}) as Record<string, number>)) if (!phases.includes(p)) phases.push(p);
  // summarize (results.ts) gives the median, or null for no samples.
  const at = (c: CaseResult, p: string) =>
    summarize(
      c.details
        .map((d) => (d.phasesMs as Record<string, number> | undefined)?.[p])
        .filter((v): v is number => typeof v === 'number'),
    )?.median ?? null;
  const total = (c: CaseResult) =>
    summarize(c.details.map((d) => Object.values((d.phasesMs ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0)))
      ?.median ?? null;
  const ms = (v: number | null) => (v === null ? '–' : v.toFixed(1));
  return [
    '',
    'Where the CLI’s time goes (median ms per phase, as `pg-tmpfs up --json` reports it in `phasesMs`; the process’s exit after the last phase is not in it):',
    '',
    table(
      ['Phase', ...cli.map(column)],
      ['l', ...cli.map(() => 'r' as const)],
      [...phases.map((p) => [p, ...cli.map((c) => ms(at(c, p)))]), ['**sum of phases**', ...cli.map((c) => ms(total(c)))]],
    ),
  ].join('\n');
}

/** Sections 1 and 6's table: start times of `rows` with their notes (which look up other cases of `all`). */
function startTable(rows: readonly CaseResult[], all: readonly CaseResult[] = rows): string {
  return table(
    ['How the server is started', 'median s', 'min–max s', 'notes'],
    ['l', 'r', 'r', 'l'],
    rows.map((c) => [
      c.row,
      c.summary ? fmt(c.summary.median) : 'failed',
      c.summary ? `${fmt(c.summary.min)}–${fmt(c.summary.max)}` : '–',
      [
        startupNotes(c),
        pullNote(c),
        floorNote(c, all),
        nativeNote(c, all),
        npmNote(c, all),
        pgliteNote(c, all),
        c.errors.length ? `⚠ ${c.errors.length} failed` : '',
      ]
        .filter(Boolean)
        .join('; '),
    ]),
  );
}

/**
 * Section 1: start times with their notes, then where the CLI's time goes; then the rows for
 * server builds from npm in a table of their own (bench/report/startup-npm.ts), with where the
 * native ones' time goes.
 */
export function renderStartup(sc: readonly CaseResult[]): string {
  const main = sc.filter((c) => !isNpmRow(c));
  const npm = sc.filter(isNpmRow);
  // phasesTable starts with its own blank line, or is '' when no case reported phases.
  const tuned = tunedNote(main, 'startup');
  const pglite = pgliteFootnote(sc, STARTUP_PGLITE);
  const out = [startTable(main, sc), tuned && `\n${tuned}`, pglite && `\n${pglite}`, phasesTable(main, cacheColumn)];
  if (npm.length) {
    const native = npm.filter((c) => !c.id.includes('docker'));
    out.push(`\nServer builds from npm, per major (issue #34):\n\n${startTable(npm, sc)}\n\n${NPM_TABLE_NOTE}`);
    out.push(phasesTable(native, npmColumn));
  }
  return out.filter(Boolean).join('\n');
}

/** Section 6: start times per major against their floors. */
export const renderMajors = (sc: readonly CaseResult[]): string => startTable(sc);
