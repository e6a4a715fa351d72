/**
 * The Docker-mode paths on the engine GitHub's runners have: Docker 29 (moby v2) with the
 * containerd image store, which scripts/setup-test-infra.sh (section 8) starts beside the first
 * engine on a socket of its own. Everything here talks to it through DOCKER_HOST, which the CLI,
 * the action, act and the helpers' docker commands all honour:
 * - the CLI's up, wait, status and down on PostgreSQL 15 and 18: published port, PGDATA on tmpfs,
 *   no anonymous volume, nothing left;
 * - pulls from a registry on 127.0.0.1: a full pull, retries of 429 and 503 and a registry that
 *   asks for credentials (the retry logic reads the daemon's error texts, which this engine words
 *   otherwise), a silent registry (given up on within wait-timeout), and a CLI start killed
 *   during a pull from one, whose `docker pull` `down` ends;
 * - the action through act: main and post on PostgreSQL 15 and 18, a background start (wait:
 *   false, pulling from the registry) and the wait sub-action, and a `container:` job on a
 *   bridge network of its own (the job container found on this engine, the server joining it).
 * Under CI=true an engine that does not answer fails (tests/helpers/infra.ts engine29Host).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import {
  engine29Host,
  officialPgdata,
  ourContainers,
  queryValue,
  requireImages,
  ROOT,
  runAct,
  showLines,
  TEST_IMAGES,
  runContainerJob,
  dockerVolumeNames,
} from '../helpers/infra.js';
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

const host = engine29Host();
// This file's worker only: every docker command from here on (the product's, the helpers', act's)
// goes to the second engine.
if (host) process.env.DOCKER_HOST = host;

// The CLI's instance records, in a folder of this file's (made only when the engine answers).
const work = host ? mkdtempSync(join(tmpdir(), 'pg-tmpfs-engine29-')) : '';
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };

/** `pg-tmpfs ARGS` on the second engine, with a deadline. */
function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8', env, timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `docker ARGS` on the second engine (stdout), with a deadline. */
function docker(args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * What a Docker start may leave on this engine: our containers (by label) and volumes; `added()`
 * lists what appeared since. (Not leftoverSnapshot's host-wide native servers, shared memory and
 * ports: a Docker start makes none, and other work on the machine may.)
 */
function dockerLeftovers(): { added: () => string[] } {
  const all = () => [...ourContainers(), ...dockerVolumeNames().map((v) => `volume ${v}`)];
  const before = new Set(all());
  return { added: () => all().filter((x) => !before.has(x)) };
}

describe.skipIf(!host)('Docker 29 with the containerd image store', () => {
  let leftovers: ReturnType<typeof dockerLeftovers>;
  /** What the action logs first (`Docker engine <version>`), naming this engine. */
  let engineLine: string;
  beforeAll(() => {
    requireImages();
    leftovers = dockerLeftovers();
    const info = docker(['info', '--format', '{{json .DriverStatus}} {{.ServerVersion}}']);
    const api = docker(['version', '--format', '{{.Server.MinAPIVersion}} {{.Server.APIVersion}}']).trim();
    console.log(`engine: ${info.trim()}; API ${api}`);
    expect(info).toContain('io.containerd.snapshotter.v1');
    // As on GitHub's runners, a client older than API 1.44 is refused; unless the docker CLI here
    // is older (setup lowers it to the CLI's own API, read with no engine to negotiate with).
    const own = spawnSync('docker', ['version', '--format', '{{.Client.APIVersion}}'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
    }).stdout.trim();
    const oldest = own.localeCompare('1.44', 'en', { numeric: true }) < 0 ? own : '1.44';
    expect(api.split(' ')[0]).toBe(oldest);
    engineLine = `Docker engine ${docker(['version', '--format', '{{.Server.Version}}']).trim()}`;
  });
  afterAll(() => {
    for (const name of ['e29-15', 'e29-18']) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });

  it.each([
    { major: '15' as const, noWait: false },
    { major: '18' as const, noWait: true },
  ])('CLI up (no-wait: $noWait), wait, status, down on PostgreSQL $major', async ({ major, noWait }) => {
    const name = `e29-${major}`;
    const up = cli([
      'up',
      '--mode',
      'docker',
      '--image',
      TEST_IMAGES[major],
      '--name',
      name,
      '--json',
      ...(noWait ? ['--no-wait'] : []),
    ]);
    expect(up.status, up.stderr).toBe(0);
    const waited = cli(['wait', '--name', name, '--json']);
    expect(waited.status, waited.stderr).toBe(0);
    const server = JSON.parse(waited.stdout) as {
      connectionUri: string;
      containerId: string;
      dataDirectory: string;
      filesystem: string;
    };
    expect({ dataDirectory: server.dataDirectory, filesystem: server.filesystem }).toEqual({
      dataDirectory: officialPgdata(major),
      filesystem: 'tmpfs',
    });
    // Through the published port on 127.0.0.1 (docker-proxy on this engine).
    expect(await queryValue(server.connectionUri, 'select current_setting($$server_version_num$$)::int / 10000 as v')).toBe(
      major,
    );
    const status = JSON.parse(cli(['status']).stdout) as Array<{ name: string; state: string; alive: boolean }>;
    expect(status.find((s) => s.name === name)).toMatchObject({ state: 'running', alive: true });
    // The tmpfs holds PGDATA's VOLUME: no anonymous volume, and the run's labels are there.
    const inspected = JSON.parse(docker(['container', 'inspect', server.containerId]))[0] as {
      Mounts: Array<{ Type: string }>;
      Config: { Labels: Record<string, string> };
    };
    expect(inspected.Mounts.filter((m) => m.Type === 'volume')).toEqual([]);
    expect(inspected.Config.Labels['io.github.pg-tmpfs-action']).toBe('1');
    expect(cli(['down', '--name', name]).status).toBe(0);
    expect(docker(['ps', '--all', '--quiet', '--filter', `id=${server.containerId}`]).trim()).toBe('');
    expect(leftovers.added()).toEqual([]);
  });

  it("an address Docker cannot publish on names input 'publish-host' and this engine's own words", () => {
    const r = cli(['up', '--mode', 'docker', '--image', TEST_IMAGES[15], '--name', 'e29-host', '--publish-host', '198.51.100.7']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error: --publish-host: Docker cannot publish on 198\.51\.100\.7 \(docker: Error response from daemon: .*failed to bind host port 198\.51\.100\.7:\d+\/tcp: cannot assign requested address\)/m,
    );
    expect(leftovers.added()).toEqual([]);
  });

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
        expect(main.stdout).toContain(engineLine);
        expect(main.stdout).toContain(`::group::Pulling ${ref}`);
        expect(main.outputs['server-version']).toMatch(/^18\./);
        expect(Number(main.outputs['pull-ms'])).toBeGreaterThan(0);
      } finally {
        if (main.state.server) expect((await job.step(postStep, {}, main.state)).value).toEqual([]);
        forgetImage(ref);
      }
      expect(leftovers.added()).toEqual([]);
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
      expect(leftovers.added()).toEqual([]);
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
      expect(leftovers.added()).toEqual([]);
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
      expect(leftovers.added()).toEqual([]);
    });

    it('gives up on a registry that accepts and never answers within wait-timeout, naming it, without retrying', async () => {
      const silent = await startSilentRegistry();
      try {
        await mainStepGivesUpOnSilentRegistry(job, silent);
      } finally {
        await silent.stop();
      }
      expect(leftovers.added()).toEqual([]);
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
      expect(leftovers.added()).toEqual([]);
    }, 90_000);
  });

  it('the action through act: main and post on PostgreSQL 15 and 18, DOCKER_HOST passed through', () => {
    const images = JSON.stringify([TEST_IMAGES[15], TEST_IMAGES[18]]);
    const since = String(Math.floor(Date.now() / 1000) - 1);
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'docker-mode', '--var', `PG_TMPFS_TEST_IMAGES=${images}`]);
    showLines(r.log, /e2e-check|Answered a query after/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const major of ['15', '18']) {
      expect(r.log).toMatch(new RegExp(`e2e-check ${officialPgdata(major)}: ok \\(server ${major}\\.`));
    }
    // The servers ran on this engine: it started the containers e2e-check names.
    const started = docker([
      'events',
      '--since',
      since,
      '--until',
      String(Math.ceil(Date.now() / 1000)),
      '--filter',
      'type=container',
      '--filter',
      'event=start',
      '--format',
      '{{.Actor.ID}}',
    ]);
    const checked = [...r.log.matchAll(/e2e-check .*: ok .*container ([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(checked).toHaveLength(2);
    for (const id of checked) expect(started).toContain(id);
    expect(r.log).toMatch(/Removed PostgreSQL container/);
    expect(leftovers.added()).toEqual([]);
  });

  it('container job on a bridge network: the server joins the job network (job-container detection on this engine)', () => {
    const { r, expected } = runContainerJob();
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const line of expected) expect(r.log).toMatch(line);
    expect(leftovers.added()).toEqual([]);
  });
});
