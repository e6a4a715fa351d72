/**
 * pg-tmpfs: the command-line tool on the action's core.
 *   pg-tmpfs up [options]     start PostgreSQL; print `export` lines (or JSON with --json)
 *   pg-tmpfs down [--name N]  stop it and remove everything it made
 *   pg-tmpfs status           list running instances as JSON
 *   pg-tmpfs db create|drop   a fresh copy of the template database per test, and its removal
 * Options of `up` are the action's inputs, as flags of the same names. This module only wires the
 * commands; their bodies are in up.ts, commands.ts, background.ts (wait) and db.ts.
 */
import { Command, CommanderError, Option } from 'commander';
import { DEFAULTS } from '../inputs.js';
import { VERSION } from '../version.js';
import { waitCommand } from './background.js';
import { down, parseTimeout, status } from './commands.js';
import { addDbCommands } from './db.js';
import { formatError, processIo, type Io } from './output.js';
import { CLI_DEFAULTS, LIST_FLAGS, UP_FLAGS, up, type UpOptions } from './up.js';

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
    .option(
      '--schema-cache',
      'cache the cluster after init, keyed by everything that shapes it; later starts with the same key restore it (no initdb, no init)',
    )
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
    .option(
      '--timeout <duration>',
      "give up after this long: seconds (120, 120s) or ms (500ms) (default: the start's own deadline)",
    )
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
