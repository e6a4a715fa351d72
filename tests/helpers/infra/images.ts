/**
 * The local test images and Docker engines of the end-to-end tests (tests/images/build.sh,
 * scripts/setup-test-infra.sh). Under CI=true, missing infrastructure fails the test (never skips).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ENGINE29_HOST } from '../../../testkit/engines.js';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

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

/** The PostgreSQL major installed on this machine for native-mode tests (Debian 12: 15). */
export const NATIVE_MAJOR = process.env.PG_TMPFS_NATIVE_VERSION ?? '15';
