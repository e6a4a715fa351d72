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
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type pg from 'pg';
import { connectionEnv, connectionUri, type ConnectionInfo } from './connection.js';
import { InputError } from './errors.js';
import { refusePsqlOnly, scanSql, ScanTimeout, TextIndex, type PsqlOnly, type StatementStart } from './init-sql.js';
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
  if (config.init.length === 0) return [];
  const { glob, isDynamicPattern } = await import('tinyglobby');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const entry of config.init) {
    let found: string[];
    if (isDynamicPattern(entry)) {
      const signal = AbortSignal.timeout(GLOB_TIMEOUT_MS);
      found = (
        await glob(entry, {
          cwd: config.workDir,
          absolute: true,
          onlyFiles: true,
          expandDirectories: false,
          deep: GLOB_DEPTH,
          signal,
        })
      ).sort();
      // fdir stops quietly when aborted: the matches would be partial.
      if (signal.aborted) {
        throw new InputError(
          'init',
          `"${entry}" was still walking folders after ${GLOB_TIMEOUT_MS / 1000} s (relative to ${config.workDir})`,
          'Narrow the glob to the folder of your SQL files, e.g. db/migrations/*.sql',
        );
      }
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

/** A file's name for messages: relative to `workDir` when inside it, else absolute. */
function shownPath(workDir: string, file: string): string {
  const rel = relative(workDir, file);
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

/** 1-based line and column of a 0-based character offset in `text` (code points, as the server counts). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const index = new TextIndex(text);
  return index.lineColumn(index.unit(offset));
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
function timeoutError(file: string, text: string, offset: number | null, timeoutMs: number): InputError {
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

/** Wait after ending the backend for its query to fail before closing the socket: 5000 ms. */
const DEADLINE_GRACE_MS = 5_000;

/**
 * The init files' deadline: `timeoutMs` (init-timeout) for all of them together, from its
 * creation, held by the client whatever a file sets (`SET statement_timeout = 0` included): at
 * the deadline the backend running the file is ended (pg_terminate_backend from a second
 * connection to `connection`), and DEADLINE_GRACE_MS later the client's socket is closed if its
 * query has still not failed (a server that no longer answers). The server's statement_timeout
 * (init-timeout, set at connect) can only fire later.
 */
export class InitDeadline {
  /** performance.now() ms of the deadline. */
  readonly at: number;
  /** Whether the deadline was reached (set before the query fails). */
  fired = false;
  private pid: number | null = null;

  /**
   * @param timeoutMs init-timeout, in ms
   * @param connection where a second connection ends the backend (null: only close the socket)
   */
  constructor(
    readonly timeoutMs: number,
    private readonly connection: ConnectionInfo | null,
  ) {
    this.at = performance.now() + timeoutMs;
  }

  /** Whether the deadline has passed. */
  passed(): boolean {
    if (performance.now() >= this.at) this.fired = true;
    return this.fired;
  }

  /**
   * Runs `sql` on `client` (the simple-query protocol: several statements allowed), ended at the
   * deadline as the class says.
   * @throws the query's error (after the deadline: whatever ending it gave; check `fired`)
   */
  async query(client: pg.Client, sql: string): Promise<void> {
    if (this.passed()) throw new Error('init-timeout reached');
    if (this.pid === null && this.connection) {
      this.pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? null;
    }
    let hard: NodeJS.Timeout | undefined;
    const timer = setTimeout(
      () => {
        this.fired = true;
        hard = setTimeout(() => client.connection.stream.destroy(), DEADLINE_GRACE_MS);
        void this.terminate();
      },
      Math.max(0, this.at - performance.now()),
    );
    try {
      await client.query(sql);
    } finally {
      clearTimeout(timer);
      clearTimeout(hard);
    }
  }

  /** pg_terminate_backend of the client's backend, from a second connection; errors ignored (the socket closes later). */
  private async terminate(): Promise<void> {
    if (!this.connection || this.pid === null) return;
    try {
      const other = await openClient(this.connection, { connectTimeoutMs: DEADLINE_GRACE_MS, queryTimeoutMs: DEADLINE_GRACE_MS });
      try {
        await other.query('SELECT pg_terminate_backend($1)', [this.pid]);
      } finally {
        await other.end().catch(() => undefined);
      }
    } catch {
      // The socket is closed after the grace.
    }
  }
}

/** How an init file runs: the init files' deadline and what its errors name. */
export interface InitFileOptions {
  /** The init files' deadline (absent: one of init-timeout's default, 600 s, for this file alone). */
  deadline?: InitDeadline;
  /** The tmpfs-size input (null: not given), named when the data directory fills up. */
  tmpfsSize?: string | null;
}

/**
 * Runs one init file in `client`'s database: in one transaction (BEGIN, the file as one
 * simple-query message, COMMIT), or, when its text holds `-- pg-tmpfs: no-transaction`, statement
 * by statement as psql would. Within `options.deadline`, its reading included.
 * @param label the file's name in messages
 * (The caller has refused what needs psql: loadInitFiles.)
 * @throws InputError (init) naming file:line:column and the server's message; (init-timeout)
 *   past the deadline, naming the statement under way; (tmpfs-size) when the data directory is
 *   full
 */
export async function runInitFile(client: pg.Client, label: string, text: string, options: InitFileOptions = {}): Promise<void> {
  const deadline = options.deadline ?? new InitDeadline(600_000, null);
  const marker = NO_TRANSACTION_MARKER.test(text);
  const context = { marker, tmpfsSize: options.tmpfsSize ?? null };
  /** The statements, read once (linear; stopped at the deadline). */
  const statements = async (): Promise<StatementStart[] | null> => {
    try {
      return (await scanSql(text, deadline.at)).statements;
    } catch (error) {
      if (error instanceof ScanTimeout) deadline.fired = true;
      return null;
    }
  };
  if (marker) {
    const all = await statements();
    if (all === null || deadline.passed()) throw timeoutError(label, text, all?.[0]?.offset ?? null, deadline.timeoutMs);
    for (const statement of all) {
      throwIfInterrupted();
      try {
        await deadline.query(client, statement.text);
      } catch (error) {
        if (deadline.fired) throw timeoutError(label, text, statement.offset, deadline.timeoutMs);
        const e = error as ServerError;
        throw initFileError(label, text, e, e.position ? statement.start + Number(e.position) - 1 : statement.offset, context);
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
  await transactionControl(deadline, client, 'BEGIN', label, text, context);
  client.connection.on('commandComplete', count);
  try {
    await deadline.query(client, text);
  } catch (error) {
    client.connection.off('commandComplete', count);
    const e = error as ServerError;
    const timedOut = deadline.fired;
    if (!timedOut) await client.query('ROLLBACK').catch(() => undefined);
    let offset: number | null = null;
    if (e.position && !timedOut) offset = Number(e.position) - 1;
    else {
      // Read after the deadline too: the statement under way is what the error names.
      const all = await scanSql(text).then(
        (s) => s.statements,
        () => [],
      );
      offset = all[completed]?.offset ?? null;
    }
    throw timedOut ? timeoutError(label, text, offset, deadline.timeoutMs) : initFileError(label, text, e, offset, context);
  }
  client.connection.off('commandComplete', count);
  // Deferred constraints and triggers run here: their error, or the deadline, names the file.
  await transactionControl(deadline, client, 'COMMIT', label, text, context);
}

/**
 * BEGIN or COMMIT of a plain init file under its deadline.
 * @throws InputError naming init-timeout when the deadline passed, else the file (initFileError)
 */
async function transactionControl(
  deadline: InitDeadline,
  client: pg.Client,
  sql: 'BEGIN' | 'COMMIT',
  label: string,
  text: string,
  context: Parameters<typeof initFileError>[4],
): Promise<void> {
  try {
    await deadline.query(client, sql);
  } catch (error) {
    if (deadline.fired) throw timeoutError(label, text, null, deadline.timeoutMs);
    throw initFileError(label, text, error as ServerError, null, context);
  }
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
  // What left the process group (setsid, a daemon) still carries the run's token. A process that
  // called setsid while its group was being ended is found both ways: each PID counts once.
  const escaped = runToken ? processesWithEnv(RUN_ENV, runToken).map((p) => p.pid) : [];
  if (escaped.length > 0) for (const problem of await endMarkedProcesses(runToken)) log.warning(problem);
  const ended = new Set([...result.leftoverPids, ...escaped]).size;
  if (ended > 0) {
    log.warning(
      `init-command: ${ended} process${ended > 1 ? 'es' : ''} it started still ran when it exited (e.g. a command ending in &); they were ended. Wait for them in the command (wait), or start what the tests need in a step of its own`,
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
        // init-timeout bounds the init files together, whatever they set.
        const deadline = new InitDeadline(config.initTimeoutMs, { ...server.connection, database: config.database });
        for (const file of files) {
          throwIfInterrupted();
          const f0 = performance.now();
          await runInitFile(client, file.label, file.text, { deadline, tmpfsSize: config.tmpfsSize });
          // Session state a file set (search_path as pg_dump sets it, SET ROLE) stays with it.
          await deadline.query(client, 'DISCARD ALL').catch((error: unknown) => {
            throw deadline.fired ? timeoutError(file.label, file.text, null, deadline.timeoutMs) : error;
          });
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
