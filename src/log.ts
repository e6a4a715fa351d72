/**
 * Logging that works both in the action (workflow commands through @actions/core) and in the CLI
 * (plain lines on stderr, so stdout stays machine-readable).
 */
import * as core from '@actions/core';

/** Where the core reports progress. */
export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
  /** Runs `fn` inside a collapsible group (`::group::` in the action). */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** Logger for the action: ::group::, ::warning::, ::debug:: workflow commands. */
export const actionsLogger: Logger = {
  info: (m) => core.info(m),
  warning: (m) => core.warning(m),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};

/** Logger for the CLI: plain lines on stderr; `quiet` keeps only warnings. */
export function consoleLogger(quiet = false): Logger {
  return {
    info: (m) => {
      if (!quiet) process.stderr.write(`${m}\n`);
    },
    warning: (m) => process.stderr.write(`warning: ${m}\n`),
    debug: (m) => {
      if (process.env.PG_TMPFS_DEBUG) process.stderr.write(`debug: ${m}\n`);
    },
    group: async (name, fn) => {
      if (!quiet) process.stderr.write(`${name}\n`);
      return fn();
    },
  };
}
