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
 * This file: through act and the action in processes; the CLI is in background-cli.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { NATIVE_MAJOR, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';
import { forgetImage } from '../helpers/registry.js';
import {
  actStepMs,
  cacheDir,
  MAIN,
  POST,
  WAIT,
  pushed,
  snapshot,
  step,
  useBackgroundSetup,
  work,
} from '../helpers/background.js';

useBackgroundSetup();

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
