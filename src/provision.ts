/**
 * What runs once the server answers, so tests find their schema: extensions, more databases, the
 * init SQL files, the init command, and the template mark (inputs `extensions`, `databases`,
 * `init`, `init-command`, `template`). Same for the action and the CLI: lifecycle.start runs it,
 * and removes the server when it fails.
 * Its parts: init-files.ts (the files, read and checked before the start), init-run.ts (one file
 * under the init files' deadline), init-errors.ts (file:line:column errors), extensions.ts,
 * init-command.ts.
 */
import type pg from 'pg';
import { connectionUri, type ConnectionInfo } from './connection.js';
import { InputError } from './errors.js';
import { createExtensions } from './extensions.js';
import { runInitCommand } from './init-command.js';
import { timeoutError, type ServerError } from './init-errors.js';
import type { InitFile } from './init-files.js';
export { loadInitFiles, type InitFile } from './init-files.js';
import { InitDeadline, runInitFile } from './init-run.js';
import type { Config } from './inputs.js';
import { throwIfInterrupted } from './interrupt.js';
import type { Logger } from './log.js';
import { openClient } from './readiness.js';
import type { Provisioned, Server } from './server.js';
import { brokenByInit } from './verify.js';

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
async function checkAfterInit(connection: ConnectionInfo, input: 'init' | 'init-command'): Promise<void> {
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
    done.databases = await createDatabases(client, server, config.databases, log);
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
      done.initFiles = await runInitFiles(client, server, config, log, files);
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

/**
 * Creates each of `names` that does not exist yet (empty, from template1).
 * @returns each name → its connection URI (credentials percent-encoded)
 * @throws InputError (databases) when the server refuses a CREATE; connection errors as they come
 */
async function createDatabases(client: pg.Client, server: Server, names: string[], log: Logger): Promise<Record<string, string>> {
  const uris: Record<string, string> = {};
  for (const name of names) {
    throwIfInterrupted();
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error: ServerError) => {
        throw error.code
          ? new InputError('databases', `CREATE DATABASE ${name} failed: ${error.message}`, 'See the server message')
          : error;
      });
    }
    uris[name] = connectionUri({ ...server.connection, database: name });
    log.info(`database ${name} created`);
  }
  return uris;
}

/**
 * Runs the init files in order in `config.database`, in a log group, under one deadline
 * (init-timeout bounds them together, whatever they set); session state a file set (search_path
 * as pg_dump sets it, SET ROLE) is discarded after it.
 * @returns their labels, in order
 * @throws as runInitFile
 */
async function runInitFiles(
  client: pg.Client,
  server: Server,
  config: Config,
  log: Logger,
  files: InitFile[],
): Promise<string[]> {
  const ran: string[] = [];
  await log.group(`Init SQL: ${files.length} file${files.length > 1 ? 's' : ''} in ${config.database}`, async () => {
    const deadline = new InitDeadline(config.initTimeoutMs, { ...server.connection, database: config.database });
    for (const file of files) {
      throwIfInterrupted();
      const f0 = performance.now();
      await runInitFile(client, file.label, file.text, { deadline, tmpfsSize: config.tmpfsSize });
      await deadline.query(client, 'DISCARD ALL').catch((error: unknown) => {
        throw deadline.fired ? timeoutError(file.label, file.text, null, deadline.timeoutMs) : error;
      });
      ran.push(file.label);
      log.info(`${file.label}: ${Math.round(performance.now() - f0)} ms`);
    }
  });
  return ran;
}
