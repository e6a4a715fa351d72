/**
 * Shared helpers for end-to-end tests: the local test images, the act binary, leftovers checks.
 * Under CI=true, missing infrastructure fails the test (never skips).
 */
import { execFile, execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { goBinary } from '../../testkit/registry.js';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';
import { KEEPER_FLAG } from '../../src/pool/start.js';
import { KEEP_FLAG } from '../../src/native/source/npm/keep.js';
import { findProcesses, type ProcessInfo } from '../../src/processes.js';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** The real PostgreSQL majors of the local test images (Debian bookworm 15, trixie 17, forky 18). */
export const TEST_MAJORS = ['15', '17', '18'] as const;

/** A test major. */
export type TestMajor = (typeof TEST_MAJORS)[number];

/**
 * Local images from tests/images/build.sh, one per real major, each with the official image's
 * layout for that major, and the two layouts by name.
 */
export const TEST_IMAGES = {
  15: 'pg-tmpfs-test/postgres:15',
  17: 'pg-tmpfs-test/postgres:17',
  18: 'pg-tmpfs-test/postgres:18',
  /** PostgreSQL 17: PGDATA=/var/lib/postgresql/data, VOLUME the same (official image up to 17). */
  layout17: 'pg-tmpfs-test/postgres:17',
  /** PostgreSQL 18: PGDATA=/var/lib/postgresql/18/docker, VOLUME /var/lib/postgresql (18 and later). */
  layout18: 'pg-tmpfs-test/postgres:18',
} as const;

/** PGDATA of the official image of a major (docker-library/postgres Dockerfiles). */
export function officialPgdata(major: string): string {
  return Number(major) >= 18 ? `/var/lib/postgresql/${major}/docker` : '/var/lib/postgresql/data';
}

/** Throws with a pointer to the setup script when an image is missing. */
export function requireImages(): void {
  for (const image of Object.values(TEST_IMAGES)) {
    const r = spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`test image ${image} is missing: run bash scripts/setup-test-infra.sh`);
  }
}

/**
 * The second engine's DOCKER_HOST: Docker 29 (moby v2) with the containerd image store, which
 * scripts/setup-test-infra.sh (section 8) installs and starts beside the first engine, the test
 * images loaded into it. PG_TMPFS_ENGINE29_HOST names another (the benchmark's own constant).
 */
import { ENGINE29_HOST } from '../../testkit/engines.js';
export { ENGINE29_HOST };

/**
 * ENGINE29_HOST when that engine answers (`docker version`, 15 s deadline); else null, for the
 * caller to skip, and under CI=true an Error pointing at the setup script (never a skip).
 */
export function engine29Host(): string | null {
  const r = spawnSync('docker', ['version', '--format', '{{.Server.APIVersion}}'], {
    env: { ...process.env, DOCKER_HOST: ENGINE29_HOST },
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (r.status === 0) return ENGINE29_HOST;
  if (process.env.CI === 'true') {
    throw new Error(
      `the second engine (${ENGINE29_HOST}) does not answer: run bash scripts/setup-test-infra.sh (${r.stderr?.trim()})`,
    );
  }
  return null;
}

/**
 * For the enclosing describe block: DOCKER_HOST set to `host` before its tests (beforeAll) and
 * restored after (afterAll), so the product, the helpers' docker commands and the leftover checks
 * all talk to that engine. Files run one at a time (vitest.config.ts: fileParallelism false).
 */
export function useDockerHost(host: string): void {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = host;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  });
}

/** Path of a Go program installed by scripts/setup-test-infra.sh (the benchmark's own lookup). */
export { goBinary } from '../../testkit/registry.js';

/** Path of the act binary. */
export function actBinary(): string {
  return goBinary('act');
}

/** act's command line for `workflow` on the host (`-P ubuntu-latest=-self-hosted`), no pulls, no action downloads. */
function actArgs(workflow: string, args: string[]): string[] {
  return ['push', '-P', 'ubuntu-latest=-self-hosted', '-W', workflow, '--pull=false', '--action-offline-mode', ...args];
}

/** What runAct and runActAsync may be given. */
interface ActOptions {
  /** The repository to run it in (default: this one). */
  cwd?: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Deadline, after which act is killed (default 20 min). */
  timeoutMs?: number;
}

/** The child process options of an act run. */
function actProcess(options: ActOptions) {
  return {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8' as const,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...options.env, ACT: 'true' },
    timeout: options.timeoutMs ?? 20 * 60_000,
    killSignal: 'SIGKILL' as const,
  };
}

/**
 * Runs a workflow with act on the host (`-P ubuntu-latest=-self-hosted`), as a runner would.
 * @returns act's exit status and combined output
 */
