/**
 * Background starts (issue #12), with real processes, Docker and PostgreSQL:
 * - through act, in both modes: the main step with `wait: false`, a step standing for dependency
 *   installation (a fixed sleep), the wait sub-action, then queries; the time the job spent
 *   blocked on PostgreSQL (main step + wait step, as act reports them) is printed, not asserted.
 *   Docker mode pulls the image from a registry on 127.0.0.1 in the background;
 * - the action's processes (dist/main.js, dist/post.js, as the runner starts them): a post step
 *   that comes while the background start runs (a job cancelled before its wait step) waits for
 *   it and removes everything; a background start killed with SIGKILL is removed by the post step;
 *   a start that fails makes the wait step fail with its error, and leaves nothing;
 * - the CLI: `up --no-wait` prints the connection at once, `wait` prints it once it answers;
 *   `down` during the background start stops it; a failed start is reported by `wait`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKGROUND_FLAG } from '../../src/background.js';
import {
  leftoverSnapshot,
  liveProcesses,
  NATIVE_MAJOR,
  requireImages,
  ROOT,
  runAct,
  showLines,
  TEST_IMAGES,
} from '../helpers/infra.js';
import { forgetImage, pushProbeImage, startRegistry, type Registry } from '../helpers/registry.js';
import { runStepProcess } from '../helpers/runner-env.js';

const CLI = join(ROOT, 'dist', 'cli.js');
const MAIN = join(ROOT, 'dist', 'main.js');
const WAIT = join(ROOT, 'dist', 'wait.js');
const POST = join(ROOT, 'dist', 'post.js');
const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-background-'));
const cacheDir = join(work, 'cache');
let registry: Registry;

/** PIDs of live background starts (their command line carries the flag). */
function backgroundProcesses(): string[] {
  return liveProcesses((argv) => argv.includes(BACKGROUND_FLAG)).map((p) => `background ${p.pid}`);
}

/** leftoverSnapshot() plus background processes. */
function snapshot(): { added: () => string[] } {
  const base = leftoverSnapshot();
  const before = new Set(backgroundProcesses());
  return { added: () => [...base.added(), ...backgroundProcesses().filter((p) => !before.has(p))] };
}

