/**
 * Background starts (issue #12) of the action in Docker mode, with real processes and Docker:
 * - through act: the main step with `wait: false` (the image pulled in the background from a
 *   registry on 127.0.0.1), a step standing for dependency installation, the wait sub-action,
 *   then queries; the time the job spent blocked on PostgreSQL is printed, not asserted;
 * - the action's processes (dist/main.js, dist/post.js, as the runner starts them): a post step
 *   that comes while the background start runs (a job cancelled before its wait step) waits for
 *   it and removes everything; a background start killed with SIGKILL is removed by the post step;
 *   a start that fails makes the wait step fail with its error, and leaves nothing.
 * The tests both modes run are in tests/helpers/background-action.ts; native mode's are in
 * background-action-native.test.ts, the CLI's in background-cli-{docker,native}.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TEST_IMAGES } from '../helpers/infra.js';
import { MAIN, POST, WAIT, snapshot, step, useBackgroundSetup } from '../helpers/background.js';
import { actTest, cancelTest } from '../helpers/background-action.js';

useBackgroundSetup('docker');

describe('background start through act', () => {
  actTest('docker');
});

describe('background start, the action in processes', () => {
  cancelTest('docker');

  it('docker: a background start killed (SIGKILL) after docker run is removed by the post step', async () => {
    const leftovers = snapshot();
    const main = await step(MAIN, { mode: 'docker', image: TEST_IMAGES[18], wait: 'false', port: '0' });
    expect(main.code, main.log).toBe(0);
    const saved = JSON.parse(main.state.background ?? '{}') as { dir: string; pid: number };
    const handleFile = join(saved.dir, 'handle.json');
    const until = Date.now() + 30_000;
    while (Date.now() < until && !(existsSync(handleFile) && readFileSync(handleFile, 'utf8').includes('"containerId": "')))
      await sleep(2);
    const handle = JSON.parse(readFileSync(handleFile, 'utf8')) as { containerId: string };
    process.kill(saved.pid, 'SIGKILL');
    await sleep(100);
    const post = await step(POST, {}, main.state);
    // No wait step saw it: the job did not get its database, so the post step fails it (#26).
    expect(post.code, post.log).toBe(1);
    expect(post.log).toMatch(
      /::error::.*no wait step read it: The background start of PostgreSQL \(pid \d+\) was killed before it finished/,
    );
    if (handle.containerId) expect(post.log).toMatch(/Removed PostgreSQL container/);
    expect(existsSync(saved.dir)).toBe(false);
    expect(leftovers.added()).toEqual([]);
  });

  it('a start that fails: the wait step fails with its error and log; the post step finds nothing left', async () => {
    const leftovers = snapshot();
    const main = await step(MAIN, { mode: 'docker', image: 'pg-tmpfs-test/no-such-image:1', wait: 'false', port: '0' });
    expect(main.code, main.log).toBe(0);
    const wait = await step(WAIT, {}, {}, { PG_TMPFS_BACKGROUND: main.env.PG_TMPFS_BACKGROUND ?? '' });
    expect(wait.code).toBe(1);
    expect(wait.log).toMatch(/::error::Could not pull image "pg-tmpfs-test\/no-such-image:1"/);
    expect(wait.log).toMatch(/::group::Pulling pg-tmpfs-test\/no-such-image:1/);
    const post = await step(POST, {}, main.state);
    expect(post.code, post.log).toBe(0);
    expect(post.log).toContain('No PostgreSQL server to remove.');
    expect(leftovers.added()).toEqual([]);
  });
});
