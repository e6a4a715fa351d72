/** The core's Logger for the action: workflow commands through @actions/core. */
import * as core from '@actions/core';
import type { Logger } from '../log.js';

/** Logger for the action: ::group::, ::warning::, ::debug:: workflow commands. */
export const actionsLogger: Logger = {
  info: (m) => core.info(m),
  warning: (m) => core.warning(m),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};
