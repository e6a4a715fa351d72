/**
 * The action's main step: parse inputs, start PostgreSQL, publish the connection.
 */
import * as core from '@actions/core';
import { InputError, SetupError } from './errors.js';
import { DEFAULTS, parseInputs, type InputName } from './inputs.js';
import { actionsLogger } from './log.js';
import { publish, writeSummary } from './outputs.js';
import { start } from './start.js';
import { saveContainerId, saveNative } from './state.js';

/** Reports an error as an annotation that names the input (for InputError) and the fix. */
export function reportError(error: unknown): void {
  if (error instanceof InputError) {
    core.setFailed(error.message);
    return;
  }
  if (error instanceof SetupError) {
    if (error.detail) {
      core.startGroup('PostgreSQL server log (last lines)');
      core.info(error.detail);
      core.endGroup();
    }
    core.setFailed(error.message);
    return;
  }
  core.setFailed(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

/** Runs the main step. Never throws: failures become annotations and a failed step. */
export async function run(): Promise<void> {
  try {
    const config = parseInputs((name: InputName) => core.getInput(name));
    if (config.password !== DEFAULTS.password) core.setSecret(config.password);
    const started = await start(config, actionsLogger, { onContainer: saveContainerId, onNative: saveNative });
    publish(started, config.exportEnv);
    await writeSummary(started);
    core.info(
      `PostgreSQL ${started.serverVersion} ready at ${started.connection.host}:${started.connection.port} ` +
        `(${started.mode} mode, PGDATA on ${started.filesystem}, ${started.startupMs} ms)`,
    );
  } catch (error) {
    reportError(error);
  }
}

await run();
