/**
 * Input parsing and validation, shared by the action (action.yml inputs) and the CLI (flags of
 * the same names). Everything is checked here, before anything starts. Over 300 lines because
 * every input's check is here, so one file shows what is accepted; the rules the GitLab component
 * shares (list splitting, names, built-in databases) are in rules.ts.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { InputError } from './errors.js';
import { parsePool } from './pool/input.js';
import { parseSettings, type Setting } from './profile.js';
import {
  BUILT_IN_DATABASES,
  databaseNames,
  listItems,
  listLines,
  MAX_NAME_BYTES,
  nameProblem,
  TEMPLATE_DATABASES,
} from './rules.js';

/**
 * Defaults of every input. action.yml repeats them for GitHub's UI; tests/unit/action-yml.test.ts
 * proves the two agree.
 */
export const DEFAULTS = Object.freeze({
  mode: 'auto',
  binaries: 'auto',
  'postgres-version': '',
  image: '',
  registry: '',
  port: '5432',
  'publish-host': '127.0.0.1',
  user: 'postgres',
  password: 'postgres',
  database: 'postgres',
  'tmpfs-size': '',
  'shm-size': '512m',
  settings: '',
  'wait-timeout': '60',
  'container-name': '',
  'export-env': 'true',
  locale: 'C',
  'cache-dir': '',
  wait: 'true',
  init: '',
  'init-command': '',
  databases: '',
  template: 'false',
  pool: '0',
  extensions: '',
  'init-timeout': '600',
  'schema-cache': 'false',
  'schema-cache-files': '',
  'schema-cache-key': '',
});

/** Newest PostgreSQL major with an official image: Docker mode's default version. */
export const NEWEST_MAJOR = '18';

/** How to start PostgreSQL. */
export type Mode = 'docker' | 'native' | 'auto';

/**
 * Where native mode's server programs come from: `installed` on the machine, a server build from
 * `npm` (src/native/npm-binaries.ts), or `auto`: installed when the version is, else npm.
 */
export type BinariesSource = 'auto' | 'installed' | 'npm';

/** Names of all inputs. */
export type InputName = keyof typeof DEFAULTS;

