/**
 * The action end to end in native mode, as a GitHub runner runs it: e2e.yml's native-mode job
 * through act on the host (the runner's own PostgreSQL binaries): the first start fills the initdb
 * cache, the second uses it, the post step stops both, and nothing is left behind. Docker mode
 * through act (PostgreSQL 15, 17 and 18, a container job, bad input) is in action-docker.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, runAct, showLines } from '../helpers/infra.js';

describe('action through act', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('native mode: fills the initdb cache, then uses it; the post step removes both servers', () => {
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'native-mode', '--var', `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`]);
    showLines(r.log, /e2e-check|initdb cache|Answered a query/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(r.log).toContain('e2e-check native: ok');
    // The init command printed the password as quote_plus, quote and in DATABASE_URL: all masked (#26).
    expect(r.log).toMatch(/init-command forms: \*\*\* \*\*\* postgresql:\/\/app_user:\*\*\*@/);
    for (const form of ['p@ss:w/rd?#%&= x', 'p%40ss%3Aw%2Frd%3F%23%25%26%3D+x', 'p%40ss%3Aw/rd%3F%23%25%26%3D%20x']) {
      expect(r.log).not.toContain(form);
    }
    expect(r.log).toMatch(/initdb cache miss: ran initdb --nosync/);
    expect(r.log).toMatch(/initdb cache hit:/);
    expect(r.log.match(/Stopped PostgreSQL \(pid \d+\) and removed/g)).toHaveLength(2);
    expect(leftovers.added()).toEqual([]);
  });
});
