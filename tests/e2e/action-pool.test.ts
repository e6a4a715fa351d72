/**
 * The pool through act (issue #37): e2e.yml's `pool` job, with wait true and false, starts the
 * action with database app, an init file, template true and pool 4; its step takes copies with
 * `SELECT pgtmpfs.take()` on database postgres (psql, the exported PG* env), writes in each,
 * gives each back and checks the names differ and each copy starts empty. The post step must
 * then leave no container, no keeper process and nothing else (leftoverSnapshot counts keepers).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, requireImages, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';

describe('action through act: pool', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('pool: 4 with wait true and false: the job takes, writes in and gives back copies; the post step ends the keeper', () => {
    requireImages();
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'pool', '--var', `PG_TMPFS_POOL_IMAGE=${TEST_IMAGES[18]}`]);
    showLines(r.log, /e2e-check|Pool:/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const wait of ['true', 'false']) expect(r.log).toMatch(new RegExp(`e2e-check pool wait=${wait}: ok`));
    // Both starts said what the pool is: the main step (wait true), the wait step (wait false).
    expect(r.log.match(/Pool: the keeper \(PID \d+\) keeps 4 copies of app \([\d.]+ MB each\) ready/g)).toHaveLength(2);
    expect(r.log.match(/Removed PostgreSQL container/g)).toHaveLength(2);
    expect(leftovers.added()).toEqual([]);
  });
});