/** A validated configuration for starting PostgreSQL, in either mode (action inputs = CLI flags). */
export interface Config {
  /** `docker`, `native` or `auto` (native when the binaries are installed or on npm and no image is given). */
  mode: Mode;
  /** Where native mode's binaries come from (mode auto: installed, then npm, then Docker). */
  binaries: BinariesSource;
  /**
   * Keep server builds from npm in the runner's tool cache (RUNNER_TOOL_CACHE, the action) rather
   * than in cache-dir (the CLI). Set by the action's main step, not an input.
   */
  toolCache: boolean;
  /** The version input as given, e.g. `17` or `16.4-bookworm`; '' when not given. */
  postgresVersion: string;
  /** Major version asked for (17 for `17.2-alpine`); null when not given (newest installed / NEWEST_MAJOR). */
  major: number | null;
  /** Minor asked for with its major (`17.10` → 10, also in `17.10-bookworm`); null for a major alone. */
  minor: number | null;
  /**
   * Image reference to run: the `image` input, or `[<registry>/]postgres:<postgres-version or
   * NEWEST_MAJOR>` (registry: a mirror of Docker Hub's library, e.g. `mirror.gcr.io/library`).
   */
  image: string;
  /** True when the `image` or `registry` input was given (auto mode then picks Docker). */
  imageGiven: boolean;
  /** Host TCP port; 0 lets Docker pick a free one. */
  port: number;
  /** Host address the port is published on (default 127.0.0.1: not reachable from outside). */
  publishHost: string;
  user: string;
  password: string;
  database: string;
  /** tmpfs size for PGDATA in Docker's size syntax (`1g`, `512m`), or null for the kernel default (half of RAM). */
  tmpfsSize: string | null;
  /** /dev/shm size in Docker's syntax; Docker's own default is 64m, too small for parallel query. */
  shmSize: string;
  /** The user's settings (they override the durability profile). */
  settings: Setting[];
  /** How long to wait for the first answered query, in ms. */
  waitTimeoutMs: number;
  /** Docker container name. */
  containerName: string;
  /** Whether to export DATABASE_URL and PG* variables to later steps. */
  exportEnv: boolean;
  /** initdb locale (native mode). */
  locale: string;
  /** initdb cache folder (native mode); '' for the default. */
  cacheDir: string;
  /**
   * Whether the step waits for the server (true), or returns at once with the connection while
   * a background process starts it (false: src/background.ts).
   */
  wait: boolean;
  /**
   * SQL files or globs (tinyglobby syntax), relative to `workDir`, run in this order in
   * `database` once the server answers (src/provision.ts); a glob's matches in sorted order.
   */
  init: string[];
  /** Shell command run once after `init` with DATABASE_URL and PG* set ('' for none). */
  initCommand: string;
  /** More databases to create, in order; none equals `database` or a built-in one. */
  databases: string[];
  /** Whether to mark `database` as a template after init (ALTER DATABASE … IS_TEMPLATE true). */
  template: boolean;
  /** Ready copies of the template the pool's keeper keeps (src/pool/); 0: no pool. Needs `template`. */
  pool: number;
  /** Extensions to create (CREATE EXTENSION) in `database` and each of `databases`. */
  extensions: string[];
  /** Deadline of each statement of the init files (statement_timeout) and of the init command, in ms. */
  initTimeoutMs: number;
  /** Folder that relative `init` paths and the init command start from: the working directory when the inputs were read. */
  workDir: string;
  /**
   * Whether the cluster after init is cached across runs (src/schema-cache/): a start whose key
   * matches a saved cluster restores it instead of running initdb and init.
   */
  schemaCache: boolean;
  /** Paths or globs (tinyglobby syntax, relative to `workDir`) of every file that shapes the schema: part of the key. */
  schemaCacheFiles: string[];
  /** An extra string of the user's in the key (e.g. a version to force a rebuild); '' for none. */
  schemaCacheKey: string;
}

const VERSION = /^\d{1,2}(\.\d{1,2})?(-[a-z0-9][a-z0-9._-]*)?$/;
const SIZE = /^[1-9]\d*[bkmg]?$/i;
const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
/**
 * A reference with any `user:password@` before its host replaced by `***@`, for messages: an
 * error must not repeat a credential someone put in an input. A digest (`name@sha256:…`) is kept.
 * @returns e.g. `***@registry.example/library` for `me:s3cret@registry.example/library`
 */
export function withoutUserinfo(ref: string): string {
  const slash = ref.indexOf('/');
  const at = ref.lastIndexOf('@', slash === -1 ? ref.length : slash);
  if (at < 0 || /^[a-z0-9]+:[0-9a-f]{32,}$/i.test(ref.slice(at + 1).split('/')[0] ?? '')) return ref;
  return `***${ref.slice(at)}`;
}

/** The fix to add when a reference carries `user:password@`: registries take credentials from docker login. */
function credentialsFix(ref: string): string {
  return withoutUserinfo(ref) === ref
    ? ''
    : ' Credentials do not belong in it: log in to the registry before this step (docker/login-action, or docker login).';
}

/**
 * A registry host with an optional port and a lowercase path, e.g. `mirror.gcr.io/library`,
 * `127.0.0.1:5000/library`. The host must look like one to Docker (a `.` or a `:`, or
 * `localhost`); otherwise Docker reads it as a Docker Hub namespace (distribution/reference).
 */
const REGISTRY = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)+|[a-z0-9.-]+:\d{1,5}|localhost:\d{1,5})(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;
// Docker reference: [registry[:port]/]path[:tag][@digest]; no spaces, cannot start with '-'.
const IMAGE = /^[a-z0-9][a-z0-9._/:@-]*$/i;

function integer(input: InputName, raw: string, min: number, max: number, fix: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InputError(input, `"${raw}" is not a whole number from ${min} to ${max}`, fix);
  }
  return Number(raw);
}

