/**
 * The Windows path, run: the unmodified dist/ under Wine 8.0 with Windows Node 22 and the
 * windows-x64 PostgreSQL build (scripts/setup-wine.sh). Installed binaries (PGBIN, as GitHub's
 * Windows images set it): the CLI `up` → a query over TCP with the password → `status` → `down`,
 * the initdb cache's hit, the schema cache's miss then hit, the pool, the action's main → post and main
 * (wait: false) → wait → post steps, and a kill of `up` at a random moment that `down` cleans up.
 * The npm build: `up --binaries npm` fetches, checks and keeps the published windows-x64 tarball
 * from a local registry; its start then fails under Wine only (Wine 8.0's ntdll lacks
 * NtFlushBuffersFileEx, which the installed copy has patched). Every row ends with nothing of the
 * run left: no postgres.exe, pg_ctl.exe or node.exe in the prefix, no run folder.
 * Wine's own gaps are worked around in the test setup only (tests/helpers/wine.ts).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFileCommand } from '../helpers/runner-env.js';
import { npmClient, requireNpmPackages, startNpmRegistry, type NpmRegistry } from '../helpers/npm-packages.js';
import {
  copyDist,
  driveFolder,
  runWindows,
  startWindows,
  unixPath,
  WIN_KEEPALIVE,
  WIN_MAJOR,
  WIN_NODE,
  WIN_PGBIN,
  windowsProcesses,
  winPath,
  requireWine,
} from '../helpers/wine.js';

const ready = requireWine();
let dist = '';
let work = '';
/** The CLI's environment: its records and initdb cache in the work folder, PGBIN as on GitHub's images. */
let cliEnv: Record<string, string> = {};
/** Windows' temporary folder in the prefix (TEMP): where the CLI's run folders go. */
const TEMP = 'C:\\users\\root\\Temp';

