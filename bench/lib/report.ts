/**
 * The run's report: the Markdown table (printed and written to table.md) and the chart (chart.svg).
 */
import type { Machine } from './machine.js';
import { machineLine } from './machine.js';
import { summarize, type CaseResult, type Metric, type Section } from './results.js';

/** Everything a report is made from (also the shape of results.json). */
export interface Report {
  tool: 'pg-tmpfs-action benchmark';
  /** ISO time the run started. */
  startedAt: string;
  durationSeconds: number;
  command: string;
  runId: string;
  options: Record<string, unknown>;
  machine: Machine;
  load: { before: number; mean: number; max: number; otherCpuSeconds: number; otherProcesses: string[] };
  cases: CaseResult[];
  /** Problems met while cleaning up (including anything the final sweep found). */
  cleanupProblems: string[];
  /** Sections that stopped with an error (their remaining cases did not run). */
  sectionErrors: Array<{ section: Section; error: string }>;
}

const UNITS: Record<Metric, string> = { seconds: 's', tps: 'tps', latency_ms: 'ms' };

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
function ratioOf(a: CaseResult | undefined, b: CaseResult | undefined): number | null {
  if (!a?.summary || !b?.summary || b.summary.median === 0 || a.summary.median === 0) return null;
  return a.metric === 'tps' ? a.summary.median / b.summary.median : b.summary.median / a.summary.median;
}