function identifier(input: InputName, raw: string): string {
  if (raw === '') throw new InputError(input, 'is empty', `Give a name, or leave the input out for "${DEFAULTS[input]}".`);
  if (Buffer.byteLength(raw) > MAX_NAME_BYTES || raw.includes('\0')) {
    throw new InputError(input, `"${raw}" is longer than ${MAX_NAME_BYTES} bytes or holds a NUL`, 'Use a shorter name.');
  }
  return raw;
}

function boolean(input: InputName, raw: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new InputError(input, `"${raw}" is not true or false`, 'Write true or false.');
}

function size(input: InputName, raw: string): string {
  if (!SIZE.test(raw)) {
    throw new InputError(
      input,
      `"${raw}" is not a size`,
      'Write a number with an optional unit b, k, m or g, e.g. "512m" or "2g".',
    );
  }
  return raw.toLowerCase();
}

/**
 * The `database` input: a name (identifier), not template0 or template1. template0 accepts no
 * connections (Docker's entrypoint then waits out wait-timeout on "not currently accepting
 * connections"), and both exist already (native CREATE DATABASE fails); `postgres` is the default.
 * @throws InputError (database) naming the fix
 */
function targetDatabase(raw: string): string {
  const name = identifier('database', raw);
  if (TEMPLATE_DATABASES.includes(name)) {
    throw new InputError(
      'database',
      `"${name}" is a built-in template database${name === 'template0' ? ' that accepts no connections' : ''}; the tests' database must be one of their own`,
      'Leave the input out for "postgres", or give your own name, e.g. app',
    );
  }
  return name;
}

/** The minor of a version input (`17.10` and `17.10-bookworm` → 10), or null for a major alone. */
function minorOf(postgresVersion: string): number | null {
  const match = /^\d+\.(\d+)/.exec(postgresVersion);
  return match ? Number(match[1]) : null;
}

