/**
 * What the schema-cache-through-act files (tests/e2e/schema-cache-action-{native,docker}.test.ts)
 * share: e2e.yml's schema-cache job through act (which serves GitHub's cache API itself), run with
 * its local store emptied first, as on a new runner, and the file's leftover snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, runAct } from './infra.js';

/** What a run of the schema-cache job gave: act's result, its e2e-check line, and the seed's time from it. */
export type SchemaCacheRun = ReturnType<typeof runAct> & { check: string; seeded: string };

/**
 * Registers beforeAll (the leftover snapshot) and afterAll (the work folder removed) for a file.
 * @returns `runJob(run, expectHit, failJob, image)`: runs the schema-cache job once, its store
 *   emptied first (a new runner); `image` gives Docker mode with wait: false, else native mode; and
 *   `added()`, what the runs left since the snapshot
 */
export function useSchemaCacheJob(): {
  runJob: (run: number, expectHit: string, failJob?: boolean, image?: string) => SchemaCacheRun;
  added: () => string[];
} {
  const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-schema-act-'));
  const store = join(work, 'store');
  const key = `act-${process.pid}-${Date.now()}`;
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const runJob = (run: number, expectHit: string, failJob = false, image = ''): SchemaCacheRun => {
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
  };
  return { runJob, added: () => leftovers.added() };
}
