/**
 * The action's main step: parse inputs, start PostgreSQL, publish the connection.
 */
import * as core from '@actions/core';
import { secretForms } from '../connection.js';
import { DEFAULTS, type InputName } from '../inputs.js';
import { parseInputs } from '../parse-inputs.js';
import { SetupError } from '../errors.js';
import { guardedStart } from '../start-guard.js';
import { entryPath } from '../launch.js';
import { launchKeep } from '../native/source/npm/keep.js';
import { toolCacheProblem } from '../native/source/npm/kept.js';
import { launchInBackground, type Launched } from './background.js';
import { actionsLogger, reportError } from './log.js';
import type { Server } from '../server.js';
import { publish, writeSummary } from './outputs.js';
import { saveHandle } from './state.js';
import { actionsRemoteCache, saveForPost } from './schema-cache.js';

/**
 * Runs the main step: inputs from INPUT_* (core.getInput); outputs, exported env, the job
 * summary and the handle for the post step (GITHUB_STATE) out. With `wait: false` it launches the
 * start in the background and returns once the connection is published (background.ts). Never
 * throws: failures become an error annotation and a failed step (process.exitCode 1).
 * @returns the running server, what was launched in the background, or null when the step failed
 */
export async function mainStep(): Promise<Server | Launched | null> {
  const startedAtMs = Date.now() - Math.round(performance.now());
  try {
    // Server builds from npm are kept in the runner's tool cache, as setup-node keeps Node.
    const config = {
      ...parseInputs((name: InputName) => core.getInput(name)),
      toolCache: Boolean(process.env.RUNNER_TOOL_CACHE),
    };
    const toolCache = process.env.RUNNER_TOOL_CACHE ?? '';
    const npmMayRun = config.mode !== 'docker' && config.binaries !== 'installed';
    const toolCacheBad = npmMayRun && toolCache ? toolCacheProblem(toolCache) : null;
    if (toolCacheBad) {
      throw new SetupError(
        `RUNNER_TOOL_CACHE ${toolCacheBad}: server builds from npm are kept there`,
        'Set RUNNER_TOOL_CACHE to an absolute folder whose path has none of $ ` " \\ (a job or step env: may have changed it), or use mode: docker',
      );
    }
    if (config.password !== DEFAULTS.password) {
      for (const form of secretForms(config.password)) core.setSecret(form);
    }
    if (!config.wait) return await launchInBackground(config, startedAtMs);
    // The handle goes to GITHUB_STATE as it grows: the post step removes what it names, whatever
    // happens to this step (a failure keeps it there too).
    const server = await guardedStart(
      config,
      actionsLogger,
      {
        saveHandle,
        saveServer: () => undefined,
        saveFailure: () => undefined,
        interruptedError: (signal) => new SetupError(`The start was interrupted by ${signal}`, 'Run the job again'),
      },
      { remote: actionsRemoteCache },
    );
    saveForPost(server);
    publish(server, config.exportEnv);
    await writeSummary(server);
    core.info(
      `PostgreSQL ${server.serverVersion} ready at ${server.connection.host}:${server.connection.port} ` +
        `(${server.mode} mode, ${server.binariesSource}, PGDATA on ${server.filesystem}, ${server.startupMs} ms)`,
    );
    // The outputs are published: a build taken into RAM is kept on disk now, off the start's path (npm-keep.ts).
    launchKeep(server, () => entryPath('main'), actionsLogger);
    return server;
  } catch (error) {
    reportError(error);
    return null;
  }
}