export function runAct(
  workflow: string,
  args: string[] = [],
  options: ActOptions = {},
): SpawnSyncReturns<string> & { log: string } {
  const r = spawnSync(actBinary(), actArgs(workflow, args), actProcess(options));
  return Object.assign(r, { log: `${r.stdout}${r.stderr}` });
}

/**
 * runAct without blocking this process: for a run that reaches a server this process serves
 * (the local npm registry answers from its event loop, which spawnSync would hold).
 * @returns act's exit status (null when killed at the deadline) and combined output
 */
export function runActAsync(
  workflow: string,
  args: string[] = [],
  options: ActOptions = {},
): Promise<{ status: number | null; log: string }> {
  return new Promise((resolve) => {
    execFile(actBinary(), actArgs(workflow, args), actProcess(options), (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, log: `${stdout}${stderr}` });
    });
  });
}

/**
 * e2e.yml's container job options (the PG_TMPFS_JOB_OPTIONS variable): node and the docker CLI
 * from the host, mounted read-only into the local job image. GitHub's runner brings its own node;
 * the docker CLI must be in the job image or mounted like this.
 */
export function jobContainerOptions(): string {
  const dockerCli = execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8', timeout: 10_000 }).trim();
  return `-v ${process.execPath}:/usr/bin/node:ro -v ${dockerCli}:/usr/bin/docker:ro`;
}

/**
 * Runs `fn` with a user-defined bridge network of its own (as GitHub's `job.container.network`),
 * removed afterwards, with every container still attached to it.
 */
export function withNetwork<T>(fn: (network: string) => T): T {
  const network = `pg-tmpfs-e2e-net-${process.pid}-${Date.now()}`;
  execFileSync('docker', ['network', 'create', network], { stdio: 'ignore' });
  try {
    return fn(network);
  } finally {
    const attached = (spawnSync('docker', ['ps', '-aq', '--filter', `network=${network}`], { encoding: 'utf8' }).stdout ?? '')
      .split('\n')
      .filter(Boolean);
    if (attached.length) spawnSync('docker', ['rm', '-f', '-v', ...attached], { stdio: 'ignore' });
    spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
  }
}

/**
 * e2e.yml's `container-job` through act, as GitHub runs a `container:` job: the job in the 15 test
 * image on a bridge network of its own (withNetwork), the server from the 18 test image.
 * @returns act's result, and what its log must show when the server joined the job's network and
 *   answered there
 */
export function runContainerJob(): { r: ReturnType<typeof runAct>; expected: RegExp[] } {
  const r = withNetwork((network) =>
    runAct('.github/workflows/e2e.yml', [
      '-j',
      'container-job',
      '--network',
      network,
      '--var',
      `PG_TMPFS_JOB_IMAGE=${TEST_IMAGES[15]}`,
      '--var',
      `PG_TMPFS_JOB_OPTIONS=${jobContainerOptions()}`,
      '--var',
      `PG_TMPFS_SERVER_IMAGE=${TEST_IMAGES[18]}`,
    ]),
  );
  showLines(r.log, /e2e-check|job container|Answered a query/);
  const expected = [
    /Running in a job container on network pg-tmpfs-e2e-net-\S+: PostgreSQL joins it as pg-tmpfs-\S+:5432/,
    /e2e-check container-job: ok \(host pg-tmpfs-\S+, port 5432\)/,
    /Removed PostgreSQL container/,
  ];
  return { r, expected };
}

/** Prints the lines of a (long) log that match `pattern`, for the test output. */
export function showLines(log: string, pattern: RegExp): void {
  console.log(
    log
      .split('\n')
      .filter((l) => pattern.test(l))
      .join('\n'),
  );
}

/**
 * Volumes that act makes for itself and keeps on purpose: `act-toolcache`, the tool cache of its
 * container jobs (mounted at the job's RUNNER_TOOL_CACHE), created the first time act runs one
 * on an engine and reused by every later job. Not left by anything of ours: a
 * leftover check that snapshots volumes before the first container job on a new engine would
 * otherwise see it as new (the 2026-11-26 failure of tests/e2e/engine29.test.ts).
 */
export const ACT_OWN_VOLUMES: readonly string[] = ['act-toolcache'];

/**
 * Names of the engine's volumes (`docker volume ls -q`, 60 s deadline; DOCKER_HOST as `env`, by
 * default this process's, sets it), without act's own (ACT_OWN_VOLUMES). [] when the engine does
 * not answer.
 */
