/**
 * The action's main and post steps through their exported functions (mainStep, postStep) on real
 * servers: native mode on the installed binaries, Docker mode on the local test image. Inputs
 * go in as INPUT_*; the outputs, exported env, job summary and the handle in GITHUB_STATE come
 * out; the post step, given that state, leaves nothing behind. act runs the same steps from
 * dist/ in tests/e2e/action-docker.test.ts and action-native.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import type { ServerHandle } from '../../src/server.js';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, TEST_IMAGES } from '../helpers/infra.js';
import { RunnerJob } from '../helpers/runner-env.js';

const job = new RunnerJob();
const cacheDir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-steps-cache-'));
let leftovers: ReturnType<typeof leftoverSnapshot>;
beforeAll(() => {
  requireImages();
  leftovers = leftoverSnapshot();
});
afterAll(() => {
  job.remove();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function queryRow(uri: string) {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return (
      await client.query<{ u: string; d: string; fsync: string; work_mem: string }>(
        "select current_user as u, current_database() as d, current_setting('fsync') as fsync, current_setting('work_mem') as work_mem",
      )
    ).rows[0];
  } finally {
    await client.end();
  }
}

describe.each<{ mode: string; inputs: Record<string, string> }>([
  { mode: 'native', inputs: { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': cacheDir } },
  { mode: 'docker', inputs: { mode: 'docker', image: TEST_IMAGES.layout18 } },
])('main and post steps, $mode mode', ({ mode, inputs }) => {
  it('publishes outputs, env, summary and state; the post step removes everything', async () => {
    const main = await job.step(mainStep, {
      ...inputs,
      port: '0',
      user: 'app_user',
      password: 'p@ss w:rd',
      database: 'app-db',
      settings: 'work_mem=8MB',
    });
    expect(main.exitCode, main.stdout).toBe(0);
    expect(main.value && 'mode' in main.value ? main.value.mode : null).toBe(mode);

    // Outputs: the connection works and is the one the env exports; the password is masked.
    expect(main.outputs.mode).toBe(mode);
    expect(main.outputs.tmpfs).toBe('true');
    expect(main.outputs['container-id'] !== '').toBe(mode === 'docker');
    expect(main.outputs['cache-hit']).toBe(mode === 'native' ? 'false' : '');
    expect(main.env.DATABASE_URL).toBe(main.outputs['connection-uri']);
    expect(main.env.PGPASSWORD).toBe('p@ss w:rd');
    expect(main.stdout).toContain('::add-mask::p@ss w:rd');
    expect(await queryRow(main.outputs['connection-uri'] ?? '')).toEqual({
      u: 'app_user',
      d: 'app-db',
      fsync: 'off',
      work_mem: '8MB',
    });
    expect(main.summary).toContain('Settings in effect');
    expect(main.summary).toContain('work_mem');

    // State: the handle the post step needs, and nothing else.
    const handle = JSON.parse(main.state.server ?? '{}') as ServerHandle;
    expect(handle.mode).toBe(mode);
    if (handle.mode === 'docker') expect(handle.containerId).toBe(main.outputs['container-id']);
    if (handle.mode === 'native') expect(handle.pid).toBeGreaterThan(0);

    const post = await job.step(postStep, {}, main.state);
    expect(post.exitCode).toBe(0);
    expect(post.value).toEqual([]);
    expect(post.stdout).toContain('::group::PostgreSQL server log');
    expect(post.stdout).toMatch(
      mode === 'docker'
        ? /Removed PostgreSQL container pg-tmpfs-\S+ \([0-9a-f]{12}\) and its anonymous volumes/
        : /Stopped PostgreSQL \(pid \d+\) and removed \//,
    );
    expect(post.stdout).not.toContain('::warning::');
    expect(leftovers.added()).toEqual([]);
  });
});

describe('post step after the server died', () => {
  it('warns that it was not running, shows its log, and still removes it', async () => {
    const main = await job.step(mainStep, { mode: 'docker', image: TEST_IMAGES.layout17, port: '0' });
    expect(main.exitCode, main.stdout).toBe(0);
    const handle = JSON.parse(main.state.server ?? '{}') as ServerHandle;
    if (handle.mode !== 'docker') throw new Error('expected a docker handle');
    const { execFileSync } = await import('node:child_process');
    execFileSync('docker', ['kill', handle.containerId]);
    const post = await job.step(postStep, {}, main.state);
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(
      /^::warning::PostgreSQL \(container pg-tmpfs-\S+ \([0-9a-f]{12}\)\) was not running at the end of the job/m,
    );
    expect(post.stdout).toContain('database system is ready to accept connections');
    expect(leftovers.added()).toEqual([]);
  });
});
