/**
 * The GitHub services template (templates/github/services.yaml) run exactly as GitHub's runner
 * runs a service, on both engines (the default one and Docker 29), for the test images of 15, 17
 * and 18 in place of postgres:N. The runner's code it follows (actions/runner, the mirror's HEAD
 * 258d6c857, service `command`/`entrypoint` since PR #4276):
 * - src/Runner.Worker/ContainerOperationProvider.cs StartContainersAsync: `docker network create
 *   --label LABEL github_network_<guid>` (DockerCommandManager.DockerNetworkCreate), then per
 *   service StartContainerAsync: DockerCreate, DockerStart, DockerPort (job.services.<name>.ports);
 *   RunContainersHealthcheck/ContainerHealthcheck: `docker inspect --format=...Health.Status`
 *   polled while `starting` (here every 200 ms, not the runner's 2, 4, 8 ... s backoff);
 * - src/Runner.Worker/Container/DockerCommandManager.cs DockerCreate and ContainerInfo.cs: the
 *   `docker create` arguments from the service's fields (testkit/runner-service.ts
 *   runnerCreateArgs, split as .NET splits the runner's one command string);
 * - the job: on the runner, the template's wait step on this host through the published port;
 *   in a `container:` job, the step `docker exec`ed in a job container on the network (the runner
 *   starts it with `tail -f /dev/null`, ContainerOperationProvider.MountWellKnownDirectories).
 * Then a real client (node-postgres) checks the durability profile, PGDATA on tmpfs, no volume,
 * and a write/read round. The second describe shows why the wait step is there: the image's usual
 * health check (`pg_isready` on the socket) passes while the entrypoint's temporary server runs
 * an init script, and a first query through the published port right then fails.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import { runnerHealthArgs, runnerNetworkCreateArgs } from '../../testkit/runner-args.js';
import { runnerCreateArgs, servicesTemplate, waitStepArgv, type WorkflowService } from '../../testkit/runner-service.js';
import { dockerVolumeNames, engine29Host, requireImages, TEST_IMAGES, TEST_MAJORS, useDockerHost } from '../helpers/infra.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** The runner's DockerInstanceLabel: 6 hex digits of a hash of its .runner file. */
const LABEL = hex(3);

function docker(args: string[], timeout = 60_000): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout }).trim();
}

/** A service started as the runner starts it, and what to remove afterwards. */
interface Started {
  id: string;
  network: string;
  /** Host port of 5432/tcp (runner variant), else null. */
  port: number | null;
  /** Other containers on the network (a job container). */
  extra: string[];
}

/** Network, `docker create` (runnerCreateArgs), `docker start`, `docker port`, as StartContainersAsync does. */
function startService(svc: WorkflowService): Started {
  const network = `github_network_${hex(16)}`;
  docker(runnerNetworkCreateArgs(network, LABEL));
  const started: Started = { id: '', network, port: null, extra: [] };
  try {
    const name = `postgres_${svc.image.replace(/[^a-zA-Z0-9_.-]/g, '')}_${hex(3)}`;
    // By name: `docker rm` then removes a container whose create failed or timed out after making it.
    started.id = name;
    docker(runnerCreateArgs(svc, { name, network, alias: 'postgres', label: LABEL }));
    docker(['start', started.id]);
    if (svc.ports.length) {
      // DockerPort: "5432/tcp -> 0.0.0.0:32768" lines, one per address family.
      const line = docker(['port', started.id]).split('\n')[0] ?? '';
      started.port = Number(/^5432\/tcp -> .+:(\d+)$/.exec(line)?.[1]);
    }
    return started;
  } catch (error) {
    remove(started);
    throw error;
  }
}

/** docker rm -f -v of the service and others on its network, then the network. */
function remove(s: Started): void {
  const ids = [s.id, ...s.extra].filter(Boolean);
  if (ids.length) spawnSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore', timeout: 60_000 });
  spawnSync('docker', ['network', 'rm', s.network], { stdio: 'ignore', timeout: 60_000 });
}

