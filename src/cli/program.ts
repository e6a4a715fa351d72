/**
 * pg-tmpfs: the command-line tool on the action's core.
 *   pg-tmpfs up [options]     start PostgreSQL; print `export` lines (or JSON with --json)
 *   pg-tmpfs down [--name N]  stop it and remove everything it made
 *   pg-tmpfs status           list running instances as JSON
 *   pg-tmpfs db create|drop   a fresh copy of the template database per test, and its removal
 * Options of `up` are the action's inputs, as flags of the same names.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { connectionUri } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import { DEFAULTS, parseInputs, type InputName } from '../inputs.js';
import { cleanupOnInterrupt } from '../interrupt.js';
import { isAlive, start, stop, sweepLeftovers } from '../lifecycle.js';
import { consoleLogger, type Logger } from '../log.js';
import { processAlive } from '../proc.js';
import type { Server, ServerHandle } from '../server.js';
import {
  checkInstanceName,
  claimInstance,
  forgetInstance,
  listInstances,
  prepareStateDir,
  readInstance,
  saveInstance,
  cliContainerName,
  withTakeover,
  removeStaleTemps,
  type Instance,
} from './instances.js';
import { exportLines } from './shell.js';
import { upInBackground, waitCommand } from './background.js';
import { addDbCommands } from './db.js';
import { backgroundAlive, stopBackground } from '../background.js';
import { Phases } from '../timing.js';
import { VERSION } from '../version.js';

/** Where the program writes: stdout for results (export lines, JSON), stderr for everything else. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own streams. */
export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Flags of `up`: every action input, with the CLI's defaults (port 0: a free port). */
const UP_FLAGS: Array<[InputName, string]> = [
  ['mode', 'docker, native, or auto (native when the binaries are installed and no image is given)'],
  ['postgres-version', 'PostgreSQL major version; empty: newest installed (native) or newest image (docker)'],
  ['image', 'image to run instead of postgres:<version>'],
  ['registry', 'registry (and path) to pull the default image from, e.g. mirror.gcr.io/library'],
  ['port', 'host port; 0 picks a free one'],
  ['publish-host', 'host address to publish on'],
  ['user', 'superuser name'],
  ['password', 'superuser password (shows in ps: prefer $PGPASSWORD or --password-file)'],
  ['database', 'database to create'],
  ['tmpfs-size', 'tmpfs size for PGDATA (e.g. 1g); empty: kernel default'],
  ['shm-size', '/dev/shm size'],
  ['settings', 'extra settings, name=value per line (repeat --setting instead for one each)'],
  ['wait-timeout', 'seconds to wait for the first answered query'],
  ['locale', 'initdb locale (native mode)'],
  ['cache-dir', 'initdb cache folder (native mode)'],
  ['init-command', 'shell command run once after --init, with DATABASE_URL and PG* set (migrations)'],
  ['init-timeout', 'seconds each init statement, and the init command, may take'],
];

/** Flags of `up` that may be repeated; their values join into the input's lines. */
const LIST_FLAGS: Array<[InputName, string, string]> = [
  ['init', '<file>', 'SQL file or glob run in --database after start, each in one transaction (repeatable)'],
  ['databases', '<names>', 'more databases to create, comma-separated (repeatable); a name cannot hold spaces'],
  ['extensions', '<names>', 'extensions to create, comma-separated, e.g. pg_trgm,vector (repeatable)'],
];

/** CLI defaults that differ from the action's. */
const CLI_DEFAULTS: Partial<Record<InputName, string>> = { port: '0' };

/** The error as the CLI prints it: `error: --INPUT: problem. fix`, the server log first when there is one. */
export function formatError(error: unknown): string {
  if (error instanceof InputError) {
    return `${error.detail ? `--- ${error.detailTitle} ---\n${error.detail}\n---\n` : ''}error: --${error.input}: ${error.problem}. ${error.fix}\n`;
  }
  if (error instanceof SetupError) {
    return `${error.detail ? `--- server log ---\n${error.detail}\n---\n` : ''}error: ${error.message}\n`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}\n`;
}

/** What `up --json` prints: the connection, its URI, and what was measured. */
export function upJson(name: string, server: Server): Record<string, unknown> {
  return {
    name,
    mode: server.mode,
    connectionUri: connectionUri(server.connection),
    ...server.connection,
    containerId: server.mode === 'docker' ? server.containerId : undefined,
    serverVersion: server.serverVersion,
    dataDirectory: server.dataDirectory,
    filesystem: server.filesystem,
    tmpfs: server.tmpfs,
    socketDirectory: server.mode === 'native' ? server.socketDirectory : undefined,
    cacheHit: server.mode === 'native' ? server.cacheHit : undefined,
    startupMs: server.startupMs,
    pullMs: server.mode === 'docker' ? server.pullMs : undefined,
    settings: server.settings,
    databases: server.provisioned?.databases ?? {},
    templateDatabase: server.provisioned?.templateDatabase || undefined,
  };
}

type UpOptions = Record<string, string | string[] | boolean | undefined>;

/**
 * The password for `up`: --password, else --password-file (its first line), else $PGPASSWORD,
 * else the default. A flag shows in `ps`; the file and the environment do not.
 * @throws InputError (password-file) when the file cannot be read
 */
export function cliPassword(opts: UpOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (typeof opts.password === 'string') return opts.password;
  if (typeof opts.passwordFile === 'string') {
    try {
      return readFileSync(opts.passwordFile, 'utf8').split(/\r?\n/)[0] ?? '';
    } catch (error) {
      throw new InputError(
        'password-file',
        `${opts.passwordFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        'Give a readable file whose first line is the password',
      );
    }
  }
  return env.PGPASSWORD ?? '';
}

