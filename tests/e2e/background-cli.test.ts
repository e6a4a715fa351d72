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
 * This file: the CLI; act and the action in processes are in background-action.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { NATIVE_MAJOR, TEST_IMAGES } from '../helpers/infra.js';
import { cacheDir, CLI, query, snapshot, useBackgroundSetup, work } from '../helpers/background.js';

useBackgroundSetup();

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
