/**
 * The CLI side of the interrupt tests (tests/e2e/interrupt-*.test.ts, issue #10): one work folder
 * per test file, its warm initdb cache, state folders, the CLI run in them, the rows' `up`
 * arguments, and cliRow, which signals one `up` at its point and checks that nothing is left.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Instance } from '../../src/cli/instances.js';
import { engine29Host, NATIVE_MAJOR, requireImages, ROOT, TEST_IMAGES } from './infra.js';
import {
  describePoint,
  expectNamedBy,
  finishedFirst,
  runAndKill,
  scrub,
  snapshot,
  timings,
  type Point,
  type Signal,
} from './interrupt.js';

/** The bundled CLI, main step and post step the tests run (build first). */
export const CLI = join(ROOT, 'dist', 'cli.js');
export const MAIN = join(ROOT, 'dist', 'main.js');
export const POST = join(ROOT, 'dist', 'post.js');
/** The Docker image Docker-mode rows start. */
export const IMAGE = TEST_IMAGES[18];

/** This test file's work folder (state folders, caches, jobs); removed in afterAll. */
export const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-interrupt-'));
/** initdb cache filled once in beforeAll: native starts that copy the cluster. */
export const warmCache = join(work, 'cache-warm');

/** The environment without anything a runner or an earlier step might have set for the action. */
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$)/.test(k)),
);

/** The second engine's DOCKER_HOST (null off CI when it does not answer; under CI=true it must). */
export const ENGINE29 = engine29Host();

// ---------------------------------------------------------------------------------------------
// CLI

let stateCount = 0;

/** A fresh state folder (not made yet: `up` makes it 0700). */
export function newStateDir(): string {
  stateCount += 1;
  return join(work, `state-${stateCount}`);
}

/** baseEnv with the engine DOCKER_HOST names now (a block may switch it). */
export function engineEnv(): NodeJS.ProcessEnv {
  const docker = process.env.DOCKER_HOST;
  return { ...baseEnv, ...(docker ? { DOCKER_HOST: docker } : {}) };
}

/** The CLI's environment: engineEnv and the state folder. */
export function cliEnv(stateDir: string): NodeJS.ProcessEnv {
  return { ...engineEnv(), PG_TMPFS_STATE_DIR: stateDir };
}

/** Runs the CLI (120 s deadline) with this state folder. */
export function cli(args: string[], stateDir: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(stateDir), encoding: 'utf8', timeout: 120_000 });
}

/** Files in a state folder (records and their temporary files); [] when it does not exist. */
export function stateFiles(stateDir: string): string[] {
  return existsSync(stateDir) ? readdirSync(stateDir) : [];
}

/** The instance's record in the state folder, or null when it is missing or unreadable. */
export function readRecord(stateDir: string, name: string): Instance | null {
  try {
    return JSON.parse(readFileSync(join(stateDir, `${name}.json`), 'utf8')) as Instance;
  } catch {
    return null;
  }
}

/** A row of `status` (JSON). */
export interface StatusRow {
  name: string;
  state: string;
  alive: boolean;
  server?: { pid?: number } | null;
}

/** `status` in this state folder, parsed; it must exit 0. */
export function status(stateDir: string): StatusRow[] {
  const r = cli(['status'], stateDir);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusRow[];
}

/** Removes whatever a failed test left under this state folder (no assertions). */
export function downQuietly(stateDir: string): void {
  for (const f of stateFiles(stateDir).filter((n) => n.endsWith('.json'))) cli(['down', '--name', f.slice(0, -5)], stateDir);
}

/** What a CLI row does: interrupt `up` with a signal, or kill it and clean up with `down` or `up` then `down`. */
export type Variant = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGKILL, then down' | 'SIGKILL, then up and down';

/** One CLI row: the `up` arguments, when and how it is signalled. */
export interface CliRow {
  label: string;
  /** Arguments of `up` besides --name (called once per row: a fresh cache folder for cold rows). */
  args: () => string[];
  point: Point;
  variant: Variant;
}

