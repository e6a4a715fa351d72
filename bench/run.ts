/**
 * `npm run bench` / `npm run bench:quick`: what tmpfs and durability-off buy, measured side by
 * side on this machine. See docs/performance.md for a reading of a full run.
 *
 * Usage: tsx bench/run.ts [--quick] [--out DIR] [--only SECTION,...] [--reps N] [--seconds N]
 *                         [--image IMAGE] [--pg-version MAJOR] [--disk-dir DIR]
 *
 * Writes DIR/results.json (raw samples, machine, options), DIR/table.md (also printed) and
 * DIR/chart.svg; DIR defaults to bench/results/<UTC timestamp>/. Exits 1 when any case failed or
 * something could not be cleaned up.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { findBinaries } from '../src/native/source/installed.js';
import { runAsUser } from '../src/native/run/postgres.js';
import { TMPFS_MAGIC } from '../src/native/ramdir.js';
import { Cleanup, cleanupOnSignals, interruption } from './lib/cleanup.js';
import { engine29 } from '../testkit/engines.js';
import type { Context, Options } from './lib/context.js';
import { describeMachine, LoadSampler, OtherWork } from './lib/machine.js';
import { runPgliteRealSuite } from './lib/pglite-suite.js';
import { checkDefaultsCoverProfile } from './lib/pgserver.js';
import { run } from '../src/proc.js';
import { svg } from './report/chart.js';
import { markdown, type Report } from './report/report.js';
import { runClients } from './lib/quick.js';
import { Results, SECTIONS, type Section } from './lib/results.js';
import { runClientPath } from './sections/client-path.js';
import { runJobShape } from './sections/job-shape.js';
import { runMajors, runPg18 } from './sections/majors.js';
import { runPerTest, runPerTestReal } from './sections/per-test.js';
import { runRealSuite } from './sections/real-suite.js';
import { runSchemaCache } from './sections/schema-cache.js';
import { runSettings } from './sections/settings.js';
import { runSharedBuffers } from './sections/shared-buffers.js';
import { runStartup } from './sections/startup.js';
import { runWorkloads } from './sections/workloads.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Transactions per client of each pgbench run (tests per client in section 9) in a quick run: two,
 * so every script also runs after itself (what it leaves must not break its next run).
 */
const QUICK_TRANSACTIONS = 2;

const USAGE = `Usage: npm run bench [-- options]     (npm run bench:quick for the smoke run)
  --quick             one repetition, ${QUICK_TRANSACTIONS} transactions per client per pgbench case, small
                      data, fewer cases (bench/lib/quick.ts): checks that every section and kind of
                      case runs, in under 3 minutes; its figures mean nothing
  --out DIR           results folder (default bench/results/<UTC timestamp>)
  --only LIST         sections to run, comma-separated: ${SECTIONS.join(', ')}
  --reps N            repetitions per variant (default 3; quick 1)
  --seconds N         seconds per pgbench run (default 2; not with --quick)
  --image IMAGE       image for the Docker cases (default pg-tmpfs-test/postgres:15)
  --pg-version MAJOR  native PostgreSQL major (default: newest installed)
  --disk-dir DIR      a folder on disk for the on-disk servers (default /var/tmp)
  --render DIR        only rewrite DIR/table.md and DIR/chart.svg from DIR/results.json`;

