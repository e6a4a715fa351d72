/**
 * Leftover checks and signalled processes for the interrupt tests (tests/e2e/interrupt-*.test.ts,
 * issue #10): a machine-wide snapshot that also sees POSIX shared memory and Docker volumes, the
 * check that what a killed run left is named by its saved handle, a best-effort scrub, and
 * runAndKill, which signals a process at a point of its start.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';
import type { ServerHandle } from '../../src/server.js';
import { countsDocker, countsHost, dockerVolumeNames, leakedDsmFiles, leftoverSnapshot } from './infra.js';

// ---------------------------------------------------------------------------------------------
// Leftovers

/** Docker volumes (an anonymous volume a container left). */
function dockerVolumes(): string[] {
  return dockerVolumeNames().map((v) => `volume ${v}`);
}

/**
 * leftoverSnapshot() plus the native servers' POSIX shared memory segments and Docker volumes,
 * each where the lane counts it (tests/helpers/infra/lane.ts: host things in the native lane,
 * volumes in the Docker lane, both when run alone), as kill-loop-leftovers.ts does.
 */
export function snapshot(): { added: () => string[] } {
  const base = leftoverSnapshot();
  const extra = () => [...(countsHost() ? leakedDsmFiles() : []), ...(countsDocker() ? dockerVolumes() : [])];
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
export function expectNamedBy(left: string[], handle: ServerHandle | null | undefined): void {
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
export async function scrub(prefix: string, added: string[]): Promise<void> {
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

export type Signal = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGKILL';

/** When to send the signal. */
export type Point =
  /** ms after spawn */
  | { kind: 'ms'; ms: number }
  /** when the output shows `line`, plus `delay` ms */
  | { kind: 'line'; line: RegExp; delay: number }
  /** when the saved handle names a postmaster that has written postmaster.pid (native) */
  | { kind: 'pidfile' };

export interface Exit {
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
export function runAndKill(
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
export const finishedFirst: string[] = [];
/** One line per row: when the signal went and when the process exited, for the log. */
export const timings: string[] = [];

/** A point in words, for a row's label. */
export function describePoint(p: Point): string {
  if (p.kind === 'ms') return `${p.ms} ms after spawn`;
  if (p.kind === 'line') return `${p.delay} ms after "${p.line.source}"`;
  return 'once postmaster.pid is written';
}

/** Log lines kill points wait for: `docker run` starts, the initdb cache hit or missed, a query was answered. */
export const DOCKER_RUN = /docker run --detach/;
export const CACHE_HIT = /initdb cache hit/;
export const CACHE_MISS = /initdb cache miss/;
export const ANSWERED = /Answered a query/;

/**
 * Waits (polling every 1 ms) until the handle `read` returns names a spawned postmaster, stops
 * it with SIGSTOP (holding it before it writes postmaster.pid), sends `signal` to `child`, and
 * waits for `child` to exit.
 * @returns the stopped PID (0 if none was seen), whether postmaster.pid existed then, the exit code
 */
export async function freezePostmasterThenSignal(
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
