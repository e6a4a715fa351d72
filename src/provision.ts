/**
 * What runs once the server answers, so tests find their schema: extensions, more databases, the
 * init SQL files, the init command, and the template mark (inputs `extensions`, `databases`,
 * `init`, `init-command`, `template`). Same for the action and the CLI: lifecycle.start runs it,
 * and removes the server when it fails.
 *
 * Init files go through node-postgres's simple-query protocol (several statements in one message),
 * not psql: psql meta-commands (`\copy`, `\i`, `\set`) are refused with their line, and a file that
 * needs them can run through `init-command` (psql -f …).
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type pg from 'pg';
import { connectionEnv, connectionUri, type ConnectionInfo } from './connection.js';
import { InputError } from './errors.js';
import type { Config } from './inputs.js';
import { throwIfInterrupted } from './interrupt.js';
import type { Logger } from './log.js';
import { RUN_ENV, run, tail } from './proc.js';
import { endMarkedProcesses, processesWithEnv } from './orphans.js';
import { openClient } from './readiness.js';
import type { Server } from './server.js';
import { brokenByInit } from './verify.js';

/** What provisioning did; part of the Server record (the outputs `databases`, `template-database`). */
export interface Provisioned {
  /** Each database of the `databases` input → its connection URI (credentials percent-encoded). */
  databases: Record<string, string>;
  /** The database marked as a template, or '' when `template` is false. */
  templateDatabase: string;
  /** Extensions created, in input order. */
  extensions: string[];
  /** The init files run, in order, as given relative to the working folder (absolute when outside it). */
  initFiles: string[];
  /** Wall time of all of it, in ms. */
  ms: number;
}

/** Whether a configuration asks for anything after start. */
export function wantsProvisioning(config: Config): boolean {
  return (
    config.init.length > 0 ||
    config.initCommand !== '' ||
    config.databases.length > 0 ||
    config.template ||
    config.extensions.length > 0
  );
}

/** A line marking an init file that must not run in one transaction (CREATE INDEX CONCURRENTLY, VACUUM, CREATE DATABASE). */
export const NO_TRANSACTION_MARKER = /^\s*--\s*pg-tmpfs:\s*no-transaction\b/m;

/**
 * The init files, in order: each `init` entry is a path or a glob (tinyglobby syntax) relative to
 * `config.workDir`; a glob's matches come in sorted order (001_…, 002_…), a file named twice runs once.
 * @returns absolute paths
 * @throws InputError (init) when an entry matches no file
 */
