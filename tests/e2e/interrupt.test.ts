/**
 * A start that is cancelled or killed at any point leaves nothing that the next `down`, `up` or
 * post step cannot find and remove (issue #10). Real processes, real signals:
 *
 * - CLI `up` in both modes, interrupted (SIGTERM, SIGINT, SIGHUP) at points before, during and
 *   after the server starts: it exits 128 + the signal's number and leaves nothing, not even its
 *   record. Killed (SIGKILL) at the same points: whatever is left is named by its record, and
 *   `down` (or `up` with the same name, then `down`) removes it.
 * - The action's main step (dist/main.js) interrupted with SIGINT (what GitHub's runner sends on
 *   cancel) or killed: the post step (dist/post.js), given the last handle saved in GITHUB_STATE,
 *   leaves nothing.
 * - A postmaster killed under a running instance: `status` says dead, `up` with the same name
 *   cleans it up and starts anew.
 * - Two `up` with one name at once: one wins, the other names `--name`.
 * - A state folder that cannot hold records: `up` fails before anything starts.
 *
 * Kill points are a delay after spawn, a line in the log (plus a delay), or the moment the
 * recorded postmaster has written postmaster.pid. Measured on a 2-core machine: node is ready
 * after ~0.15-0.2 s; Docker: `docker run` from ~0.23 s to ~0.9 s, first answer ~1.2-2 s; native
 * with a warm initdb cache: "initdb cache hit" at ~0.18-0.3 s, postgres spawned ~0.02-0.09 s
 * later (the cluster copy is synchronous), first answer ~0.3-0.5 s; native with a fresh cache:
 * initdb from ~0.26 s, its bootstrap and single-user postgres until ~0.6-0.9 s, then a
 * synchronous copy into the cache until ~1.2-2.5 s.
 *
 * Three gaps found while writing these tests are pinned by deterministic tests below (GAP A, B, C,
 * each fixed: a postgres interrupted before it wrote postmaster.pid is still stopped; programs get
 * SIGTERM before SIGKILL, so initdb's postgres frees its shared memory; the SysV segment of a
 * postmaster killed with SIGKILL is removed, and native mode keeps its dynamic shared memory in
 * PGDATA); the timing rows that hit gaps A and B only sometimes are in GAP_ROWS.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Instance } from '../../src/cli/instances.js';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';
import type { ServerHandle } from '../../src/server.js';
import {
  engine29Host,
  useDockerHost,
  leftoverSnapshot,
  liveProcesses,
  NATIVE_MAJOR,
  requireImages,
  ROOT,
  TEST_IMAGES,
  dockerVolumeNames,
} from '../helpers/infra.js';
import { jobFiles, parseFileCommand } from '../helpers/runner-env.js';

const CLI = join(ROOT, 'dist', 'cli.js');
const MAIN = join(ROOT, 'dist', 'main.js');
const POST = join(ROOT, 'dist', 'post.js');
const IMAGE = TEST_IMAGES[18];

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-interrupt-'));
/** initdb cache filled once in beforeAll: native starts that copy the cluster. */
const warmCache = join(work, 'cache-warm');

/** The environment without anything a runner or an earlier step might have set for the action. */
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$)/.test(k)),
);

// ---------------------------------------------------------------------------------------------
// Leftovers

/** POSIX dynamic shared memory segments of native servers (/dev/shm/PostgreSQL.<handle>). */
function dsmSegments(): string[] {
  return readdirSync('/dev/shm')
    .filter((n) => n.startsWith('PostgreSQL.'))
    .map((n) => `dsm /dev/shm/${n}`);
}

/** Docker volumes (an anonymous volume a container left). */
function dockerVolumes(): string[] {
  return dockerVolumeNames().map((v) => `volume ${v}`);
}

/** leftoverSnapshot() plus the native servers' POSIX shared memory segments and Docker volumes. */
function snapshot(): { added: () => string[] } {
  const base = leftoverSnapshot();
  const extra = () => [...dsmSegments(), ...dockerVolumes()];
  const before = new Set(extra());
  return { added: () => [...base.added(), ...extra().filter((x) => !before.has(x))] };
}

/** The run label (token) of a container. */
function containerToken(id: string): string {
  return spawnSync('docker', ['inspect', '-f', `{{index .Config.Labels "${CONTAINER_LABEL}.run"}}`, id], {
    encoding: 'utf8',
  }).stdout.trim();
}

/**
 * Checks that what a killed run left is what its saved handle names: each container carries the
 * handle's run token; each folder, mount and process names the handle's token or its mount;
 * shared memory and ports only with a handle that names a run folder.
 */
function expectNamedBy(left: string[], handle: ServerHandle | null | undefined): void {
  if (left.length === 0) return;
  expect(handle, `left ${left.join(', ')} without a saved handle`).toBeTruthy();
  if (!handle) return;
  for (const item of left) {
    if (/^[0-9a-f]{12}$/.test(item)) {
      expect(handle.mode, item).toBe('docker');
      expect(containerToken(item), `container ${item}`).toBe(handle.token);
    } else if (/^(\/|mount |process )/.test(item)) {
      expect(handle.mode, item).toBe('native');
      const ram = handle.mode === 'native' && handle.ram?.kind === 'mount' ? handle.ram.dir : handle.token;
      expect(item.includes(handle.token) || item.includes(ram), `${item} is not named by ${JSON.stringify(handle)}`).toBe(true);
    } else {
      expect(handle.mode === 'native' && handle.runDir !== '', `${item} with handle ${JSON.stringify(handle)}`).toBe(true);
    }
  }
}

