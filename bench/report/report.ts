/**
 * The run's report: the Markdown (printed and written to table.md) from results.json's shape,
 * each section's tables from its own renderer (RENDERERS, as bench/run.ts's RUNNERS runs each
 * section), and the chart (chart.svg) in chart.ts.
 */
import type { Machine } from '../lib/machine.js';
import { machineLine } from '../lib/machine.js';
import type { CaseResult, Section } from '../lib/results.js';
import { renderClientPath } from './client-path.js';
import { renderCompared } from './compared.js';
import { fmt, type Renderer } from './format.js';
import { renderJobShape } from './job-shape.js';
import { renderPerTest } from './per-test.js';
import { renderPg18 } from './pg18.js';
import { renderRealSuite } from './real-suite.js';
import { renderSchemaCache } from './schema-cache.js';
import { renderSettings } from './settings.js';
import { renderSharedBuffers } from './shared-buffers.js';
import { renderMajors, renderStartup } from './startup.js';
import { renderWorkloads } from './workloads.js';

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

/** Each section's heading. */
const TITLES: Record<Section, string> = {
  startup: '1. Time to the first answered query (seconds, lower is better)',
  workloads:
    '2. Test-suite workloads on the four servers of the 2x2 matrix, on the durable one on disks that flush slower, and on the tuned services block of 2026 (transactions per second, higher is better)',
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
    '9. Per test: a fresh database from the template, a copy from the pool, TRUNCATE, a transaction rolled back, or DELETE, on the action’s server, tmpfs, profile (tests per second, higher is better)',
  per_test_real:
    '9c. Per test, tests that do real work: a fresh database from the template against a copy from the pool, on the action’s server, tmpfs, profile (tests per second, higher is better)',
  schema_cache:
    '10. The schema cache: a start with 300 migrations as init, without the cache, on a miss and on a hit, in both modes (seconds of the whole `pg-tmpfs up` process, lower is better)',
  real_suite:
    '11. A real suite: SQLAlchemy 2.0.44’s own ORM tests against a GitHub services container and the tuned services block of 2026 (this disk, and disks that flush slower) and pg-tmpfs-action (seconds of the pytest run, lower is better)',
};

/** The heading of the table across sections (bench/report/compared.ts). */
export const COMPARED_TITLE = 'Compared with: what a user can do without this project (2026)';

/** Each section's tables, from its cases. */
const RENDERERS: Record<Section, Renderer> = {
  startup: renderStartup,
  workloads: renderWorkloads,
  shared_buffers: renderSharedBuffers,
  client_path: renderClientPath,
  settings: renderSettings,
  majors: renderMajors,
  pg18: renderPg18,
  job_shape: renderJobShape,
  per_test: renderPerTest,
  per_test_real: renderPerTest,
  schema_cache: renderSchemaCache,
  real_suite: renderRealSuite,
};

/** The Markdown report: the run's header, each section in `sections` order that has cases, the table across sections, then the errors. */
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
    out.push('', `## ${TITLES[section]}`, '', RENDERERS[section](sc));
  }
  const compared = renderCompared(cases);
  if (compared) out.push('', `## ${COMPARED_TITLE}`, '', compared);
  const failed = cases.filter((c) => c.errors.length);
  if (failed.length || report.cleanupProblems.length || report.sectionErrors.length) {
    out.push('', '## Errors', '');
    for (const e of report.sectionErrors) out.push(`- section ${e.section} stopped: ${e.error}`);
    for (const c of failed) out.push(`- ${c.id}: ${c.errors.join(' / ')}`);
    for (const p of report.cleanupProblems) out.push(`- ${p}`);
  }
  return `${out.join('\n')}\n`;
}