beforeAll(async () => {
  requireImages();
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// The action as a runner starts it: one process per step, file commands in files.

/** One step's process in this file's work folder (runner-env.ts runStepProcess). */
const step = (
  script: string,
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  env: Record<string, string> = {},
) => runStepProcess(work, script, inputs, state, env);

async function query(uri: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as Record<string, unknown>;
  } finally {
    await client.end();
  }
}

/** Pushes the 18 test image to the registry under a new tag and removes it locally: the start must pull it. */
function pushed(tag: string): string {
  return pushProbeImage(TEST_IMAGES[18], registry.address, tag);
}

/** A step's duration as act prints it (`[942.3ms]`, `[1.2s]`), in ms; NaN when not found. */
function actStepMs(log: string, title: string): number {
  const m = new RegExp(`Success - Main ${title} \\[([\\d.]+)(ms|s|m\\d+[\\d.]*s)\\]`).exec(log);
  if (!m) return NaN;
  return m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
}

describe('background start through act', () => {
  it.each(['docker', 'native'] as const)(
    '%s mode: wait false, a dependency install, the wait sub-action, then queries; blocked time reported',
    (mode) => {
      const leftovers = snapshot();
      const image = mode === 'docker' ? pushed(`18-bg-act-${Date.now()}`) : '';
      try {
        const r = runAct('.github/workflows/e2e.yml', [
          '-j',
          'background',
          '--var',
          `PG_TMPFS_BG_MODES=["${mode}"]`,
          '--var',
          `PG_TMPFS_BG_IMAGE=${image}`,
          '--var',
          `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`,
        ]);
        showLines(r.log, /e2e-check|Starting PostgreSQL in the background|Waiting for PostgreSQL|ready at|Pulled|Success - Main/);
        expect(r.status, r.log.slice(-6000)).toBe(0);
        expect(r.log).toMatch(new RegExp(`e2e-check background ${mode}: ok`));
        expect(r.log).toMatch(/Starting PostgreSQL in the background \((docker|native) mode, pid \d+\)/);
        if (mode === 'docker') expect(r.log).toMatch(/Pulled .*postgres:18-bg-act-\d+ in \d+ ms/);
        const main = actStepMs(r.log, 'Start PostgreSQL in the background');
        const wait = actStepMs(r.log, 'Wait for PostgreSQL');
        const install = actStepMs(r.log, 'Install dependencies');
        console.log(
          `blocked on PostgreSQL (${mode}, act): main step ${main.toFixed(0)} ms + wait step ${wait.toFixed(0)} ms = ${(main + wait).toFixed(0)} ms; ` +
            `the dependency step took ${install.toFixed(0)} ms meanwhile`,
        );
        expect(Number.isFinite(main) && Number.isFinite(wait)).toBe(true);
      } finally {
        if (image) forgetImage(image);
      }
      expect(leftovers.added()).toEqual([]);
    },
  );
});

describe('background start, the action in processes', () => {
  it.each([
    ['docker', { mode: 'docker' }],
    ['native', { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': cacheDir }],
  ] as const)(
    '%s: a post step during the start (job cancelled before its wait) waits for it, then removes everything',
    async (_mode, inputs) => {
      const leftovers = snapshot();
      const image = _mode === 'docker' ? pushed(`18-bg-cancel-${Date.now()}`) : '';
      try {
        const main = await step(MAIN, {
          ...inputs,
          ...(image ? { image } : {}),
          wait: 'false',
          port: '0',
          password: 'bg secret',
        });
        expect(main.code, main.log).toBe(0);
        expect(main.outputs).toMatchObject({
          host: '127.0.0.1',
          user: 'postgres',
          password: 'bg secret',
          database: 'postgres',
          mode: _mode,
        });
        expect(main.outputs['connection-uri']).toBe(`postgresql://postgres:bg%20secret@127.0.0.1:${main.outputs.port}/postgres`);
        expect(main.env.DATABASE_URL).toBe(main.outputs['connection-uri']);
        expect(main.outputs['server-version']).toBeUndefined();
        expect(main.log).toContain('::add-mask::bg secret');
        const saved = JSON.parse(main.state.background ?? '{}') as { dir: string; pid: number };
        expect(existsSync(join(saved.dir, 'launch.json'))).toBe(true);
        const post = await step(POST, {}, main.state);
        expect(post.code, post.log).toBe(0);
        if (_mode === 'docker') expect(post.log).toMatch(/is still running: waiting for it to end before cleaning up/);
        expect(post.log).toContain("The background start's log (no wait step showed it):");
        expect(post.log).toMatch(/Answered a query after \d+ ms/);
        expect(post.log).toMatch(_mode === 'docker' ? /Removed PostgreSQL container/ : /Stopped PostgreSQL \(pid \d+\)/);
        expect(post.log).not.toContain('::warning::');
        expect(existsSync(saved.dir)).toBe(false);
      } finally {
        if (image) forgetImage(image);
      }
      expect(leftovers.added()).toEqual([]);
    },
  );

  it('docker: a background start killed (SIGKILL) after docker run is removed by the post step', async () => {
    const leftovers = snapshot();
    const main = await step(MAIN, { mode: 'docker', image: TEST_IMAGES[18], wait: 'false', port: '0' });
    expect(main.code, main.log).toBe(0);
    const saved = JSON.parse(main.state.background ?? '{}') as { dir: string; pid: number };
    const handleFile = join(saved.dir, 'handle.json');
    const until = Date.now() + 30_000;
    while (Date.now() < until && !(existsSync(handleFile) && readFileSync(handleFile, 'utf8').includes('"containerId": "')))
      await sleep(2);
    const handle = JSON.parse(readFileSync(handleFile, 'utf8')) as { containerId: string };
    process.kill(saved.pid, 'SIGKILL');
    await sleep(100);
    const post = await step(POST, {}, main.state);
    // No wait step saw it: the job did not get its database, so the post step fails it (#26).
    expect(post.code, post.log).toBe(1);
    expect(post.log).toMatch(
      /::error::.*no wait step read it: The background start of PostgreSQL \(pid \d+\) was killed before it finished/,
    );
    if (handle.containerId) expect(post.log).toMatch(/Removed PostgreSQL container/);
    expect(existsSync(saved.dir)).toBe(false);
    expect(leftovers.added()).toEqual([]);
  });

  it('a start that fails: the wait step fails with its error and log; the post step finds nothing left', async () => {
    const leftovers = snapshot();
    const main = await step(MAIN, { mode: 'docker', image: 'pg-tmpfs-test/no-such-image:1', wait: 'false', port: '0' });
    expect(main.code, main.log).toBe(0);
    const wait = await step(WAIT, {}, {}, { PG_TMPFS_BACKGROUND: main.env.PG_TMPFS_BACKGROUND ?? '' });
    expect(wait.code).toBe(1);
    expect(wait.log).toMatch(/::error::Could not pull image "pg-tmpfs-test\/no-such-image:1"/);
    expect(wait.log).toMatch(/::group::Pulling pg-tmpfs-test\/no-such-image:1/);
    const post = await step(POST, {}, main.state);
    expect(post.code, post.log).toBe(0);
    expect(post.log).toContain('No PostgreSQL server to remove.');
    expect(leftovers.added()).toEqual([]);
  });

  it('native, a failing init (#26): two wait steps give the same error; without a wait step the post step fails the job', async () => {
    const leftovers = snapshot();
    const sql = join(work, 'broken-init.sql');
    writeFileSync(sql, 'create table t (id int);\nselect no_such_function();\n');
    const inputs = {
      mode: 'native',
      'postgres-version': NATIVE_MAJOR,
      'cache-dir': cacheDir,
      wait: 'false',
      port: '0',
      init: sql,
    };
    // An annotation on the failing line of the file (::error title=…,file=…,line=2,…::).
    const initError = /::error [^\n]*line=2[^\n]*::Input 'init': [^\n]*no_such_function\(\) does not exist/;

    const main = await step(MAIN, inputs);
    expect(main.code, main.log).toBe(0);
    for (let n = 0; n < 2; n++) {
      const wait = await step(WAIT, {}, {}, { PG_TMPFS_BACKGROUND: main.env.PG_TMPFS_BACKGROUND ?? '' });
      expect(wait.code, wait.log).toBe(1);
      expect(wait.log).toMatch(initError);
    }
    const post = await step(POST, {}, main.state);
    expect(post.code, post.log).toBe(0);
    expect(post.log).not.toContain('::error::');

    const alone = await step(MAIN, inputs);
    expect(alone.code, alone.log).toBe(0);
    const failing = await step(POST, {}, alone.state);
    expect(failing.code, failing.log).toBe(1);
    expect(failing.log).toContain("The background start's log (no wait step showed it):");
    expect(failing.log).toMatch(
      /::error::The background start of PostgreSQL \(wait: false\) did not give the job its database, and no wait step read it: Input 'init': [^\n]*no_such_function\(\) does not exist[^\n]*\. Add a step `uses: <this action>\/wait@<same ref>` after the main step/,
    );
    expect(leftovers.added()).toEqual([]);
  });

  it('a wait step with nothing started says what to do', async () => {
    const wait = await step(WAIT, {});
    expect(wait.code).toBe(1);
    expect(wait.log).toMatch(
      /::error::There is no background start of PostgreSQL to wait for in this job\. Run the main action with 'wait: false'/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI

let stateCount = 0;
function cli(args: string[], state: string): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PG_TMPFS_STATE_DIR: state, PG_TMPFS_CACHE_DIR: cacheDir },
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
function newState(): string {
  stateCount += 1;
  return join(work, `cli-state-${stateCount}`);
}
function stateFiles(state: string): string[] {
  return existsSync(state) ? readdirSync(state) : [];
}

describe('background start, the CLI', () => {
  it.each([
    ['native', ['--mode', 'native', '--postgres-version', NATIVE_MAJOR]],
    ['docker', ['--mode', 'docker', '--image', TEST_IMAGES[18]]],
  ] as const)(
    '%s: up --no-wait prints the connection at once; wait prints it once it answers; down removes it',
    async (_m, args) => {
      const leftovers = snapshot();
      const state = newState();
      const up = cli(['up', ...args, '--no-wait', '--name', 'bg', '--json'], state);
      expect(up.status, up.stderr).toBe(0);
      const planned = JSON.parse(up.stdout) as { state: string; connectionUri: string; pid: number; log: string };
      expect(planned.state).toBe('starting');
      expect(up.stderr).toContain('Wait for it: pg-tmpfs wait --name bg');
      const wait = cli(['wait', '--name', 'bg', '--json'], state);
      expect(wait.status, wait.stderr).toBe(0);
      const ready = JSON.parse(wait.stdout) as { connectionUri: string; tmpfs: boolean; waitedMs: number; startupMs: number };
      expect(ready.connectionUri).toBe(planned.connectionUri);
      expect(ready.tmpfs).toBe(true);
      expect(wait.stderr).toMatch(/Answered a query after \d+ ms/);
      console.log(
        `CLI ${_m}: up --no-wait, then wait: ready ${ready.startupMs} ms after up began; wait waited ${ready.waitedMs} ms`,
      );
      expect(await query(ready.connectionUri, "select current_setting('fsync') as fsync")).toEqual({ fsync: 'off' });
      const exports = cli(['wait', '--name', 'bg'], state);
      expect(exports.stdout).toContain(`export DATABASE_URL='${planned.connectionUri}'`);
      expect(cli(['down', '--name', 'bg'], state).status).toBe(0);
      expect(stateFiles(state)).toEqual([]);
      expect(leftovers.added()).toEqual([]);
    },
  );

  it.each([
    ['native', ['--mode', 'native', '--postgres-version', NATIVE_MAJOR]],
    ['docker', ['--mode', 'docker', '--image', TEST_IMAGES[18]]],
  ] as const)('%s: down during the background start stops it and leaves nothing', (_m, args) => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(['up', ...args, '--no-wait', '--name', 'bgdown'], state);
    expect(up.status, up.stderr).toBe(0);
    const down = cli(['down', '--name', 'bgdown'], state);
    expect(down.status, `exit ${down.status}: ${down.stderr}`).toBe(0);
    // Either the start was still under way (stopped), or it had just finished (removed).
    expect(down.stderr).toMatch(/Stopped "bgdown"/);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });

  it('a background start that fails: wait prints its log and error and exits 1; nothing is left', () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(
      ['up', '--mode', 'docker', '--image', 'pg-tmpfs-test/no-such-image:1', '--no-wait', '--name', 'bgfail'],
      state,
    );
    expect(up.status, up.stderr).toBe(0);
    const wait = cli(['wait', '--name', 'bgfail'], state);
    expect(wait.status).toBe(1);
    expect(wait.stderr).toMatch(/Pulling pg-tmpfs-test\/no-such-image:1/);
    expect(wait.stderr).toMatch(
      /error: The background start of "bgfail" failed: Could not pull image "pg-tmpfs-test\/no-such-image:1"/,
    );
    // A second waiter gets the same failure, not "no instance" (#26); down forgets it.
    const again = cli(['wait', '--name', 'bgfail'], state);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /error: The background start of "bgfail" failed: Could not pull image "pg-tmpfs-test\/no-such-image:1"/,
    );
    expect(cli(['down', '--name', 'bgfail'], state).status).toBe(0);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });

  it('native: SIGTERM to the background process during its init command; every wait says a signal stopped it (#26)', async () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(
      [
        'up',
        '--mode',
        'native',
        '--postgres-version',
        NATIVE_MAJOR,
        '--init-command',
        'sleep 60',
        '--no-wait',
        '--name',
        'bgterm',
        '--json',
      ],
      state,
    );
    expect(up.status, up.stderr).toBe(0);
    const { pid, log } = JSON.parse(up.stdout) as { pid: number; log: string };
    // The init command runs: the start is under way, its signal handlers set.
    const until = Date.now() + 60_000;
    while (Date.now() < until && !(existsSync(log) && readFileSync(log, 'utf8').includes('Init command: sleep 60')))
      await sleep(20);
    expect(readFileSync(log, 'utf8')).toContain('Init command: sleep 60');
    process.kill(pid, 'SIGTERM');
    for (let n = 0; n < 2; n++) {
      const wait = cli(['wait', '--name', 'bgterm'], state);
      expect(wait.status, wait.stderr).toBe(1);
      expect(wait.stderr).toMatch(
        /^error: The background start of "bgterm" failed: it was stopped by SIGTERM before it finished \(pg-tmpfs down sends SIGTERM; so may a CI job's cancellation\)\. Start it again: pg-tmpfs up --name bgterm --no-wait\. Fix what it names/m,
      );
    }
    expect(JSON.parse(cli(['status'], state).stdout)).toMatchObject([{ name: 'bgterm', state: 'failed', handle: null }]);
    expect(cli(['down', '--name', 'bgterm'], state).status).toBe(0);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});