/** A container name unique to this run: `pg-tmpfs-<run id or pid>-<6 hex>`. */
export function defaultContainerName(env: NodeJS.ProcessEnv = process.env): string {
  return `pg-tmpfs-${env.GITHUB_RUN_ID ?? process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Reads and validates all inputs. Long because it is one check per input in input order
 * (provisionInputs has the rest): split further, an input's check would be harder to find.
 * @param get returns an input's raw value ('' when not given); defaults from DEFAULTS apply to ''
 * @throws InputError naming the first bad input and how to fix it
 */
export function parseInputs(get: (name: InputName) => string): Config {
  const raw = (name: InputName): string => {
    const value = get(name).trim();
    return value === '' ? DEFAULTS[name] : value;
  };
  const mode = raw('mode');
  if (mode !== 'docker' && mode !== 'native' && mode !== 'auto') {
    throw new InputError('mode', `"${mode}" is not a mode`, 'Use docker, native or auto.');
  }
  const binaries = raw('binaries');
  if (binaries !== 'auto' && binaries !== 'installed' && binaries !== 'npm') {
    throw new InputError('binaries', `"${binaries}" is not a source of binaries`, 'Use auto, installed or npm.');
  }
  if (binaries !== 'auto' && mode === 'docker') {
    throw new InputError(
      'binaries',
      `is ${binaries}, and mode is docker: binaries chooses native mode's server programs`,
      'Leave binaries at auto, or use mode: native or auto',
    );
  }
  const postgresVersion = raw('postgres-version');
  if (postgresVersion !== '' && !VERSION.test(postgresVersion)) {
    throw new InputError(
      'postgres-version',
      `"${postgresVersion}" is not a PostgreSQL version`,
      'Give a major version such as "17", optionally with a tag suffix such as "17-alpine", or set `image` instead.',
    );
  }
  const imageInput = raw('image');
  if (imageInput !== '' && (!IMAGE.test(imageInput) || withoutUserinfo(imageInput) !== imageInput)) {
    throw new InputError(
      'image',
      `"${withoutUserinfo(imageInput)}" is not an image reference`,
      `Give a reference like "postgis/postgis:17-3.5".${credentialsFix(imageInput)}`,
    );
  }
  const registry = raw('registry').replace(/\/+$/, '');
  if (registry !== '' && (!REGISTRY.test(registry) || withoutUserinfo(registry) !== registry)) {
    throw new InputError(
      'registry',
      `"${withoutUserinfo(registry)}" is not a registry with an optional path`,
      `Give a host and path such as "mirror.gcr.io/library" (the default image is then <registry>/postgres:<version>).${credentialsFix(registry)}`,
    );
  }
  if (binaries !== 'auto' && (imageInput !== '' || registry !== '')) {
    throw new InputError(
      'binaries',
      `is ${binaries}, and an ${imageInput !== '' ? 'image' : 'registry'} was given, which always runs in Docker`,
      'Remove the image and registry inputs, or leave binaries at auto',
    );
  }
  const containerName = raw('container-name') || defaultContainerName();
  if (!CONTAINER_NAME.test(containerName)) {
    throw new InputError(
      'container-name',
      `"${containerName}" is not a valid container name`,
      'Use letters, digits, "_", "." and "-", starting with a letter or digit.',
    );
  }
  const publishHost = raw('publish-host');
  if (isIP(publishHost) === 0) {
    throw new InputError(
      'publish-host',
      `"${publishHost}" is not an IP address`,
      'Use 127.0.0.1 (default), or 0.0.0.0 to accept connections from other hosts.',
    );
  }
  const locale = raw('locale');
  if (!/^[A-Za-z0-9_.@-]+$/.test(locale)) {
    throw new InputError('locale', `"${locale}" is not a locale name`, 'Use a name such as C, C.UTF-8 or en_US.UTF-8.');
  }
  return {
    mode,
    binaries,
    toolCache: false,
    postgresVersion,
    major: postgresVersion === '' ? null : parseInt(postgresVersion, 10),
    minor: minorOf(postgresVersion),
    image: imageInput || `${registry ? `${registry}/` : ''}postgres:${postgresVersion || NEWEST_MAJOR}`,
    imageGiven: imageInput !== '' || registry !== '',
    port: integer('port', raw('port'), 0, 65535, 'Use a TCP port such as 5432, or 0 to let Docker pick a free one.'),
    publishHost,
    user: (() => {
      const user = identifier('user', raw('user'));
      // initdb builds SQL with the name in double quotes without doubling them, and fails
      // (PostgreSQL 15-18: "role ... does not exist" in post-bootstrap initialization).
      if (user.includes('"'))
        throw new InputError(
          'user',
          `"${user}" holds a double quote, which initdb cannot handle`,
          'Use a name without double quotes.',
        );
      // Refused up front what initdb refuses late, or takes and then cannot log in with.
      if ([...user].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
        throw new InputError('user', 'holds a line break or another control character', 'Use a name without them.');
      // Manual, "Predefined Roles" and CREATE ROLE: names starting with pg_ are reserved; so are
      // public and none (initdb: "superuser name ... is disallowed", "role public does not exist").
      if (user.startsWith('pg_') || user === 'public' || user === 'none')
        throw new InputError(
          'user',
          `"${user}" is a name PostgreSQL reserves (pg_*, public, none)`,
          'Use another name, e.g. postgres or app.',
        );
      return user;
    })(),
    password: (() => {
      const p = get('password') === '' ? DEFAULTS.password : get('password');
      if (/[\0]/.test(p)) throw new InputError('password', 'holds a NUL character', 'Remove it.');
      // A runner masks a secret line by line, and Docker's initdb reads only the first line.
      if (/[\r\n]/.test(p)) {
        throw new InputError(
          'password',
          'holds a line break, which no mode carries safely (a log masks each line of it apart; the image reads only the first line)',
          'Give the password on one line',
        );
      }
      return p;
    })(),
    database: targetDatabase(raw('database')),
    tmpfsSize: raw('tmpfs-size') === '' ? null : size('tmpfs-size', raw('tmpfs-size')),
    shmSize: size('shm-size', raw('shm-size')),
    settings: parseSettings(get('settings')),
    waitTimeoutMs: integer('wait-timeout', raw('wait-timeout'), 1, 3600, 'Give whole seconds, e.g. 60.') * 1000,
    containerName,
    exportEnv: boolean('export-env', raw('export-env')),
    locale,
    cacheDir: raw('cache-dir'),
    wait: boolean('wait', raw('wait')),
    ...provisionInputs(raw, targetDatabase(raw('database'))),
    ...schemaCacheInputs(raw),
  };
}