/** The runner's health read, polled every 200 ms until `healthy` (60 s deadline; throws on `unhealthy`). */
async function waitHealthy(id: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = docker(runnerHealthArgs(id)).split('\n')[0];
    if (status === 'healthy') return;
    if (status !== 'starting') throw new Error(`service is ${status}: ${docker(['logs', id])}`);
    if (Date.now() > deadline) throw new Error(`service not healthy within 60 s: ${docker(['logs', id])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The wait step's argv run here (runner job), with GITHUB_ENV a file of its own. */
function runWaitStepOnHost(url: string): { status: number | null; out: string; githubEnv: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-e2e-ghenv-'));
  try {
    const [program, ...args] = waitStepArgv(url);
    const r = spawnSync(program!, args, {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, GITHUB_ENV: join(dir, 'env') },
    });
    let githubEnv = '';
    try {
      githubEnv = readFileSync(join(dir, 'env'), 'utf8');
    } catch {
      // not written: the assertion on it says so
    }
    return { status: r.status, out: `${r.stdout}${r.stderr}`, githubEnv };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The wait step in a job container on the network, `docker exec`ed as the runner runs steps there. */
function runWaitStepInJob(s: Started, jobImage: string, url: string): { status: number | null; out: string; githubEnv: string } {
  // Named, so that `remove` finds it even when `docker run` fails after creating it.
  const job = `job_${hex(6)}`;
  s.extra.push(job);
  docker([
    'run',
    '-d',
    '--name',
    job,
    '--network',
    s.network,
    '--label',
    LABEL,
    '--entrypoint',
    'tail',
    jobImage,
    '-f',
    '/dev/null',
  ]);
  const r = spawnSync('docker', ['exec', '-e', 'GITHUB_ENV=/tmp/github_env', job, ...waitStepArgv(url)], {
    encoding: 'utf8',
    timeout: 90_000,
  });
  // Missing when the step failed before writing it: the status and output then say why.
  const githubEnv =
    spawnSync('docker', ['exec', job, 'cat', '/tmp/github_env'], { encoding: 'utf8', timeout: 60_000 }).stdout ?? '';
  // Removed now with its own anonymous volume (the test image's VOLUME), before the volume check.
  docker(['rm', '-f', '-v', job]);
  s.extra = s.extra.filter((id) => id !== job);
  return { status: r.status, out: `${r.stdout}${r.stderr}`, githubEnv };
}

/** The service's address on its network, for this host's client in the container variant. */
function networkAddress(s: Started): string {
  return docker(['inspect', '-f', `{{(index .NetworkSettings.Networks "${s.network}").IPAddress}}`, s.id]);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The engines: the default one, and Docker 29 when it answers (under CI=true it must). */
const ENGINES: { name: string; host: string | null }[] = [
  { name: 'default engine', host: null },
  { name: 'Docker 29', host: engine29Host() },
];

describe.each(ENGINES)('services template run as the runner runs it, $name', ({ name, host }) => {
  if (host) useDockerHost(host);
  // Off CI only: under CI=true engine29Host() throws when Docker 29 does not answer, so the
  // file fails instead of skipping (as tests/e2e/engine29.test.ts).
  const skip = name === 'Docker 29' && !host;

  const cases = [
    ...TEST_MAJORS.map((major) => ({ variant: 'runner' as const, major })),
    { variant: 'container' as const, major: '17' as const },
    { variant: 'container' as const, major: '18' as const },
  ];

  it.skipIf(skip).each(cases)('$variant job, PostgreSQL $major', async ({ variant, major }) => {
    requireImages();
    const image = TEST_IMAGES[major];
    const svc = servicesTemplate(variant, Number(major), image);
    const volumesBefore = dockerVolumeNames();
    const s = startService(svc);
    try {
      await waitHealthy(s.id);
      const url =
        variant === 'runner'
          ? `postgresql://postgres:postgres@localhost:${s.port}/postgres`
          : 'postgresql://postgres:postgres@postgres:5432/postgres';
      const wait = variant === 'runner' ? runWaitStepOnHost(url) : runWaitStepInJob(s, image, url);
      expect(wait.status, wait.out).toBe(0);
      expect(wait.out).toMatch(
        new RegExp(`^PostgreSQL ${major}\\.\\d+.* answers \\(try \\d+\\): fsync=off, full_page_writes=off, jit=off$`, 'm'),
      );
      expect(wait.githubEnv).toBe(`DATABASE_URL=${url}\n`);

      const clientUrl = variant === 'runner' ? url : `postgresql://postgres:postgres@${networkAddress(s)}:5432/postgres`;
      await withClient(clientUrl, async (c) => {
        for (const setting of DURABILITY_SETTINGS) {
          const r = await c.query<{ v: string }>(`SELECT current_setting($1) AS v`, [setting.name]);
          expect(r.rows[0]?.v, setting.name).toBe(setting.value);
        }
        const dir = (await c.query<{ v: string }>(`SELECT setting AS v FROM pg_settings WHERE name = 'data_directory'`)).rows[0]!
          .v;
        expect(dir).toBe(Number(major) >= 18 ? `/var/lib/postgresql/${major}/docker` : '/var/lib/postgresql/data');
        expect(docker(['exec', s.id, 'stat', '-f', '-c', '%T', dir])).toBe('tmpfs');
        await c.query('CREATE TABLE t (id int PRIMARY KEY, note text)');
        await c.query(`INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 1000) g`);
        const r = await c.query<{ n: string; note: string }>(`SELECT count(*) AS n, max(note) AS note FROM t`);
        expect(r.rows[0]).toEqual({ n: '1000', note: 'row 999' });
      });
      expect(docker(['inspect', '-f', '{{.HostConfig.ShmSize}}', s.id])).toBe(String(512 * 1024 * 1024));
      // No anonymous volume: the tmpfs sits on the image's VOLUME path of that major.
      expect(docker(['inspect', '-f', '{{range .Mounts}}{{.Type}} {{.Destination}};{{end}}', s.id])).toBe('');
      expect(dockerVolumeNames().filter((v) => !volumesBefore.includes(v))).toEqual([]);
    } finally {
      remove(s);
    }
  });
});