beforeAll(() => {
  if (!ready) return;
  dist = copyDist();
  work = driveFolder('work-');
  cliEnv = {
    PG_TMPFS_STATE_DIR: `${winPath(work)}\\state`,
    PG_TMPFS_CACHE_DIR: `${winPath(work)}\\cache`,
    PGBIN: WIN_PGBIN,
  };
});
afterAll(async () => {
  if (!ready) return;
  await runWindows(WIN_NODE, [`${dist}\\cli.js`, 'down'], cliEnv).catch(() => undefined);
  rmSync(unixPath(dist).replace(/[\\/]dist$/, ''), { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** `pg-tmpfs ARGS` under Wine with the CLI's environment (and `env` over it). */
function cli(args: string[], env: Record<string, string> = {}) {
  return runWindows(WIN_NODE, [`${dist}\\cli.js`, ...args], { ...cliEnv, ...env });
}

/** `up --json` on the installed PostgreSQL (C locale hits a Wine collation bug: en-US). */
async function up(args: string[] = [], env: Record<string, string> = {}) {
  const r = await cli(['up', '--postgres-version', String(WIN_MAJOR), '--locale', 'en-US', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return { ...(JSON.parse(r.stdout) as Record<string, unknown>), log: r.stderr } as {
    connectionUri: string;
    dataDirectory: string;
    binariesSource: string;
    serverVersion: string;
    cacheHit: boolean;
    schemaCacheHit?: boolean;
    settings: Array<{ name: string; actual: string; ok: boolean }>;
    log: string;
  };
}

/** One row of `sql` over TCP from Linux, as a client of the Windows server. */
async function queryRow<T extends Record<string, unknown>>(uri: string, sql: string): Promise<T | undefined> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows[0];
  } finally {
    await client.end();
  }
}

/** The CLI's run folders left in TEMP. */
function runFolders(): string[] {
  return readdirSync(unixPath(TEMP)).filter((n) => n.startsWith('pg-tmpfs-'));
}

/** What ran and lay in TEMP before the test: leftover checks are diffs against it. */
let before = { processes: [] as string[], folders: [] as string[] };
beforeEach(() => {
  if (ready) before = { processes: windowsProcesses(), folders: runFolders() };
});

/** Nothing of a run is left: no Windows program of it runs, no run folder (beyond what was there before the test). */
function expectNothingLeft(): void {
  expect(windowsProcesses().filter((p) => !before.processes.includes(p))).toEqual([]);
  expect(runFolders().filter((f) => !before.folders.includes(f))).toEqual([]);
}

describe.skipIf(!ready)('Windows under Wine: native mode on installed binaries (PGBIN)', () => {
  it('CLI: up, a query over TCP with the password, status, down; a second up is an initdb cache hit', async () => {
    const first = await up(['--password', "it's a secret", '--database', 'app db']);
    expect(first.binariesSource).toBe(`installed ${WIN_PGBIN} (PGBIN)`);
    expect(first.cacheHit).toBe(false);
    expect(first.settings.filter((s) => !s.ok)).toEqual([]);
    const row = await queryRow<{ v: string; fsync: string; u: string; d: string; sockets: string }>(
      first.connectionUri,
      "select version() v, current_setting('fsync') fsync, current_user u, current_database() d, current_setting('unix_socket_directories') sockets",
    );
    expect(row).toEqual({
      v: expect.stringContaining('x86_64-windows') as string,
      fsync: 'off',
      u: 'postgres',
      d: 'app db',
      sockets: '',
    });
    // The password is the run's own; the bootstrap password is gone from the data directory.
    await expect(queryRow(first.connectionUri.replace(/:[^:@]+@/, ':wrong@'), 'select 1')).rejects.toThrow(
      /password authentication failed/,
    );
    expect(readdirSync(unixPath(first.dataDirectory))).not.toContain('pg_tmpfs.bootstrap');
    const status = await cli(['status']);
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ name: 'default', state: 'running', alive: true })]);
    const down = await cli(['down']);
    expect([down.code, down.stderr]).toEqual([0, 'Stopped "default".\n']);
    expectNothingLeft();

    // TZ becomes the server's time zone (postgres -C checks it: allowed to an administrator when first).
    const second = await up([], { TZ: 'Europe/Paris' });
    expect(second.cacheHit).toBe(true);
    expect(await queryRow(second.connectionUri, "select current_setting('TimeZone') tz")).toEqual({ tz: 'Europe/Paris' });
    expect((await cli(['down'])).code).toBe(0);
    expectNothingLeft();
  });

  it('schema cache: the first up runs init and saves, the second restores it', async () => {
    const sql = join(work, 'schema.sql');
    writeFileSync(sql, "CREATE TABLE t (id int PRIMARY KEY, v text);\nINSERT INTO t VALUES (1, 'a');\n");
    const args = ['--database', 'app', '--init', winPath(sql), '--schema-cache', '--password', 'pw'];
    const miss = await up(args);
    expect(miss.schemaCacheHit).toBe(false);
    expect(miss.log).toMatch(/schema cache saved: pg-tmpfs-schema-1-native-[0-9a-f]{32}/);
    expect((await cli(['down'])).code).toBe(0);
    const hit = await up(args);
    expect(hit.schemaCacheHit).toBe(true);
    expect(hit.log).not.toContain('Init SQL');
    expect(await queryRow(hit.connectionUri, 'select v from t where id = 1')).toEqual({ v: 'a' });
    expect((await cli(['down'])).code).toBe(0);
    expectNothingLeft();
  });

  it('pool: db take hands out a ready copy of the template; down ends the keeper', async () => {
    const sql = join(work, 'pool.sql');
    writeFileSync(sql, 'CREATE TABLE t (id int PRIMARY KEY);\n');
    const server = await up(['--database', 'app', '--init', winPath(sql), '--template', '--pool', '2', '--password', 'pw']);
    expect(server.log).toMatch(/Pool: the keeper \(PID \d+\) keeps 2 copies of app/);
    const take = await cli(['db', 'take']);
    expect(take.code, take.stderr).toBe(0);
    const copy = take.stdout.trim();
    expect(copy).toMatch(/^postgresql:\/\/postgres:pw@127\.0\.0\.1:\d+\/app_pool_[0-9a-f]+$/);
    expect(await queryRow(copy, "select to_regclass('t')::text as t")).toEqual({ t: 't' });
    expect((await cli(['down'])).code).toBe(0);
    expectNothingLeft();
  });

  for (const cache of ['cold', 'warm'] as const) {
    it(`a kill of up at a random moment (${cache} initdb cache) leaves nothing that down does not remove`, async () => {
      // From the moment the run folder exists (before it, only Node starting and `--version`
      // probes: a parent killed while Wine creates a process can leave the child stuck in Wine's
      // own startup, which Windows does not do) to a moment before the answer. A cold cache puts
      // initdb in that window; a warm one (the earlier rows filled it) the copy, pg_ctl start, the
      // first connection and verification.
      const env = cache === 'cold' ? { ...cliEnv, PG_TMPFS_CACHE_DIR: `${winPath(work)}\\cache-${Date.now()}` } : cliEnv;
      const delayMs = Math.floor(Math.random() * 3000);
      const args = [`${dist}\\cli.js`, 'up', '--postgres-version', String(WIN_MAJOR), '--locale', 'en-US'];
      const started = startWindows(WIN_NODE, args, env, 180_000);
      const deadline = Date.now() + 60_000;
      while (runFolders().every((f) => before.folders.includes(f)) && Date.now() < deadline) await sleep(20);
      await sleep(delayMs);
      process.kill(started.pid, 'SIGKILL');
      const killed = await started.done;
      const down = await cli(['down'], env);
      expect(down.code, `killed ${delayMs} ms after the run folder appeared (exit ${killed.code}); down: ${down.stderr}`).toBe(0);
      expectNothingLeft();
    });
  }
});

