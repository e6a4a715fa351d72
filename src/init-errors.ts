/**
 * An init file's failure as the user needs it: `file:line:column` of the failing point (the
 * server's code-point offsets mapped through init-sql.ts TextIndex), the line quoted with a caret,
 * the server's message, and the input to change.
 */
import { InputError } from './errors.js';
import { TextIndex } from './init-sql.js';

/** 1-based line and column of a 0-based character offset in `text` (code points, as the server counts). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const index = new TextIndex(text);
  return index.lineColumn(index.unit(offset));
}

/** A server error as node-postgres gives it (pg's DatabaseError fields). */
export interface ServerError {
  message: string;
  severity?: string;
  code?: string;
  position?: string;
  detail?: string;
  hint?: string;
  where?: string;
}

/** `file:line:column` of `offset` in `text`, the failing line quoted with a caret, and the location. */
function failingPoint(
  file: string,
  text: string,
  offset: number | null,
): { where: string; quoted: string; at: { line: number; column: number } | null } {
  if (offset === null) return { where: file, quoted: '', at: null };
  const index = new TextIndex(text);
  const at = index.lineColumn(index.unit(offset));
  const quoted = `${at.line} | ${index.lineText(at.line)}\n${' '.repeat(String(at.line).length + 3 + at.column - 1)}^`;
  return { where: `${file}:${at.line}:${at.column}`, quoted, at };
}

/**
 * An init file's failure as the user needs it: `file:line:column: ERROR: message`, with the
 * server's detail and hint, and the failing line quoted. Two server errors name another input:
 * a full disk (SQLSTATE 53100, `No space left on device`) names `tmpfs-size`, and a command that
 * cannot run in a transaction (SQLSTATE 25001: CREATE DATABASE, VACUUM, CREATE INDEX
 * CONCURRENTLY) in a file without the no-transaction marker names the marker line to add.
 * @param offset 0-based character offset of the failing point in `text`; null when unknown
 * @param context the file's mode (marker: it has the no-transaction line) and tmpfs-size
 *   (null: not given), for those two errors
 */
export function initFileError(
  file: string,
  text: string,
  error: ServerError,
  offset: number | null,
  context: { marker?: boolean; tmpfsSize?: string | null } = {},
): InputError {
  const { where, quoted, at } = failingPoint(file, text, offset);
  const extra = [
    error.detail ? `DETAIL: ${error.detail.replace(/\.$/, '')}` : '',
    error.hint ? `HINT: ${error.hint.replace(/\.$/, '')}` : '',
    error.where ? `CONTEXT: ${error.where.replace(/\.$/, '')}` : '',
  ].filter(Boolean);
  const problem = `${where}: ${error.severity ?? 'ERROR'}: ${error.message}${error.code ? ` (SQLSTATE ${error.code})` : ''}${extra.length ? `; ${extra.join('; ')}` : ''}`;
  let failure: InputError;
  if (error.code === '53100' || /no space left on device/i.test(error.message)) {
    const size = context.tmpfsSize ?? null;
    failure = new InputError(
      'tmpfs-size',
      `${problem}; the data directory's RAM folder is full (${size ? `tmpfs-size ${size}` : 'tmpfs-size not given: the kernel default'})`,
      size
        ? `Raise tmpfs-size above ${size} (the data of the init files must fit in it), or load less data`
        : 'Load less data, or free memory on the machine (the folder is a tmpfs of the kernel default size)',
      quoted,
      file,
    );
  } else if (error.code === '25001' && !context.marker) {
    failure = new InputError(
      'init',
      problem,
      `Add the line "-- pg-tmpfs: no-transaction" to ${file}: it then runs statement by statement, outside a transaction, as psql would (nothing was kept: the server was removed)`,
      quoted,
      file,
    );
  } else {
    failure = new InputError(
      'init',
      problem,
      'Fix the SQL in that file (nothing was kept: the server was removed)',
      quoted,
      file,
    );
  }
  if (at) failure.location = { file, ...at };
  return failure;
}

/**
 * The error for a file that ran past the init files' deadline (InitDeadline), at `offset` (the
 * statement under way) in `text`.
 */
export function timeoutError(file: string, text: string, offset: number | null, timeoutMs: number): InputError {
  const { where, quoted, at } = failingPoint(file, text, offset);
  const failure = new InputError(
    'init-timeout',
    `${where}: the init files ran past init-timeout (${timeoutMs / 1000} s, for all of them together) and this statement was ended`,
    'Raise init-timeout, or make the statement faster (a statement_timeout the file sets does not lift this limit)',
    quoted,
    file,
  );
  if (at) failure.location = { file, ...at };
  return failure;
}