/** Whether any process maps this file (a live server's shared memory). */
function mapped(file: string): boolean {
  return spawnSync('sh', ['-c', 'grep -ls -- "$1" /proc/[0-9]*/maps', 'sh', file], { encoding: 'utf8' }).stdout.trim() !== '';
}

/** nattch of a SysV shared memory segment; -1 when it is gone. */
function attachments(shmid: string): number {
  const line = readFileSync('/proc/sysvipc/shm', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1] === shmid);
  return line ? Number(line[6]) : -1;
}

/**
 * Best-effort removal (no assertions) of what a failed or known-gap test left: postgres processes
 * and containers whose names carry `prefix` (the test's container name), then the shared memory in
 * `added` that no process uses any more.
 */
async function scrub(prefix: string, added: string[]): Promise<void> {
  const pids = added
    .map((x) => /^process (\d+) .*/.exec(x))
    .filter((m): m is RegExpExecArray => m !== null && m[0].includes(prefix))
    .map((m) => Number(m[1]));
  for (const pid of pids) {
    for (const signal of ['SIGCONT', 'SIGQUIT'] as const) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone
      }
    }
  }
  for (
    let i = 0;
    i < 60 && pids.some((p) => existsSync(`/proc/${p}/cmdline`) && readFileSync(`/proc/${p}/cmdline`).length > 0);
    i++
  ) {
    await sleep(50);
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  const containers = (
    spawnSync('docker', ['ps', '-aq', '--filter', `label=${CONTAINER_LABEL}`, '--filter', `name=^/${prefix}`], {
      encoding: 'utf8',
    }).stdout ?? ''
  )
    .split('\n')
    .filter(Boolean);
  if (containers.length) spawnSync('docker', ['rm', '-f', '-v', ...containers]);
  for (const item of added) {
    const sysv = /^shm 0x[0-9a-f]+ (\d+) postgres$/.exec(item);
    if (sysv?.[1] && attachments(sysv[1]) === 0) spawnSync('ipcrm', ['-m', sysv[1]]);
    const posix = /^dsm (\/dev\/shm\/PostgreSQL\.\d+)$/.exec(item);
    if (posix?.[1] && !mapped(posix[1])) rmSync(posix[1], { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

type Signal = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGKILL';

/** When to send the signal. */
type Point =
  /** ms after spawn */
  | { kind: 'ms'; ms: number }
  /** when the output shows `line`, plus `delay` ms */
  | { kind: 'line'; line: RegExp; delay: number }
  /** when the saved handle names a postmaster that has written postmaster.pid (native) */
  | { kind: 'pidfile' };

interface Exit {
  /** The exit code; for a process the signal itself ended (no handler yet): 128 + its number, as a shell shows it. */
  code: number;
  /** True when the signal itself ended the process. */
  bySignal: boolean;
  stdout: string;
  stderr: string;
  /** ms after spawn the signal was sent; null when the process finished first. */
  killedAt: number | null;
  /** ms after spawn the process exited. */
  ms: number;
}

/**
 * Runs `node script args`, sends `signal` at `point` (when the process still runs then), and
 * resolves when it has exited. `handle` reads what the process has saved so far (for `pidfile`).
 */
function runAndKill(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  point: Point,
  signal: Signal,
  handle: () => ServerHandle | null = () => null,
): Promise<Exit> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let killedAt: number | null = null;
  let done = false;
  let lineSeen = false;
  const timers: NodeJS.Timeout[] = [];
  const kill = () => {
    if (done || killedAt !== null) return;
    killedAt = Math.round(performance.now() - t0);
    child.kill(signal);
  };
  const onOutput = () => {
    if (point.kind === 'line' && !lineSeen && point.line.test(stdout + stderr)) {
      lineSeen = true;
      timers.push(setTimeout(kill, point.delay));
    }
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((stdout += d), onOutput()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((stderr += d), onOutput()));
  if (point.kind === 'ms') timers.push(setTimeout(kill, point.ms));
  if (point.kind === 'pidfile') {
    const poll = setInterval(() => {
      const h = handle();
      if (h?.mode === 'native' && h.pid > 0 && existsSync(join(h.runDir, 'data', 'postmaster.pid'))) {
        clearInterval(poll);
        kill();
      }
    }, 2);
    timers.push(poll);
  }
  // A process that hangs fails the test rather than the whole run.
  timers.push(setTimeout(() => child.kill('SIGKILL'), 90_000));
  return new Promise((resolve) => {
    child.on('close', (code, sig) => {
      done = true;
      for (const t of timers) clearTimeout(t);
      resolve({
        code: code ?? 128 + (constants.signals[sig ?? 'SIGKILL'] ?? 9),
        bySignal: code === null,
        stdout,
        stderr,
        killedAt,
        ms: Math.round(performance.now() - t0),
      });
    });
  });
}

/** Rows whose process finished before the signal (their server is then removed by `down` or the post step). */
const finishedFirst: string[] = [];
/** One line per row: when the signal went and when the process exited, for the log. */
const timings: string[] = [];

function describePoint(p: Point): string {
  if (p.kind === 'ms') return `${p.ms} ms after spawn`;
  if (p.kind === 'line') return `${p.delay} ms after "${p.line.source}"`;
  return 'once postmaster.pid is written';
}

const DOCKER_RUN = /docker run --detach/;
const CACHE_HIT = /initdb cache hit/;
const CACHE_MISS = /initdb cache miss/;
const ANSWERED = /Answered a query/;

// ---------------------------------------------------------------------------------------------
// CLI

let stateCount = 0;

/** A fresh state folder (not made yet: `up` makes it 0700). */
function newStateDir(): string {
  stateCount += 1;
  return join(work, `state-${stateCount}`);
}

/** baseEnv with the engine DOCKER_HOST names now (a block may switch it). */
function engineEnv(): NodeJS.ProcessEnv {
  const docker = process.env.DOCKER_HOST;
  return { ...baseEnv, ...(docker ? { DOCKER_HOST: docker } : {}) };
}

/** The CLI's environment: engineEnv and the state folder. */
function cliEnv(stateDir: string): NodeJS.ProcessEnv {
  return { ...engineEnv(), PG_TMPFS_STATE_DIR: stateDir };
}

function cli(args: string[], stateDir: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(stateDir), encoding: 'utf8', timeout: 120_000 });
}

/** Files in a state folder (records and their temporary files); [] when it does not exist. */
function stateFiles(stateDir: string): string[] {
  return existsSync(stateDir) ? readdirSync(stateDir) : [];
}

function readRecord(stateDir: string, name: string): Instance | null {
  try {
    return JSON.parse(readFileSync(join(stateDir, `${name}.json`), 'utf8')) as Instance;
  } catch {
    return null;
  }
}

interface StatusRow {
  name: string;
  state: string;
  alive: boolean;
  server?: { pid?: number } | null;
}

function status(stateDir: string): StatusRow[] {
  const r = cli(['status'], stateDir);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusRow[];
}

/** Removes whatever a failed test left under this state folder (no assertions). */
function downQuietly(stateDir: string): void {
  for (const f of stateFiles(stateDir).filter((n) => n.endsWith('.json'))) cli(['down', '--name', f.slice(0, -5)], stateDir);
}

type Variant = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGKILL, then down' | 'SIGKILL, then up and down';

interface CliRow {
  label: string;
  /** Arguments of `up` besides --name (called once per row: a fresh cache folder for cold rows). */
  args: () => string[];
  point: Point;
  variant: Variant;
}

const dockerArgs = ['--image', IMAGE];
const nativeWarm = () => ['--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', warmCache];
/** A fresh initdb cache per row: initdb runs. */
const nativeCold = () => [
  '--mode',
  'native',
  '--postgres-version',
  NATIVE_MAJOR,
  '--cache-dir',
  mkdtempSync(join(work, 'cache-')),
];
const nativeMount = () => [...nativeWarm(), '--tmpfs-size', '64m'];

const ALL: Variant[] = ['SIGTERM', 'SIGINT', 'SIGKILL, then down', 'SIGKILL, then up and down'];
const INTERRUPTS: Variant[] = ['SIGTERM', 'SIGINT'];
const KILLS: Variant[] = ['SIGKILL, then down', 'SIGKILL, then up and down'];

function rows(label: string, args: () => string[], points: Point[], variants: Variant[]): CliRow[] {
  return points.flatMap((point) =>
    variants.map((variant) => ({ label: `${label}: ${variant} ${describePoint(point)}`, args, point, variant })),
  );
}

/** Docker mode's rows, run on each engine. */
const DOCKER_CLI_ROWS: CliRow[] = [
  // 150 ms: before anything is made; at the `docker run` line, 400 and 800 ms: while `docker run`
  // runs or the container starts; "Answered": during verification.
  ...rows(
    'docker',
    () => dockerArgs,
    [
      { kind: 'ms', ms: 150 },
      { kind: 'line', line: DOCKER_RUN, delay: 0 },
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: ANSWERED, delay: 0 },
    ],
    ALL,
  ),
  ...rows('docker', () => dockerArgs, [{ kind: 'line', line: DOCKER_RUN, delay: 0 }], ['SIGHUP']),
];

const CLI_ROWS: CliRow[] = [
  ...DOCKER_CLI_ROWS,
  // 150 ms: before the run folder; postmaster.pid: while waiting for the first query; "Answered":
  // during verification (may finish first). At the cache-hit line (the cluster is being copied,
  // the signal is handled right after postgres is spawned): SIGKILL here, SIGTERM/SIGINT in
  // GAP_ROWS (gap A).
  ...rows(
    'native, warm cache',
    nativeWarm,
    [{ kind: 'ms', ms: 150 }, { kind: 'pidfile' }, { kind: 'line', line: ANSWERED, delay: 0 }],
    ALL,
  ),
  ...rows('native, warm cache', nativeWarm, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], KILLS),
  ...rows('native, warm cache', nativeWarm, [{ kind: 'pidfile' }], ['SIGHUP']),
  // 400 and 800 ms: while initdb runs (or the cache is filled); the cache-miss line: while the
  // cluster is copied: SIGKILL here, SIGTERM/SIGINT in GAP_ROWS (gaps B and A).
  ...rows(
    'native, fresh cache',
    nativeCold,
    [
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: CACHE_MISS, delay: 0 },
    ],
    KILLS,
  ),
  ...rows('native, fresh cache', nativeCold, [{ kind: 'pidfile' }], ALL),
  // A tmpfs mounted for the run (tmpfs-size given): the mount is recorded before it is made.
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'pidfile' }], ['SIGTERM', ...KILLS]),
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], KILLS),
];

