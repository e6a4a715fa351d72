/**
 * The processes of a kill-loop try (tests/helpers/kill-loop.ts): the built entries started with
 * node, their output kept; the signal or GitHub's cancel sequence; waiting until a process is gone.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { procStat } from '../../src/processes.js';
import { ROOT } from './infra.js';
import type { KillSignal } from './kill-loop-plan.js';

/** The built entries a try runs (dist/): the CLI, and the action's main, post and wait steps. */
export const CLI = join(ROOT, 'dist', 'cli.js');
export const MAIN = join(ROOT, 'dist', 'main.js');
export const POST = join(ROOT, 'dist', 'post.js');
export const WAIT = join(ROOT, 'dist', 'wait.js');

/** A process's state letter (`Z`: zombie), `X` when it is gone. */
function statState(pid: string): string {
  return procStat(Number(pid))?.state ?? 'X';
}

/** A spawned program whose output is kept and whose exit can be awaited. */
export interface Running {
  pid: number;
  output: () => string;
  exited: Promise<number>;
  isDone: () => boolean;
}

/** The environment without anything a runner or an earlier step set. */
export function baseEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$|PG_TMPFS_BACKGROUND$)/.test(k),
    ),
  );
}

/** Spawns `node script args`; killed after 180 s whatever happens (a hang fails the try, not the loop). */
export function start(script: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let done = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code, sig) => {
      done = true;
      clearTimeout(guard);
      resolve(code ?? (sig ? 128 + 9 : 1));
    }),
  );
  return { pid: child.pid ?? 0, output: () => out, exited, isDone: () => done };
}

/** Runs `node script args` to its end (deadline 180 s). */
export async function runToEnd(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  const r = start(script, args, env);
  const code = await r.exited;
  return { code, output: r.output() };
}

/** Sends a signal, or GitHub's cancel sequence (SIGINT, SIGTERM after 7.5 s, SIGKILL 2.5 s later). */
export async function sendSignal(pid: number, signal: KillSignal, done: () => boolean): Promise<void> {
  const kill = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch {
      // gone
    }
  };
  if (signal !== 'cancel') return kill(signal);
  kill('SIGINT');
  for (const [wait, next] of [
    [7500, 'SIGTERM'],
    [2500, 'SIGKILL'],
  ] as const) {
    const deadline = Date.now() + wait;
    while (!done() && Date.now() < deadline) await sleep(20);
    if (done()) return;
    kill(next);
  }
}

/** Whether a PID runs (not a zombie). */
export function running(pid: number): boolean {
  const st = statState(String(pid));
  return st !== 'Z' && st !== 'X';
}

/** Waits (up to `ms`) until `pid` is gone or a zombie. */
export async function awaitGone(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pid > 0 && running(pid) && Date.now() < deadline) await sleep(10);
}
