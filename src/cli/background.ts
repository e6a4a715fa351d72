/**
 * `pg-tmpfs up --no-wait` and `pg-tmpfs wait` (issue #12): `up` takes the name, plans the
 * connection, launches `dist/cli.js --pg-tmpfs-background` detached (background.ts) and prints
 * the connection at once; the background process starts the server, keeping the instance record
 * up to date (it owns the record from the launch on), and writes what it prints to
 * `<state>/<name>.log`. `wait` shows that log and prints the connection once the server answers,
 * or fails with the error the start met.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { backgroundDeadline, errorFrom, launchBackground, readJob } from '../background.js';
import { entryPath } from '../launch.js';
import { connectionUri } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { planStart } from '../lifecycle.js';
import { consoleLogger, type Logger } from '../log.js';
import type { Server } from '../server.js';
import {
  checkInstanceName,
  cliContainerName,
  forgetInstance,
  logFile,
  readInstance,
  saveInstance,
  type Instance,
} from './instances.js';
import { ownerAlive } from './instance-name.js';
import { formatError, upJson, type Io } from './output.js';
import { guardedStart } from '../start-guard.js';
import { launchKeep } from '../native/source/npm/keep.js';
import { exportLines } from './shell.js';

/** Pause between looks at the record while waiting, in ms (10). */
const WAIT_INTERVAL_MS = 10;

/**
 * `up --no-wait`: with the name taken (`record`, state `starting`), plans the connection,
 * launches the background start (the record then names it as owner) and prints the connection
 * (export lines, or JSON with `state: "starting"`).
 * @throws InputError / SetupError from planning or launching; the record is removed then
 */
export async function upInBackground(record: Instance, config: Config, json: boolean, io: Io, log: Logger): Promise<void> {
  const startedAtMs = Date.now() - Math.round(performance.now());
  const name = record.name;
  const file = logFile(name);
  let pid: number;
  let planned: Awaited<ReturnType<typeof planStart>>;
  try {
    planned = await planStart(config, log);
    const connection = planned.connection;
    const mine: Instance = { ...record, log: file };
    pid = await launchBackground(
      entryPath('cli'),
      { config: planned.config, connection, startedAtMs, extra: { record: mine } },
      file,
      process.env,
      (childPid) => saveInstance({ ...mine, ownerPid: childPid }),
    );
  } catch (error) {
    forgetInstance(name);
    throw error;
  }
  const connection = planned.connection;
  if (json) {
    const mode = planned.config.mode;
    io.stdout(
      `${JSON.stringify({ name, state: 'starting', pid, log: file, mode, connectionUri: connectionUri(connection), ...connection }, null, 2)}\n`,
    );
  } else {
    io.stdout(`${exportLines(connection)}\n`);
  }
  log.info(
    `# PostgreSQL is starting in the background (pid ${pid}). Wait for it: pg-tmpfs wait --name ${name}; its log: ${file}`,
  );
}

/**
 * The background process of `up --no-wait` (dist/cli.js --pg-tmpfs-background): reads its job,
 * starts the server with the record updated as `up` does, and leaves the record `running`, or
 * `failed` with the error (what it made removed). Interrupted (`down` sends SIGTERM), it removes
 * what it made and leaves the record `failed`, saying which signal stopped it.
 * @returns the exit code: 0 when the server runs, 1 when the start failed
 */
export async function cliBackgroundChild(): Promise<number> {
  const job = await readJob<{ record: Instance }>();
  const record: Instance = { ...job.extra.record, ownerPid: process.pid };
  const log = consoleLogger(false, (text) => process.stderr.write(text));
  try {
    const server = await guardedStart(
      job.config,
      log,
      {
        saveHandle: (handle) => {
          record.handle = handle;
          saveInstance(record);
        },
        saveServer: (server) => {
          log.info(
            `PostgreSQL ${server.serverVersion} ready in ${Date.now() - job.startedAtMs} ms after up began; PGDATA on ${server.filesystem}`,
          );
          saveInstance({ ...record, state: 'running', handle: server, server, readyAtMs: Date.now() });
        },
        // The record stays, `failed` with why: `wait` gives that error (not "no instance"), and
        // `down` or the next `up` removes it.
        saveFailure: ({ error, record: failure, interrupted, left }) => {
          if (!interrupted) process.stderr.write(formatError(error));
          saveInstance({ ...record, state: 'failed', handle: left ? left.handle : null, error: failure });
        },
        interruptedError: (signal) =>
          new SetupError(
            `it was stopped by ${signal} before it finished (pg-tmpfs down sends SIGTERM; so may a CI job's cancellation)`,
            `Start it again: pg-tmpfs up --name ${record.name} --no-wait`,
          ),
      },
      { planned: job.connection, sweepName: cliContainerName(record.name) },
    );
    // Reported ready: a build taken into RAM is kept on disk now (npm-keep.ts).
    launchKeep(server, () => entryPath('cli'), log);
    return 0;
  } catch {
    return 1;
  }
}