/** `up` arguments: Docker mode; native with the warm cache, a fresh cache, or its own tmpfs mount. */
export const dockerArgs = ['--image', IMAGE];
export const nativeWarm = () => ['--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', warmCache];
/** A fresh initdb cache per row: initdb runs. */
export const nativeCold = () => [
  '--mode',
  'native',
  '--postgres-version',
  NATIVE_MAJOR,
  '--cache-dir',
  mkdtempSync(join(work, 'cache-')),
];
export const nativeMount = () => [...nativeWarm(), '--tmpfs-size', '64m'];

/** Variants: all four, the two interrupts, the two kills. */
export const ALL: Variant[] = ['SIGTERM', 'SIGINT', 'SIGKILL, then down', 'SIGKILL, then up and down'];
export const INTERRUPTS: Variant[] = ['SIGTERM', 'SIGINT'];
export const KILLS: Variant[] = ['SIGKILL, then down', 'SIGKILL, then up and down'];

/** One row per point and variant. */
export function rows(label: string, args: () => string[], points: Point[], variants: Variant[]): CliRow[] {
  return points.flatMap((point) =>
    variants.map((variant) => ({ label: `${label}: ${variant} ${describePoint(point)}`, args, point, variant })),
  );
}

/** Instance names are `<namePrefix><n>`: a prefix per test file keeps files apart. */
let namePrefix = 'itr';

/**
 * Registers the file's hooks: beforeAll checks the test images and, with `warm`, fills the warm
 * initdb cache once; afterAll logs the timings, runs `down` in every state folder and removes the
 * work folder. `names` is the prefix of the file's instance names.
 */
export function useInterruptSetup(opts: { warm: boolean; names: string }): void {
  namePrefix = opts.names;
  beforeAll(() => {
    requireImages();
    if (!opts.warm) return;
    // Fill the warm cache once.
    const state = newStateDir();
    const up = cli(['up', ...nativeWarm(), '--name', 'warm'], state);
    expect(up.status, up.stderr).toBe(0);
    expect(cli(['down', '--name', 'warm'], state).status).toBe(0);
  });
  afterAll(() => {
    console.log(`Signal sent / process exited (ms after spawn):\n  ${timings.join('\n  ')}`);
    if (finishedFirst.length) console.log(`Finished before the signal (then removed):\n  ${finishedFirst.join('\n  ')}`);
    for (let i = 1; i <= stateCount; i++) downQuietly(join(work, `state-${i}`));
    rmSync(work, { recursive: true, force: true });
  });
}

let instanceCount = 0;

