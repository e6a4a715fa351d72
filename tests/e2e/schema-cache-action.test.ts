/**
 * The schema cache through the action as a runner runs it: e2e.yml's schema-cache job through
 * act, which serves GitHub's cache API itself. A run whose job fails saves nothing; the first
 * run that succeeds misses and saves in the post step; the next, with an emptied local store,
 * restores from the cache: no init, the first run's seed data, this run's password. Then the
 * same in Docker mode with wait: false (the background start and the wait step).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, runAct, TEST_IMAGES } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-schema-act-'));
const store = join(work, 'store');
const key = `act-${process.pid}-${Date.now()}`;

/** Runs the schema-cache job once; its store emptied first (a new runner). `image`: Docker mode with wait: false. */
function runJob(run: number, expectHit: string, failJob = false, image = '') {
  rmSync(store, { recursive: true, force: true });
  const vars = {
    PG_TMPFS_SCHEMA_IMAGE: image,
    PG_TMPFS_NATIVE_VERSION: NATIVE_MAJOR,
    PG_TMPFS_SCHEMA_RUN: String(run),
    PG_TMPFS_SCHEMA_EXPECT_HIT: expectHit,
    PG_TMPFS_SCHEMA_KEY: `${key}${image ? '-docker' : ''}`,
    PG_TMPFS_SCHEMA_CACHE_DIR: store,
    PG_TMPFS_SCHEMA_FAIL_JOB: String(failJob),
  };
  const r = runAct('.github/workflows/e2e.yml', [
    '-j',
    'schema-cache',
    '--cache-server-path',
    join(work, 'actcache'),
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
  ]);
  const check = r.log.split('\n').find((l) => l.includes('e2e-check schema-cache:')) ?? '';
  return { ...r, check, seeded: /seeded=(.*)\)/.exec(check)?.[1] ?? '' };
}

describe('schema cache through act', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('saves nothing when the job fails, saves on the first success, restores on the next run', () => {
    const failed = runJob(1, 'false', true);
    expect(failed.status).not.toBe(0);
    expect(failed.check).toContain('hit=false');
    expect(failed.log).toMatch(/schema cache: not saved, the job's status is failure/);

    const first = runJob(1, 'false');
    expect(first.status, first.log.slice(-6000)).toBe(0);
    expect(first.check).toContain('hit=false');
    expect(first.log).toContain('Init SQL: 2 files in app');
    expect(first.log).toMatch(/schema cache: saved pg-tmpfs-schema-1-native-[0-9a-f]{32} to the GitHub cache/);

    const second = runJob(2, 'true');
    expect(second.status, second.log.slice(-6000)).toBe(0);
    expect(second.check).toContain('hit=true');
    expect(second.log).not.toContain('Init SQL');
    expect(second.seeded).toBe(first.seeded);
    expect(second.seeded).not.toBe('');
    // A hit saves nothing again.
    expect(second.log).not.toMatch(/schema cache: saved .* to the GitHub cache/);
    expect(leftovers.added()).toEqual([]);
  });

  it('Docker mode with wait: false: the background start misses and the post step saves; the next run restores', () => {
    const first = runJob(1, 'false', false, TEST_IMAGES[18]);
    expect(first.status, first.log.slice(-6000)).toBe(0);
    expect(first.check).toMatch(/hit=false key=pg-tmpfs-schema-1-docker-/);
    expect(first.log).toMatch(/schema cache: saved pg-tmpfs-schema-1-docker-[0-9a-f]{32} to the GitHub cache/);
    const second = runJob(2, 'true', false, TEST_IMAGES[18]);
    expect(second.status, second.log.slice(-6000)).toBe(0);
    expect(second.check).toContain('hit=true');
    expect(second.log).not.toContain('Init SQL');
    expect(second.seeded).toBe(first.seeded);
    expect(leftovers.added()).toEqual([]);
  });
});