/** A ratio as the tables show it: `1.04×`, `39×`, or `–`. */
function fmtRatio(r: number | null): string {
  return r === null ? '–' : `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

/** Ratio of two cases' medians, oriented so that > 1 means "a is better". */
function ratio(a: CaseResult | undefined, b: CaseResult | undefined): string {
  return fmtRatio(ratioOf(a, b));
}

/** Whether two cases' difference is inside the run-to-run spread: their min–max ranges overlap. */
function spreadNote(a: CaseResult, b: CaseResult): string {
  if (!a.summary || !b.summary || a.summary.n < 2 || b.summary.n < 2) return 'one sample: no spread';
  return a.summary.min <= b.summary.max && b.summary.min <= a.summary.max ? 'ranges overlap' : 'outside the spread';
}

function table(header: string[], align: Array<'l' | 'r'>, rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

/** Rows and columns of a section's cases, in first-seen order. */
function grid(cases: readonly CaseResult[]): {
  rows: string[];
  cols: string[];
  at: (row: string, col: string) => CaseResult | undefined;
} {
  const rows = [...new Set(cases.map((c) => c.row))];
  const cols = [...new Set(cases.map((c) => c.variant))];
  const byKey = new Map(cases.map((c) => [`${c.row}\u0000${c.variant}`, c]));
  return { rows, cols, at: (row, col) => byKey.get(`${row}\u0000${col}`) };
}

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
 * `action-docker`; section 6's floor (a) of the same major (`floor-plan-<major>`, the run plan's
 * own arguments) for start() with the image present and for floor (b).
 */
function floorOf(c: CaseResult, cases: readonly CaseResult[]): CaseResult | undefined {
  const major = /^majors\/(?:present|floor-pgdata)-(\d+)$/.exec(c.id)?.[1];
  const id = c.id === 'startup/action-docker' ? 'startup/floor-docker-run' : major ? `majors/floor-plan-${major}` : null;
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

/** Issue #11's targets for native mode: the warm CLI at most 1.6× the native floor; cold at most 1.25× (initdb + warm CLI). */
export const NATIVE_WARM_TARGET = 1.6;
export const NATIVE_COLD_TARGET = 1.25;

/** Median of a case by id, or null. */
function medianOf(cases: readonly CaseResult[], id: string): number | null {
  const c = cases.find((x) => x.id === id);
  return c?.summary ? c.summary.median : null;
}

/**
 * Native mode against its floors: the warm CLI and start() over `floor-native`; the cold CLI over
 * `floor-initdb` + the warm CLI.
 */
function nativeNote(c: CaseResult, cases: readonly CaseResult[]): string {
  if (!c.summary) return '';
  const floor = medianOf(cases, 'startup/floor-native');
  if ((c.id === 'startup/cli-native-warm' || c.id === 'startup/action-native-warm') && floor) {
    return `${(c.summary.median / floor).toFixed(2)}× the native floor${c.id.startsWith('startup/cli') ? ` (target ≤ ${NATIVE_WARM_TARGET}×)` : ''}`;
  }
  const initdb = medianOf(cases, 'startup/floor-initdb');
  const warm = medianOf(cases, 'startup/cli-native-warm');
  if (c.id === 'startup/cli-native-cold' && initdb && warm) {
    return `${(c.summary.median / (initdb + warm)).toFixed(2)}× (initdb alone + warm CLI) (target ≤ ${NATIVE_COLD_TARGET}×)`;
  }
  return '';
}

/**
 * Where the CLI's time goes: for each CLI case, the median ms of each phase it reported
 * (details.phasesMs, src/timing.ts), in the order the phases ran; '' when there is none.
 */
function phasesTable(cases: readonly CaseResult[]): string {
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
      ['Phase', ...cli.map((c) => (c.id.endsWith('warm') ? 'warm cache' : c.id.endsWith('cold') ? 'cold cache' : c.row))],
      ['l', ...cli.map(() => 'r' as const)],
      [...phases.map((p) => [p, ...cli.map((c) => ms(at(c, p)))]), ['**sum of phases**', ...cli.map((c) => ms(total(c)))]],
    ),
  ].join('\n');
}

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
const isShipped = (c: CaseResult) => variantKey(c) === 'profile' || variantKey(c).endsWith('-profile');
const isDefaults = (c: CaseResult) => variantKey(c).endsWith('-defaults');

/** Section 5's cases split by table (storage), in first-seen order. */
function byTable(cases: readonly CaseResult[]): Array<[string, CaseResult[]]> {
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

/**
 * Section 5: one table per storage, every variant with its speed relative to the profile as
 * shipped, the best of each row in bold, the shipped profile against the best and against
 * PostgreSQL's defaults, and which rows miss the issue's target.
 */
function settingsTables(cases: readonly CaseResult[]): string {
  const out: string[] = [];
  for (const [name, tc] of byTable(cases)) {
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
      if (target && shipped && best && vsBest !== null) {
        const why: string[] = [];
        const belowDefaults =
          target.defaults !== undefined && defaults !== undefined && vsDefaults !== null && vsDefaults < target.defaults;
        if (vsBest < target.best) why.push(`${fmtRatio(vsBest)} of ${best.variant} (${spreadNote(shipped, best)})`);
        if (belowDefaults && defaults !== best)
          why.push(`${fmtRatio(vsDefaults)} of ${defaults.variant} (${spreadNote(shipped, defaults)})`);
        else if (belowDefaults && vsBest >= target.best)
          why.push(`${fmtRatio(vsDefaults)} of ${defaults.variant}, the best (${spreadNote(shipped, defaults)})`);
        if (why.length) misses.push(`${r}: ${why.join('; ')}`);
      }
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
  }
  out.push(
    `Cells: median (min–max), then the speed relative to "${cases.find(isShipped)?.variant ?? 'the profile'}" (above 1× = faster); the best median of each row in bold. Servers of one storage are compared with each other only, interleaved; each pgbench run starts after a CHECKPOINT, so a suite that runs longer than checkpoint_timeout meets checkpoints these runs do not. PostgreSQL 18’s data checksums and io_method: section 7.`,
  );
  return out.join('\n');
}

const TITLES: Record<Section, string> = {
  startup: '1. Time to the first answered query (seconds, lower is better)',
  workloads: '2. Test-suite workloads on four servers (transactions per second, higher is better)',
  shared_buffers: '3. shared_buffers on the action’s server: tmpfs, durability off (transactions per second, higher is better)',
  client_path: '4. Client path: select-only, 1 client, the action’s container (average latency in ms, lower is better)',
  settings:
    '5. The durability profile setting by setting, on tmpfs and on disk: PostgreSQL’s defaults, the profile as shipped, each of its settings restored, candidates added',
  majors:
    '6. PostgreSQL 15, 17 and 18 in Docker mode: image present against raw docker run floors, image pulled, and 18’s data checksums (seconds, lower is better)',
  pg18: '7. PostgreSQL 18: initdb data checksums and io_method on the action’s container, tmpfs (transactions per second, higher is better)',
  job_shape:
    '8. A job’s shape: start PostgreSQL, other steps that do not need it, then the tests: seconds the job is blocked on PostgreSQL (lower is better)',
  per_test:
    '9. Per test: a fresh database from the template, TRUNCATE, a transaction rolled back, or DELETE, on the action’s server, tmpfs, profile (tests per second, higher is better)',
};

/** Issue #12's target: blocked time with `wait: false` under this many seconds. */
export const BACKGROUND_TARGET_S = 0.1;

/** Median of one numeric detail across a case's repetitions, or null. */
function medianDetail(c: CaseResult, key: string): number | null {
  const v = c.details.map((d) => d[key]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length ? (summarize(v)?.median ?? null) : null;
}

/** Section 8's table: blocked seconds per job shape, with the steps' parts. */
function jobShapeTable(sc: readonly CaseResult[]): string {
  const ms = (v: number | null) => (v === null ? '' : `${Math.round(v)} ms`);
  const rows = sc.map((c) => {
    const parts = [
      medianDetail(c, 'mainStepMs') !== null ? `main step ${ms(medianDetail(c, 'mainStepMs'))}` : '',
      medianDetail(c, 'waitStepMs') !== null
        ? `wait step ${ms(medianDetail(c, 'waitStepMs'))} (of which waiting ${ms(medianDetail(c, 'waitedMs'))})`
        : '',
      medianDetail(c, 'pullMs') !== null ? `pull ${ms(medianDetail(c, 'pullMs'))}` : '',
      medianDetail(c, 'healthyMs') !== null ? `healthy after ${ms(medianDetail(c, 'healthyMs'))}` : '',
      medianDetail(c, 'startupMs') !== null ? `ready ${ms(medianDetail(c, 'startupMs'))} after the main step began` : '',
      c.id.endsWith('-background') && c.summary
        ? c.summary.median < BACKGROUND_TARGET_S
          ? `target < ${BACKGROUND_TARGET_S} s: met`
          : `target < ${BACKGROUND_TARGET_S} s: not met`
        : '',
      c.errors.length ? `⚠ ${c.errors.length} failed` : '',
    ].filter(Boolean);
    return [
      c.row,
      c.summary ? fmt(c.summary.median) : 'failed',
      c.summary ? `${fmt(c.summary.min)}–${fmt(c.summary.max)}` : '–',
      parts.join('; '),
    ];
  });
  return [
    table(['Job shape', 'blocked, median s', 'min–max s', 'parts (medians)'], ['l', 'r', 'r', 'l'], rows),
    '',
    'Blocked: the wall time of the steps that wait for PostgreSQL, each a `node dist/<step>.js` process started as the runner starts it (Node’s own start included); for the service container, the pull plus the runner’s first look after "healthy". The other steps are a sleep here.',
  ].join('\n');
}

/**
 * Section 9's tables. `isolation`: each way of isolating a test (rows) at each client count, the
 * time one client spends per test (details.msPerTest), and the speed relative to the rolled-back
 * test. `strategy`: per server, CREATE DATABASE … STRATEGY WAL_LOG and FILE_COPY at each client
 * count, FILE_COPY over WAL_LOG and whether the difference is outside the run-to-run spread, then
 * a count of the pairs where FILE_COPY is faster.
 */
function perTestTables(sc: readonly CaseResult[]): string {
  const out: string[] = [];
  const iso = sc.filter((c) => c.table === 'isolation');
  if (iso.length) {
    const g = grid(iso);
    const rollback = (col: string) => iso.find((c) => c.variant === col && c.id.startsWith('per_test/rollback/'));
    const ms = (c: CaseResult | undefined) => {
      const v = c ? medianDetail(c, 'msPerTest') : null;
      return v === null ? '–' : fmt(v);
    };
    const first = g.cols[0] as string;
    /** `part ms; ...`: the median ms per test of each part (details.msPerTestByPart). */
    const parts = (c: CaseResult | undefined) => {
      const names = [...new Set(c?.details.flatMap((d) => Object.keys((d.msPerTestByPart ?? {}) as object)) ?? [])];
      return names
        .map((name) => {
          const v = summarize(
            (c?.details ?? [])
              .map((d) => (d.msPerTestByPart as Record<string, number> | undefined)?.[name])
              .filter((x): x is number => typeof x === 'number'),
          );
          return v ? `${name} ${fmt(v.median)}` : '';
        })
        .filter(Boolean)
        .join('; ');
    };
    out.push(
      table(
        [
          'Per test: what one test includes',
          ...g.cols.map((col) => `tests/s, ${col}`),
          ...g.cols.map((col) => `ms per test, ${col}`),
          ...g.cols.map((col) => `vs rollback, ${col}`),
          `where the time goes, ${first} (ms per test)`,
        ],
        ['l', ...g.cols.flatMap(() => ['r', 'r', 'r'] as const), 'l'],
        g.rows.map((r) => [
          r,
          ...g.cols.map((col) => cell(g.at(r, col))),
          ...g.cols.map((col) => ms(g.at(r, col))),
          ...g.cols.map((col) => ratio(g.at(r, col), rollback(col))),
          parts(g.at(r, first)),
        ]),
      ),
      '',
      'ms per test: the wall time one client spends per test (median over repetitions). Each client has its own databases; the cases are interleaved in each repetition.',
    );
  }
  const strategy = sc.filter((c) => c.table === 'strategy');
  if (strategy.length) {
    const parse = (c: CaseResult) => /^per_test\/clone-(wal-log|file-copy)\/c(\d+)\/(.+)$/.exec(c.id);
    const servers = [...new Set(strategy.map((c) => parse(c)?.[3]).filter((k): k is string => !!k))];
    const clients = [...new Set(strategy.map((c) => Number(parse(c)?.[2])).filter((n) => n > 0))].sort((a, b) => a - b);
    const at = (key: string, s: 'wal-log' | 'file-copy', n: number) =>
      strategy.find((c) => c.id === `per_test/clone-${s}/c${n}/${key}`);
    let faster = 0;
    let slower = 0;
    let pairs = 0;
    const rows = servers.map((key) => {
      const cells = clients.flatMap((n) => {
        const wal = at(key, 'wal-log', n);
        const copy = at(key, 'file-copy', n);
        const r = ratioOf(copy, wal);
        const outside = wal && copy ? spreadNote(copy, wal) === 'outside the spread' : false;
        if (r !== null) {
          pairs += 1;
          if (outside && r > 1) faster += 1;
          if (outside && r < 1) slower += 1;
        }
        return [cell(wal), cell(copy), r === null ? '–' : `${fmtRatio(r)} (${wal && copy ? spreadNote(copy, wal) : '–'})`];
      });
      const first = strategy.find((c) => parse(c)?.[3] === key);
      return [first?.row ?? key, ...cells];
    });
    const n = (k: number) => `${k} client${k === 1 ? '' : 's'}`;
    if (out.length) out.push('');
    out.push(
      'CREATE DATABASE … STRATEGY per PostgreSQL major (a fresh database per test, as above; the two strategies interleaved):',
      '',
      table(
        [
          'Server (tmpfs, profile)',
          ...clients.flatMap((k) => [`WAL_LOG, ${n(k)}`, `FILE_COPY, ${n(k)}`, `FILE_COPY vs WAL_LOG, ${n(k)}`]),
        ],
        ['l', ...clients.flatMap(() => ['r', 'r', 'r'] as const)],
        rows,
      ),
      '',
      `FILE_COPY faster than WAL_LOG outside the spread in ${faster} of ${pairs} (server, clients) pairs; slower outside the spread in ${slower}.`,
    );
  }
  return out.join('\n');
}

/** The Markdown report. */
export function markdown(report: Report, sections: readonly Section[]): string {
  const out: string[] = [];
  const o = report.options as { reps: number; seconds: number; transactions: number | null; quick: boolean; scale: number };
  const length = o.transactions ? `${o.transactions} transactions per client` : `${o.seconds} s`;
  out.push(`# pg-tmpfs-action benchmark${o.quick ? ' (quick smoke run: figures are not meaningful)' : ''}`);
  out.push('');
  out.push(`- Run: ${report.startedAt}, ${Math.round(report.durationSeconds)} s, \`${report.command}\``);
  out.push(`- Machine: ${machineLine(report.machine)}`);
  out.push(
    `- Method: ${o.reps} repetition(s) per variant, variants interleaved (rotated each repetition); pgbench runs ${length} each (scale ${o.scale} for tpcb-like/select-only) after a CHECKPOINT; cells are median (min–max).`,
  );
  out.push(
    `- Load: 1-minute load average ${fmt(report.load.before)} before the run, mean ${fmt(report.load.mean)}, max ${fmt(report.load.max)}; other processes used ${report.load.otherCpuSeconds} CPU-seconds during the run${report.load.otherProcesses.length ? ` (${report.load.otherProcesses.join('; ')})` : ''}.`,
  );
  const cases = report.cases;
  for (const section of sections) {
    const sc = cases.filter((c) => c.section === section);
    if (!sc.length) continue;
    out.push('', `## ${TITLES[section]}`, '');
    if (section === 'job_shape') {
      out.push(jobShapeTable(sc));
      continue;
    }
    if (section === 'per_test') {
      out.push(perTestTables(sc));
      continue;
    }
    if (section === 'startup' || section === 'majors') {
      out.push(
        table(
          ['How the server is started', 'median s', 'min–max s', 'notes'],
          ['l', 'r', 'r', 'l'],
          sc.map((c) => [
            c.row,
            c.summary ? fmt(c.summary.median) : 'failed',
            c.summary ? `${fmt(c.summary.min)}–${fmt(c.summary.max)}` : '–',
            [
              startupNotes(c),
              pullNote(c),
              floorNote(c, sc),
              nativeNote(c, sc),
              c.errors.length ? `⚠ ${c.errors.length} failed` : '',
            ]
              .filter(Boolean)
              .join('; '),
          ]),
        ),
      );
      if (section === 'startup') {
        const phases = phasesTable(sc);
        if (phases) out.push(phases);
      }
      continue;
    }
    const g = grid(sc);
    if (section === 'workloads') {
      // Columns: durable/disk (stock), off/disk, durable/tmpfs, off/tmpfs (the action).
      const stock = g.cols[0] as string;
      const action = g.cols[g.cols.length - 1] as string;
      const durableTmpfs = g.cols[g.cols.length - 2] as string;
      out.push(
        table(
          ['Workload', ...g.cols, `${action} vs ${stock}`, `${action} vs ${durableTmpfs}`],
          ['l', ...g.cols.map(() => 'r' as const), 'r', 'r'],
          g.rows.map((r) => [
            r,
            ...g.cols.map((col) => cell(g.at(r, col))),
            ratio(g.at(r, action), g.at(r, stock)),
            ratio(g.at(r, action), g.at(r, durableTmpfs)),
          ]),
        ),
      );
    } else if (section === 'shared_buffers') {
      const def = g.cols.find((c) => c.includes('default')) ?? (g.cols[0] as string);
      const first = g.cols[0] as string;
      const last = g.cols[g.cols.length - 1] as string;
      out.push(
        table(
          ['Workload', ...g.cols, `${first} vs default`, `${last} vs default`],
          ['l', ...g.cols.map(() => 'r' as const), 'r', 'r'],
          g.rows.map((r) => [
            r,
            ...g.cols.map((col) => cell(g.at(r, col))),
            ratio(g.at(r, first), g.at(r, def)),
            ratio(g.at(r, last), g.at(r, def)),
          ]),
        ),
      );
    } else if (section === 'settings' && sc.some((c) => c.table)) {
      out.push(settingsTables(sc));
    } else if (section === 'settings' || section === 'pg18') {
      const base = g.cols[0] as string;
      out.push(
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
      );
      out.push(
        '',
        section === 'settings'
          ? `Each restored setting is shown with its speed relative to the full profile (below 1× = slower).`
          : `Each variant is shown with its speed relative to 18’s defaults (below 1× = slower).`,
      );
    } else if (section === 'client_path') {
      out.push(
        table(
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
        ),
      );
    }
  }
  const failed = cases.filter((c) => c.errors.length);
  if (failed.length || report.cleanupProblems.length || report.sectionErrors.length) {
    out.push('', '## Errors', '');
    for (const e of report.sectionErrors) out.push(`- section ${e.section} stopped: ${e.error}`);
    for (const c of failed) out.push(`- ${c.id}: ${c.errors.join(' / ')}`);
    for (const p of report.cleanupProblems) out.push(`- ${p}`);
  }
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// SVG chart: one panel per section, horizontal bars (median) with min–max whiskers.

interface Bar {
  group: string;
  label: string;
  median: number;
  min: number;
  max: number;
  failed: boolean;
}

interface Panel {
  title: string;
  unit: string;
  bars: Bar[];
  /** Draw a reference line at this value (1 for ratios). */
  reference?: number;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Bars of a section, each value divided by the same row's value of `baseCol` (when given). */
function barsOf(cases: readonly CaseResult[], baseCol?: string, invert = false): Bar[] {
  const g = grid(cases);
  const bars: Bar[] = [];
  for (const row of g.rows) {
    const base = baseCol ? g.at(row, baseCol)?.summary?.median : undefined;
    for (const col of g.cols) {
      const c = g.at(row, col);
      if (!c) continue;
      const s = c.summary;
      const scale = (v: number) => {
        if (baseCol === undefined) return v;
        if (!base || !v) return 0;
        return invert ? base / v : v / base;
      };
      const lo = s ? scale(invert ? s.max : s.min) : 0;
      const hi = s ? scale(invert ? s.min : s.max) : 0;
      bars.push({ group: row, label: col, median: s ? scale(s.median) : 0, min: lo, max: hi, failed: !s });
    }
  }
  return bars;
}

/** The panels of a report. */
export function panels(cases: readonly CaseResult[]): Panel[] {
  const out: Panel[] = [];
  const of = (s: Section) => cases.filter((c) => c.section === s);
  const startup = [...of('startup'), ...of('majors')];
  if (startup.length) {
    out.push({
      title: 'Time to the first answered query (s, lower is better)',
      unit: 's',
      bars: startup.map((c) => ({
        group: '',
        label: c.row,
        median: c.summary?.median ?? 0,
        min: c.summary?.min ?? 0,
        max: c.summary?.max ?? 0,
        failed: !c.summary,
      })),
    });
  }
  const workloads = of('workloads');
  if (workloads.length) {
    const base = workloads[0]?.variant as string;
    out.push({
      title: `Workloads: throughput relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(workloads, base),
      reference: 1,
    });
  }
  const sb = of('shared_buffers');
  if (sb.length) {
    const base = sb.find((c) => c.variant.includes('default'))?.variant ?? (sb[0]?.variant as string);
    out.push({
      title: `shared_buffers: throughput relative to ${base} (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(sb, base),
      reference: 1,
    });
  }
  const cp = of('client_path');
  if (cp.length) {
    out.push({ title: 'Client path: select-only latency (ms, lower is better)', unit: 'ms', bars: barsOf(cp) });
  }
  const p18 = of('pg18');
  if (p18.length) {
    const base = p18[0]?.variant as string;
    out.push({
      title: `PostgreSQL 18: speed relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(p18, base),
      reference: 1,
    });
  }
  for (const [name, st] of byTable(of('settings'))) {
    const base = st.find(isShipped)?.variant ?? (st[0]?.variant as string);
    out.push({
      title: `Durability profile${name ? ` on ${name}` : ''}: speed relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: [...new Set(st.map((c) => c.row))].flatMap((row) => {
        const rc = st.filter((c) => c.row === row);
        return barsOf(rc, base, rc[0]?.metric !== 'tps').filter((b) => b.label !== base);
      }),
      reference: 1,
    });
  }
  return out;
}

/** The SVG chart of a report. */
export function svg(report: Report): string {
  const ps = panels(report.cases);
  const width = 1000;
  const labelW = 470;
  const barX = labelW + 10;
  const barW = width - barX - 90;
  const rowH = 17;
  const parts: string[] = [];
  let y = 30;
  const m = report.machine;
  parts.push(`<text x="10" y="20" class="h1">pg-tmpfs-action benchmark, ${esc(report.startedAt)}, ${esc(report.command)}</text>`);
  parts.push(
    `<text x="10" y="38" class="l">${esc(`${m.cpuModel}, ${m.cpus} cores, ${m.memoryGiB} GiB RAM; kernel ${m.kernel}; ${m.postgres}; Docker ${m.docker}`)}</text>`,
  );
  y += 12;
  for (const p of ps) {
    y += 26;
    parts.push(`<text x="10" y="${y}" class="h2">${esc(p.title)}</text>`);
    y += 8;
    // Ratio panels (with a reference of 1×) use a log scale with bars growing from 1× to the
    // left (slower) or right (faster); absolute panels a linear scale from 0.
    const ref = p.reference;
    const ok = p.bars.filter((b) => !b.failed && b.min > 0);
    let xOf: (v: number) => number;
    let origin: number;
    if (ref !== undefined && ok.length) {
      const lo = Math.log(Math.min(ref, ...ok.map((b) => b.min)) / 1.15);
      const hi = Math.log(Math.max(ref, ...ok.map((b) => b.max)) * 1.15);
      xOf = (v: number) => barX + ((Math.log(Math.max(v, 1e-9)) - lo) / (hi - lo)) * barW;
      origin = xOf(ref);
      y += 12;
      for (const tick of [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]) {
        const x = xOf(tick);
        if (x < barX - 1 || x > barX + barW + 1) continue;
        parts.push(`<text x="${x.toFixed(1)}" y="${y - 2}" class="t">${tick}×</text>`);
      }
    } else {
      const top = Math.max(...p.bars.map((b) => b.max)) * 1.05 || 1;
      xOf = (v: number) => barX + (Math.max(0, v) / top) * barW;
      origin = barX;
    }
    const panelTop = y;
    let group = '';
    for (const b of p.bars) {
      if (b.group && b.group !== group) {
        group = b.group;
        y += rowH;
        parts.push(`<text x="10" y="${y - 4}" class="g">${esc(group)}</text>`);
      }
      y += rowH;
      const label = b.group ? `    ${b.label}` : b.label;
      parts.push(`<text x="${b.group ? 24 : 10}" y="${y - 4}" class="l">${esc(label.trim()).slice(0, 78)}</text>`);
      if (b.failed) {
        parts.push(`<text x="${barX}" y="${y - 4}" class="f">failed</text>`);
        continue;
      }
      const xm = xOf(b.median);
      const left = Math.min(origin, xm);
      parts.push(
        `<rect x="${left.toFixed(1)}" y="${y - 13}" width="${Math.max(1, Math.abs(xm - origin)).toFixed(1)}" height="11" class="b"/>`,
      );
      if (b.max > b.min) {
        parts.push(
          `<line x1="${xOf(b.min).toFixed(1)}" x2="${xOf(b.max).toFixed(1)}" y1="${y - 7.5}" y2="${y - 7.5}" class="w"/>`,
        );
      }
      const right = Math.max(xOf(b.max), xm, origin);
      parts.push(
        `<text x="${(right + 4).toFixed(1)}" y="${y - 4}" class="v">${esc(fmt(b.median))}${esc(p.unit === '×' ? '×' : ` ${p.unit}`)}</text>`,
      );
    }
    if (ref !== undefined) {
      const x = origin.toFixed(1);
      parts.push(`<line x1="${x}" x2="${x}" y1="${panelTop}" y2="${y + 2}" class="r"/>`);
    }
    y += 6;
  }
  const height = y + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">`,
    '<style>.h1{font-size:13px;font-weight:600}.h2{font-size:14px;font-weight:700}.g{font-size:12px;font-weight:600}.l,.v,.f{font-size:11px}.t{font-size:10px;fill:#666;text-anchor:middle}.f{fill:#b00}.b{fill:#4e79a7}.w{stroke:#222;stroke-width:1.2}.r{stroke:#b00;stroke-dasharray:3 3}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