/**
 * Whether the process that owns an instance's start still runs: its `up`, or for `up --no-wait`
 * its background process (background.ts backgroundAlive: not a zombie, not a reused PID).
 */
export function ownerAlive(instance: Instance): boolean {
  return instance.log ? backgroundAlive(instance.ownerPid) : processAlive(instance.ownerPid);
}

/**
 * @throws InputError (name) when another `up` is starting this instance now (its record says
 *   `starting` and the process that wrote it runs)
 */
function throwIfStarting(instance: Instance, fix: string): void {
  if (instance.state === 'starting' && instance.ownerPid !== process.pid && ownerAlive(instance)) {
    throw new InputError('name', `instance "${instance.name}" is being started by process ${instance.ownerPid}`, fix);
  }
}

/**
 * Takes the instance name: creates its record (the lock). A record left by a run that was killed,
 * or whose server died, is cleaned up first (its server removed), and said so.
 * @throws InputError (name) when the instance runs, is being started, or its record cannot be read
 */
async function takeName(name: string, log: Logger): Promise<Instance> {
  prepareStateDir();
  const mine: Instance = {
    name,
    state: 'starting',
    ownerPid: process.pid,
    startedAt: new Date().toISOString(),
    handle: null,
    server: null,
  };
  removeStaleTemps(name);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (claimInstance(mine)) return mine;
    const found = readInstance(name);
    if (found.kind === 'none') continue;
    if (found.kind === 'unreadable') {
      throw new InputError(
        'name',
        `the record of instance "${name}" (${found.file}) cannot be read: ${found.problem}`,
        `Run \`pg-tmpfs down --name ${name}\` (it removes what runs under that name and the record), or pick another --name`,
      );
    }
    const old = found.instance;
    throwIfStarting(old, `Wait for it (pg-tmpfs wait --name ${name}), or pick another --name`);
    const handle = old.server ?? old.handle;
    if (old.state === 'running' && handle && (await isAlive(handle))) {
      throw new InputError(
        'name',
        `an instance named "${name}" is already running`,
        `Run \`pg-tmpfs down --name ${name}\` first, or pick another --name.`,
      );
    }
    // One run at a time removes a stale record, and only the record it read: another `up` may
    // have replaced it since.
    const took = await withTakeover(name, async () => {
      const again = readInstance(name);
      if (again.kind !== 'ok' || again.instance.ownerPid !== old.ownerPid || again.instance.startedAt !== old.startedAt) return;
      log.warning(
        `Instance "${name}" was left behind (${old.state === 'starting' ? 'its start was killed' : old.state === 'failed' ? 'its background start failed' : 'its server is gone'}): removing it`,
      );
      await removeInstance(name, handle);
    });
    if (!took)
      throw new InputError('name', `another run is removing what instance "${name}" left behind`, 'Try again in a moment');
  }
  throw new SetupError(`Could not take the instance name "${name}": its record keeps changing`, 'Try again');
}

/**
 * Removes what an instance made (its handle, and anything else run under its container name) and
 * its record.
 * @throws SetupError listing what could not be removed (the record is kept then)
 */
export async function removeInstance(name: string, handle: ServerHandle | null): Promise<string[]> {
  const problems = handle ? await stop(handle) : [];
  const swept = await sweepLeftovers(cliContainerName(name));
  problems.push(...swept.problems);
  if (problems.length > 0) {
    throw new SetupError(
      `Could not remove everything of "${name}": ${problems.join('; ')}`,
      `Fix what is named, then run \`pg-tmpfs down --name ${name}\` again`,
    );
  }
  forgetInstance(name);
  return swept.removed;
}

