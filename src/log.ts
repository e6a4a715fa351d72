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

/**
 * Logger for the CLI: plain lines on stderr (or `write`); `quiet` keeps only warnings;
 * debug lines only when PG_TMPFS_DEBUG is set.
 */
export function consoleLogger(quiet = false, write: (text: string) => void = (t) => process.stderr.write(t)): Logger {
  return {
    info: (m) => {
      if (!quiet) write(`${m}\n`);
    },
    warning: (m) => write(`warning: ${m}\n`),
    debug: (m) => {
      if (process.env.PG_TMPFS_DEBUG) write(`debug: ${m}\n`);
    },
    group: async (name, fn) => {
      if (!quiet) write(`${name}\n`);
      return fn();
    },
  };
}
