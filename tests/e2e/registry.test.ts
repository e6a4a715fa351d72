/**
 * Images pulled from a registry, for real: the CNCF distribution registry on 127.0.0.1 (no public
 * registry can be reached here), the image pushed to it and removed locally before each pull.
 * - the action's default image (postgres:18, no postgres-version) from a mirror given by
 *   `registry`, in-process and through act;
 * - a registry answering 429 and 503 at first: retried with backoff, reported, then started;
 *   one that keeps failing: a clear error after a bounded time;
 * - a registry with htpasswd authentication: without `docker login` the error says the image
 *   needs credentials; after a login in an earlier step (as docker/login-action does) it works.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/action/main-step.js';
import { cleanup } from '../../src/action/post-step.js';
import { pullImage } from '../../src/docker/engine.js';
import { SetupError } from '../../src/errors.js';
import { leftoverSnapshot, requireImages, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';
import { forgetImage, pushProbeImage, startFaultyProxy, startRegistry, type Registry } from '../helpers/registry.js';
import { RunnerJob } from '../helpers/runner-env.js';

const job = new RunnerJob();
let registry: Registry;
let leftovers: ReturnType<typeof leftoverSnapshot>;
const pushed: string[] = [];

beforeAll(async () => {
  requireImages();
  leftovers = leftoverSnapshot();
  registry = await startRegistry();
});
afterAll(async () => {
  for (const ref of pushed) forgetImage(ref);
  await registry?.stop();
  job.remove();
});

/** Pushes the 18 test image under `tag` and removes it locally; the next pull is real. */
function push(tag: string, to = registry.address, env?: NodeJS.ProcessEnv): string {
  const ref = pushProbeImage(TEST_IMAGES[18], to, tag, env);
  pushed.push(ref);
  return ref;
}

describe('pulls from a registry', () => {
  it('pulls the default image (postgres:18) from the mirror given by `registry`, and reports pull-ms', async () => {
    const ref = push('18');
    // No mode: a registry, like an image, makes `auto` choose Docker even with binaries installed.
    const main = await job.step(run, { registry: `${registry.address}/library`, port: '0' });
    try {
      expect(main.exitCode, main.stdout).toBe(0);
      expect(main.stdout).toContain('mode auto: docker (an image or registry was given)');
      expect(main.stdout).toContain(`::group::Pulling ${ref}`);
      expect(main.outputs['server-version']).toMatch(/^18\./);
      expect(Number(main.outputs['pull-ms'])).toBeGreaterThan(0);
      expect(main.summary).toMatch(/pull \d+ ms/);
    } finally {
      if (main.state.server) expect((await job.step(cleanup, {}, main.state)).value).toEqual([]);
      forgetImage(ref);
    }
    expect(leftovers.added()).toEqual([]);
  });

  it('the default image through act: no postgres-version, the mirror as a workflow variable', () => {
    const ref = push('18');
    const r = runAct('.github/workflows/e2e.yml', [
      '-j',
      'default-version',
      '--var',
      `PG_TMPFS_REGISTRY=${registry.address}/library`,
    ]);
    forgetImage(ref);
    showLines(r.log, /e2e-check|Pulled|Answered a query/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    expect(r.log).toMatch(/e2e-check default-version: ok \(server 18\.\d+.*, pull-ms [1-9]\d*\)/);
    expect(leftovers.added()).toEqual([]);
  });

  it('retries a registry that answers 429 and then 503, says so, and starts', async () => {
    // One failed `docker pull` takes three failed requests: the daemon ignores the status of its
    // GET /v2/ ping, and falls back from HEAD to GET for the manifest.
    const proxy = await startFaultyProxy(registry.address, [429, 429, 429, 503, 503, 503]);
    const image = `${proxy.address}/library/postgres:18-retry`;
    let state: Record<string, string> = {};
    try {
      push('18-retry');
      pushed.push(image);
      const main = await job.step(run, { mode: 'docker', image, port: '0' });
      state = main.state;
      expect(main.exitCode, main.stdout).toBe(0);
      expect(main.stdout).toMatch(
        new RegExp(`^::warning::Pull of ${image} failed \\(.*429.*\\); retrying in 1 s \\(attempt 2\\)`, 'm'),
      );
      expect(main.stdout).toMatch(/^::warning::Pull of .* failed \(.*503.*\); retrying in 2 s \(attempt 3\)/m);
      expect(proxy.statuses.slice(0, 6)).toEqual([429, 429, 429, 503, 503, 503]);
      expect(main.outputs['server-version']).toMatch(/^18\./);
    } finally {
      if (state.server) expect((await job.step(cleanup, {}, state)).value).toEqual([]);
      forgetImage(image);
      await proxy.stop();
    }
    expect(leftovers.added()).toEqual([]);
  });

  it('gives up on a registry that keeps failing, after a bounded time, with a clear error', async () => {
    const proxy = await startFaultyProxy(registry.address, Array<number>(1000).fill(503));
    try {
      const retries: string[] = [];
      const t0 = Date.now();
      const error = await pullImage(`${proxy.address}/library/postgres:18`, (m) => retries.push(m), 4000).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SetupError);
      expect((error as SetupError).message).toMatch(
        /^Could not pull image ".*" after 3 attempts in [34] s: .*503.*The registry kept failing/,
      );
      expect(retries).toHaveLength(2); // after 1 s and 2 s; a third wait (4 s) would pass the 4 s budget
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      await proxy.stop();
    }
  });

  it('says the image needs credentials without a login, and pulls after `docker login`', async () => {
    const auth = { user: 'ci', password: 'pull-secret' };
    const secured = await startRegistry(auth);
    const dockerConfig = mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-config-'));
    try {
      const loggedIn = { ...process.env, DOCKER_CONFIG: dockerConfig };
      execFileSync('docker', ['login', secured.address, '--username', auth.user, '--password-stdin'], {
        input: auth.password,
        env: loggedIn,
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      const ref = push('18-auth', secured.address, loggedIn);

      const anonymousConfig = mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-anon-'));
      const anonymous = await job.step(
        async () => {
          process.env.DOCKER_CONFIG = anonymousConfig;
          return run();
        },
        { mode: 'docker', image: ref, port: '0' },
      );
      rmSync(anonymousConfig, { recursive: true, force: true });
      expect(anonymous.exitCode).toBe(1);
      expect(anonymous.stdout).toMatch(
        new RegExp(
          `^::error::Image "${ref}" needs registry credentials: .*Log in to its registry in an earlier step \\(e\\.g\\. docker/login-action\\)`,
          'm',
        ),
      );
      expect(anonymous.stdout).not.toMatch(/retrying/);
      expect(anonymous.state).toEqual({});

      const main = await job.step(
        async () => {
          process.env.DOCKER_CONFIG = dockerConfig; // what docker/login-action leaves for later steps
          return run();
        },
        { mode: 'docker', image: ref, port: '0' },
      );
      if (main.state.server) expect((await job.step(cleanup, {}, main.state)).value).toEqual([]);
      forgetImage(ref);
      expect(main.exitCode, main.stdout).toBe(0);
      expect(main.outputs['server-version']).toMatch(/^18\./);
    } finally {
      await secured.stop();
      rmSync(dockerConfig, { recursive: true, force: true });
    }
    expect(leftovers.added()).toEqual([]);
  });
});
