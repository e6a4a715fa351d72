/**
 * The one record of a server this project started, discriminated by `mode`, and its handle: the
 * part that identifies what must be removed (a container, or a postgres process and its run
 * folder). The handle exists before the server answers; the action's post step and the CLI's
 * `down` need nothing else.
 */
import type { ConnectionInfo } from './connection.js';
import type { PhasesMs } from './timing.js';
import type { SettingCheck } from './verify.js';

/**
 * What a run mounted or attached, as recorded for the post step and `down`: data only. The
 * commands that undo it are derived from it (unmountCommand), after checking it is ours.
 */
export type RamMount =
  /** A tmpfs this run mounted on `dir` (a `pg-tmpfs-mnt-*` folder it made); `sudo` when not root. */
  | { kind: 'mount'; dir: string; sudo: boolean }
  /** A macOS RAM disk on `device` (e.g. /dev/disk4). */
  | { kind: 'ramdisk'; device: string };

/** What the pool is, once started: part of the Server record. */
export interface PoolInfo {
  /** Ready copies kept (the pool input). */
  size: number;
  /** The template database copied. */
  template: string;
  /** pg_database_size of the template when the pool started, in bytes (about what each copy takes on the tmpfs). */
  copyBytes: number;
  /** The keeper's PID (it also carries the run's RUN_ENV token). */
  keeperPid: number;
}

/** What a start reports about its schema cache: outputs `schema-cache-hit` and `schema-cache-key`, `up --json`. */
export interface SchemaCacheResult {
  key: string;
  hit: boolean;
  /** The store entry's folder: where a hit came from, or where a miss saved (''= not saved). */
  entry: string;
  /** Bytes saved on a miss (0 on a hit or when not saved). */
  savedBytes: number;
  /** ms taken by the consistent copy and its save on a miss (0 on a hit). */
  saveMs: number;
}

/** What provisioning did (provision.ts); part of the Server record (the outputs `databases`, `template-database`). */
export interface Provisioned {
  /** Each database of the `databases` input → its connection URI (credentials percent-encoded). */
  databases: Record<string, string>;
  /** The database marked as a template, or '' when `template` is false. */
  templateDatabase: string;
  /** Extensions created, in input order. */
  extensions: string[];
  /** The init files run, in order, as given relative to the working folder (absolute when outside it). */
  initFiles: string[];
  /** Wall time of all of it, in ms. */
  ms: number;
}

/**
 * What identifies a Docker-mode server's resources. It is recorded before `docker run`, so a run
 * killed at any point leaves a container that the label `io.github.pg-tmpfs-action.run=<token>`
 * finds.
 */
export interface DockerHandle {
  mode: 'docker';
  /** Docker container ID (removed with its anonymous volumes); '' until `docker run` returned. */
  containerId: string;
  /** The container's name. */
  containerName: string;
  /** Random token of this run, set as the container's label `io.github.pg-tmpfs-action.run`. */
  token: string;
  /**
   * True while the image is being pulled: no container exists yet (the handle is recorded then so
   * that a `docker pull` left by a killed start is ended: it carries RUN_ENV=token). Absent once
   * `docker run` may run.
   */
  pulling?: boolean;
  /** The schema cache's store this run may fill (schema-cache/store.ts): fills left by a killed run are removed with the server. */
  schemaStore?: string;
}

