/**
 * Shared helpers for end-to-end tests: the local test images, the act binary, leftovers checks.
 * Under CI=true, missing infrastructure fails the test (never skips).
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';

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
 * Path of a tool that scripts/setup-test-infra.sh installs with `go install`: PATH, then
 * $(go env GOPATH)/bin.
 * @throws Error pointing at the setup script when it is in neither
 */
export function goBinary(name: string): string {
  const onPath = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', name], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout.trim() || join(homedir(), 'go');
  const candidate = join(gopath, 'bin', name);
  if (existsSync(candidate)) return candidate;
  throw new Error(`${name} is not installed: run bash scripts/setup-test-infra.sh`);
}

/** Path of the act binary. */
export function actBinary(): string {
  return goBinary('act');
}

/**
 * Runs a workflow with act on the host (`-P ubuntu-latest=-self-hosted`), as a runner would.
 * @returns act's exit status and combined output
 */
export function runAct(workflow: string, args: string[] = []): SpawnSyncReturns<string> & { log: string } {
  const r = spawnSync(
    actBinary(),
    ['push', '-P', 'ubuntu-latest=-self-hosted', '-W', workflow, '--pull=false', '--action-offline-mode', ...args],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ACT: 'true' } },
  );
  return Object.assign(r, { log: `${r.stdout}${r.stderr}` });
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

/** Prints the lines of a (long) log that match `pattern`, for the test output. */
export function showLines(log: string, pattern: RegExp): void {
  console.log(
    log
      .split('\n')
      .filter((l) => pattern.test(l))
      .join('\n'),
  );
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
 * What native mode may leave behind: run folders under /dev/shm and postgres processes whose
 * data directory is one of ours. Both must be empty after every test.
 */
export function nativeLeftovers(): string[] {
  const dirs = readdirSync('/dev/shm')
    .filter((n) => n.startsWith('pg-tmpfs-'))
    .map((n) => `/dev/shm/${n}`);
  const procs = spawnSync('pgrep', ['-af', 'postgres -D /dev/shm/pg-tmpfs-'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  return [...dirs, ...procs];
}

/**
 * Snapshot of our containers and native leftovers; `added()` lists those that appeared since.
 * Tests assert `added()` is empty, so instances a developer runs alongside do not count.
 */
export function leftoverSnapshot(): { added: () => string[] } {
  const before = new Set([...ourContainers(), ...nativeLeftovers()]);
  return { added: () => [...ourContainers(), ...nativeLeftovers()].filter((x) => !before.has(x)) };
}
