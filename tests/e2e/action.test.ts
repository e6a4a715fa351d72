/**
 * The action end to end, as a GitHub runner runs it: .github/workflows/e2e.yml through act on
 * the real Docker engine, for both PGDATA layouts, then a check that nothing is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, runAct, TEST_IMAGES } from '../helpers/infra.js';

describe('action through act', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('starts, verifies, exports and cleans up for both PGDATA layouts', () => {
    requireImages();
    const images = JSON.stringify([TEST_IMAGES.layout17, TEST_IMAGES.layout18]);
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'docker-mode', '--var', `PG_TMPFS_TEST_IMAGES=${images}`]);
    const checks = r.log.split('\n').filter((l) => l.includes('e2e-check '));
    console.log(checks.join('\n'));
    console.log(
      r.log
        .split('\n')
        .filter((l) => /Answered a query after|startup-ms/.test(l))
        .join('\n'),
    );
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(checks.some((l) => l.includes('e2e-check /var/lib/postgresql/data: ok'))).toBe(true);
    expect(checks.some((l) => l.includes('e2e-check /var/lib/postgresql/15/docker: ok'))).toBe(true);
    // The password never appears in clear in the log (it is masked as ***).
    expect(r.log).not.toContain('p@ss:w/rd?#%&= x');
    expect(r.log).toMatch(/Removed PostgreSQL container/);
    expect(leftovers.added()).toEqual([]);
  });

  it('native mode: fills the initdb cache, then uses it; the post step removes both servers', () => {
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'native-mode', '--var', `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`]);
    console.log(
      r.log
        .split('\n')
        .filter((l) => /e2e-check|initdb cache|Answered a query/.test(l))
        .join('\n'),
    );
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(r.log).toContain('e2e-check native: ok');
    expect(r.log).toMatch(/initdb cache miss: ran initdb --nosync/);
    expect(r.log).toMatch(/initdb cache hit:/);
    expect(r.log.match(/Stopped PostgreSQL \(pid \d+\) and removed/g)).toHaveLength(2);
    expect(leftovers.added()).toEqual([]);
  });

  it('fails bad input and an image that cannot be had, leaving no container', () => {
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'bad-input']);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(r.log).toContain('e2e-check bad-input: ok');
    expect(r.log).toMatch(/Input 'port': "not-a-port" is not a whole number/);
    expect(r.log).toMatch(/Could not pull image "pg-tmpfs-test\/no-such-image:1"/);
    expect(leftovers.added()).toEqual([]);
  });
});
