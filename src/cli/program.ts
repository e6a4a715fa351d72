/**
 * pg-tmpfs: the command-line tool on the action's core.
 *   pg-tmpfs up [options]     start PostgreSQL; print `export` lines (or JSON with --json)
 *   pg-tmpfs down [--name N]  stop it and remove everything it made
 *   pg-tmpfs status           list running instances as JSON
 * Options of `up` are the action's inputs, as flags of the same names.
 */
import { Command, CommanderError, Option } from 'commander';
import { connectionUri } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import { DEFAULTS, parseInputs, type InputName } from '../inputs.js';
import { start, stop } from '../lifecycle.js';
import { consoleLogger } from '../log.js';
import type { Server } from '../server.js';
import { checkInstanceName, forgetInstance, listInstances, loadInstance, saveInstance } from './instances.js';
import { exportLines } from './shell.js';

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
  ['password', 'superuser password'],
  ['database', 'database to create'],
  ['tmpfs-size', 'tmpfs size for PGDATA (e.g. 1g); empty: kernel default'],
  ['shm-size', '/dev/shm size'],
  ['settings', 'extra settings, name=value per line (repeat --setting instead for one each)'],
  ['wait-timeout', 'seconds to wait for the first answered query'],
  ['locale', 'initdb locale (native mode)'],
  ['cache-dir', 'initdb cache folder (native mode)'],
];

/** CLI defaults that differ from the action's. */
const CLI_DEFAULTS: Partial<Record<InputName, string>> = { port: '0' };

/** The error as the CLI prints it: `error: --INPUT: problem. fix`, the server log first when there is one. */
export function formatError(error: unknown): string {
  if (error instanceof InputError) return `error: --${error.input}: ${error.problem}. ${error.fix}\n`;
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
  };
}

type UpOptions = Record<string, string | string[] | boolean | undefined>;

async function up(opts: UpOptions, io: Io): Promise<void> {
  const name = checkInstanceName(String(opts.name));
  if (loadInstance(name)) {
    throw new InputError(
      'name',
      `an instance named "${name}" is already running`,
      `Run \`pg-tmpfs down --name ${name}\` first, or pick another --name.`,
    );
  }
  const settingLines = [String(opts.settings ?? ''), ...((opts.setting as string[] | undefined) ?? [])].join('\n');
  const config = parseInputs((input) => {
    if (input === 'settings') return settingLines;
    if (input === 'container-name') return `pg-tmpfs-cli-${name}`;
    if (input === 'export-env') return 'false';
    const key = input.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const value = opts[key];
    return typeof value === 'string' ? value : (CLI_DEFAULTS[input] ?? '');
  });
  const log = consoleLogger(Boolean(opts.quiet), io.stderr);
  const server = await start(config, log);
  saveInstance({ name, startedAt: new Date().toISOString(), server });
  if (opts.json) {
    io.stdout(`${JSON.stringify(upJson(name, server), null, 2)}\n`);
  } else {
    io.stdout(`${exportLines(server.connection)}\n`);
    log.info(
      `# PostgreSQL ${server.serverVersion} ready in ${server.startupMs} ms; PGDATA on ${server.filesystem}. Stop: pg-tmpfs down --name ${name}`,
    );
  }
}

async function down(name: string, io: Io): Promise<void> {
  const instance = loadInstance(checkInstanceName(name));
  if (!instance) {
    io.stderr(`No running instance named "${name}".\n`);
    return;
  }
  const problems = await stop(instance.server);
  if (problems.length > 0) {
    throw new SetupError(
      `Could not remove everything of "${name}": ${problems.join('; ')}`,
      `Fix what is named, then run \`pg-tmpfs down --name ${name}\` again`,
    );
  }
  forgetInstance(name);
  io.stderr(`Stopped "${name}".\n`);
}

/**
 * Builds the command-line program.
 * @param io where results and messages go (default: the process's stdout and stderr)
 * @returns a commander program whose parse errors and --help throw CommanderError (exitOverride)
 */
export function program(io: Io = processIo): Command {
  const cli = new Command('pg-tmpfs')
    .description('Throwaway PostgreSQL on tmpfs with durability off')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const upCmd = cli.command('up').description('start PostgreSQL and print its connection');
  for (const [input, help] of UP_FLAGS) {
    const def = CLI_DEFAULTS[input] ?? DEFAULTS[input];
    upCmd.addOption(new Option(`--${input} <value>`, help).default(def === '' ? undefined : def));
  }
  upCmd
    .option('--setting <name=value>', 'one setting (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--name <name>', 'instance name, so several can run side by side', 'default')
    .option('--json', 'print JSON instead of export lines')
    .option('--quiet', 'no progress lines on stderr')
    .action((opts: UpOptions) => up(opts, io));
  cli
    .command('down')
    .description('stop an instance and remove what it made')
    .option('--name <name>', 'instance name', 'default')
    .action((opts: { name: string }) => down(opts.name, io));
  cli
    .command('status')
    .description('list running instances as JSON')
    .action(() => io.stdout(`${JSON.stringify(listInstances(), null, 2)}\n`));
  for (const sub of cli.commands) sub.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
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