/** Parses the command line. @throws Error with the usage on bad input */
export function parseOptions(argv: string[], now: Date): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      reps: { type: 'string' },
      seconds: { type: 'string' },
      image: { type: 'string', default: 'pg-tmpfs-test/postgres:15' },
      'pg-version': { type: 'string' },
      'disk-dir': { type: 'string', default: '/var/tmp' },
      render: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (raw: string | undefined, fallback: number, name: string, max: number) => {
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
      throw new Error(`--${name} must be a whole number from 1 to ${max}\n${USAGE}`);
    return Number(raw);
  };
  const only = (values.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim());
  for (const s of only) {
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section "${s}"\n${USAGE}`);
  }
  const quick = values.quick ?? false;
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  return {
    quick,
    reps: int(values.reps, quick ? 1 : 3, 'reps', 50),
    seconds: int(values.seconds, 2, 'seconds', 600),
    transactions: quick && values.seconds === undefined ? QUICK_TRANSACTIONS : null,
    clients: runClients(quick),
    scale: quick ? 1 : 4,
    sharedBuffers: ['16MB', '32MB', '64MB', '128MB', '256MB', '1GB'],
    only: SECTIONS.filter((s) => only.includes(s)),
    image: values.image ?? 'pg-tmpfs-test/postgres:15',
    pgVersion: values['pg-version'] ? int(values['pg-version'], 0, 'pg-version', 99) : null,
    diskDir: resolve(values['disk-dir'] ?? '/var/tmp'),
    out: resolve(values.out ?? join(ROOT, 'bench', 'results', stamp)),
    render: values.render ? resolve(values.render) : null,
  };
}

const RUNNERS: Record<Section, (ctx: Context) => Promise<void>> = {
  startup: runStartup,
  workloads: runWorkloads,
  shared_buffers: runSharedBuffers,
  client_path: runClientPath,
  settings: runSettings,
  majors: runMajors,
  pg18: runPg18,
  job_shape: runJobShape,
  per_test: runPerTest,
  per_test_real: runPerTestReal,
  schema_cache: runSchemaCache,
  // Section 11's PGlite row after the others: its counts differ, and runRealSuite holds its own runs to one set.
  real_suite: async (ctx) => {
    await runRealSuite(ctx);
    await runPgliteRealSuite(ctx);
  },
};

/**
 * The safety net after every undo action ran: finds what still carries this run's prefix
 * (containers, networks, postgres processes, folders in /dev/shm and the disk folder), removes it, and
 * returns what it found (each is a bug in the cleanup, reported as a problem).
 */
async function sweep(ctx: Context): Promise<string[]> {
  const found: string[] = [];
  // On each engine: the first (DOCKER_HOST as given) and the second (Docker 29) when it answers.
  const second = await engine29();
  const engines: Array<Record<string, string>> = [{}, ...(second ? [{ DOCKER_HOST: second.host }] : [])];
  for (const env of engines) {
    const ps = await run('docker', ['ps', '--all', '--quiet', '--filter', `name=${ctx.prefix}`], {
      timeoutMs: 30_000,
      env,
    }).catch(() => null);
    for (const id of ps?.stdout.split('\n').filter(Boolean) ?? []) {
      found.push(`container ${id}`);
      await run('docker', ['rm', '--force', '--volumes', id], { timeoutMs: 60_000, env }).catch(() => null);
    }
    // The job networks of the tuned services block (bench/lib/tuned-service.ts), labelled with the prefix.
    const nets = await run('docker', ['network', 'ls', '--quiet', '--filter', `label=${ctx.prefix}`], {
      timeoutMs: 30_000,
      env,
    }).catch(() => null);
    for (const id of nets?.stdout.split('\n').filter(Boolean) ?? []) {
      found.push(`network ${id}`);
      await run('docker', ['network', 'rm', id], { timeoutMs: 60_000, env }).catch(() => null);
    }
  }
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith(join(ctx.bindir, 'postgres')) && cmd.includes(ctx.prefix)) {
        found.push(`postgres process ${pid}`);
        process.kill(Number(pid), 'SIGKILL');
      }
    } catch {
      // gone meanwhile
    }
  }
  for (const dir of ['/dev/shm', ctx.options.diskDir]) {
    for (const name of readdirSync(dir).filter((n) => n.startsWith(ctx.prefix))) {
      found.push(`folder ${join(dir, name)}`);
      rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
  return found;
}

/** Writes table.md and chart.svg of a report into `dir`, and prints the table. */
function writeReport(report: Report, dir: string): void {
  const table = markdown(report, SECTIONS);
  writeFileSync(join(dir, 'table.md'), table);
  writeFileSync(join(dir, 'chart.svg'), svg(report));
  process.stdout.write(table);
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const t0 = performance.now();
  const options = parseOptions(process.argv.slice(2), startedAt);
  if (options.render) {
    // Re-renders the table and chart of an earlier run from its results.json; runs nothing.
    writeReport(JSON.parse(readFileSync(join(options.render, 'results.json'), 'utf8')) as Report, options.render);
    return 0;
  }
  const log = (m: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${m}\n`);
  const sampler = new LoadSampler();
  sampler.start();
  const otherWork = new OtherWork();
  checkDefaultsCoverProfile();

  const bins = findBinaries(options.pgVersion);
  const runId = `${startedAt.getTime().toString(36).slice(-5)}${process.pid}`;
  const prefix = `pgtbench-${runId}`;
  const cleanup = new Cleanup();
  const removeSignals = cleanupOnSignals(cleanup, log);
  const ctx: Context = {
    options,
    runId,
    prefix,
    bindir: bins.bindir,
    major: bins.major,
    runAs: runAsUser(),
    diskWork: '',
    shmWork: '',
    diskModel: '',
    cacheDir: '',
    cleanup,
    results: new Results(),
    containerIds: [],
    log,
  };
  const sectionErrors: Array<{ section: Section; error: string }> = [];
  let machine: Report['machine'] | null = null;
  try {
    mkdirSync(options.out, { recursive: true });
    ctx.diskWork = mkdtempSync(join(options.diskDir, `${prefix}-`));
    cleanup.add(`folder ${ctx.diskWork}`, () => rmSync(ctx.diskWork, { recursive: true, force: true }));
    ctx.shmWork = mkdtempSync(join('/dev/shm', `${prefix}-`));
    cleanup.add(`folder ${ctx.shmWork}`, () => rmSync(ctx.shmWork, { recursive: true, force: true }));
    // The postgres user must reach the run folders inside.
    chmodSync(ctx.diskWork, 0o755);
    chmodSync(ctx.shmWork, 0o755);
    if (statfsSync(ctx.diskWork).type === TMPFS_MAGIC)
      throw new Error(`--disk-dir ${options.diskDir} is a tmpfs; give a folder on disk`);
    if (statfsSync(ctx.shmWork).type !== TMPFS_MAGIC) throw new Error('/dev/shm is not a tmpfs');
    ctx.cacheDir = join(ctx.diskWork, 'initdb-cache');

    log(`results: ${options.out}`);
    machine = await describeMachine(ctx.bindir, options.image, options.diskDir);
    log(`machine: ${machine.cpuModel}, ${machine.cpus} cores; ${machine.postgres}; Docker ${machine.docker}`);
    for (const section of options.only) {
      if (interruption()) break;
      log(`== ${section}`);
      try {
        await RUNNERS[section](ctx);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        sectionErrors.push({ section, error: message });
        log(`${section} failed: ${message}`);
      }
    }
  } finally {
    await cleanup.runAll();
    removeSignals();
  }
  const left = ctx.diskWork ? await sweep(ctx) : [];
  const load = sampler.stop();
  const other = otherWork.report(ctx.containerIds);
  const report: Report & { leftovers: string[] } = {
    tool: 'pg-tmpfs-action benchmark',
    startedAt: startedAt.toISOString().replace(/\.\d+Z$/, 'Z'),
    durationSeconds: Math.round((performance.now() - t0) / 1000),
    command: `npm run ${options.quick ? 'bench:quick' : 'bench'}${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    runId,
    options: { ...options },
    machine: machine ?? (await describeMachine(ctx.bindir, options.image, options.diskDir)),
    load: { ...load, otherCpuSeconds: other.total, otherProcesses: other.top },
    cases: ctx.results.all(),
    cleanupProblems: [...cleanup.problems, ...left.map((l) => `left behind: ${l}`)],
    sectionErrors,
    leftovers: left,
  };
  writeFileSync(join(options.out, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeReport(report, options.out);
  log(`wrote ${join(options.out, 'results.json')}, table.md, chart.svg in ${report.durationSeconds} s`);
  const failedCases = report.cases.filter((c) => c.errors.length || !c.summary).length;
  const ok = failedCases === 0 && sectionErrors.length === 0 && report.cleanupProblems.length === 0;
  if (interruption()) {
    log(`interrupted by ${interruption()}: partial results written`);
    return 130;
  }
  if (!ok)
    log(
      `FAILED: ${failedCases} case(s), ${sectionErrors.length} section(s), ${report.cleanupProblems.length} cleanup problem(s)`,
    );
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
