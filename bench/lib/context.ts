/**
 * What every benchmark section shares: options, where things go, the cleanup list, the results.
 */
import type { Cleanup } from './cleanup.js';
import type { Results, Section } from './results.js';
import type { RunAs } from '../../src/native/run-as.js';

/** Command-line options of `npm run bench`. */
export interface Options {
  /** Smoke run: one repetition, a few transactions per pgbench run, smaller data, shorter sleeps and health-check intervals; no figures to read. */
  quick: boolean;
  /** Repetitions per variant (each comparison runs its variants interleaved). */
  reps: number;
  /** Seconds per pgbench run. */
  seconds: number;
  /** Smoke runs: transactions per client per pgbench run instead of `seconds` (null: use seconds). */
  transactions: number | null;
  /** Client counts for the workload matrix, e.g. [1, 4]. */
  clients: number[];
  /** pgbench scale for tpcb-like / select-only (scale 1 = 100 000 accounts, about 15 MB). */
  scale: number;
  /** shared_buffers values to sweep. */
  sharedBuffers: string[];
  /** Sections to run. */
  only: Section[];
  /** Image for Docker cases. */
  image: string;
  /** PostgreSQL major of the native binaries (null: newest installed). */
  pgVersion: number | null;
  /** A folder on disk (not tmpfs) for the on-disk servers. */
  diskDir: string;
  /** Results folder. */
  out: string;
  /** Only re-render this earlier results folder (null: run the benchmark). */
  render: string | null;
}

/** Shared state of one run. */
export interface Context {
  options: Options;
  /** Short unique id of this run; every name it creates starts with `pgtbench-<runId>`. */
  runId: string;
  /** Name prefix for containers and folders: `pgtbench-<runId>`. */
  prefix: string;
  /** Folder with the native server binaries. */
  bindir: string;
  /** Native major version. */
  major: number;
  /** OS user that runs postgres (null when not root). */
  runAs: RunAs | null;
  /** This run's folder on disk (removed at the end). */
  diskWork: string;
  /** This run's folder on /dev/shm (removed at the end). */
  shmWork: string;
  /** The disk model's LD_PRELOAD library ('' until ensureDiskModel builds it). */
  diskModel: string;
  /** initdb cache of this run's own servers. */
  cacheDir: string;
  cleanup: Cleanup;
  results: Results;
  /** IDs of containers started, for the "other work on the machine" report. */
  containerIds: string[];
  /** Progress line on stderr. */
  log: (message: string) => void;
}
