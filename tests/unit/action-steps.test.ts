/**
 * The action's main and post steps through their exported functions, with the runner's files
 * (inputs in; outputs, state, env and annotations out). Paths that need no server; the ones that
 * start one are in tests/e2e/action-steps-{native,docker}.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import { RunnerJob } from '../helpers/runner-env.js';

const job = new RunnerJob();
afterAll(() => job.remove());

describe('main step, bad input', () => {
  it('fails with an annotation naming the input and the fix, and saves nothing for the post step', async () => {
    const r = await job.step(mainStep, { port: '99999', mode: 'docker' });
    expect(r.value).toBeNull();
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^::error::Input 'port': "99999" is not a whole number from 0 to 65535\. Use a TCP port/m);
    expect(r.state).toEqual({});
    expect(r.outputs).toEqual({});
    expect(r.env).toEqual({});
  });

  it('names a bad setting line', async () => {
    const r = await job.step(mainStep, { settings: 'fsync off' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`::error::Input 'settings': line 1 "fsync off" is not name=value`);
    expect(r.state).toEqual({});
  });
});

describe('main step, a RUNNER_TOOL_CACHE builds cannot be kept in (issue #43)', () => {
  it.each([
    ['tc', '"tc" is not an absolute path'],
    ['/opt/tool$cache', `"/opt/tool$cache" holds "$", which initdb's shell command cannot carry`],
  ])('%j: refused before anything starts, naming RUNNER_TOOL_CACHE and the fix', async (toolCache, problem) => {
    const saved = process.env.RUNNER_TOOL_CACHE;
    process.env.RUNNER_TOOL_CACHE = toolCache;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.RUNNER_TOOL_CACHE;
      else process.env.RUNNER_TOOL_CACHE = saved;
    });
    const r = await job.step(mainStep, { mode: 'native', 'postgres-version': '17' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`::error::RUNNER_TOOL_CACHE ${problem}: server builds from npm are kept there`);
    expect(r.stdout).toContain('Set RUNNER_TOOL_CACHE to an absolute folder');
    expect([r.state, r.outputs, r.env]).toEqual([{}, {}, {}]);
    expect(existsSync(toolCache)).toBe(false);
  });
});

describe('post step without a server', () => {
  it('says there is nothing to remove when the main step saved nothing', async () => {
    const r = await job.step(postStep);
    expect(r.value).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('No PostgreSQL server to remove.');
  });

  it('warns, and never fails the job, when the saved state is not a handle', async () => {
    const r = await job.step(postStep, {}, { server: '{"mode":"floppy"}' });
    expect(r.exitCode).toBe(0);
    expect(r.value).toHaveLength(1);
    expect(r.stdout).toMatch(/^::warning::Cleanup of PostgreSQL failed: unexpected saved state/m);
  });
});

describe('post step after a background start (wait: false) that gave no server (issue #26)', () => {
  /** A background start's folder as the background process leaves it; its pid is long gone. */
  function folder(outcome: object | null, shown: boolean): { dir: string; state: Record<string, string> } {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-start-'));
    writeFileSync(join(dir, 'launch.json'), JSON.stringify({ pid: 2 ** 22 + 1, startedAtMs: 0, deadlineAtMs: 1 }));
    writeFileSync(join(dir, 'start.log'), 'Running init files\n');
    if (outcome) writeFileSync(join(dir, 'outcome.json'), JSON.stringify(outcome));
    if (shown) writeFileSync(join(dir, 'shown'), '');
    return { dir, state: { background: JSON.stringify({ dir, pid: 2 ** 22 + 1 }) } };
  }
  const failed = {
    ok: false,
    error: { kind: 'input', input: 'init', problem: 'bad.sql:1:1: ERROR: syntax error', fix: 'Fix the SQL' },
  };

  it('fails the job, naming the cause and that no wait step read it, after removing the folder', async () => {
    const { dir, state } = folder(failed, false);
    const r = await job.step(postStep, {}, state);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("The background start's log (no wait step showed it):\nRunning init files\n");
    expect(r.stdout).toMatch(
      /^::error::The background start of PostgreSQL \(wait: false\) did not give the job its database, and no wait step read it: Input 'init': bad\.sql:1:1: ERROR: syntax error\. Fix the SQL\. Add a step `uses: <this action>\/wait@<same ref>` after the main step/m,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('fails the job when the start was killed and no wait step read it', async () => {
    const { dir, state } = folder(null, false);
    const r = await job.step(postStep, {}, state);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(
      /^::error::.*no wait step read it: The background start of PostgreSQL \(pid \d+\) was killed before it finished\. /m,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  // The main step saves the folder's name (pid 0) before it makes it, and the PID once the
  // process runs: a kill in between leaves a name the post step can act on (kill loop, seed
  // 1695679669 try 111, left an empty folder no step knew of).
  it.each([
    ['made, nothing launched', true],
    ['named, not made yet', false],
  ])('removes the folder of a main step killed before it launched anything (%s)', async (_, made) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'pg-tmpfs-unit-')), 'pg-tmpfs-start-0123456789ab');
    onTestFinished(() => rmSync(dirname(dir), { recursive: true, force: true }));
    if (made) mkdirSync(dir, { mode: 0o700 });
    const r = await job.step(postStep, {}, { background: JSON.stringify({ dir, pid: 0 }) });
    expect(r.value).toEqual([]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(
      /^::error::.*no wait step read it: The main step was killed before it launched the background start of PostgreSQL\. /m,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('only warns when a wait step read the failure (that step failed the job already)', async () => {
    const { dir, state } = folder(failed, true);
    const r = await job.step(postStep, {}, state);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^::warning::The background start of PostgreSQL failed: bad\.sql:1:1: ERROR: syntax error$/m);
    expect(r.stdout).not.toContain('::error::');
    rmSync(dir, { recursive: true, force: true });
  });
});
