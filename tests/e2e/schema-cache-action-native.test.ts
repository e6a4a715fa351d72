/**
 * The schema cache through the action as a runner runs it, native mode: e2e.yml's schema-cache
 * job through act (tests/helpers/schema-cache-action.ts), its server on the host. A run whose job
 * fails saves nothing; the first run that succeeds misses and saves in the post step; the next,
 * with an emptied local store, restores from the cache: no init, the first run's seed data, this
 * run's password. The same in Docker mode with wait: false is in schema-cache-action-docker.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { useSchemaCacheJob } from '../helpers/schema-cache-action.js';

describe('schema cache through act', () => {
  const { runJob, added } = useSchemaCacheJob();

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
    expect(added()).toEqual([]);
  });
});
