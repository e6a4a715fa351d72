/**
 * The "compared with" table (issue #36): what a user can do without this project in 2026 — a
 * GitHub `services:` container as the docs show it, the tuned 2026 block
 * (templates/github/services.yaml: `command` with the durability profile, `--tmpfs`), PGlite —
 * against this project's Docker mode, native mode and native mode with an npm build, one column
 * each, every figure from this run's cases (sections 1, 8, 10 and 11). The README's table is
 * copied from a run's table.md.
 */
import type { CaseResult } from '../lib/results.js';
import { fmt, medianDetail, table } from './format.js';

/** One column: its heading and the case ids (or fixed text) behind each measured row. */
interface Column {
  heading: string;
  /** Section 8's case: seconds the job is blocked on PostgreSQL. */
  blocked: string | null;
  /** Section 1's case: seconds to the first answered query. */
  first: string;
  /** The detail of `first` that says when the runner's own look would let the job start (services only). */
  runnerDetail?: string;
  /** Section 11's cases on this disk, at +1 ms and at +5 ms (one case repeated: it never waits for a flush). */
  suite: [string, string, string];
  /** Section 10's cases: the start from a saved schema, and the same start with the schema built (null: none). */
  schema: [string, string] | null;
  /** What the column gives for a database per test, whether settings are verified, where it runs. */
  clone: string;
  verified: string;
  platforms: string;
}

/** The columns, in order. */
const COLUMNS: Column[] = [
  {
    heading: 'services (defaults)',
    blocked: 'job_shape/docker-service',
    first: 'startup/service-10s',
    runnerDetail: 'runnerSeesHealthyAfterS',
    suite: ['real_suite/service', 'real_suite/service-1ms', 'real_suite/service-5ms'],
    schema: null,
    clone: 'yourself, in SQL (`CREATE DATABASE … TEMPLATE`), on a durable server on disk; not measured here',
    verified: 'no',
    platforms: 'Linux runners with Docker',
  },
  {
    heading: 'services, tuned (2026)',
    blocked: 'job_shape/docker-service-tuned',
    first: 'startup/service-tuned',
    runnerDetail: 'firstQueryAfterRunnerS',
    suite: ['real_suite/service-tuned', 'real_suite/service-tuned-1ms', 'real_suite/service-tuned-5ms'],
    schema: null,
    clone:
      'yourself, in SQL (`CREATE DATABASE … TEMPLATE`): the same server as Docker mode’s, so as fast; no template input, no examples',
    verified: 'no: a setting `command` misspells fails the start, one it leaves out goes unnoticed',
    platforms: 'Linux runners with Docker',
  },
  {
    heading: 'PGlite (in-process; pglite-socket)',
    blocked: null,
    first: 'startup/pglite-fresh',
    suite: ['real_suite/pglite-socket', 'real_suite/pglite-socket', 'real_suite/pglite-socket'],
    schema: ['schema_cache/pglite-loaded', 'schema_cache/pglite-init'],
    clone: 'in-process: `db.clone()` per test; not through pglite-socket (a connection to another database is given `postgres`)',
    verified: 'nothing to verify: memory only',
    platforms: 'any OS with Node; other languages only through pglite-socket, one session at a time',
  },
  {
    heading: 'pg-tmpfs, Docker mode',
    blocked: 'job_shape/docker-background',
    first: 'startup/action-docker',
    suite: ['real_suite/action-docker', 'real_suite/action-docker', 'real_suite/action-docker'],
    schema: ['schema_cache/docker-hit', 'schema_cache/docker-init'],
    clone: '`template: true`, examples in four languages (table 9)',
    verified: 'yes: every setting read back, PGDATA’s filesystem measured',
    platforms: 'Linux runners with Docker; any image (postgis, pgvector)',
  },
  {
    heading: 'pg-tmpfs, native',
    blocked: 'job_shape/native-background',
    first: 'startup/action-native-warm',
    suite: ['real_suite/action-native', 'real_suite/action-native', 'real_suite/action-native'],
    schema: ['schema_cache/native-hit', 'schema_cache/native-init'],
    clone: '`template: true`, as Docker mode',
    verified: 'yes, as Docker mode',
    platforms:
      'runners with the major installed (ubuntu-24.04: 16, ubuntu-22.04: 14, windows-2025: 17) and `container:` jobs of a PostgreSQL image',
  },
  {
    heading: 'pg-tmpfs, native, npm build',
    blocked: 'job_shape/native-npm-background',
    first: 'startup/npm-warm-',
    suite: ['', '', ''],
    schema: null,
    clone: '`template: true`, as Docker mode',
    verified: 'yes, as Docker mode',
    platforms: 'Linux x64 and arm64, macOS, Windows: majors 13–18 (arm64, macOS, Windows: 15–18)',
  },
];

