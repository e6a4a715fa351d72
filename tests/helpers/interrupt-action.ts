/**
 * The action side of the interrupt tests (tests/e2e/interrupt-action-*.test.ts): a job's runner
 * files, the handle the main step saved, the post step, the rows, and actionRow, which signals the
 * main step at its point, runs the post step and checks that nothing is left.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ServerHandle } from '../../src/server.js';
import { NATIVE_MAJOR } from './infra.js';
import { IMAGE, MAIN, POST, engineEnv, warmCache, work } from './interrupt-cli.js';
import {
  ANSWERED,
  CACHE_HIT,
  DOCKER_RUN,
  expectNamedBy,
  finishedFirst,
  runAndKill,
  scrub,
  snapshot,
  timings,
  type Point,
} from './interrupt.js';
import { jobFiles, parseFileCommand } from './runner-env.js';

/** A job's runner files and the environment of its steps (RUNNER_TEMP empty, port 0). */
export function newJob(inputs: Record<string, string>): { env: NodeJS.ProcessEnv; stateFile: string; runnerTemp: string } {
  const job = jobFiles(mkdtempSync(join(work, 'job-')), { ...inputs, port: '0' });
  return { env: { ...engineEnv(), ...job.env }, stateFile: job.stateFile, runnerTemp: job.runnerTemp };
}

/** The handle the main step saved last (GITHUB_STATE `server`), or null. */
export function savedServer(stateFile: string): { json: string; handle: ServerHandle } | null {
  try {
    const json = parseFileCommand(readFileSync(stateFile, 'utf8')).server;
    return json ? { json, handle: JSON.parse(json) as ServerHandle } : null;
  } catch {
    return null;
  }
}

/** Runs the post step with what the main step saved, as the runner does. */
export function postStep(env: NodeJS.ProcessEnv, stateFile: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [POST], {
    env: { ...env, STATE_server: savedServer(stateFile)?.json ?? '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

/** One action row: the inputs, when the main step is signalled and with what. */
export interface ActionRow {
  label: string;
  inputs: Record<string, string>;
  point: Point;
  signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL';
}

/** Inputs: Docker mode; native with the warm cache. */
export const dockerInputs = { image: IMAGE };
export const nativeInputs = { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': warmCache };

/** The main step's rows, both modes (Docker's also run on the second engine). */
export const ACTION_ROWS: ActionRow[] = [
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
/** Container names are `pg-tmpfs-<jobPrefix>-job<n>`: a prefix per test file keeps files apart. */
let jobPrefix = 'itr';

/** Sets this file's container name prefix (`itr` unless set). */
export function setJobPrefix(prefix: string): void {
  jobPrefix = prefix;
}

/** One ACTION_ROWS row: the main step signalled at its point, then the post step; nothing left. */
export async function actionRow(row: ActionRow): Promise<void> {
  jobCount += 1;
  const containerName = `pg-tmpfs-${jobPrefix}-job${jobCount}`;
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
