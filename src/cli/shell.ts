/**
 * Shell lines the CLI prints: `export NAME='value'` for POSIX sh (bash, zsh, dash), so that
 * `eval "$(pg-tmpfs up)"` sets the connection in the calling shell.
 */
import { connectionEnv, type ConnectionInfo } from '../connection.js';

/** Quotes a value for POSIX sh: single quotes, with each ' written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `export NAME='value'` lines (POSIX sh) for DATABASE_URL and PG*, one per line. */
export function exportLines(c: ConnectionInfo): string {
  return Object.entries(connectionEnv(c))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
    .join('\n');
}