/** `1.23 s` of a case's median, with `suffix`; '–' when the case is missing or failed. */
function seconds(c: CaseResult | undefined, suffix = ''): string {
  return c?.summary ? `${fmt(c.summary.median)} s${suffix}` : '–';
}

/** `61.2 s (1675 passed, 3 skipped)` or `… (12 passed, 40 failed, 3 errors)` of a section 11 case. */
function suiteCell(c: CaseResult | undefined): string {
  if (!c?.summary) return '–';
  const d = c.details[0] ?? {};
  const n = (k: string) => Number(d[k] ?? 0);
  const bad = ['failed', 'errors'].filter((k) => n(k) > 0).map((k) => `${n(k)} ${k}`);
  const skipped = n('skipped') > 0 ? `, ${n('skipped')} skipped` : '';
  return `${fmt(c.summary.median)} s (${n('passed')} passed${bad.length ? `, ${bad.join(', ')}` : ''}${skipped})`;
}

/**
 * The "compared with" table from a run's cases, or '' when the run has none of section 1's
 * columns (a run of other sections). The npm column takes section 1's kept-build row of the
 * run's first npm major (`startup/npm-warm-<major>`: the CLI's whole process, Node's start
 * included).
 */
export function renderCompared(cases: readonly CaseResult[]): string {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const npmWarm = cases.find((c) => c.id.startsWith('startup/npm-warm-'));
  const get = (id: string | null) => (id === 'startup/npm-warm-' ? npmWarm : id ? byId.get(id) : undefined);
  if (!COLUMNS.some((col) => get(col.first))) return '';
  const pglite = get('startup/pglite-fresh');
  const row = (name: string, f: (col: Column) => string) => [name, ...COLUMNS.map(f)];
  const socketFirst = byId.get('startup/pglite-socket-fresh');
  const rows = [
    row('time blocked (s; section 8)', (col) =>
      col.blocked ? seconds(get(col.blocked)) : pglite ? `${seconds(pglite)} in each test process` : '–',
    ),
    row('time to the first query (s; section 1)', (col) => {
      if (col === COLUMNS[2] && socketFirst) return `${seconds(pglite)}; socket ${seconds(socketFirst)}`;
      const c = get(col.first);
      const runner = col.runnerDetail && c ? medianDetail(c, col.runnerDetail) : null;
      return runner === null ? seconds(c) : `${seconds(c)}; the job’s first step: ${fmt(runner)} s`;
    }),
    ...(['this disk', 'flush +1 ms', 'flush +5 ms'] as const).map((disk, i) =>
      row(`the real suite, ${disk} (s; section 11)`, (col) =>
        col.suite[i] ? suiteCell(get(col.suite[i] as string)) : 'the same server as native: not run again',
      ),
    ),
    row('schema cache (s to the first query with the schema; section 10)', (col) => {
      if (col === COLUMNS[5]) return 'yes, as native (not run again)';
      if (!col.schema) return 'no: init runs in every job';
      const [hit, built] = col.schema.map((id) => get(id));
      if (!hit?.summary) return '–';
      const saved = col === COLUMNS[2] ? 'loadDataDir' : 'hit';
      return `${saved} ${seconds(hit)} (init: ${seconds(built)})`;
    }),
    row('a database per test', (col) => col.clone),
    row('settings verified', (col) => col.verified),
    row('platforms', (col) => col.platforms),
  ];
  return [
    table(['', ...COLUMNS.map((c) => c.heading)], ['l', ...COLUMNS.map(() => 'l' as const)], rows),
    '',
    'Medians of this run. Time blocked: section 8 (services: the pull plus the runner’s first look after "healthy", and for the tuned block its wait step; pg-tmpfs: `wait: false` and the wait step; PGlite starts inside each test process instead). ' +
      'Time to the first query of the services: until Docker says healthy (defaults: `pg_isready` every 10 s; a query right then may still be reset) or until the wait step’s query (tuned), then when the runner, looking at its own back-off (0, 2, 6, 14 s …), lets the job’s first step run. ' +
      'Time to the first query: section 1 (pg-tmpfs: the start with its checks; the npm build: the CLI’s whole process, Node’s start included). The real suite: section 11; servers on tmpfs and PGlite never wait for a flush, so one measurement serves every column. ' +
      'Versions of each alternative and the command that repeats each figure: the sections’ tables.',
  ].join('\n');
}