/** One CliRow: `up` signalled at its point; nothing left, or only what its record names and `down` removes. */
export async function cliRow(row: CliRow): Promise<void> {
  instanceCount += 1;
  const name = `${namePrefix}${instanceCount}`;
  const state = newStateDir();
  const args = ['up', ...row.args(), '--name', name, '--json'];
  const signal: Signal = row.variant.startsWith('SIGKILL') ? 'SIGKILL' : (row.variant as Signal);
  const leftovers = snapshot();
  try {
    const exit = await runAndKill(CLI, args, cliEnv(state), row.point, signal, () => readRecord(state, name)?.handle ?? null);
    const timing = `killed at ${exit.killedAt} ms, exited at ${exit.ms} ms`;
    timings.push(`${row.label}: ${exit.killedAt} / ${exit.ms}, exit ${exit.code}`);
    if (exit.code === 0) {
      // The start finished before the signal: the server runs; down removes it.
      finishedFirst.push(`${row.label} (${timing})`);
      const down = cli(['down', '--name', name], state);
      expect(down.status, down.stderr).toBe(0);
      expect(leftovers.added()).toEqual([]);
      expect(stateFiles(state)).toEqual([]);
      return;
    }
    expect(exit.code, `${timing}\n${exit.stderr}`).toBe(128 + constants.signals[signal]);
    if (signal !== 'SIGKILL') {
      // Interrupted: it removed what it made, and its record, before exiting.
      if (!exit.bySignal) expect(exit.stderr).toContain(`Interrupted by ${signal}: removing what was started`);
      expect(leftovers.added(), `${timing}\n${exit.stderr}`).toEqual([]);
      expect(stateFiles(state)).toEqual([]);
      return;
    }
    // Killed: something may be left; its record names it.
    const record = readRecord(state, name);
    const left = leftovers.added();
    if (record?.state === 'running') {
      // Killed after the start finished, while `up` printed its output: the server runs under a
      // record that says so, and `down` removes it.
      finishedFirst.push(`${row.label} (${timing}; killed after the record said running)`);
      expect(status(state).find((s) => s.name === name)?.state).toBe('running');
      const down = cli(['down', '--name', name], state);
      expect(down.status, down.stderr).toBe(0);
      expect(leftovers.added(), `${timing}; left after the kill: ${left.join(', ')}`).toEqual([]);
      expect(stateFiles(state)).toEqual([]);
      return;
    }
    if (record) expect(record.state).toBe('starting');
    expectNamedBy(left, record?.handle);
    if (record) {
      const listed = status(state).find((s) => s.name === name);
      // Its `up` is gone: the record says so, whether or not the server still runs.
      expect(listed?.state, JSON.stringify(listed)).toBe('abandoned');
    }
    if (row.variant === 'SIGKILL, then up and down') {
      const again = cli(args, state);
      expect(again.status, again.stderr).toBe(0);
      if (record) expect(again.stderr).toContain(`Instance "${name}" was left behind (its start was killed): removing it`);
    }
    const down = cli(['down', '--name', name], state);
    expect(down.status, down.stderr).toBe(0);
    expect(leftovers.added(), `${timing}; left after the kill: ${left.join(', ')}`).toEqual([]);
    expect(stateFiles(state)).toEqual([]);
  } finally {
    downQuietly(state);
    await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
  }
}

/**
 * Spawns `up` with a fresh initdb cache and sends `signal` as soon as initdb's postgres holds a
 * System V segment (a new segment whose creator works in this instance's run folder).
 * @returns the exit code and stderr of `up`, and whether the signal was sent
 */
export async function signalWhileInitdbHoldsMemory(
  name: string,
  state: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stderr: string; sent: boolean }> {
  const known = new Set(readFileSync('/proc/sysvipc/shm', 'utf8').split('\n'));
  const initdbSegment = (): boolean =>
    readFileSync('/proc/sysvipc/shm', 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !known.has(l))
      .some((l) => {
        try {
          return readlinkSync(`/proc/${l.trim().split(/\s+/)[4]}/cwd`).includes(`pg-tmpfs-cli-${name}-`);
        } catch {
          return false;
        }
      });
  const child = spawn(process.execPath, [CLI, 'up', ...nativeCold(), '--name', name], {
    env: cliEnv(state),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let sent = false;
  const poll = setInterval(() => {
    if (!sent && initdbSegment()) {
      sent = true;
      clearInterval(poll);
      child.kill(signal);
    }
  }, 2);
  const code = await new Promise<number | null>((resolve) =>
    child.on('close', (c, sig) => resolve(c ?? (sig ? 128 + constants.signals[sig] : null))),
  );
  clearInterval(poll);
  return { code, stderr, sent };
}

/** Starts a native instance, kills its postmaster with SIGKILL, and checks that status shows it dead. */
export async function killPostmaster(state: string, name: string): Promise<number> {
  const up = cli(['up', ...nativeWarm(), '--name', name, '--json'], state);
  expect(up.status, up.stderr).toBe(0);
  const server = readRecord(state, name)?.server;
  const pid = server?.mode === 'native' ? server.pid : 0;
  expect(pid).toBeGreaterThan(0);
  const before = status(state).find((s) => s.name === name);
  expect(before).toMatchObject({ state: 'running', alive: true, server: { pid } });
  process.kill(pid, 'SIGKILL');
  let now = before;
  for (let i = 0; i < 100 && now?.alive; i++) {
    await sleep(50);
    now = status(state).find((s) => s.name === name);
  }
  expect(now).toMatchObject({ state: 'dead', alive: false });
  return pid;
}
