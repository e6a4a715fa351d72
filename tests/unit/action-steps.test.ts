/**
 * The action's main and post steps through their exported functions, with the runner's files
 * (inputs in; outputs, state, env and annotations out). Paths that need no server; the ones that
 * start one are in tests/e2e/action-steps.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/action/main-step.js';
import { cleanup } from '../../src/action/post-step.js';
import { RunnerJob } from '../helpers/runner-env.js';

const job = new RunnerJob();
afterAll(() => job.remove());

describe('main step, bad input', () => {
  it('fails with an annotation naming the input and the fix, and saves nothing for the post step', async () => {
    const r = await job.step(run, { port: '99999', mode: 'docker' });
    expect(r.value).toBeNull();
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^::error::Input 'port': "99999" is not a whole number from 0 to 65535\. Use a TCP port/m);
    expect(r.state).toEqual({});
    expect(r.outputs).toEqual({});
    expect(r.env).toEqual({});
  });

  it('names a bad setting line', async () => {
    const r = await job.step(run, { settings: 'fsync off' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`::error::Input 'settings': line 1 "fsync off" is not name=value`);
    expect(r.state).toEqual({});
  });
});

describe('post step without a server', () => {
  it('says there is nothing to remove when the main step saved nothing', async () => {
    const r = await job.step(cleanup);
    expect(r.value).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('No PostgreSQL server to remove.');
  });

  it('warns, and never fails the job, when the saved state is not a handle', async () => {
    const r = await job.step(cleanup, {}, { server: '{"mode":"floppy"}' });
    expect(r.exitCode).toBe(0);
    expect(r.value).toHaveLength(1);
    expect(r.stdout).toMatch(/^::warning::Cleanup of PostgreSQL failed: unexpected saved state/m);
  });
});
