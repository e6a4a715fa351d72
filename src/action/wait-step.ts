/**
 * The wait sub-action (wait/action.yml → dist/wait.js): waits for the job's background starts
 * (main step with `wait: false`), shows each one's log as the main step would have printed it,
 * then sets the outputs, the job summary and a ready line, or fails with the server log.
 */
import * as core from '@actions/core';
import { delimiter } from 'node:path';
import { errorFrom } from '../background.js';
import { SetupError } from '../errors.js';
import type { Server } from '../server.js';
import { awaitStart, BACKGROUND_ENV, markShown, readLaunch, replayLog } from './background-files.js';
import { reportError } from './log.js';
import { publish, writeSummary } from './outputs.js';

/**
 * Waits for one background start and publishes it.
 * @returns the server; startupMs counts from the main step's start
 * @throws SetupError when it was killed or passed its deadline; the start's own error when it failed
 */
async function waitFor(dir: string): Promise<Server> {
  const launch = readLaunch(dir);
  const t0 = Date.now();
  const got = await awaitStart(dir, launch, () => core.info(`Waiting for PostgreSQL (background start, pid ${launch.pid})…`));
  const waitedMs = Date.now() - t0;
  replayLog(dir);
  markShown(dir);
  if (got.kind === 'timeout') {
    throw new SetupError(
      `The background start of PostgreSQL did not end by its deadline and was stopped`,
      "Raise 'wait-timeout' of the main step, or look at its log above",
    );
  }
  if (got.kind === 'died') {
    throw new SetupError(
      `The background start of PostgreSQL (pid ${launch.pid}) was killed before it finished`,
      'The post step removes what it left; its log is above',
    );
  }
  if (!got.outcome.ok) throw errorFrom(got.outcome.error);
  const server: Server = { ...got.outcome.server, startupMs: Math.max(0, got.outcome.readyAtMs - launch.startedAtMs) };
  publish(server, false);
  core.setOutput('waited-ms', String(waitedMs));
  await writeSummary(server);
  core.info(
    `PostgreSQL ${server.serverVersion} ready at ${server.connection.host}:${server.connection.port} ` +
      `(${server.mode} mode, ${server.binariesSource}, PGDATA on ${server.filesystem}, ${server.startupMs} ms after the main step began; this step waited ${waitedMs} ms)`,
  );
  return server;
}

/**
 * Runs the wait step: waits for every folder listed in PG_TMPFS_BACKGROUND, in order. Never
 * throws: failures become an error annotation and a failed step.
 * @returns the last server (its outputs are the step's), or null when the step failed
 */
export async function waitStep(): Promise<Server | null> {
  try {
    const dirs = (process.env[BACKGROUND_ENV] ?? '').split(delimiter).filter(Boolean);
    if (dirs.length === 0) {
      throw new SetupError(
        'There is no background start of PostgreSQL to wait for in this job',
        `Run the main action with 'wait: false' in an earlier step (it sets ${BACKGROUND_ENV}); without it, the main step waits itself`,
      );
    }
    let last: Server | null = null;
    for (const dir of dirs) last = await waitFor(dir);
    return last;
  } catch (error) {
    reportError(error);
    return null;
  }
}