export function dockerVolumeNames(env: NodeJS.ProcessEnv = process.env): string[] {
  return (spawnSync('docker', ['volume', 'ls', '-q'], { encoding: 'utf8', timeout: 60_000, env }).stdout ?? '')
    .split('\n')
    .filter((v) => v !== '' && !ACT_OWN_VOLUMES.includes(v));
}

/** IDs of containers this project started (by label), running or not. */
export function ourContainers(): string[] {
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=${CONTAINER_LABEL}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** The PostgreSQL major installed on this machine for native-mode tests (Debian 12: 15). */
export const NATIVE_MAJOR = process.env.PG_TMPFS_NATIVE_VERSION ?? '15';

/**
 * What native mode may leave behind: run folders under /dev/shm and the temp folder, tmpfs mounts
 * and their `pg-tmpfs-mnt-*` folders, and postgres processes whose data directory is one of ours.
 * All must be empty after every test.
 */
export function nativeLeftovers(): string[] {
  const tmp = process.env.RUNNER_TEMP || tmpdir();
  // /dev/shm: every pg-tmpfs-* folder; the temp folder: mount folders and run folders
  // (`<container-name>-<16 hex token>`), not the tests' own pg-tmpfs-* scratch folders.
  const dirs = [
    ...readdirSync('/dev/shm')
      .filter((n) => n.startsWith('pg-tmpfs-'))
      .map((n) => `/dev/shm/${n}`),
    ...readdirSync(tmp)
      .filter((n) => n.startsWith('pg-tmpfs-mnt-') || (n.startsWith('pg-tmpfs-') && /-[0-9a-f]{16}$/.test(n)))
      .map((n) => `${tmp}/${n}`),
  ];
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter((l) => l.includes('/pg-tmpfs-mnt-'))
    .map((l) => `mount ${l.split(' ')[1]}`);
  const procs = spawnSync('pgrep', ['-af', 'postgres -D .*/pg-tmpfs-'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map((l) => `process ${l}`);
  return [...dirs, ...mounts, ...procs];
}

/**
 * The tests' one walk of /proc: live processes (zombies and this one excluded) whose command line
 * `match` accepts (src/processes.ts findProcesses, which the product uses to find what a killed start
 * left). `match` may read more of /proc/<pid>/ and throw when it cannot: that process is skipped.
 */
export function liveProcesses(match: (argv: string[], pid: number) => boolean): ProcessInfo[] {
  return findProcesses((pid) => match(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean), pid));
}

/** SysV shared memory segments (ipcs -m), which a postmaster that was not stopped keeps: `shm <key> <owner>`. */
export function sharedMemorySegments(): string[] {
  return spawnSync('ipcs', ['-m'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => /^0x[0-9a-f]+\s/.test(l))
    .map((l) => {
      const [key, id, owner] = l.trim().split(/\s+/);
      return `shm ${key} ${id} ${owner}`;
    });
}

/** TCP ports a postgres process listens on (ss -ltnp): `port <address:port>`. */
export function postgresPorts(): string[] {
  return spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.includes('"postgres"'))
    .map((l) => `port ${l.trim().split(/\s+/)[3]}`);
}

/**
 * The pool's keeper processes (src/pool/start.ts launches them with KEEPER_FLAG): `keeper <pid>`;
 * and the keeps of builds taken into RAM (src/native/source/npm/keep.ts, KEEP_FLAG): `keep of a build in RAM <pid>`.
 */
export function keeperProcesses(): string[] {
  return [
    ...liveProcesses((argv) => argv.includes(KEEPER_FLAG)).map((p) => `keeper ${p.pid}`),
    ...liveProcesses((argv) => argv.includes(KEEP_FLAG)).map((p) => `keep of a build in RAM ${p.pid}`),
  ];
}

/**
 * Snapshot of what a start may leave (our containers, native run folders, mounts, postgres
 * processes, shared memory segments, postgres ports, pool keepers); `added()` lists what appeared
 * since. Tests assert `added()` is empty, so instances a developer runs alongside (or another run
 * on the same engine) do not count.
 */
export function leftoverSnapshot(): { added: () => string[] } {
  const all = () => [
    ...ourContainers(),
    ...nativeLeftovers(),
    ...sharedMemorySegments(),
    ...postgresPorts(),
    ...keeperProcesses(),
  ];
  const before = new Set(all());
  return { added: () => all().filter((x) => !before.has(x)) };
}

/**
 * Runs `sql` on a connection of its own to `uri` and returns the first row's `v` as text
 * ('undefined' when there is no row).
 * @throws connection and query errors as node-postgres gives them
 */
export async function queryValue(uri: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    const result = await client.query<{ v: unknown }>(sql);
    return String(result.rows[0]?.v);
  } finally {
    await client.end();
  }
}