describe.skipIf(!ready)('Windows under Wine: the action steps on installed binaries (PGBIN)', () => {
  /**
   * One step (`main`, `wait` or `post`) as the runner runs it: INPUT_*, STATE_*, the file commands,
   * and `jobEnv` (what earlier steps wrote to GITHUB_ENV).
   */
  async function step(
    entry: 'main' | 'wait' | 'post',
    inputs: Record<string, string>,
    state: Record<string, string>,
    runner: string,
    jobEnv: Record<string, string> = {},
  ) {
    const files = { GITHUB_OUTPUT: 'output', GITHUB_STATE: 'state', GITHUB_ENV: 'env', GITHUB_STEP_SUMMARY: 'summary.md' };
    for (const name of Object.values(files)) writeFileSync(join(runner, name), '');
    const env: Record<string, string> = {
      ...jobEnv,
      GITHUB_ACTIONS: 'true',
      RUNNER_TEMP: `${winPath(runner)}\\temp`,
      PGBIN: WIN_PGBIN,
    };
    for (const [variable, name] of Object.entries(files)) env[variable] = `${winPath(runner)}\\${name}`;
    for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value;
    for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = value;
    const r = await runWindows(WIN_NODE, [`${dist}\\${entry}.js`], env);
    const read = (name: string) => parseFileCommand(readFileSync(join(runner, name), 'utf8').replace(/\r\n/g, '\n'));
    return { ...r, outputs: read('output'), state: read('state'), env: read('env') };
  }
  const inputs = { 'postgres-version': String(WIN_MAJOR), locale: 'en-US', password: 'step-secret', 'cache-dir': '' };

  for (const wait of ['true', 'false']) {
    it(`main (wait: ${wait})${wait === 'false' ? ', wait' : ''} and post: outputs, a query, nothing left in RUNNER_TEMP`, async () => {
      const runner = driveFolder('runner-');
      mkdirSync(join(runner, 'temp'));
      try {
        const main = await step('main', { ...inputs, 'cache-dir': `${winPath(work)}\\cache`, wait }, {}, runner);
        expect(main.code, main.stdout).toBe(0);
        let outputs = main.outputs;
        if (wait === 'false') {
          const waited = await step('wait', {}, main.state, runner, main.env);
          expect(waited.code, waited.stdout).toBe(0);
          outputs = waited.outputs;
        }
        expect(outputs).toMatchObject({ mode: 'native', 'binaries-source': `installed ${WIN_PGBIN} (PGBIN)`, tmpfs: 'false' });
        expect(main.env.DATABASE_URL).toBe(outputs['connection-uri']);
        expect(await queryRow(outputs['connection-uri'] ?? '', "select current_setting('fsync') fsync")).toEqual({
          fsync: 'off',
        });
        const post = await step('post', {}, main.state, runner, main.env);
        expect(post.code, post.stdout).toBe(0);
        expect(post.stdout).toMatch(/Stopped PostgreSQL \(pid \d+\) and removed/);
        expect(windowsProcesses().filter((p) => !before.processes.includes(p))).toEqual([]);
        expect(readdirSync(join(runner, 'temp'))).toEqual([]);
      } finally {
        rmSync(runner, { recursive: true, force: true });
      }
    });
  }
});