/** The background log of an instance, '' when there is none. */
function readLog(instance: Instance): string {
  try {
    return instance.log ? readFileSync(instance.log, 'utf8') : '';
  } catch {
    return '';
  }
}

/**
 * `pg-tmpfs wait`: waits until instance `name` runs (its background start ended), shows the
 * start's log on stderr, and prints the connection as `up` does. A failed start's record stays
 * after its error is printed: every waiter gets the same failure until `down` (or the next `up`
 * of that name) removes it.
 * Long because it is one loop over the record's states, each with its own answer.
 * @param timeoutMs how long to wait at most; default: the start's own deadline
 * @throws InputError (name) when there is no such instance; SetupError when its start failed,
 *   was killed, or did not end in time
 */
export async function waitCommand(name: string, opts: { json?: boolean; timeoutMs?: number }, io: Io): Promise<void> {
  checkInstanceName(name);
  const t0 = Date.now();
  let shownWaiting = false;
  for (;;) {
    const found = readInstance(name);
    if (found.kind === 'none') {
      throw new InputError(
        'name',
        `there is no instance named "${name}"`,
        'Start one with `pg-tmpfs up --no-wait`, or give its --name',
      );
    }
    if (found.kind === 'unreadable') {
      throw new SetupError(
        `The record of "${name}" (${found.file}) cannot be read: ${found.problem}`,
        `Run pg-tmpfs down --name ${name}`,
      );
    }
    const instance = found.instance;
    if (instance.state === 'running' && instance.server) {
      io.stderr(readLog(instance));
      const server: Server = instance.server;
      if (opts.json) {
        const startupMs = instance.readyAtMs ? instance.readyAtMs - Date.parse(instance.startedAt) : server.startupMs;
        io.stdout(`${JSON.stringify({ ...upJson(name, server), startupMs, waitedMs: Date.now() - t0 }, null, 2)}\n`);
      } else {
        io.stdout(`${exportLines(server.connection)}\n`);
      }
      return;
    }
    if (instance.state === 'failed') {
      io.stderr(readLog(instance));
      // The record stays (every later `wait` gives the same failure) until `down` or the next
      // `up` of this name removes it.
      throw new SetupError(
        `The background start of "${name}" failed${
          instance.error
            ? `: ${formatError(errorFrom(instance.error))
                .replace(/^error: /, '')
                .trim()}`
            : ''
        }`,
        instance.handle
          ? `Run pg-tmpfs down --name ${name} to remove what it left, then fix what it names`
          : `Fix what it names and run pg-tmpfs up --name ${name} again (or pg-tmpfs down --name ${name} to forget it)`,
      );
    }
    if (!ownerAlive(instance)) {
      const again = readInstance(name);
      if (again.kind === 'ok' && again.instance.state === 'starting') {
        io.stderr(readLog(instance));
        throw new SetupError(
          `The start of "${name}" was killed before it finished`,
          `Run pg-tmpfs down --name ${name} to remove what it left`,
        );
      }
      continue;
    }
    const deadline =
      opts.timeoutMs !== undefined
        ? t0 + opts.timeoutMs
        : backgroundDeadline({ waitTimeoutMs: 3_600_000 }, Date.parse(instance.startedAt));
    if (Date.now() >= deadline) {
      throw new SetupError(
        `"${name}" did not finish starting within ${Math.round((Date.now() - t0) / 1000)} s`,
        `Look at its log (${instance.log ?? 'none'}); pg-tmpfs down --name ${name} stops it`,
      );
    }
    if (!shownWaiting) {
      shownWaiting = true;
      io.stderr(`Waiting for "${name}" (background start, pid ${instance.ownerPid})…\n`);
    }
    await sleep(WAIT_INTERVAL_MS);
  }
}
