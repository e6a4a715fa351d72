/**
 * Images pulled from a registry, for real: the CNCF distribution registry on 127.0.0.1 (no public
 * registry can be reached here), the image pushed to it and removed locally before each pull.
 * - the action's default image (postgres:18, no postgres-version) from a mirror given by
 *   `registry`, in-process and through act;
 * - a registry answering 429 and 503 at first: retried with backoff, reported, then started;
 *   one that keeps failing: a clear error after a bounded time;
 * - a registry with htpasswd authentication: without `docker login` the error says the image
 *   needs credentials; after a login in an earlier step (as docker/login-action does) it works;
 * - a registry that accepts connections and never answers (#26): the pull gives up after its
 *   answer deadline (20 s, or a shorter wait-timeout) without retrying, naming the registry; and
 *   a CLI start killed (SIGKILL) during that pull leaves a `docker pull` that `down` ends.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import { pullImage } from '../../src/docker/pull.js';
import { processesWithArg } from '../../src/orphans.js';
import { SetupError } from '../../src/errors.js';
import { leftoverSnapshot, requireImages, ROOT, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';
import {
  forgetImage,
  killUpDuringPull,
  mainStepBehindFaultyProxy,
  mainStepGivesUpOnSilentRegistry,
  pullsOf,
  pushProbeImage,
  startFaultyProxy,
  startRegistry,
  startSilentRegistry,
  type Registry,
} from '../helpers/registry.js';
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
    const main = await job.step(mainStep, { registry: `${registry.address}/library`, port: '0' });
    try {
      expect(main.exitCode, main.stdout).toBe(0);
      expect(main.stdout).toContain('mode auto: docker (an image or registry was given)');
      expect(main.stdout).toContain(`::group::Pulling ${ref}`);
      expect(main.outputs['server-version']).toMatch(/^18\./);
      expect(Number(main.outputs['pull-ms'])).toBeGreaterThan(0);
      expect(main.summary).toMatch(/pull \d+ ms/);
    } finally {
      if (main.state.server) expect((await job.step(postStep, {}, main.state)).value).toEqual([]);
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
    const { image, main, post, statuses } = await mainStepBehindFaultyProxy(
      job,
      registry.address,
      [429, 429, 429, 503, 503, 503],
      '18-retry',
      push,
    );
    expect(main.exitCode, main.stdout).toBe(0);
    expect(main.stdout).toMatch(
      new RegExp(`^::warning::Pull of ${image} failed \\(.*429.*\\); retrying in 1 s \\(attempt 2\\)`, 'm'),
    );
    expect(main.stdout).toMatch(/^::warning::Pull of .* failed \(.*503.*\); retrying in 2 s \(attempt 3\)/m);
    expect(statuses.slice(0, 6)).toEqual([429, 429, 429, 503, 503, 503]);
    expect(main.outputs['server-version']).toMatch(/^18\./);
    expect(post).toEqual([]);
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
          return mainStep();
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
      // The handle is saved before the pull (its `docker pull` carries the run's marker): no
      // container yet, and the post step finds nothing to remove.
      expect(JSON.parse(anonymous.state.server ?? '{}')).toMatchObject({ mode: 'docker', containerId: '' });
      expect((await job.step(postStep, {}, anonymous.state)).value).toEqual([]);

      const main = await job.step(
        async () => {
          process.env.DOCKER_CONFIG = dockerConfig; // what docker/login-action leaves for later steps
          return mainStep();
        },
        { mode: 'docker', image: ref, port: '0' },
      );
      if (main.state.server) expect((await job.step(postStep, {}, main.state)).value).toEqual([]);
      forgetImage(ref);
      expect(main.exitCode, main.stdout).toBe(0);
      expect(main.outputs['server-version']).toMatch(/^18\./);
    } finally {
      await secured.stop();
      rmSync(dockerConfig, { recursive: true, force: true });
    }
    expect(leftovers.added()).toEqual([]);
  });

  it('gives up on a registry that accepts and never answers: no retry, the registry named, within wait-timeout (#26)', async () => {
    const silent = await startSilentRegistry();
    try {
      // Through the action: a wait-timeout shorter than the answer deadline (20 s) bounds it.
      const image = await mainStepGivesUpOnSilentRegistry(job, silent);
      // The default answer deadline, without the action: 20 s, one attempt.
      const retries: string[] = [];
      const error = await pullImage(image, (m) => retries.push(m)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SetupError);
      expect((error as SetupError).message).toMatch(
        /^Registry 127\.0\.0\.1:\d+ did not answer the pull of image ".*" within 20 s/,
      );
      expect(retries).toEqual([]);
      expect(processesWithArg(image)).toEqual([]);
    } finally {
      await silent.stop();
    }
    expect(leftovers.added()).toEqual([]);
  }, 90_000);

  it.each([
    { then: 'down', argv: ['down', '--name', 'reg-orphan'], status: 0 },
    // The next `up` of the name ends it too, before its own (bounded) pull fails.
    { then: 'the next up', argv: ['up', '--mode', 'docker', '--name', 'reg-orphan', '--wait-timeout', '2'], status: 1 },
  ])(
    'a CLI start killed (SIGKILL) during a pull from a silent registry: $then ends its `docker pull` (#26)',
    async ({ argv, status }) => {
      const silent = await startSilentRegistry();
      const image = `${silent.address}/library/postgres:18`;
      const state = mkdtempSync(join(tmpdir(), 'pg-tmpfs-registry-state-'));
      const env = { ...process.env, PG_TMPFS_STATE_DIR: state };
      const cli = join(ROOT, 'dist', 'cli.js');
      const pulls = () => pullsOf(image);
      try {
        expect(await killUpDuringPull(image, 'reg-orphan', env)).toBe(1); // the orphan: still pulling
        const next = spawnSync(process.execPath, [cli, ...argv, ...(argv[0] === 'up' ? ['--image', image] : [])], {
          env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(next.status, next.stderr).toBe(status);
        if (status === 1)
          expect(next.stderr).toMatch(/^error: Registry 127\.0\.0\.1:\d+ did not answer the pull of image ".*" within 2 s/m);
        expect(pulls()).toEqual([]);
      } finally {
        for (const p of pulls()) process.kill(p.pid, 'SIGKILL');
        await silent.stop();
        rmSync(state, { recursive: true, force: true });
      }
      expect(leftovers.added()).toEqual([]);
    },
    90_000,
  );
});
