/**
 * The action end to end in Docker mode, as a GitHub runner runs it: .github/workflows/e2e.yml
 * through act on the real Docker engine, on PostgreSQL 15, 17 and 18 (both PGDATA layouts of the
 * official image), a container job on a bridge network, and bad input, each followed by a check
 * that nothing is left behind. Native mode through act is in action-native.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  leftoverSnapshot,
  officialPgdata,
  requireImages,
  runAct,
  runContainerJob,
  showLines,
  TEST_IMAGES,
  TEST_MAJORS,
} from '../helpers/infra.js';

describe('action through act', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('starts, verifies, exports and cleans up on PostgreSQL 15, 17 and 18', () => {
    requireImages();
    const images = JSON.stringify(TEST_MAJORS.map((m) => TEST_IMAGES[m]));
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'docker-mode', '--var', `PG_TMPFS_TEST_IMAGES=${images}`]);
    const checks = r.log.split('\n').filter((l) => l.includes('e2e-check '));
    console.log(checks.join('\n'));
    showLines(r.log, /Answered a query after|startup-ms/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const major of TEST_MAJORS) {
      const ok = new RegExp(`e2e-check ${officialPgdata(major)}: ok \\(server ${major}\\.`);
      expect(
        checks.some((l) => ok.test(l)),
        `PostgreSQL ${major}`,
      ).toBe(true);
    }
    // The password never appears in clear in the log (it is masked as ***).
    expect(r.log).not.toContain('p@ss:w/rd?#%&= x');
    expect(r.log).toMatch(/Removed PostgreSQL container/);
    expect(leftovers.added()).toEqual([]);
  });

  it('container job on a bridge network: the server joins the job network; outputs and env reach it there', () => {
    requireImages();
    const { r, expected } = runContainerJob();
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const line of expected) expect(r.log).toMatch(line);
    expect(leftovers.added()).toEqual([]);
  });

  // A bad port fails before any start; the missing image is a Docker-mode start that cannot pull.
  it('fails bad input and an image that cannot be had, leaving no container', () => {
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'bad-input']);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(r.log).toContain('e2e-check bad-input: ok');
    expect(r.log).toMatch(/Input 'port': "not-a-port" is not a whole number/);
    expect(r.log).toMatch(/Could not pull image "pg-tmpfs-test\/no-such-image:1"/);
    expect(leftovers.added()).toEqual([]);
  });
});