/** What identifies a native-mode server's resources. */
export interface NativeHandle {
  mode: 'native';
  /** postmaster PID; 0 before postgres was spawned. */
  pid: number;
  /** The run folder this run created (holds data/ and server.log); the only folder removed; '' before it exists. */
  runDir: string;
  /** Token written into the run folder's marker file; removal checks it. */
  token: string;
  /** The tmpfs this run mounted (Linux) or RAM disk it attached (macOS); null when none. Data, not commands. */
  ram: RamMount | null;
  /** Folder with the server binaries (pg_ctl stops the server on Windows). */
  bindir: string;
  /**
   * The initdb cache folder this run used: its fills left by killed runs are removed with the
   * server. Absent in handles that name no cache (older records, the sweep).
   */
  cacheDir?: string;
  /**
   * The folders where this run fetches and keeps a server build from npm (the folder builds are
   * kept in; for the runner's tool cache, `$RUNNER_TEMP/pg-tmpfs-npm` and the build's version
   * folder there): the `.tmp-<pid>-<hex>` fills of killed runs in them are removed with the
   * server. Absent when no build is fetched.
   */
  npmFills?: string[];
  /** The schema cache's store this run may fill (schema-cache/store.ts): fills left by a killed run are removed with the server. */
  schemaStore?: string;
  /**
   * Windows: the PID of the `pg_ctl start` that starts the server (windows.ts), recorded before it
   * runs its course: a stop waits for it to end (a start killed meanwhile leaves it starting a
   * postmaster). Absent elsewhere.
   */
  launcherPid?: number;
  /**
   * A server build from npm taken into RAM for its first start here (src/native/source/npm/ram.ts),
   * named before it exists; removed with the server, once its keep on disk is over (npm-keep.ts).
   * Absent when the build ran from where it is kept, or from installed binaries.
   */
  npmRam?: NpmRamRecord;
}

/**
 * A server build from npm in RAM, as a record holds it: data, never commands. A record that
 * names anything but such a folder of this user's is refused (npm-ram.ts ramBuildProblem), and
 * the pin its keep checks against is looked up in the table again, never read from here.
 */
export interface NpmRamRecord {
  /** Its folder, `/dev/shm/pg-tmpfs-<container-name>-<token>.npm`: the build in `build/`, the checked tarball in `tarball/`. */
  dir: string;
  /** The random token in its name and in its marker file (8 hex digits). */
  token: string;
  /** The package platform, e.g. `linux-x64`. */
  platform: string;
  /** The PostgreSQL minor, e.g. `17.10`. */
  pgVersion: string;
  /** The package version, e.g. `17.10.0-beta.17`. */
  version: string;
  /** Where the build is kept after the start: the runner's tool cache, or a folder (cache-dir). */
  place: { toolCache: true } | { dir: string };
}

/** What must be undone to remove a server, whatever its mode. */
export type ServerHandle = DockerHandle | NativeHandle;

/** What every running, verified server reports, whatever its mode. */
interface Verified {
  connection: ConnectionInfo;
  /** `server_version` as reported by the server, e.g. `18.1 (Debian 18.1-1)`. */
  serverVersion: string;
  /**
   * Which server programs ran (output `binaries-source`): `docker <image>`, `installed <bindir>
   * (<how found>)`, or `npm <package> <version>`.
   */
  binariesSource: string;
  /** `data_directory` as reported by the server (PGDATA). */
  dataDirectory: string;
  /** Filesystem type under the data directory, as measured (e.g. `tmpfs`, `overlay`, `ramdisk`). */
  filesystem: string;
  /** True when the measured filesystem is RAM-backed. */
  tmpfs: boolean;
  /** Each requested setting as the server reports it, in request order. */
  settings: SettingCheck[];
  /** Things the user should know (e.g. a setting that opens the server to other hosts); shown in the log and the summary. */
  warnings: string[];
  /** ms from process start to the first answered query. */
  startupMs: number;
  /** Where the start's time went: phase → ms, in order (src/timing.ts); absent where not measured. */
  phasesMs?: PhasesMs;
  /** What ran after start (init files, init command, databases, extensions, template); absent when nothing was asked. */
  provisioned?: Provisioned;
  /** The schema cache's key and whether it hit (outputs schema-cache-key, schema-cache-hit); absent when schema-cache is off. */
  schemaCache?: SchemaCacheResult;
  /** The pool of ready template copies and its keeper (src/pool/); absent when pool is 0. */
  pool?: PoolInfo;
}

/** A Docker-mode server. */
export interface DockerServer extends DockerHandle, Verified {
  /** Image reference run, e.g. `postgres:18`. */
  image: string;
  /** ms spent pulling the image; 0 when it was present. */
  pullMs: number;
}

/** A native-mode server. */
export interface NativeServer extends NativeHandle, Verified {
  /** Unix socket directory (the fastest client path). */
  socketDirectory: string;
  /** Whether the initdb cache had the cluster. */
  cacheHit: boolean;
}

/** A running, verified server. */
export type Server = DockerServer | NativeServer;

/** How many server log lines to show when something fails, and in the post step. */
export const LOG_TAIL_LINES = 50;
