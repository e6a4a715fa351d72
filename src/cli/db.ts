/**
 * `pg-tmpfs db create` / `pg-tmpfs db drop`: a fresh database per test, copied from the
 * instance's template database (up --template) in milliseconds, and its removal.
 */
import type { Command } from 'commander';
import { cloneDatabase, dropDatabase } from '../databases.js';
import { giveBack, takeCopy } from '../pool/take.js';
import { InputError, SetupError } from '../errors.js';
import { describe, isAlive } from '../lifecycle.js';
import type { Server } from '../server.js';
import { checkInstanceName, readInstance } from './instances.js';
import { parseDuration } from './commands.js';
import type { Io } from './output.js';

/** Deadline of the connection and of each statement of `db create` / `db drop`: 60 000 ms. */
const DB_TIMEOUT_MS = 60_000;

/**
 * The running server of an instance, from its record.
 * @throws InputError (name) when there is no record, it cannot be read, or its start has not finished
 */
function runningServer(name: string): Server {
  checkInstanceName(name);
  const found = readInstance(name);
  if (found.kind === 'ok' && found.instance.state === 'running' && found.instance.server) return found.instance.server;
  throw new InputError(
    'name',
    found.kind === 'none'
      ? `no instance named "${name}"`
      : found.kind === 'unreadable'
        ? `the record of "${name}" cannot be read (${found.problem})`
        : `instance "${name}" is ${found.instance.state}`,
    `Start it first: pg-tmpfs up --name ${name} --database app --init schema.sql --template (or pg-tmpfs wait --name ${name})`,
  );
}

/**
 * The running server of an instance started with a pool (up --pool).
 * @throws InputError (name) as runningServer; InputError (pool) when the instance has no pool
 */
function poolServer(name: string): Server {
  const server = runningServer(name);
  if (!server.pool) {
    throw new InputError(
      'pool',
      `instance "${name}" has no pool, so there is no copy to take or give back`,
      `Start it with one: pg-tmpfs down --name ${name}, then up with --template --pool N (action input pool); or make a copy without it: pg-tmpfs db create --name ${name}`,
    );
  }
  return server;
}

/**
 * Runs `fn` against the running server of instance `name`; when it fails with anything but an
 * input or setup error (ECONNREFUSED, a connection ended), looks whether the server still runs.
 * @throws InputError (name) when the server is gone: the instance is dead, restart it; else what `fn` throws
 */
async function onServer<T>(name: string, server: Server, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof InputError || error instanceof SetupError || (await isAlive(server).catch(() => true))) throw error;
    throw new InputError(
      'name',
      `instance "${name}" is dead: its PostgreSQL (${describe(server)}) no longer runs (${(error as Error).message || String(error)})`,
      `Restart it: pg-tmpfs down --name ${name}, then pg-tmpfs up --name ${name} with the flags it was started with`,
    );
  }
}

/** Adds `db create`, `db drop`, `db take` and `db give-back` to the program. */
export function addDbCommands(cli: Command, io: Io): void {
  const db = cli.command('db').description("per-test databases: copies of the instance's template database");
  db.command('create')
    .description('create a fresh database copied from the template and print its URI')
    .option('--from <template>', 'database to copy (default: the one up --template marked, else template1)')
    .option('--db-name <database>', 'name of the new database (default: <template>_<12 hex>)')
    .option('--name <name>', 'instance name', 'default')
    .option('--json', 'print JSON: database, uri, template, strategy, ms')
    .action(async (opts: { from?: string; dbName?: string; name: string; json?: boolean }) => {
      const server = runningServer(opts.name);
      const template = opts.from ?? (server.provisioned?.templateDatabase || 'template1');
      const made = await onServer(opts.name, server, () =>
        cloneDatabase(server.connection, {
          template,
          name: opts.dbName,
          tmpfs: server.tmpfs,
          timeoutMs: DB_TIMEOUT_MS,
        }),
      );
      io.stdout(opts.json ? `${JSON.stringify(made, null, 2)}\n` : `${made.uri}\n`);
    });
  db.command('drop')
    .description(
      'drop a database made by db create or init (its sessions are ended; a template is made an ordinary database first)',
    )
    .argument('<database>', 'the database to drop')
    .option('--name <name>', 'instance name', 'default')
    .option('--json', 'print JSON: database, dropped')
    .action(async (database: string, opts: { name: string; json?: boolean }) => {
      const server = runningServer(opts.name);
      const protect = [server.connection.database, server.provisioned?.templateDatabase ?? ''].filter(Boolean);
      const dropped = await onServer(opts.name, server, () =>
        dropDatabase(server.connection, database, { protect, timeoutMs: DB_TIMEOUT_MS }),
      );
      if (opts.json) io.stdout(`${JSON.stringify({ database, dropped }, null, 2)}\n`);
      else io.stderr(dropped ? `Dropped ${database}.\n` : `No database ${database}.\n`);
    });
  db.command('take')
    .description('take a ready copy of the template from the pool (up --pool) and print its URI; give it back when done')
    .option('--timeout <duration>', 'how long to wait when every copy is taken: seconds (30, 30s) or ms (500ms)', '10s')
    .option('--name <name>', 'instance name', 'default')
    .option('--json', 'print JSON: database, uri')
    .action(async (opts: { timeout: string; name: string; json?: boolean }) => {
      const timeoutMs = parseDuration('timeout', opts.timeout, 0, 600_000);
      const server = poolServer(opts.name);
      const taken = await onServer(opts.name, server, () => takeCopy(server.connection, timeoutMs));
      io.stdout(opts.json ? `${JSON.stringify(taken, null, 2)}\n` : `${taken.uri}\n`);
    });
  db.command('give-back')
    .description('give a copy taken with db take back to the pool; the keeper drops it')
    .argument('<database>', "the name db take printed (the URI's database)")
    .option('--name <name>', 'instance name', 'default')
    .action(async (database: string, opts: { name: string }) => {
      const server = poolServer(opts.name);
      await onServer(opts.name, server, () => giveBack(server.connection, database));
      io.stderr(`Gave back ${database}.\n`);
    });
}
