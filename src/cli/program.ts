#!/usr/bin/env node
/**
 * pg-tmpfs: the command-line tool on the action's core.
 *   pg-tmpfs up [options]     start PostgreSQL; print `export` lines (or JSON with --json)
 *   pg-tmpfs down [--name N]  stop it and remove everything it made
 *   pg-tmpfs status           list running instances as JSON
 * Options of `up` are the action's inputs, as flags of the same names.
 */
import { Command, Option } from 'commander';
import { connectionUri, exportLines } from './connection.js';
import { removeContainer } from './docker.js';
import { InputError, SetupError } from './errors.js';
import { DEFAULTS, parseInputs, type InputName } from './inputs.js';
import { checkInstanceName, forgetInstance, listInstances, loadInstance, saveInstance, type Instance } from './instances.js';
import { consoleLogger } from './log.js';
import { stopNative } from './native/native-mode.js';
import { start } from './start.js';

/** Flags of `up`: every action input, with the CLI's defaults (port 0: a free port). */
const UP_FLAGS: Array<[InputName, string]> = [
  ['mode', 'docker, native, or auto (native when the binaries are installed and no image is given)'],
  ['postgres-version', 'PostgreSQL major version; empty: newest installed (native) or newest image (docker)'],
  ['image', 'image to run instead of postgres:<version>'],
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

function fail(error: unknown): never {
  if (error instanceof InputError) {
    process.stderr.write(`error: --${error.input}: ${error.problem}. ${error.fix}\n`);
  } else if (error instanceof SetupError) {
    if (error.detail) process.stderr.write(`--- server log ---\n${error.detail}\n---\n`);
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
}

async function up(opts: Record<string, string | string[] | boolean | undefined>): Promise<void> {
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
  const log = consoleLogger(Boolean(opts.quiet));
  const started = await start(config, log);
  const instance: Instance = {
    name,
    mode: started.mode,
    connection: started.connection,
    containerId: started.containerId || undefined,
    native: started.native,
    startedAt: new Date().toISOString(),
  };
  saveInstance(instance);
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          name,
          mode: started.mode,
          connectionUri: connectionUri(started.connection),
          ...started.connection,
          containerId: started.containerId,
          serverVersion: started.serverVersion,
          dataDirectory: started.dataDirectory,
          filesystem: started.filesystem,
          tmpfs: started.tmpfs,
          socketDirectory: started.socketDirectory || undefined,
          cacheHit: started.cacheHit ?? undefined,
          startupMs: started.startupMs,
          settings: started.settings,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    process.stdout.write(`${exportLines(started.connection)}\n`);
    log.info(
      `# PostgreSQL ${started.serverVersion} ready in ${started.startupMs} ms; PGDATA on ${started.filesystem}. Stop: pg-tmpfs down --name ${name}`,
    );
  }
}

async function down(name: string): Promise<void> {
  const instance = loadInstance(checkInstanceName(name));
  if (!instance) {
    process.stderr.write(`No running instance named "${name}".\n`);
    return;
  }
  if (instance.mode === 'docker' && instance.containerId) {
    const problem = await removeContainer(instance.containerId);
    if (problem && !/No such container/i.test(problem))
      throw new SetupError(`Could not remove container: ${problem}`, 'Remove it with docker rm -f');
  }
  if (instance.native) await stopNative(instance.native, consoleLogger());
  forgetInstance(name);
  process.stderr.write(`Stopped "${name}".\n`);
}

/** Builds the command-line program (exported for tests). */
export function program(): Command {
  const cli = new Command('pg-tmpfs').description('Throwaway PostgreSQL on tmpfs with durability off').showHelpAfterError();
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
    .action((opts: Record<string, string | string[] | boolean | undefined>) => up(opts).catch(fail));
  cli
    .command('down')
    .description('stop an instance and remove what it made')
    .option('--name <name>', 'instance name', 'default')
    .action((opts: { name: string }) => down(opts.name).catch(fail));
  cli
    .command('status')
    .description('list running instances as JSON')
    .action(() => {
      process.stdout.write(`${JSON.stringify(listInstances(), null, 2)}\n`);
    });
  return cli;
}

await program().parseAsync(process.argv);
