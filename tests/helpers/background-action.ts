/**
 * The background-start tests of the action that both modes run, each registered by the file of
 * its mode (tests/e2e/background-action-{docker,native}.test.ts, issue #12): e2e.yml's background
 * job through act, and a post step that comes while the background start runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { NATIVE_MAJOR, runAct, showLines } from './infra.js';
import { forgetImage } from './registry.js';
import { actStepMs, cacheDir, MAIN, POST, pushed, snapshot, step, type BackgroundMode } from './background.js';

/**
 * Registers the act test of `mode`: the main step with `wait: false`, a step standing for
 * dependency installation (a fixed sleep), the wait sub-action, then queries; the time the job
 * spent blocked on PostgreSQL (main step + wait step, as act reports them) is printed, not
 * asserted. Docker mode pulls the image from the file's registry in the background.
 */
export function actTest(mode: BackgroundMode): void {
  it(`${mode} mode: wait false, a dependency install, the wait sub-action, then queries; blocked time reported`, () => {
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
  });
}

/**
 * Registers the test of `mode` in which a post step comes while the background start runs (a job
 * cancelled before its wait step): it waits for the start, then removes everything. Docker mode
 * pulls the image from the file's registry; native mode uses the file's initdb cache.
 */
export function cancelTest(mode: BackgroundMode): void {
  const inputs: Record<string, string> =
    mode === 'docker' ? { mode: 'docker' } : { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': cacheDir };
  it(`${mode}: a post step during the start (job cancelled before its wait) waits for it, then removes everything`, async () => {
    const leftovers = snapshot();
    const image = mode === 'docker' ? pushed(`18-bg-cancel-${Date.now()}`) : '';
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
        mode,
      });
      expect(main.outputs['connection-uri']).toBe(`postgresql://postgres:bg%20secret@127.0.0.1:${main.outputs.port}/postgres`);
      expect(main.env.DATABASE_URL).toBe(main.outputs['connection-uri']);
      expect(main.outputs['server-version']).toBeUndefined();
      expect(main.log).toContain('::add-mask::bg secret');
      const saved = JSON.parse(main.state.background ?? '{}') as { dir: string; pid: number };
      expect(existsSync(join(saved.dir, 'launch.json'))).toBe(true);
      const post = await step(POST, {}, main.state);
      expect(post.code, post.log).toBe(0);
      if (mode === 'docker') expect(post.log).toMatch(/is still running: waiting for it to end before cleaning up/);
      expect(post.log).toContain("The background start's log (no wait step showed it):");
      expect(post.log).toMatch(/Answered a query after \d+ ms/);
      expect(post.log).toMatch(mode === 'docker' ? /Removed PostgreSQL container/ : /Stopped PostgreSQL \(pid \d+\)/);
      expect(post.log).not.toContain('::warning::');
      expect(existsSync(saved.dir)).toBe(false);
    } finally {
      if (image) forgetImage(image);
    }
    expect(leftovers.added()).toEqual([]);
  });
}
