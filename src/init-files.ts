/**
 * The init files before anything starts: the `init` entries resolved to files (paths and globs),
 * read as UTF-8 text, and refused when they need psql (meta-commands, `COPY … FROM stdin` with
 * its data): init files go through node-postgres's simple-query protocol, not psql, and a file
 * that needs psql can run through `init-command` (psql -f …).
 */
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { InputError } from './errors.js';
import { refusePsqlOnly, scanSql, type PsqlOnly, type StatementStart } from './init-sql.js';
import type { Config } from './inputs.js';

/** Folder levels an `init` glob walks at most: 32 (fdir also stops at a symlink back into the walk). */
const GLOB_DEPTH = 32;
/** Time an `init` glob may walk folders: 30 000 ms. */
const GLOB_TIMEOUT_MS = 30_000;

/**
 * The init files, in order: each `init` entry is a path or a glob (tinyglobby syntax) relative to
 * `config.workDir`; a glob's matches come in sorted order (001_…, 002_…), a file named twice runs
 * once, also through a symbolic link (to it, or to a folder above it): files are told apart by
 * their real path, and the first name wins. A glob walks at most GLOB_DEPTH levels, for at most
 * GLOB_TIMEOUT_MS.
 * @returns absolute paths
 * @throws InputError (init) when an entry matches no file, or its walk passes GLOB_TIMEOUT_MS
 */
export async function resolveInitFiles(config: Pick<Config, 'init' | 'workDir'>): Promise<string[]> {
  return resolveFiles(config.init, config.workDir, 'init');
}

/** Whether `path` is a folder (false when it cannot be read). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What a list input of files is for, in its error's fix. */
const FILES_FIX: Record<'init' | 'schema-cache-files', string> = {
  init: 'Give SQL files or globs relative to the workspace, e.g. db/schema.sql or db/migrations/*.sql',
  'schema-cache-files':
    'Give the files that shape the schema, relative to the workspace, e.g. db/migrations/** or package-lock.json',
};

/**
 * Resolves a list input of paths and globs as resolveInitFiles describes (sorted matches per
 * entry, each real file once, GLOB_DEPTH and GLOB_TIMEOUT_MS).
 * @param input the input named in errors
 * @returns absolute paths, in entry order
 * @throws InputError (`input`) when an entry matches no file, or its walk passes GLOB_TIMEOUT_MS
 */
export async function resolveFiles(
  entries: readonly string[],
  workDir: string,
  input: 'init' | 'schema-cache-files',
): Promise<string[]> {
  const config = { workDir };
  if (entries.length === 0) return [];
  const { glob, isDynamicPattern } = await import('tinyglobby');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    let found: string[];
    const path = resolve(config.workDir, entry);
    // In schema-cache-files a folder stands for every file below it (as in the GitLab component).
    const folder = input === 'schema-cache-files' && !isDynamicPattern(entry) && isFolder(path);
    if (isDynamicPattern(entry) || folder) {
      const signal = AbortSignal.timeout(GLOB_TIMEOUT_MS);
      found = (
        await glob(folder ? '**' : entry, {
          cwd: folder ? path : config.workDir,
          absolute: true,
          onlyFiles: true,
          expandDirectories: false,
          deep: GLOB_DEPTH,
          // A dotfile shapes a schema as any other file (.env.test, prisma/.env, .sequelizerc).
          dot: input === 'schema-cache-files',
          signal,
        })
      ).sort();
      // fdir stops quietly when aborted: the matches would be partial.
      if (signal.aborted) {
        throw new InputError(
          input,
          `"${entry}" was still walking folders after ${GLOB_TIMEOUT_MS / 1000} s (relative to ${config.workDir})`,
          input === 'init'
            ? 'Narrow the glob to the folder of your SQL files, e.g. db/migrations/*.sql'
            : 'Narrow the glob to the folders that shape the schema',
        );
      }
    } else {
      try {
        accessSync(path, constants.R_OK);
        found = statSync(path).isFile() ? [path] : [];
      } catch {
        found = [];
      }
    }
    if (found.length === 0) {
      throw new InputError(input, `"${entry}" matches no readable file (relative to ${config.workDir})`, FILES_FIX[input]);
    }
    for (const file of found) {
      let real: string;
      try {
        real = realpathSync(file);
      } catch {
        real = file; // gone since the walk: reading it fails, naming it
      }
      if (seen.has(real)) continue;
      seen.add(real);
      files.push(file);
    }
  }
  return files;
}

/** An init file, read. */
export interface InitFile {
  /** Its name in messages: relative to the working folder when inside it, else absolute. */
  label: string;
  /** Its SQL. */
  text: string;
}

/**
 * The init files (resolveInitFiles), read and checked before anything starts: what needs psql is
 * refused (checkNotPsql).
 * @throws InputError (init) as resolveInitFiles and checkNotPsql do
 */
export async function loadInitFiles(config: Pick<Config, 'init' | 'workDir'>): Promise<InitFile[]> {
  const files = (await resolveInitFiles(config)).map((file) => {
    const label = shownPath(config.workDir, file);
    return { label, text: initText(label, readFileSync(file)) };
  });
  for (const file of files) await checkNotPsql(file.label, file.text);
  return files;
}

/**
 * An init file's text: UTF-8 without a leading byte order mark (psql skips it too).
 * @throws InputError (init) when it holds a NUL byte (a binary file: the server's protocol
 *   cannot carry it) or is not valid UTF-8
 */
export function initText(label: string, bytes: Buffer): string {
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new InputError('init', `${label} is not a text file (a NUL byte at offset ${nul})`, 'Give SQL files only');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError('init', `${label} is not valid UTF-8`, 'Save it as UTF-8 (the databases are UTF8)');
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** A file's name for messages and keys: relative to `workDir` when inside it, else absolute. */
export function shownPath(workDir: string, file: string): string {
  const rel = relative(workDir, file);
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

/**
 * The psql meta-commands (`\copy`, `\i`, `\set` …) in a file: backslash commands outside strings,
 * comments and dollar quotes (scanSql). These need psql, and the server would reject them as a
 * syntax error.
 * @returns 1-based line numbers and the command word, e.g. `{ line: 4, command: '\\copy' }`
 */
export async function metaCommands(text: string): Promise<PsqlOnly[]> {
  return (await scanSql(text)).meta;
}

/**
 * Refuses what needs psql: meta-commands, and `COPY … FROM stdin` with its data in the file (as
 * pg_dump writes it); in strings, comments and dollar quotes they are SQL's (scanSql).
 * @throws InputError (init) naming the file and line
 */
export async function checkNotPsql(label: string, text: string): Promise<void> {
  refusePsqlOnly(label, await scanSql(text));
}

/**
 * The statements of a SQL file as PostgreSQL would split them (quotes, `E'…'` strings, dollar
 * quotes, nested comments; scanSql, in linear time). Known limit: a SQL-standard function body
 * (`BEGIN ATOMIC … END`, PostgreSQL 14+) is split at its inner `;`; such statements belong in a
 * file that runs in one transaction (the default), or in psql through init-command.
 * @returns the statements in order (see StatementStart)
 */
export async function splitStatements(text: string): Promise<StatementStart[]> {
  return (await scanSql(text)).statements;
}