async function up(opts: UpOptions, io: Io): Promise<void> {
  const phases = new Phases(0);
  phases.end('node start and module load');
  const name = checkInstanceName(String(opts.name));
  const settingLines = [
    ...(typeof opts.settings === 'string' ? [opts.settings] : []),
    ...((opts.setting as string[] | undefined) ?? []),
  ].join('\n');
  const password = cliPassword(opts);
  const config = parseInputs((input) => {
    if (input === 'settings') return settingLines;
    if (input === 'container-name') return cliContainerName(name);
    if (input === 'export-env') return 'false';
    if (input === 'password') return password;
    if (input === 'wait') return opts.wait === false ? 'false' : 'true';
    if (input === 'template') return opts.template === true ? 'true' : 'false';
    if (LIST_FLAGS.some(([flag]) => flag === input)) return ((opts[input] as string[] | undefined) ?? []).join('\n');
    const key = input.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const value = opts[key];
    return typeof value === 'string' ? value : (CLI_DEFAULTS[input] ?? '');
  });
  const log = consoleLogger(Boolean(opts.quiet), io.stderr);
  phases.end('inputs');
  const record = await takeName(name, log);
  phases.end('instance record');
  if (opts.wait === false) return upInBackground(record, config, Boolean(opts.json), io, log);
  // The record is written within the interruptible part: a signal before it says `running`
  // still removes the server.
  await cleanupOnInterrupt(
    async () => {
      const started = await start(
        config,
        log,
        (handle) => {
          record.handle = handle;
          saveInstance(record);
        },
        phases,
      );
      try {
        saveInstance({ ...record, state: 'running', handle: started, server: started });
        phases.end('instance record');
      } catch (error) {
        await stop(started);
        throw new SetupError(`Could not record instance "${name}": ${(error as Error).message}`, 'Check PG_TMPFS_STATE_DIR');
      }
      // Printed inside the interruptible part: a signal up to here still removes the server (the
      // process exits right after), so an interrupted `up` never leaves one running.
      if (opts.json) {
        io.stdout(`${JSON.stringify({ ...upJson(name, started), phasesMs: phases.snapshot() }, null, 2)}\n`);
      } else {
        io.stdout(`${exportLines(started.connection)}\n`);
        log.info(
          `# PostgreSQL ${started.serverVersion} ready in ${started.startupMs} ms; PGDATA on ${started.filesystem}. Stop: pg-tmpfs down --name ${name}`,
        );
      }
      return started;
    },
    async (signal) => {
      io.stderr(`Interrupted by ${signal}: removing what was started\n`);
      await removeInstance(name, record.handle).catch((error: unknown) => io.stderr(formatError(error)));
    },
    // Until the process exits: `up` interrupted even after its output still removes the server.
    { untilExit: true },
  ).catch(async (error: unknown) => {
    // start() removed what it made (it only warns when it could not): check once more, and keep
    // the record while anything is left, so `down` can still find it.
    const problems = record.handle ? await stop(record.handle) : [];
    if (problems.length === 0) forgetInstance(name, process.pid);
    else log.warning(`Left behind (the record ${name} keeps it for \`pg-tmpfs down --name ${name}\`): ${problems.join('; ')}`);
    // The container name derives from --name here.
    if (error instanceof InputError && error.input === 'container-name') {
      throw new InputError('name', error.problem, 'Pick another --name, or remove that container (docker rm -f NAME)');
    }
    throw error;
  });
}

async function down(name: string, io: Io): Promise<void> {
  checkInstanceName(name);
  let found = readInstance(name);
  let stoppedStart = false;
  if (
    found.kind === 'ok' &&
    found.instance.state === 'starting' &&
    found.instance.log &&
    backgroundAlive(found.instance.ownerPid)
  ) {
    // A background start (up --no-wait) under way: SIGTERM makes it remove what it made.
    io.stderr(`Stopping the background start of "${name}" (pid ${found.instance.ownerPid})\n`);
    stoppedStart = await stopBackground(found.instance.ownerPid);
    found = readInstance(name);
  }
  if (found.kind === 'ok') throwIfStarting(found.instance, 'Wait for it to finish (or stop it with Ctrl-C), then run down again');
  const handle = found.kind === 'ok' ? (found.instance.server ?? found.instance.handle) : null;
  const removed = await removeInstance(name, handle);
  if (found.kind === 'unreadable') {
    io.stderr(`Removed the unreadable record ${found.file} (${found.problem}).\n`);
  }
  if (found.kind === 'none' && removed.length === 0 && !stoppedStart) {
    io.stderr(`No running instance named "${name}".\n`);
    return;
  }
  for (const r of removed) io.stderr(`Removed leftover ${r}.\n`);
  io.stderr(`Stopped "${name}".\n`);
}

/**
 * A copy of a record's value with every `password` replaced, and the password of every
 * `postgresql://user:password@…` URI in it (the extra databases' URIs): `status` output is not
 * secret.
 */
