/**
 * Logging that works both in the action (workflow commands: src/action/log.ts) and in the CLI
 * (plain lines on stderr, so stdout stays machine-readable). Nothing here loads @actions/core:
 * the CLI's start time pays for every module it loads.
 */

/** Where the core reports progress. */
export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
  /** Runs `fn` inside a collapsible group (`::group::` in the action). */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

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
