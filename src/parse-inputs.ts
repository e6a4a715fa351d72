/**
 * Input parsing and validation, shared by the action (action.yml inputs) and the CLI (flags of
 * the same names): parseInputs() checks every input before anything starts. The start's inputs
 * (mode, binaries, version, image, registry, connection, server) are checked here; the inputs that
 * shape the database after start and the schema cache's in provision-inputs.ts.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { InputError } from './errors.js';
import { boolean, identifier, integer, size } from './input-values.js';
import { initdbPathProblem } from './fsutil.js';
import { DEFAULTS, NEWEST_MAJOR, type Config, type InputName } from './inputs.js';
import { parseSettings } from './profile.js';
import { provisionInputs, schemaCacheInputs } from './provision-inputs.js';
import { TEMPLATE_DATABASES } from './rules.js';

const VERSION = /^\d{1,2}(\.\d{1,2})?(-[a-z0-9][a-z0-9._-]*)?$/;
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
function defaultContainerName(env: NodeJS.ProcessEnv = process.env): string {
  return `pg-tmpfs-${env.GITHUB_RUN_ID ?? process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * The cache-dir input: the initdb cache, schema cache and npm builds go below it, and initdb runs
 * from there (fsutil.ts initdbPathProblem).
 * @throws InputError (cache-dir) for a path initdb cannot run from
 */
function cacheDirInput(value: string): string {
  const problem = initdbPathProblem(value);
  if (problem) throw new InputError('cache-dir', `"${value}" ${problem}`, 'Give a folder whose path has none of $ ` " \\');
  return value;
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
  const config: Config = {
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
    cacheDir: mode === 'docker' ? raw('cache-dir') : cacheDirInput(raw('cache-dir')),
    wait: boolean('wait', raw('wait')),
    ...provisionInputs(raw, targetDatabase(raw('database'))),
    ...schemaCacheInputs(raw),
  };
  // The pool needs PostgreSQL 15+ (pool/sql.ts): refused here when the major is known, before any fetch or start.
  if (config.pool > 0 && config.major !== null && config.major < 15 && imageInput === '') {
    throw new InputError(
      'pool',
      `needs PostgreSQL 15 or later, and postgres-version is ${postgresVersion}`,
      'Give postgres-version 15 or later, or leave pool at 0',
    );
  }
  return config;
}
