/**
 * The schema cache through the action as a runner runs it, Docker mode with wait: false: e2e.yml's
 * schema-cache job through act (tests/helpers/schema-cache-action.ts), the background start and
 * the wait step. The first run misses and its post step saves to the GitHub cache (act serves that
 * API); the next, with an emptied local store, restores: no init, the first run's seed data. Native
 * mode (and a failing job saving nothing) is in schema-cache-action-native.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { TEST_IMAGES } from '../helpers/infra.js';
import { useSchemaCacheJob } from '../helpers/schema-cache-action.js';

describe('schema cache through act', () => {
  const { runJob, added } = useSchemaCacheJob();

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
    expect(added()).toEqual([]);
  });
});