/**
 * The schema-cache inputs. An init command's output cannot be keyed from outside, so with
 * `init-command` the files that shape what it does must be named.
 * @throws InputError (schema-cache, schema-cache-files, schema-cache-key) naming the first bad one
 */
function schemaCacheInputs(
  raw: (name: InputName) => string,
): Pick<Config, 'schemaCache' | 'schemaCacheFiles' | 'schemaCacheKey'> {
  const schemaCache = boolean('schema-cache', raw('schema-cache'));
  const schemaCacheFiles = listLines(raw('schema-cache-files'));
  const schemaCacheKey = raw('schema-cache-key');
  if (/[\0\r\n]/.test(schemaCacheKey)) {
    throw new InputError('schema-cache-key', 'holds a line break or a NUL', 'Give the key on one line, e.g. v2');
  }
  if (schemaCache && raw('init-command') !== '' && schemaCacheFiles.length === 0) {
    throw new InputError(
      'schema-cache-files',
      'is empty while init-command is set and schema-cache is true: the output of a command cannot be keyed from outside, so a cached schema could be stale',
      'List in schema-cache-files every file that shapes what init-command builds (migrations, schema files, lockfiles), or turn schema-cache off',
    );
  }
  return { schemaCache, schemaCacheFiles, schemaCacheKey };
}

/**
 * The inputs that shape the database after start: init, init-command, databases, template, pool,
 * extensions, init-timeout.
 * @throws InputError naming the first bad one
 */
function provisionInputs(
  raw: (name: InputName) => string,
  database: string,
): Pick<Config, 'init' | 'initCommand' | 'databases' | 'template' | 'pool' | 'extensions' | 'initTimeoutMs' | 'workDir'> {
  const databases: string[] = [];
  for (const name of databaseNames(raw('databases'))) {
    identifier('databases', name);
    const problem = nameProblem(name);
    if (problem) throw new InputError('databases', problem, 'Give names of letters, digits, "_", "." and "-", e.g. app_test');
    if (name === database || BUILT_IN_DATABASES.includes(name)) {
      throw new InputError(
        'databases',
        `"${name}" is ${name === database ? 'the database input' : 'a database every cluster has'}`,
        'List only the extra databases to create',
      );
    }
    if (!databases.includes(name)) databases.push(name);
  }
  const extensions = [...new Set(listItems(raw('extensions')))];
  for (const name of extensions) {
    if (nameProblem(name) !== null) {
      throw new InputError(
        'extensions',
        `"${name}" is not an extension name`,
        'Give names as in pg_available_extensions, e.g. pg_trgm or vector',
      );
    }
  }
  const template = boolean('template', raw('template'));
  if (template && BUILT_IN_DATABASES.includes(database)) {
    throw new InputError(
      'template',
      `the database input is "${database}", which clients connect to first (or a built-in template), so it cannot be your template`,
      'Give your own database name as well, e.g. database: app',
    );
  }
  return {
    init: listLines(raw('init')),
    initCommand: raw('init-command'),
    databases,
    template,
    pool: parsePool(raw('pool'), template),
    extensions,
    initTimeoutMs: integer('init-timeout', raw('init-timeout'), 1, 86_400, 'Give whole seconds, e.g. 600.') * 1000,
    workDir: process.cwd(),
  };
}