/** A /docker-entrypoint-initdb.d with one script that sleeps, as users' slow init scripts do. */
function slowInitDir(seconds: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-e2e-initdb-'));
  writeFileSync(join(dir, 'slow.sh'), `echo "slow init: sleeping ${seconds} s"\nsleep ${seconds}\n`);
  chmodSync(dir, 0o755);
  return dir;
}

/** The first query through the published port right after `healthy`: null when answered, else its error. */
async function firstQuery(port: number | null): Promise<string | null> {
  try {
    await withClient(`postgresql://postgres:postgres@localhost:${port}/postgres`, (c) => c.query('SELECT 1'));
    return null;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return `${e.code ?? ''} ${e.message}`.trim();
  }
}

describe.each(ENGINES)('why the wait step: a slow init script, $name', ({ name, host }) => {
  if (host) useDockerHost(host);
  // Off CI only: under CI=true engine29Host() throws when Docker 29 does not answer, so the
  // file fails instead of skipping (as tests/e2e/engine29.test.ts).
  const skip = name === 'Docker 29' && !host;

  /** The runner job's service (18) with the init script mounted by `volumes:`; `health` replaces the template's. */
  function service(dir: string, health: string | null): WorkflowService {
    const svc = servicesTemplate('runner', 18, TEST_IMAGES[18]);
    const options = health ? svc.options.replace('--health-cmd "pg_isready -h 127.0.0.1"', health) : svc.options;
    expect(options).toContain(health ?? 'pg_isready -h 127.0.0.1');
    return { ...svc, options, volumes: [`${dir}:/docker-entrypoint-initdb.d:ro`] };
  }

  async function run(health: string | null, withWaitStep: boolean): Promise<{ first: string | null; log: string }> {
    const dir = slowInitDir(5);
    let s: Started;
    try {
      s = startService(service(dir, health));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    try {
      await waitHealthy(s.id);
      if (withWaitStep) {
        const wait = runWaitStepOnHost(`postgresql://postgres:postgres@localhost:${s.port}/postgres`);
        expect(wait.status, wait.out).toBe(0);
      }
      const first = await firstQuery(s.port);
      return { first, log: docker(['logs', s.id]) };
    } finally {
      remove(s);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.skipIf(skip)(
    "the image's usual health check (pg_isready on the socket): the first query right after healthy fails",
    async () => {
      requireImages();
      const r = await run('--health-cmd pg_isready', false);
      console.log(`${name}: first query after healthy (socket health check): ${r.first}`);
      expect(r.log).toMatch(/slow init: sleeping 5 s/);
      // Seen: `ECONNRESET read ECONNRESET` or `Connection terminated unexpectedly` (docker-proxy
      // accepts, finds nothing listening behind it, and closes), on both engines.
      expect(r.first).toMatch(/^ECONNRESET read ECONNRESET$|^Connection terminated unexpectedly$/);
    },
  );

  it.skipIf(skip)('the same health check with the wait step first: the query never fails (3 runs)', async () => {
    requireImages();
    for (let i = 0; i < 3; i++) expect((await run('--health-cmd pg_isready', true)).first).toBeNull();
  });

  it.skipIf(skip)(
    "the template's health check (pg_isready -h 127.0.0.1): healthy only once the real server listens (3 runs)",
    async () => {
      requireImages();
      for (let i = 0; i < 3; i++) {
        const r = await run(null, false);
        expect(r.log).toMatch(/slow init: sleeping 5 s/);
        expect(r.first).toBeNull();
      }
    },
  );
});

describe('the wait step stops at once on an answer no retry changes (issue #43)', () => {
  it.each([
    ['a wrong password', 'postgres:wrong@', 'postgres', /password authentication failed for user "postgres"/],
    ['a database that does not exist', 'postgres:postgres@', 'nosuchdb', /database "nosuchdb" does not exist/],
  ])('%s: one try, the server’s message, exit 1', async (_what, auth, database, message) => {
    requireImages();
    const s = startService(servicesTemplate('runner', 17, TEST_IMAGES[17]));
    try {
      await waitHealthy(s.id);
      // Ready through the published port first (the health check passes while init runs), so the
      // refusal below is the final server's answer, not the temporary one's.
      expect(runWaitStepOnHost(`postgresql://postgres:postgres@localhost:${s.port}/postgres`).status).toBe(0);
      const wait = runWaitStepOnHost(`postgresql://${auth}localhost:${s.port}/${database}`);
      expect(wait.status, wait.out).toBe(1);
      expect(wait.out).toMatch(/^::error::PostgreSQL refused the connection \(try 1\): /m);
      expect(wait.out).toMatch(message);
      expect(wait.githubEnv).toBe('');
    } finally {
      remove(s);
    }
  });
});
