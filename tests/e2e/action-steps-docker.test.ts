/**
 * The action's main and post steps through their exported functions (mainStep, postStep) on real
 * servers, Docker mode on the local test image: the outputs, exported env, job summary and the
 * handle in GITHUB_STATE; the post step, given that state, leaves nothing behind, and warns (and
 * still removes it) when the container died. Native mode's test is in
 * action-steps-native.test.ts, what both share in tests/helpers/action-steps.ts; act runs the same
 * steps from dist/ in tests/e2e/action-docker.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import type { ServerHandle } from '../../src/server.js';
import { defineMainPostTests } from '../helpers/action-steps.js';
import { TEST_IMAGES } from '../helpers/infra.js';

const { job, leftovers } = defineMainPostTests('docker');

describe('post step after the server died', () => {
  it('warns that it was not running, shows its log, and still removes it', async () => {
    const main = await job.step(mainStep, { mode: 'docker', image: TEST_IMAGES.layout17, port: '0' });
    expect(main.exitCode, main.stdout).toBe(0);
    const handle = JSON.parse(main.state.server ?? '{}') as ServerHandle;
    if (handle.mode !== 'docker') throw new Error('expected a docker handle');
    execFileSync('docker', ['kill', handle.containerId]);
    const post = await job.step(postStep, {}, main.state);
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(
      /^::warning::PostgreSQL \(container pg-tmpfs-\S+ \([0-9a-f]{12}\)\) was not running at the end of the job/m,
    );
    expect(post.stdout).toContain('database system is ready to accept connections');
    expect(leftovers().added()).toEqual([]);
  });
});
