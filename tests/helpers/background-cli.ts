/**
 * The CLI's background starts (`up --no-wait`, `wait`, `down`; issue #12) for
 * tests/e2e/background-cli-{docker,native}.test.ts: the CLI with a state folder of its own per
 * test, and the tests both modes run, each registered by the file of its mode.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { NATIVE_MAJOR, TEST_IMAGES } from './infra.js';
import { cacheDir, CLI, query, snapshot, work, type BackgroundMode } from './background.js';

/** Runs the CLI with `state` as its state folder and the file's initdb cache (120 s deadline). */
export function cli(args: string[], state: string): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PG_TMPFS_STATE_DIR: state, PG_TMPFS_CACHE_DIR: cacheDir },
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

let stateCount = 0;
/** A new state folder in the file's work folder (made by the CLI). */
export function newState(): string {
  stateCount += 1;
  return join(work, `cli-state-${stateCount}`);
}

/** The files in a state folder ([] when it does not exist). */
export function stateFiles(state: string): string[] {
  return existsSync(state) ? readdirSync(state) : [];
}

/** `up`'s arguments for `mode`: the installed major, or the 18 test image. */
function modeArgs(mode: BackgroundMode): string[] {
  return mode === 'native'
    ? ['--mode', 'native', '--postgres-version', NATIVE_MAJOR]
    : ['--mode', 'docker', '--image', TEST_IMAGES[18]];
}

/** Registers the test of `mode`: up --no-wait prints the connection at once; wait prints it once it answers; down removes it. */
export function noWaitTest(mode: BackgroundMode): void {
  it(`${mode}: up --no-wait prints the connection at once; wait prints it once it answers; down removes it`, async () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(['up', ...modeArgs(mode), '--no-wait', '--name', 'bg', '--json'], state);
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
      `CLI ${mode}: up --no-wait, then wait: ready ${ready.startupMs} ms after up began; wait waited ${ready.waitedMs} ms`,
    );
    expect(await query(ready.connectionUri, "select current_setting('fsync') as fsync")).toEqual({ fsync: 'off' });
    const exports = cli(['wait', '--name', 'bg'], state);
    expect(exports.stdout).toContain(`export DATABASE_URL='${planned.connectionUri}'`);
    expect(cli(['down', '--name', 'bg'], state).status).toBe(0);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
}

/** Registers the test of `mode`: down during the background start stops it and leaves nothing. */
export function downDuringStartTest(mode: BackgroundMode): void {
  it(`${mode}: down during the background start stops it and leaves nothing`, () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(['up', ...modeArgs(mode), '--no-wait', '--name', 'bgdown'], state);
    expect(up.status, up.stderr).toBe(0);
    const down = cli(['down', '--name', 'bgdown'], state);
    expect(down.status, `exit ${down.status}: ${down.stderr}`).toBe(0);
    // Either the start was still under way (stopped), or it had just finished (removed).
    expect(down.stderr).toMatch(/Stopped "bgdown"/);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
}
