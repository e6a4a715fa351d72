/**
 * Pulls on the engine GitHub's runners have: Docker 29 (moby v2) with the containerd image store
 * (see engine29.test.ts), from a registry on 127.0.0.1: a full pull, retries of 429 and 503 and a
 * registry that asks for credentials (the retry logic reads the daemon's error texts, which this
 * engine words otherwise), a silent registry (given up on within wait-timeout), and a CLI start
 * killed during a pull from one, whose `docker pull` `down` ends.
 * Under CI=true an engine that does not answer fails (tests/helpers/infra.ts engine29Host).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import { runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';
import {
  forgetImage,
  killUpDuringPull,
  mainStepBehindFaultyProxy,
  mainStepGivesUpOnSilentRegistry,
  pullsOf,
  pushProbeImage,
  startRegistry,
  startSilentRegistry,
  type Registry,
} from '../helpers/registry.js';
import { RunnerJob } from '../helpers/runner-env.js';
import { cli, env, host, useEngine29 } from '../helpers/engine29.js';

describe.skipIf(!host)('Docker 29 with the containerd image store', () => {
  const e = useEngine29();

  describe('pulls from a registry', () => {
    const job = new RunnerJob();
    let registry: Registry;
    const pushed: string[] = [];
    beforeAll(async () => {
      registry = await startRegistry();
    });
    afterAll(async () => {
      for (const ref of pushed) forgetImage(ref);
      await registry?.stop();
      job.remove();
    });
    /** The 18 test image plus a layer of its own, pushed as `tag` and removed locally: the next pull is real. */
    const push = (tag: string) => {
      const ref = pushProbeImage(TEST_IMAGES[18], registry.address, tag);
      pushed.push(ref);
      return ref;
    };

    it('pulls the default image from the mirror given by `registry`, reports pull-ms, and the post step removes it all', async () => {
      const ref = push('18');
      const main = await job.step(mainStep, { registry: `${registry.address}/library`, port: '0' });
      try {
        expect(main.exitCode, main.stdout).toBe(0);
        expect(main.stdout).toContain(e.engineLine);
        expect(main.stdout).toContain(`::group::Pulling ${ref}`);
        expect(main.outputs['server-version']).toMatch(/^18\./);
        expect(Number(main.outputs['pull-ms'])).toBeGreaterThan(0);
      } finally {
        if (main.state.server) expect((await job.step(postStep, {}, main.state)).value).toEqual([]);
        forgetImage(ref);
      }
      expect(e.leftovers.added()).toEqual([]);
    });

    it('the action through act: a background start (wait: false) pulls, a step runs meanwhile, the wait sub-action, post removes it', () => {
      const ref = push(`18-bg-${Date.now()}`);
      const r = runAct('.github/workflows/e2e.yml', [
        '-j',
        'background',
        '--var',
        'PG_TMPFS_BG_MODES=["docker"]',
        '--var',
        `PG_TMPFS_BG_IMAGE=${ref}`,
      ]);
      showLines(r.log, /e2e-check|Starting PostgreSQL in the background|Pulled/);
      expect(r.status, r.log.slice(-6000)).toBe(0);
      expect(r.log).toMatch(/e2e-check background docker: ok/);
      expect(r.log).toMatch(/Starting PostgreSQL in the background \(docker mode, pid \d+\)/);
      expect(r.log).toMatch(/Pulled .*postgres:18-bg-\d+ in \d+ ms/);
      expect(r.log).toMatch(/Removed PostgreSQL container/);
      expect(e.leftovers.added()).toEqual([]);
    });

    it('retries a registry that answers 429 and then 503: the daemon retries the 429s itself, the action the 503', async () => {
      const { main, post, statuses } = await mainStepBehindFaultyProxy(
        job,
        registry.address,
        [429, 429, 429, 503, 503, 503],
        '18-retry',
        push,
      );
      expect(main.exitCode, main.stdout).toBe(0);
      // containerd's resolver retries 429 (and a 5xx once) within one `docker pull`: the first
      // attempt used all six failures, and only its last status reaches the action's retry.
      expect(main.stdout).toMatch(
        /^::warning::Pull of .* failed \(.*unexpected status from HEAD request to .*: 503 Service Unavailable\); retrying in 1 s \(attempt 2\)/m,
      );
      expect(main.stdout).not.toMatch(/attempt 3/);
      expect(statuses.slice(0, 6)).toEqual([429, 429, 429, 503, 503, 503]);
      expect(main.outputs['server-version']).toMatch(/^18\./);
      expect(post).toEqual([]);
      expect(e.leftovers.added()).toEqual([]);
    });

    it('says the image needs credentials without a login (not "not found"), and pulls after `docker login`', async () => {
      const auth = { user: 'ci', password: 'pull-secret' };
      const secured = await startRegistry(auth);
      const configs = {
        in: mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-config-')),
        out: mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-anon-')),
      };
      try {
        const loggedIn = { ...process.env, DOCKER_CONFIG: configs.in };
        execFileSync('docker', ['login', secured.address, '--username', auth.user, '--password-stdin'], {
          input: auth.password,
          env: loggedIn,
          stdio: ['pipe', 'ignore', 'pipe'],
          timeout: 60_000,
        });
        const ref = pushProbeImage(TEST_IMAGES[18], secured.address, '18-auth', loggedIn);
        pushed.push(ref);
        for (const [config, ok] of [
          [configs.out, false],
          [configs.in, true],
        ] as const) {
          const main = await job.step(
            async () => {
              process.env.DOCKER_CONFIG = config;
              return mainStep();
            },
            { mode: 'docker', image: ref, port: '0' },
          );
          delete process.env.DOCKER_CONFIG;
          if (main.state.server) expect((await job.step(postStep, {}, main.state)).value).toEqual([]);
          if (ok) {
            expect(main.exitCode, main.stdout).toBe(0);
            expect(main.outputs['server-version']).toMatch(/^18\./);
          } else {
            expect(main.exitCode).toBe(1);
            expect(main.stdout).toMatch(
              new RegExp(`^::error::Image "${ref}" needs registry credentials: .*no basic auth credentials`, 'm'),
            );
            expect(main.stdout).not.toMatch(/retrying/);
          }
        }
        forgetImage(ref);
      } finally {
        await secured.stop();
        for (const dir of Object.values(configs)) rmSync(dir, { recursive: true, force: true });
      }
      expect(e.leftovers.added()).toEqual([]);
    });

    it('gives up on a registry that accepts and never answers within wait-timeout, naming it, without retrying', async () => {
      const silent = await startSilentRegistry();
      try {
        await mainStepGivesUpOnSilentRegistry(job, silent);
      } finally {
        await silent.stop();
      }
      expect(e.leftovers.added()).toEqual([]);
    });

    it('a CLI start killed (SIGKILL) during a pull from a silent registry: down ends its `docker pull`', async () => {
      const silent = await startSilentRegistry();
      const image = `${silent.address}/library/postgres:18`;
      const pulls = () => pullsOf(image);
      try {
        expect(await killUpDuringPull(image, 'e29-orphan', env)).toBe(1);
        const down = cli(['down', '--name', 'e29-orphan']);
        expect(down.status, down.stderr).toBe(0);
        expect(pulls()).toEqual([]);
      } finally {
        for (const p of pulls()) process.kill(p.pid, 'SIGKILL');
        await silent.stop();
      }
      expect(e.leftovers.added()).toEqual([]);
    }, 90_000);
  });
});