describe.skipIf(!ready)('Windows under Wine: the windows-x64 build from npm', () => {
  let registry: NpmRegistry | null = null;
  let windowsBuild: { name: string; version: string } | undefined;
  beforeAll(async () => {
    const packages = await requireNpmPackages();
    windowsBuild = packages?.find((p) => p.platform === 'windows-x64');
    if (windowsBuild && packages)
      registry = await startNpmRegistry({
        tarballs: packages.filter((p) => p === windowsBuild).map((p) => (p as { file: string }).file),
      });
  });
  afterAll(async () => {
    await registry?.close();
  });

  it('up --binaries npm fetches, checks and keeps the build; a second up uses the kept one', async (ctx) => {
    if (!registry || !windowsBuild) return ctx.skip();
    const folder = driveFolder('npm-');
    const client = npmClient(registry, { parent: folder });
    try {
      const env = {
        ...Object.fromEntries(
          Object.entries(client.env).map(([k, v]) => [
            k,
            k === 'npm_config_cache' || k === 'npm_config_userconfig' ? winPath(v) : v,
          ]),
        ),
        // Wine 8.0 has no TCP keepalive, which npm sets (test setup only: tests/fixtures/wine/keepalive.cjs).
        NODE_OPTIONS: `--require ${WIN_KEEPALIVE}`,
        PG_TMPFS_CACHE_DIR: `${winPath(folder)}\\cache`,
      };
      const args = ['up', '--binaries', 'npm', '--postgres-version', String(WIN_MAJOR), '--locale', 'en-US'];
      const kept = `${unixPath(env.PG_TMPFS_CACHE_DIR)}/npm-windows-x64-${windowsBuild.version}`;
      for (const attempt of [1, 2]) {
        const r = await cli(args, env);
        // The published build's programs look up NtFlushBuffersFileEx, which Wine 8.0 lacks: initdb fails here, not on Windows.
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/initdb failed: .*(postgres.*needed by initdb|win32 error code: 127)/s);
        if (attempt === 1)
          expect(r.stderr).toMatch(
            new RegExp(`Fetched ${windowsBuild.name} ${windowsBuild.version.replace(/\./g, '\\.')} with npm and kept it`),
          );
        else expect(r.stderr).not.toMatch(/Fetched /);
        expect(readdirSync(kept)).toEqual(expect.arrayContaining(['bin', 'lib', 'share']));
        const sealed = Object.keys((JSON.parse(readFileSync(`${kept}.manifest.json`, 'utf8')) as { files: object }).files);
        expect(sealed.filter((f) => /^bin[\\/](postgres|initdb|pg_ctl)\.exe$/.test(f)).length).toBe(3);
        expect(registry.tarballRequests(windowsBuild.name, windowsBuild.version)).toBe(1);
        expectNothingLeft();
      }
    } finally {
      client.cleanup();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