/**
 * Interrupts that hit gaps A or B only sometimes (both fixed). Seen failing here:
 * "fresh cache: SIGTERM/SIGINT 400 ms after spawn" (gap B, every time on this machine: a System V
 * segment and two /dev/shm/PostgreSQL.* left); at 800 ms the signal often lands in the
 * synchronous copy into the cache instead and is handled only after it (~0.6-0.9 s later).
 */
const GAP_ROWS: CliRow[] = [
  ...rows('native, warm cache', nativeWarm, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], INTERRUPTS),
  ...rows(
    'native, fresh cache',
    nativeCold,
    [
      { kind: 'ms', ms: 400 },
      { kind: 'ms', ms: 800 },
      { kind: 'line', line: CACHE_MISS, delay: 0 },
    ],
    INTERRUPTS,
  ),
  ...rows('native, own tmpfs mount', nativeMount, [{ kind: 'line', line: CACHE_HIT, delay: 0 }], ['SIGTERM']),
];

beforeAll(() => {
  requireImages();
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

let instanceCount = 0;

async function cliRow(row: CliRow): Promise<void> {
  instanceCount += 1;
  const name = `itr${instanceCount}`;
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
 * Waits (polling every 1 ms) until the handle `read` returns names a spawned postmaster, stops
 * it with SIGSTOP (holding it before it writes postmaster.pid), sends `signal` to `child`, and
 * waits for `child` to exit.
 * @returns the stopped PID (0 if none was seen), whether postmaster.pid existed then, the exit code
 */
async function freezePostmasterThenSignal(
  child: ChildProcess,
  read: () => ServerHandle | null | undefined,
  signal: NodeJS.Signals,
): Promise<{ stopped: number; pidfileAtStop: boolean; code: number | null }> {
  let stopped = 0;
  let pidfileAtStop = true;
  const poll = setInterval(() => {
    const h = read();
    if (h?.mode === 'native' && h.pid > 0 && stopped === 0) {
      clearInterval(poll);
      process.kill(h.pid, 'SIGSTOP');
      stopped = h.pid;
      pidfileAtStop = existsSync(join(h.runDir, 'data', 'postmaster.pid'));
      child.kill(signal);
    }
  }, 1);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearInterval(poll);
  return { stopped, pidfileAtStop, code };
}

/**
 * Spawns `up` with a fresh initdb cache and sends `signal` as soon as initdb's postgres holds a
 * System V segment (a new segment whose creator works in this instance's run folder).
 * @returns the exit code and stderr of `up`, and whether the signal was sent
 */
async function signalWhileInitdbHoldsMemory(
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

/** The second engine's DOCKER_HOST (null off CI when it does not answer; under CI=true it must). */
const ENGINE29 = engine29Host();

// Docker mode's rows on Docker 29 with the containerd image store (issue #25): DOCKER_HOST for
// the whole block, so the CLI, the leftover check and the clean-up all talk to that engine.
describe.skipIf(!ENGINE29)('CLI up on the second engine (Docker 29, containerd image store), interrupted or killed', () => {
  useDockerHost(ENGINE29 ?? '');
  it.each(DOCKER_CLI_ROWS)('$label', cliRow);
});

describe('CLI up, interrupted or killed', () => {
  it.each(CLI_ROWS)('$label', cliRow);
  it.each(GAP_ROWS)('timing-dependent (gaps A and B): $label', cliRow);

  /*
   * GAP A: a SIGTERM/SIGINT handled after postgres was spawned but before it wrote
   * postmaster.pid. stopPostgres() signals the postmaster only when postmaster.pid names it
   * (postmasterRunning), so it skips the kill and removes the run folder under the starting
   * postgres; `up` exits 143 and removes its record. When postgres had read its files already,
   * it keeps running on the deleted data directory with its port and shared memory, named by
   * nothing, until its 60 s lock-file check shuts it down; with --tmpfs-size the umount fails
   * "target is busy", the record stays and `down` fails the same way until then. It happens
   * without help about 1 run in 12-40 with SIGTERM 14-18 ms after the "initdb cache hit" line,
   * and it happened to the action's main step with SIGINT right at that line. Here the
   * postmaster is stopped (SIGSTOP) as soon as it is recorded, which holds it in that window
   * every time. (Fixed: stopPostgres also stops a recorded postgres whose command line names
   * its data directory.)
   */
  it('gap A: SIGTERM before the spawned postgres wrote postmaster.pid removes that postgres too', async () => {
    const name = 'gapa';
    const state = newStateDir();
    const leftovers = snapshot();
    let stopped = 0;
    try {
      const child = spawn(process.execPath, [CLI, 'up', ...nativeWarm(), '--name', name], {
        env: cliEnv(state),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const frozen = await freezePostmasterThenSignal(child, () => readRecord(state, name)?.handle, 'SIGTERM');
      stopped = frozen.stopped;
      const { pidfileAtStop, code } = frozen;
      expect(stopped).toBeGreaterThan(0);
      expect(pidfileAtStop).toBe(false);
      expect(code, stderr).toBe(143);
      expect(stderr).toContain('Interrupted by SIGTERM: removing what was started');
      expect(stateFiles(state)).toEqual([]);
      expect(leftovers.added()).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
    }
  });

  /*
   * GAP B: a SIGTERM/SIGINT while initdb runs (a fresh cache). killActive() sends SIGKILL
   * to initdb's process group, which takes its bootstrap or single-user postgres with it, and a
   * postgres killed that way leaves its System V shared memory segment (owner postgres, nattch
   * 0) and its POSIX segments (/dev/shm/PostgreSQL.<n>); nothing removes them. (SIGTERM or
   * SIGINT to the group first lets initdb's postgres exit cleanly; SIGKILL to `up` itself leaves
   * initdb to die of a broken pipe, which is clean too.) Here the signal goes as soon as initdb's
   * postgres holds its segment. (Fixed: stopActive sends SIGTERM first, SIGKILL only after 2 s.)
   */
  it('gap B: SIGTERM while initdb runs leaves no shared memory', async () => {
    const name = 'gapb';
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      const { code, stderr, sent } = await signalWhileInitdbHoldsMemory(name, state, 'SIGTERM');
      expect(sent).toBe(true);
      expect(stderr).not.toContain('initdb cache miss');
      expect(code, stderr).toBe(143);
      expect(stateFiles(state)).toEqual([]);
      expect(leftovers.added()).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
    }
  });
});

/*
 * GAP D (issue #21): a SIGKILL to `up` while initdb runs leaves initdb and its postgres running
 * as orphans in the run folder. `down` removed the folder under them; that postgres then
 * PANICked and left its System V segment and /dev/shm/PostgreSQL.* files (10 of 20 tries at a
 * random 0.25-0.6 s), or initdb refilled the folder (ENOTEMPTY: 3 of 20). (Fixed: stopPostgres
 * ends every process working in the run folder first, orphans.ts.) Here the kill goes as soon
 * as initdb's postgres holds its segment, and `down` follows at once.
 */
describe('CLI up killed while initdb runs', () => {
  it.each(['down', 'up and down'] as const)(
    'gap D: SIGKILL while initdb holds shared memory, then %s: nothing left',
    async (then) => {
      const name = then === 'down' ? 'gapd' : 'gapd2';
      const state = newStateDir();
      const leftovers = snapshot();
      try {
        const { code, stderr, sent } = await signalWhileInitdbHoldsMemory(name, state, 'SIGKILL');
        expect(sent).toBe(true);
        expect(code, stderr).toBe(137);
        if (then === 'up and down') {
          const again = cli(['up', ...nativeWarm(), '--name', name], state);
          expect(again.status, again.stderr).toBe(0);
          expect(again.stderr).toContain(`Instance "${name}" was left behind (its start was killed): removing it`);
        }
        const down = cli(['down', '--name', name], state);
        expect(down.status, down.stderr).toBe(0);
        expect(leftovers.added()).toEqual([]);
        expect(stateFiles(state)).toEqual([]);
      } finally {
        downQuietly(state);
        await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Action steps

/** A job's runner files and the environment of its steps (RUNNER_TEMP empty, port 0). */
function newJob(inputs: Record<string, string>): { env: NodeJS.ProcessEnv; stateFile: string; runnerTemp: string } {
  const job = jobFiles(mkdtempSync(join(work, 'job-')), { ...inputs, port: '0' });
  return { env: { ...engineEnv(), ...job.env }, stateFile: job.stateFile, runnerTemp: job.runnerTemp };
}

/** The handle the main step saved last (GITHUB_STATE `server`), or null. */
function savedServer(stateFile: string): { json: string; handle: ServerHandle } | null {
  try {
    const json = parseFileCommand(readFileSync(stateFile, 'utf8')).server;
    return json ? { json, handle: JSON.parse(json) as ServerHandle } : null;
  } catch {
    return null;
  }
}

/** Runs the post step with what the main step saved, as the runner does. */
function postStep(env: NodeJS.ProcessEnv, stateFile: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [POST], {
    env: { ...env, STATE_server: savedServer(stateFile)?.json ?? '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

interface ActionRow {
  label: string;
  inputs: Record<string, string>;
  point: Point;
  signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL';
}

const dockerInputs = { image: IMAGE };
const nativeInputs = { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': warmCache };

const ACTION_ROWS: ActionRow[] = [
  {
    label: 'docker: SIGINT during `docker run`',
    inputs: dockerInputs,
    point: { kind: 'line', line: DOCKER_RUN, delay: 0 },
    signal: 'SIGINT',
  },
  { label: 'docker: SIGINT 800 ms after spawn', inputs: dockerInputs, point: { kind: 'ms', ms: 800 }, signal: 'SIGINT' },
  {
    label: 'docker: SIGINT during verification',
    inputs: dockerInputs,
    point: { kind: 'line', line: ANSWERED, delay: 0 },
    signal: 'SIGINT',
  },
  { label: 'docker: SIGTERM 400 ms after spawn', inputs: dockerInputs, point: { kind: 'ms', ms: 400 }, signal: 'SIGTERM' },
  {
    label: 'docker: SIGKILL during `docker run`',
    inputs: dockerInputs,
    point: { kind: 'line', line: DOCKER_RUN, delay: 0 },
    signal: 'SIGKILL',
  },
  { label: 'docker: SIGKILL 800 ms after spawn', inputs: dockerInputs, point: { kind: 'ms', ms: 800 }, signal: 'SIGKILL' },
  { label: 'native: SIGINT 150 ms after spawn', inputs: nativeInputs, point: { kind: 'ms', ms: 150 }, signal: 'SIGINT' },
  { label: 'native: SIGINT once postmaster.pid is written', inputs: nativeInputs, point: { kind: 'pidfile' }, signal: 'SIGINT' },
  {
    label: 'native: SIGINT during verification',
    inputs: nativeInputs,
    point: { kind: 'line', line: ANSWERED, delay: 0 },
    signal: 'SIGINT',
  },
  {
    label: 'native: SIGKILL while the cluster is copied',
    inputs: nativeInputs,
    point: { kind: 'line', line: CACHE_HIT, delay: 0 },
    signal: 'SIGKILL',
  },
  {
    label: 'native: SIGKILL once postmaster.pid is written',
    inputs: nativeInputs,
    point: { kind: 'pidfile' },
    signal: 'SIGKILL',
  },
];

let jobCount = 0;

/** One ACTION_ROWS row: the main step signalled at its point, then the post step; nothing left. */
async function actionRow(row: ActionRow): Promise<void> {
  jobCount += 1;
  const containerName = `pg-tmpfs-itr-job${jobCount}`;
  const { env, stateFile, runnerTemp } = newJob({ ...row.inputs, 'container-name': containerName });
  const leftovers = snapshot();
  let postRan = false;
  try {
    const exit = await runAndKill(MAIN, [], env, row.point, row.signal, () => savedServer(stateFile)?.handle ?? null);
    const timing = `killed at ${exit.killedAt} ms, exited at ${exit.ms} ms`;
    timings.push(`action ${row.label}: ${exit.killedAt} / ${exit.ms}, exit ${exit.code}`);
    if (exit.code === 0) {
      finishedFirst.push(`action ${row.label} (${timing})`);
    } else {
      expect(exit.code, `${timing}\n${exit.stdout}${exit.stderr}`).toBe(128 + constants.signals[row.signal]);
      if (row.signal === 'SIGKILL') {
        expectNamedBy(leftovers.added(), savedServer(stateFile)?.handle);
      } else {
        if (!exit.bySignal) expect(exit.stdout).toContain(`::warning::Interrupted by ${row.signal}: removing what was started`);
        expect(leftovers.added(), `${timing}\n${exit.stdout}`).toEqual([]);
      }
    }
    postRan = true;
    const post = postStep(env, stateFile);
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/Removed PostgreSQL|Stopped PostgreSQL|No PostgreSQL server to remove/);
    expect(leftovers.added(), `${timing}; post step:\n${post.stdout}`).toEqual([]);
    expect(readdirSync(runnerTemp)).toEqual([]);
  } finally {
    if (!postRan) postStep(env, stateFile);
    await scrub(containerName, leftovers.added());
  }
}

describe.skipIf(!ENGINE29)('action main step on the second engine (Docker 29), interrupted or killed; then the post step', () => {
  useDockerHost(ENGINE29 ?? '');
  it.each(ACTION_ROWS.filter((r) => r.inputs === dockerInputs))('$label', actionRow);
});

describe('action main step, interrupted or killed; then the post step', () => {
  it.each(ACTION_ROWS)('$label', actionRow);

  /* GAP A (see above) in the main step: SIGINT, and the post step cannot find the postgres either. */
  it('gap A: SIGINT before the spawned postgres wrote postmaster.pid; main and post steps remove that postgres', async () => {
    const containerName = 'pg-tmpfs-itr-gapa';
    const { env, stateFile } = newJob({ ...nativeInputs, 'container-name': containerName });
    const leftovers = snapshot();
    try {
      const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      let stopped = 0;
      const frozen = await freezePostmasterThenSignal(child, () => savedServer(stateFile)?.handle, 'SIGINT');
      stopped = frozen.stopped;
      const { pidfileAtStop, code } = frozen;
      expect(stopped).toBeGreaterThan(0);
      expect(pidfileAtStop).toBe(false);
      expect(code, out).toBe(130);
      const post = postStep(env, stateFile);
      expect(post.status).toBe(0);
      expect(leftovers.added()).toEqual([]);
    } finally {
      postStep(env, stateFile);
      await scrub(containerName, leftovers.added());
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Liveness, lock, state folder

/** Starts a native instance, kills its postmaster with SIGKILL, and checks that status shows it dead. */
async function killPostmaster(state: string, name: string): Promise<number> {
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

describe('liveness', () => {
  it('a postmaster killed with SIGKILL shows dead; up with the same name removes it and starts anew; down removes that', async () => {
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      const oldPid = await killPostmaster(state, 'live');
      const again = cli(['up', ...nativeWarm(), '--name', 'live', '--json'], state);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain('Instance "live" was left behind (its server is gone): removing it');
      const now = status(state);
      expect(now).toHaveLength(1);
      expect(now[0]).toMatchObject({ name: 'live', state: 'running', alive: true });
      expect(now[0]?.server?.pid).not.toBe(oldPid);
      const down = cli(['down', '--name', 'live'], state);
      expect(down.status, down.stderr).toBe(0);
      expect(stateFiles(state)).toEqual([]);
      // Everything but the killed postmaster's shared memory, which gap C below pins.
      expect(leftovers.added().filter((x) => !/^(shm|dsm) /.test(x))).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub('pg-tmpfs-cli-live-', leftovers.added());
    }
  });

  /*
   * GAP C: a postmaster that died by SIGKILL leaves its System V shared memory segment (key
   * and id on line 7 of its postmaster.pid; owner postgres, nattch 0) and its POSIX segments
   * (/dev/shm/PostgreSQL.<n>); neither `up` with the same name nor `down` removed them. (Fixed:
   * stopPostgres removes the segment postmaster.pid names once nothing is attached, and native
   * mode keeps dynamic shared memory in PGDATA: dynamic_shared_memory_type=mmap.)
   */
  it('gap C: after a postmaster was killed with SIGKILL, up and down leave no shared memory', async () => {
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      await killPostmaster(state, 'live2');
      expect(cli(['up', ...nativeWarm(), '--name', 'live2'], state).status).toBe(0);
      expect(cli(['down', '--name', 'live2'], state).status).toBe(0);
      expect(leftovers.added()).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub('pg-tmpfs-cli-live2-', leftovers.added());
    }
  });
});

describe('one name, one instance', () => {
  it.each([
    { mode: 'docker', args: () => dockerArgs },
    { mode: 'native', args: nativeWarm },
  ])('two `up --name same` at once ($mode): one wins, the other names --name; down leaves nothing', async ({ args }) => {
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      const upArgs = ['up', ...args(), '--name', 'same', '--json'];
      const never: Point = { kind: 'ms', ms: 600_000 };
      const both = await Promise.all([
        runAndKill(CLI, upArgs, cliEnv(state), never, 'SIGKILL'),
        runAndKill(CLI, upArgs, cliEnv(state), never, 'SIGKILL'),
      ]);
      expect(both.map((e) => e.code).sort()).toEqual([0, 1]);
      const loser = both.find((e) => e.code === 1);
      expect(loser?.stderr).toMatch(
        /error: --name: (instance "same" is being started by process \d+|an instance named "same" is already running)/,
      );
      // And once it runs, a third is turned away too.
      const third = cli(upArgs, state);
      expect(third.status).toBe(1);
      expect(third.stderr).toContain('error: --name: an instance named "same" is already running');
      expect(status(state)).toMatchObject([{ name: 'same', state: 'running', alive: true }]);
      const down = cli(['down', '--name', 'same'], state);
      expect(down.status, down.stderr).toBe(0);
      expect(leftovers.added()).toEqual([]);
      expect(stateFiles(state)).toEqual([]);
    } finally {
      downQuietly(state);
    }
  });
});

describe('a state folder that cannot hold records', () => {
  const cases: Array<{ what: string; prepare: () => { dir: string; undo?: () => void }; message: RegExp }> = [
    {
      what: 'a file',
      prepare: () => {
        const dir = join(work, 'state-file');
        writeFileSync(dir, '');
        return { dir };
      },
      message: /error: The state folder .*state-file cannot hold instance records: .* is a file, not a folder/,
    },
    {
      what: 'a path under a file',
      prepare: () => {
        writeFileSync(join(work, 'plain-file'), '');
        return { dir: join(work, 'plain-file', 'state') };
      },
      message: /error: The state folder .*plain-file\/state cannot hold instance records: .*ENOTDIR/,
    },
    {
      what: 'a folder others can write',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-open-'));
        chmodSync(dir, 0o777);
        return { dir };
      },
      message: /cannot hold instance records: .* can be written by others \(mode 777\)/,
    },
    {
      what: "another user's folder",
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-other-'));
        chownSync(dir, 65534, 65534);
        return { dir };
      },
      message: /cannot hold instance records: .* belongs to uid 65534/,
    },
    {
      what: 'a read-only file system',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-ro-'));
        const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,mode=0700,size=1m', 'tmpfs', dir], { encoding: 'utf8' });
        expect(m.status, m.stderr).toBe(0);
        return { dir, undo: () => spawnSync('umount', [dir]) };
      },
      message: /cannot hold instance records: .* is on a read-only file system \(EROFS\)/,
    },
    {
      what: 'a record that is a folder',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-recdir-'));
        mkdirSync(join(dir, 'bad.json'));
        return { dir };
      },
      message: /error: --name: the record of instance "bad" \(.*bad\.json\) cannot be read: EISDIR/,
    },
    {
      what: 'a record that is not JSON',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-garbage-'));
        writeFileSync(join(dir, 'bad.json'), '{"name": "bad", "state": "runn', { mode: 0o600 });
        return { dir };
      },
      message: /error: --name: the record of instance "bad" \(.*\) cannot be read: it is not valid JSON/,
    },
  ];
  it.each(cases)('$what: up fails before anything starts', ({ prepare, message }) => {
    const { dir, undo } = prepare();
    const leftovers = snapshot();
    try {
      for (const args of [dockerArgs, nativeWarm()]) {
        const r = cli(['up', ...args, '--name', 'bad'], dir);
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toMatch(message);
        // Nothing was started: not even the engine or the binaries were looked at.
        expect(r.stderr).not.toMatch(/Docker engine|binaries:|docker run/);
        expect(leftovers.added()).toEqual([]);
      }
    } finally {
      undo?.();
    }
  });
});

/**
 * #26: an init command orphaned by a SIGKILL (to `up`, or to the background process of
 * `up --no-wait`) survived `down`: `sh -c …`, its children and a child that daemonized itself
 * (20 of 20 tries, both modes). The command and what it starts carry PG_TMPFS_RUN=<run token>;
 * `down`, and the next `up` of the name when no `down` came, end them.
 */
describe('init command orphaned by a SIGKILL', () => {
  /** The command: a child in its own session, a background child, and sh waiting for them. */
  const command = (n: number): string => `setsid sleep ${30_900 + n} & sleep ${31_900 + n} & echo init-command-running; wait`;
  /** Live processes (zombies excluded) that are the command or one of its sleeps. */
  const orphans = (n: number): string[] =>
    liveProcesses(
      (argv) =>
        (argv[0] === 'sleep' && [`${30_900 + n}`, `${31_900 + n}`].includes(argv[1] ?? '')) ||
        (argv[0] === 'sh' && argv[2] === command(n)),
    ).map((p) => `process ${p.pid} ${p.argv.join(' ')}`);

  /** Waits (10 ms polls, up to 60 s) until `read()` holds `line`. */
  async function waitForLine(read: () => string, line: RegExp): Promise<void> {
    for (let i = 0; i < 6000 && !line.test(read()); i++) await sleep(10);
    expect(read()).toMatch(line);
  }

  let n = 0;
  it.each(
    (['docker', 'native'] as const).flatMap((mode) =>
      (['up', 'the background process of up --no-wait'] as const).flatMap((target) =>
        (['down', 'up and down'] as const).map((then) => ({ mode, target, then })),
      ),
    ),
  )(
    '$mode: SIGKILL to $target while the command runs, then $then',
    async ({ mode, target, then }) => {
      n += 1;
      const name = `orphan${n}`;
      const state = newStateDir();
      const args = ['up', ...(mode === 'docker' ? dockerArgs : nativeWarm()), '--name', name, '--init-command', command(n)];
      const leftovers = snapshot();
      try {
        if (target === 'up') {
          const exit = await runAndKill(
            CLI,
            args,
            cliEnv(state),
            { kind: 'line', line: /init-command-running/, delay: 100 },
            'SIGKILL',
          );
          expect(exit.killedAt, exit.stderr).not.toBeNull();
          expect(exit.code).toBe(128 + constants.signals.SIGKILL);
        } else {
          const launched = cli([...args, '--no-wait'], state);
          expect(launched.status, launched.stderr).toBe(0);
          const record = readRecord(state, name);
          expect(record?.log).toBeTruthy();
          await waitForLine(
            () => (record?.log && existsSync(record.log) ? readFileSync(record.log, 'utf8') : ''),
            /init-command-running/,
          );
          await sleep(100);
          process.kill(record?.ownerPid ?? 0, 'SIGKILL');
        }
        // The command and both its sleeps run on, orphaned.
        expect(orphans(n)).toHaveLength(3);
        if (then === 'up and down') {
          // Its own init command ends (the orphaned one waits for its sleeps for hours).
          const again = cli([...args.slice(0, -1), 'echo again'], state);
          expect(again.status, again.stderr).toBe(0);
          expect(again.stderr).toContain(`Instance "${name}" was left behind (its start was killed): removing it`);
          expect(orphans(n)).toEqual([]);
        }
        const down = cli(['down', '--name', name], state);
        expect(down.status, down.stderr).toBe(0);
        expect(orphans(n)).toEqual([]);
        expect(leftovers.added()).toEqual([]);
        expect(stateFiles(state)).toEqual([]);
      } finally {
        downQuietly(state);
        for (const p of orphans(n)) process.kill(Number(p.split(' ')[1]), 'SIGKILL');
        await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
      }
    },
    120_000,
  );

  it.each(['docker', 'native'] as const)(
    '%s: SIGKILL to the action main step while the command runs, then the post step',
    async (mode) => {
      n += 1;
      const containerName = `pg-tmpfs-itr-orphan${n}`;
      const { env, stateFile } = newJob({
        ...(mode === 'docker' ? dockerInputs : nativeInputs),
        'container-name': containerName,
        'init-command': command(n),
      });
      const leftovers = snapshot();
      try {
        const exit = await runAndKill(MAIN, [], env, { kind: 'line', line: /init-command-running/, delay: 100 }, 'SIGKILL');
        expect(exit.killedAt, exit.stdout).not.toBeNull();
        expect(orphans(n)).toHaveLength(3);
        const post = postStep(env, stateFile);
        expect(post.status, post.stdout + post.stderr).toBe(0);
        expect(orphans(n)).toEqual([]);
        expect(leftovers.added()).toEqual([]);
      } finally {
        postStep(env, stateFile);
        for (const p of orphans(n)) process.kill(Number(p.split(' ')[1]), 'SIGKILL');
        await scrub(containerName, leftovers.added());
      }
    },
    120_000,
  );
});