export function withoutPasswords(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key: string, v: unknown) => {
    if (typeof v !== 'string') return v;
    if (key === 'password') return '(hidden)';
    return v.replace(/(postgres(?:ql)?:\/\/[^:@/\s]*:)[^@/\s]*@/g, '$1(hidden)@');
  }) as unknown;
}

/**
 * What `status` prints per record: the record (passwords hidden) with `alive` checked now and
 * its state: `running`, `starting` (its `up` or background start runs), `abandoned` (killed
 * while starting: `down` removes what it made), `failed` (a background start failed: `wait`
 * says why), `dead` (the server is gone), or `unreadable`.
 */
async function status(io: Io): Promise<void> {
  const rows = [];
  for (const { name, record } of listInstances()) {
    if (record.kind === 'ok') {
      const { instance } = record;
      const handle = instance.server ?? instance.handle;
      const alive = handle ? await isAlive(handle) : false;
      const state =
        instance.state === 'failed'
          ? 'failed'
          : instance.state === 'starting'
            ? ownerAlive(instance)
              ? 'starting'
              : 'abandoned'
            : alive
              ? 'running'
              : 'dead';
      rows.push({ ...(withoutPasswords(instance) as Instance), alive, state });
    } else if (record.kind === 'unreadable') {
      rows.push({ name, state: 'unreadable', alive: false, problem: `${record.file}: ${record.problem}` });
    }
  }
  io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
}

/**
 * The `--timeout` of `wait`, in ms; undefined when not given.
 * @throws InputError (timeout) when it is not a whole number of seconds from 1 to 86400
 */
function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 86_400) {
    throw new InputError(
      'timeout',
      `"${raw}" is not a whole number of seconds from 1 to 86400`,
      'Give seconds, e.g. --timeout 120',
    );
  }
  return Number(raw) * 1000;
}

/**
 * Builds the command-line program.
 * @param io where results and messages go (default: the process's stdout and stderr)
 * @returns a commander program whose parse errors and --help throw CommanderError (exitOverride)
 */
export function program(io: Io = processIo): Command {
  const cli = new Command('pg-tmpfs')
    .description('Throwaway PostgreSQL on tmpfs with durability off')
    .version(VERSION, '-V, --version', 'print the version of pg-tmpfs')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const upCmd = cli.command('up').description('start PostgreSQL and print its connection');
  for (const [input, help] of UP_FLAGS) {
    // No default for --password: without it, --password-file and $PGPASSWORD are looked at.
    const def = input === 'password' ? '' : (CLI_DEFAULTS[input] ?? DEFAULTS[input]);
    upCmd.addOption(new Option(`--${input} <value>`, help).default(def === '' ? undefined : def));
  }
  for (const [input, arg, help] of LIST_FLAGS) {
    upCmd.option(`--${input} ${arg}`, help, (v: string, acc: string[]) => [...acc, v], [] as string[]);
  }
  upCmd
    .option('--template', 'after init, mark --database as a template for `pg-tmpfs db create` (needs a --database of your own)')
    .option('--password-file <path>', 'read the superuser password from the first line of this file')
    .option('--setting <name=value>', 'one setting (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--name <name>', 'instance name, so several can run side by side', 'default')
    .option('--json', 'print JSON instead of export lines')
    .option('--quiet', 'no progress lines on stderr')
    .option(
      '--no-wait',
      'print the connection at once and start PostgreSQL in the background (then: pg-tmpfs wait, or let clients retry)',
    )
    .action((opts: UpOptions) => up(opts, io));
  cli
    .command('wait')
    .description('wait until an instance answers (after up --no-wait); print its connection as up does')
    .option('--name <name>', 'instance name', 'default')
    .option('--timeout <seconds>', "give up after this many seconds (default: the start's own deadline)")
    .option('--json', 'print JSON instead of export lines')
    .action((opts: { name: string; timeout?: string; json?: boolean }) =>
      waitCommand(opts.name, { json: opts.json, timeoutMs: parseTimeout(opts.timeout) }, io),
    );
  cli
    .command('down')
    .description('stop an instance and remove what it made')
    .option('--name <name>', 'instance name', 'default')
    .action((opts: { name: string }) => down(opts.name, io));
  addDbCommands(cli, io);
  cli
    .command('status')
    .description(
      'list instances as JSON, each with `alive` checked now (`state`: running, starting, abandoned, failed, dead or unreadable)',
    )
    .action(() => status(io));
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const sub of all(cli).slice(1)) sub.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  return cli;
}

/**
 * Runs the program on `argv` (as process.argv: node, script, then arguments).
 * @returns the exit code: 0 on success, 1 on an error (printed to io.stderr), commander's code
 *   for usage errors and --help
 */
export async function runCli(argv: readonly string[], io: Io = processIo): Promise<number> {
  try {
    await program(io).parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr(formatError(error));
    return 1;
  }
}
