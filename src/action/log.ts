/** The core's Logger for the action, and error reports: workflow commands through @actions/core. */
import * as core from '@actions/core';
import { InputError, SetupError } from '../errors.js';
import type { Logger } from '../log.js';

/** Logger for the action: ::group::, ::warning::, ::debug:: workflow commands. */
export const actionsLogger: Logger = {
  info: (m) => core.info(m),
  warning: (m) => core.warning(m),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};

/** Reports an error as an annotation that names the input (for InputError) and the fix. */
export function reportError(error: unknown): void {
  if (error instanceof InputError || error instanceof SetupError) {
    if (error.detail) {
      core.startGroup(error instanceof InputError ? error.detailTitle : 'PostgreSQL server log (last lines)');
      core.info(error.detail);
      core.endGroup();
    }
    if (error instanceof InputError && error.location) {
      // An annotation on the failing line of the SQL file (shown in the pull request's diff).
      const { file, line, column } = error.location;
      core.error(error.message, { title: `init: ${file}`, file, startLine: line, startColumn: column });
      process.exitCode = 1;
      return;
    }
    core.setFailed(error.message);
    return;
  }
  core.setFailed(error instanceof Error ? (error.stack ?? error.message) : String(error));
}