export async function resolveInitFiles(config: Pick<Config, 'init' | 'workDir'>): Promise<string[]> {
  if (config.init.length === 0) return [];
  const { glob, isDynamicPattern } = await import('tinyglobby');
  const files: string[] = [];
  for (const entry of config.init) {
    let found: string[];
    if (isDynamicPattern(entry)) {
      found = (await glob(entry, { cwd: config.workDir, absolute: true, onlyFiles: true, expandDirectories: false })).sort();
    } else {
      const path = resolve(config.workDir, entry);
      try {
        accessSync(path, constants.R_OK);
        found = statSync(path).isFile() ? [path] : [];
      } catch {
        found = [];
      }
    }
    if (found.length === 0) {
      throw new InputError(
        'init',
        `"${entry}" matches no readable file (relative to ${config.workDir})`,
        'Give SQL files or globs relative to the workspace, e.g. db/schema.sql or db/migrations/*.sql',
      );
    }
    for (const file of found) if (!files.includes(file)) files.push(file);
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
  for (const file of files) checkNotPsql(file.label, file.text);
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

/** A file's name for messages: relative to `workDir` when inside it, else absolute. */
function shownPath(workDir: string, file: string): string {
  const rel = relative(workDir, file);
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

/** 1-based line and column of a 0-based character offset in `text` (code points, as the server counts). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = Array.from(text).slice(0, offset).join('');
  const lines = before.split('\n');
  return { line: lines.length, column: Array.from(lines[lines.length - 1] ?? '').length + 1 };
}

/**
 * The lines of psql meta-commands (`\copy`, `\i`, `\set` …) in a file: lines that start with a
 * backslash. These need psql, and the server would reject them as a syntax error.
 * @returns 1-based line numbers and the command word, e.g. `{ line: 4, command: '\\copy' }`
 */
export function metaCommands(text: string): Array<{ line: number; command: string }> {
  const found: Array<{ line: number; command: string }> = [];
  text.split('\n').forEach((l, i) => {
    const m = /^\s*(\\[A-Za-z!]+)/.exec(l);
    if (m?.[1]) found.push({ line: i + 1, command: m[1] });
  });
  return found;
}

/**
 * Refuses what needs psql: meta-commands, and `COPY … FROM stdin` with its data in the file (as
 * pg_dump writes it).
 * @throws InputError (init) naming the file and line
 */
export function checkNotPsql(label: string, text: string): void {
  const meta = metaCommands(text);
  const stdin = /^\s*COPY\b[^;]*\bFROM\s+stdin\b/im.exec(text);
  const at = meta[0] ?? (stdin ? { line: text.slice(0, stdin.index).split('\n').length, command: 'COPY … FROM stdin' } : null);
  if (!at) return;
  throw new InputError(
    'init',
    `${label}:${at.line}: ${at.command} ${at.command.startsWith('\\') ? 'is a psql meta-command' : 'with the data in the file needs psql'}; init files run through a SQL client, not psql`,
    'Use plain SQL (INSERT, or COPY from a server-side file), or run the file with psql in init-command: psql -v ON_ERROR_STOP=1 -f FILE',
  );
}

/** A statement of a SQL file, positions in code points of the file (as the server counts). */
interface StatementStart {
  /** 0-based offset where `text` starts (its leading comments included). */
  start: number;
  /** 0-based offset of its first code after leading comments. */
  offset: number;
  /** 1-based line of `offset`. */
  line: number;
  /** The statement as sent, without the closing semicolon. */
  text: string;
}

/**
 * The statements of a SQL file as PostgreSQL would split them (quotes, dollar quotes, comments;
 * dbgate-query-splitter with its PostgreSQL options). Known limit: a SQL-standard function body
 * (`BEGIN ATOMIC … END`, PostgreSQL 14+) and `E'…\'…'` strings are split at their inner `;`; such
 * statements belong in a file that runs in one transaction (the default), or in psql through
 * init-command.
 * @returns the statements in order (see StatementStart)
 */
export async function splitStatements(text: string): Promise<StatementStart[]> {
  // A CommonJS package: its exports are the default export under Node's ESM and in the bundle.
  const { splitQuery, postgreSplitterOptions } = (await import('dbgate-query-splitter')).default;
  const items = splitQuery(text, { ...postgreSplitterOptions, returnRichInfo: true });
  const out: StatementStart[] = [];
  for (const item of items) {
    if (typeof item === 'string') continue;
    const begin = item.trimStart ?? item.start;
    // The splitter counts UTF-16 units; the server counts characters (code points).
    const start = Array.from(text.slice(0, begin.position)).length;
    // Leading comment lines belong to the statement; point at its first line of code.
    const skipped = /^(\s*--[^\n]*\n|\s*\/\*[\s\S]*?\*\/)*\s*/.exec(item.text)?.[0] ?? '';
    const lines = skipped.split('\n').length - 1;
    out.push({ start, offset: start + Array.from(skipped).length, line: begin.line + 1 + lines, text: item.text });
  }
  return out;
}

/** A server error as node-postgres gives it (pg's DatabaseError fields). */
interface ServerError {
  message: string;
  severity?: string;
  code?: string;
  position?: string;
  detail?: string;
  hint?: string;
  where?: string;
}

/**
 * An init file's failure as the user needs it: `file:line:column: ERROR: message`, with the
 * server's detail and hint, and the failing line quoted.
 * @param offset 0-based character offset of the failing point in `text`; null when unknown
 */
export function initFileError(file: string, text: string, error: ServerError, offset: number | null): InputError {
  const at = offset === null ? null : lineAndColumn(text, offset);
  const where = at ? `${file}:${at.line}:${at.column}` : file;
  const extra = [
    error.detail ? `DETAIL: ${error.detail.replace(/\.$/, '')}` : '',
    error.hint ? `HINT: ${error.hint.replace(/\.$/, '')}` : '',
    error.where ? `CONTEXT: ${error.where.replace(/\.$/, '')}` : '',
  ].filter(Boolean);
  const quoted = at
    ? `${at.line} | ${text.split('\n')[at.line - 1] ?? ''}\n${' '.repeat(String(at.line).length + 3 + at.column - 1)}^`
    : '';
  const failure = new InputError(
    'init',
    `${where}: ${error.severity ?? 'ERROR'}: ${error.message}${error.code ? ` (SQLSTATE ${error.code})` : ''}${extra.length ? `; ${extra.join('; ')}` : ''}`,
    'Fix the SQL in that file (nothing was kept: the server was removed)',
    quoted,
    file,
  );
  if (at) failure.location = { file, ...at };
  return failure;
}

/** An init-timeout error for a statement the server cancelled at statement_timeout (SQLSTATE 57014), else null. */
function timeoutOr(error: ServerError): InputError | null {
  if (error.code !== '57014') return null;
  return new InputError(
    'init-timeout',
    `a statement of the init files ran past the limit and was cancelled (${error.message})`,
    'Raise init-timeout, or make the statement faster',
  );
}

/**
 * Runs one init file in `client`'s database: in one transaction (BEGIN, the file as one
 * simple-query message, COMMIT), or, when its text holds `-- pg-tmpfs: no-transaction`, statement
 * by statement as psql would.
 * @param label the file's name in messages
 * (The caller has refused what needs psql: loadInitFiles.)
 * @throws InputError (init) naming file:line:column and the server's message
 */
export async function runInitFile(client: pg.Client, label: string, text: string): Promise<void> {
  if (NO_TRANSACTION_MARKER.test(text)) {
    for (const statement of await splitStatements(text)) {
      throwIfInterrupted();
      try {
        await client.query(statement.text);
      } catch (error) {
        const e = error as ServerError;
        throw (
          timeoutOr(e) ?? initFileError(label, text, e, e.position ? statement.start + Number(e.position) - 1 : statement.offset)
        );
      }
    }
    return;
  }
  // Count the statements the server completed, so an error without a position (a constraint
  // violated at run time) still names the statement that failed.
  let completed = 0;
  const count = (): void => {
    completed += 1;
  };
  await client.query('BEGIN');
  client.connection.on('commandComplete', count);
  try {
    await client.query(text);
  } catch (error) {
    client.connection.off('commandComplete', count);
    await client.query('ROLLBACK').catch(() => undefined);
    const e = error as ServerError;
    const timedOut = timeoutOr(e);
    if (timedOut) throw timedOut;
    let offset: number | null = null;
    if (e.position) offset = Number(e.position) - 1;
    else {
      const statements = await splitStatements(text).catch(() => []);
      offset = statements[completed]?.offset ?? null;
    }
    throw initFileError(label, text, e, offset);
  }
  client.connection.off('commandComplete', count);
  await client.query('COMMIT');
}

/** The extension names people write that PostgreSQL knows by another (pgvector installs `vector`). */
const EXTENSION_ALIASES: Record<string, string> = { pgvector: 'vector', postgis3: 'postgis', timescale: 'timescaledb' };

/** What provides the server's extensions, for messages: the image, or the binaries' folder. */
function extensionSource(server: Server): string {
  return server.mode === 'docker' ? `image ${server.image}` : `the PostgreSQL binaries in ${server.bindir}`;
}

/**
 * Creates each extension (CREATE EXTENSION IF NOT EXISTS … CASCADE) in the client's database,
 * after checking they are all available.
 * @throws InputError (extensions) naming what is missing, where it was looked for, and the fix,
 *   or the server's refusal (with shared_preload_libraries as the fix when it says so); the
 *   client's connection errors as they come
 */
export async function createExtensions(client: pg.Client, names: string[], server: Server): Promise<void> {
  if (names.length === 0) return;
  const available = new Set(
    (await client.query<{ name: string }>('SELECT name FROM pg_available_extensions')).rows.map((r) => r.name),
  );
  const missing = names.filter((n) => !available.has(n));
  if (missing.length > 0) {
    const renamed = missing.filter((n) => EXTENSION_ALIASES[n] && available.has(EXTENSION_ALIASES[n]));
    const major = server.serverVersion.split(/[ .]/)[0] ?? '';
    throw new InputError(
      'extensions',
      `${missing.map((n) => `"${n}"`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not available in ${extensionSource(server)}`,
      renamed.length
        ? renamed.map((n) => `The extension "${n}" is named "${EXTENSION_ALIASES[n]}": list that`).join('; ')
        : server.mode === 'docker'
          ? `Use an image that has it, e.g. pgvector/pgvector:pg${major} for vector, postgis/postgis:${major}-3.5 for postgis (input 'image'); SELECT name FROM pg_available_extensions lists what this one has`
          : `Install its package for PostgreSQL ${major} on the runner (e.g. postgresql-${major}-pgvector), or use mode: docker with an image that has it`,
    );
  }
  for (const name of names) {
    throwIfInterrupted();
    try {
      await client.query(`CREATE EXTENSION IF NOT EXISTS ${client.escapeIdentifier(name)} CASCADE`);
    } catch (error) {
      const e = error as ServerError;
      if (!e.code) throw error;
      const preload = /shared_preload_libraries/.test(`${e.message} ${e.hint ?? ''} ${e.detail ?? ''}`);
      throw new InputError(
        'extensions',
        `CREATE EXTENSION ${name} failed: ${e.message}${e.hint ? `; HINT: ${e.hint.replace(/\.$/, '')}` : ''}`,
        preload ? `Load its library at start: settings: shared_preload_libraries=${name}` : 'See the server message',
      );
    }
  }
}

/**
 * Opens a client on `database` of the server. statement_timeout, sent at connect, is the session
 * default (DISCARD ALL keeps it): the server cancels a statement past `timeoutMs`; the client's
 * query_timeout is the backstop.
 */
function connect(connection: ConnectionInfo, database: string, timeoutMs: number): Promise<pg.Client> {
  return openClient(
    { ...connection, database },
    { connectTimeoutMs: 10_000, statementTimeoutMs: timeoutMs, queryTimeoutMs: timeoutMs + 30_000 },
  );
}

/**
 * Checks that the connection the outputs give still works after `input` ran: a new session as
 * the user, with the password, on the database of the outputs, and a query answered.
 * @throws InputError naming `input` and what broke (verify.ts brokenByInit)
 */
export async function checkAfterInit(connection: ConnectionInfo, input: 'init' | 'init-command'): Promise<void> {
  let client: pg.Client | null = null;
  try {
    client = await openClient(connection, { connectTimeoutMs: 10_000, queryTimeoutMs: 10_000 });
    await client.query('SELECT 1');
  } catch (error) {
    throw brokenByInit(input, connection, error);
  } finally {
    await client?.end().catch(() => undefined);
  }
}

/**
 * Runs the init command once: `sh -c COMMAND` in `config.workDir`, with DATABASE_URL and PG* of
 * the server set, its output streamed into the log, killed after `config.initTimeoutMs`.
 * Its environment also holds RUN_ENV=`runToken` (the server's run token), which what it starts
 * inherits: a command left running by a killed start, and anything it left running, is found by
 * it and ended when the server is removed (orphans.ts).
 * It is done when `sh` exits: what it left running (`sleep 300 &`, a daemon) would otherwise hold
 * its output, and the step, until init-timeout. Those processes are ended then (its process group,
 * and what carries RUN_ENV=`runToken`), with a warning naming init-command.
 * @throws InputError (init-command) when it exits non-zero or times out, with the tail of its
 *   output; Error when `sh` cannot be started
 */
export async function runInitCommand(config: Config, connection: ConnectionInfo, log: Logger, runToken = ''): Promise<void> {
  // One line buffer per stream, so a line of stdout and one of stderr never merge.
  const pending = { stdout: '', stderr: '' };
  const flush = (stream: 'stdout' | 'stderr', chunk: string, end = false): void => {
    pending[stream] += chunk;
    const lines = pending[stream].split('\n');
    pending[stream] = end ? '' : (lines.pop() ?? '');
    for (const line of lines) if (!end || line !== '') log.info(line);
  };
  const result = await run('sh', ['-c', config.initCommand], {
    timeoutMs: config.initTimeoutMs,
    cwd: config.workDir,
    env: { ...connectionEnv(connection), ...(runToken ? { [RUN_ENV]: runToken } : {}) },
    // libpq variables that would send the command elsewhere than the server just started.
    unsetEnv: ['PGHOSTADDR', 'PGSERVICE', 'PGSERVICEFILE', 'PGOPTIONS', 'PGSSLMODE', 'PGPASSFILE', 'PGREQUIRESSL'],
    onOutput: (chunk, stream) => flush(stream, chunk),
    endGroupOnExit: true,
  });
  flush('stdout', '', true);
  flush('stderr', '', true);
  // What left the process group (setsid, a daemon) still carries the run's token.
  const escaped = runToken ? processesWithEnv(RUN_ENV, runToken).length : 0;
  if (escaped > 0) for (const problem of await endMarkedProcesses(runToken)) log.warning(problem);
  if (result.leftovers + escaped > 0) {
    log.warning(
      `init-command: ${result.leftovers + escaped} process${result.leftovers + escaped > 1 ? 'es' : ''} it started still ran when it exited (e.g. a command ending in &); they were ended. Wait for them in the command (wait), or start what the tests need in a step of its own`,
    );
  }
  if (result.code !== 0) {
    throw new InputError(
      'init-command',
      result.timedOut
        ? `did not finish within ${config.initTimeoutMs / 1000} s (init-timeout) and was killed`
        : `exited with ${result.code === null ? 'a signal' : `code ${result.code}`}: ${tail(result.stderr || result.stdout, 3)}`,
      result.timedOut
        ? 'Raise init-timeout, or make the command faster'
        : 'Fix the command; its whole output is in the log above',
    );
  }
}

/**
 * Makes the server ready for the tests (`files`: loadInitFiles, read before the start), in this order: the `databases` (empty, from template1),
 * the `extensions` (in `database` and each of them), the `init` files (in `database`), the
 * `init-command`, then the template mark (other sessions on `database` are ended, since CREATE
 * DATABASE … TEMPLATE refuses a template with sessions; manual: "Template Databases"). After the
 * init files, and after the init command, the connection the outputs give is checked (checkAfterInit).
 * @returns what was done (the server is left running)
 * @throws InputError naming the input at fault (init: file:line:column; init-timeout;
 *   init-command: its exit; init or init-command: the outputs' connection no longer works; extensions: what is missing or refused; databases: a refused CREATE);
 *   InterruptedError after a signal; connection errors as node-postgres gives them. The caller
 *   removes the server
 */
export async function provision(server: Server, config: Config, log: Logger, files: InitFile[]): Promise<Provisioned> {
  const t0 = performance.now();
  const done: Provisioned = { databases: {}, templateDatabase: '', extensions: [], initFiles: [], ms: 0 };
  const client = await connect(server.connection, config.database, config.initTimeoutMs);
  try {
    for (const name of config.databases) {
      throwIfInterrupted();
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error: ServerError) => {
          throw error.code
            ? new InputError('databases', `CREATE DATABASE ${name} failed: ${error.message}`, 'See the server message')
            : error;
        });
      }
      done.databases[name] = connectionUri({ ...server.connection, database: name });
      log.info(`database ${name} created`);
    }
    if (config.extensions.length) {
      await createExtensions(client, config.extensions, server);
      for (const name of config.databases) {
        const other = await connect(server.connection, name, config.initTimeoutMs);
        try {
          await createExtensions(other, config.extensions, server);
        } finally {
          await other.end().catch(() => undefined);
        }
      }
      done.extensions = [...config.extensions];
      log.info(`extensions created: ${config.extensions.join(', ')}`);
    }
    if (files.length) {
      await log.group(`Init SQL: ${files.length} file${files.length > 1 ? 's' : ''} in ${config.database}`, async () => {
        for (const file of files) {
          throwIfInterrupted();
          const f0 = performance.now();
          await runInitFile(client, file.label, file.text);
          // Session state a file set (search_path as pg_dump sets it, SET ROLE) stays with it.
          await client.query('DISCARD ALL');
          done.initFiles.push(file.label);
          log.info(`${file.label}: ${Math.round(performance.now() - f0)} ms`);
        }
      });
      // Its session is not the tests': a changed password or role shows only in a new one.
      await checkAfterInit(server.connection, 'init');
    }
    if (config.initCommand) {
      throwIfInterrupted();
      await log.group(`Init command: ${config.initCommand.split('\n')[0]}`, () =>
        runInitCommand(config, server.connection, log, server.token),
      );
      await checkAfterInit(server.connection, 'init-command');
    }
    if (config.template) {
      throwIfInterrupted();
      await client.query(`ALTER DATABASE ${client.escapeIdentifier(config.database)} IS_TEMPLATE true`);
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [config.database],
      );
      done.templateDatabase = config.database;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  done.ms = Math.round(performance.now() - t0);
  if (done.templateDatabase) {
    log.info(
      `template database ${done.templateDatabase} ready (${done.ms} ms of init); clone it per test: CREATE DATABASE … TEMPLATE ${done.templateDatabase} STRATEGY FILE_COPY`,
    );
  }
  return done;
}
