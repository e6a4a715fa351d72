import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import {
  buildRunPlan,
  parseDockerPort,
  pgdataFromEnv,
  RESTORE_WRAPPER,
  RESTORED_MARKER,
  tmpfsMounts,
} from '../../src/docker/run-plan.js';
import { dockerIdentity } from '../../src/docker/schema-cache.js';
import type { InputName } from '../../src/inputs.js';
import { parseInputs } from '../../src/parse-inputs.js';

const config = (given: Partial<Record<InputName, string>>) =>
  parseInputs((name) => ({ 'container-name': 'pg-test', ...given })[name] ?? '');

/** The official image's layouts (docker-library/postgres Dockerfiles). */
const LAYOUT_17 = { pgdata: '/var/lib/postgresql/data', volumes: ['/var/lib/postgresql/data'] };
const LAYOUT_18 = { pgdata: '/var/lib/postgresql/18/docker', volumes: ['/var/lib/postgresql'] };
const tmpfsArgs = (args: string[]) => args.filter((_, i) => args[i - 1] === '--tmpfs');

describe('tmpfsMounts', () => {
  it('up to 17: one tmpfs on PGDATA, which is the VOLUME (0700)', () => {
    expect(tmpfsMounts(LAYOUT_17, null)).toEqual(['/var/lib/postgresql/data:rw,mode=0700']);
  });
  it('from 18: one tmpfs on the VOLUME holding PGDATA, never one on /var/lib/postgresql/data', () => {
    expect(tmpfsMounts(LAYOUT_18, '1g')).toEqual(['/var/lib/postgresql:rw,mode=1777,size=1g']);
  });
  it('leaves VOLUMEs that do not hold PGDATA to Docker (they carry the image files there)', () => {
    expect(tmpfsMounts({ pgdata: '/pgdata', volumes: ['/var/lib/postgresql/data'] }, null)).toEqual(['/pgdata:rw,mode=0700']);
    expect(tmpfsMounts({ pgdata: '/pgdata', volumes: [] }, null)).toEqual(['/pgdata:rw,mode=0700']);
    expect(tmpfsMounts({ pgdata: '/var/lib/postgresql-x', volumes: ['/var/lib/postgresql'] }, null)).toEqual([
      '/var/lib/postgresql-x:rw,mode=0700',
    ]);
    const derived = { pgdata: '/var/lib/postgresql/18/docker', volumes: ['/docker-entrypoint-initdb.d', '/var/lib/postgresql'] };
    expect(tmpfsMounts(derived, '1g')).toEqual(['/var/lib/postgresql:rw,mode=1777,size=1g']);
  });
  it('PGDATA set below the VOLUME (a derived image, e.g. PGDATA=/var/lib/postgresql/data/pgdata): tmpfs on the VOLUME', () => {
    expect(tmpfsMounts({ pgdata: '/var/lib/postgresql/data/pgdata', volumes: ['/var/lib/postgresql/data'] }, null)).toEqual([
      '/var/lib/postgresql/data:rw,mode=1777',
    ]);
  });
  it('nested VOLUMEs holding PGDATA: a tmpfs on each, outermost first, so Docker makes no volume for any', () => {
    const nested = { pgdata: '/var/lib/postgresql/data', volumes: ['/var/lib/postgresql/data', '/var/lib/postgresql'] };
    expect(tmpfsMounts(nested, '1g')).toEqual([
      '/var/lib/postgresql:rw,mode=1777,size=1g',
      '/var/lib/postgresql/data:rw,mode=0700,size=1g',
    ]);
    const deeper = { pgdata: '/srv/pg/data/main', volumes: ['/srv/pg/data', '/srv', '/srv/other'] };
    expect(tmpfsMounts(deeper, null)).toEqual(['/srv:rw,mode=1777', '/srv/pg/data:rw,mode=1777']);
  });
  it('reads paths as Docker does: trailing slashes do not count; a VOLUME / is never a tmpfs', () => {
    expect(tmpfsMounts({ pgdata: '/var/lib/postgresql/data/', volumes: ['/var/lib/postgresql/data/'] }, null)).toEqual([
      '/var/lib/postgresql/data:rw,mode=0700',
    ]);
    expect(tmpfsMounts({ pgdata: '/pgdata', volumes: ['/'] }, null)).toEqual(['/pgdata:rw,mode=0700']);
  });
});

describe('buildRunPlan', () => {
  it('mounts the tmpfs of the layout, publishes on 127.0.0.1 and turns durability off', () => {
    const { args, env } = buildRunPlan(config({ 'tmpfs-size': '1g' }), LAYOUT_17);
    expect(args.slice(0, 4)).toEqual(['run', '--detach', '--name', 'pg-test']);
    expect(tmpfsArgs(args)).toEqual(['/var/lib/postgresql/data:rw,mode=0700,size=1g']);
    expect(args[args.indexOf('--shm-size') + 1]).toBe('512m');
    expect(args[args.indexOf('--publish') + 1]).toBe('127.0.0.1:5432:5432');
    const image = args.indexOf('postgres:18');
    expect(image).toBeGreaterThan(0);
    expect(args.slice(image + 1)).toEqual(['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'jit=off']);
    expect(env.POSTGRES_INITDB_ARGS).toBe('--nosync');
  });

  it('in a container job: joins the job network under its name and publishes nothing', () => {
    const { args } = buildRunPlan(config({}), LAYOUT_18, { kind: 'network', network: 'github_network_1' });
    expect(args).not.toContain('--publish');
    expect(args[args.indexOf('--network') + 1]).toBe('github_network_1');
    expect(args[args.indexOf('--network-alias') + 1]).toBe('pg-test');
    expect(tmpfsArgs(args)).toEqual(['/var/lib/postgresql:rw,mode=1777']);
  });

  it('keeps credentials out of argv: -e NAME only, values in the docker process env', () => {
    const { args, env } = buildRunPlan(config({ password: 's3cret!', user: 'alice', database: 'app' }), LAYOUT_17);
    expect(args.join(' ')).not.toContain('s3cret');
    expect(args.filter((a, i) => args[i - 1] === '--env')).toEqual([
      'POSTGRES_USER',
      'POSTGRES_PASSWORD',
      'POSTGRES_DB',
      'POSTGRES_INITDB_ARGS',
    ]);
    expect(env).toMatchObject({ POSTGRES_USER: 'alice', POSTGRES_PASSWORD: 's3cret!', POSTGRES_DB: 'app' });
  });

  it('lets Docker pick the port for port 0 and brackets IPv6 hosts', () => {
    expect(buildRunPlan(config({ port: '0' }), LAYOUT_17).args).toContain('127.0.0.1::5432');
    expect(buildRunPlan(config({ 'publish-host': '::1', port: '6000' }), LAYOUT_17).args).toContain('[::1]:6000:5432');
  });

  it('with a schema-cache entry to restore: sh as the entrypoint, the wrapper, then the image entrypoint and postgres', () => {
    const { args, env } = buildRunPlan(config({ 'wait-timeout': '60' }), LAYOUT_18, { kind: 'publish' }, 'tok', {
      entrypoint: ['docker-entrypoint.sh'],
    });
    const image = args.indexOf('postgres:18');
    expect(args.slice(image - 2, image)).toEqual(['--entrypoint', 'sh']);
    expect(args.slice(image + 1, image + 3)).toEqual(['-c', RESTORE_WRAPPER]);
    expect(args.slice(image + 3)).toEqual([
      'pg-tmpfs',
      '360',
      'docker-entrypoint.sh',
      'postgres',
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'jit=off',
    ]);
    // The environment is the same: the entrypoint skips initdb because PGDATA holds a cluster.
    expect(env.POSTGRES_INITDB_ARGS).toBe('--nosync');
  });

  it('the restore wrapper waits for its marker, then runs its arguments; gives up after its seconds', async () => {
    rmSync(RESTORED_MARKER, { force: true });
    const gaveUp = spawnSync('sh', ['-c', RESTORE_WRAPPER, 'pg-tmpfs', '1', 'echo', 'ran'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect([gaveUp.status, gaveUp.stdout, gaveUp.stderr]).toEqual([1, '', 'pg-tmpfs: the schema cache restore did not arrive\n']);
    try {
      const child = spawn('sh', ['-c', RESTORE_WRAPPER, 'pg-tmpfs', '60', 'echo', 'ran'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((r) => setTimeout(r, 100));
      expect(out).toBe(''); // still waiting
      writeFileSync(RESTORED_MARKER, '');
      const status = await new Promise((r) => child.on('close', r));
      expect([status, out]).toEqual([0, 'ran\n']);
    } finally {
      rmSync(RESTORED_MARKER, { force: true });
    }
  });

  it('schema cache identity: the image ID, its platform, the initdb arguments and the superuser', () => {
    const image = { id: 'sha256:abc', platform: 'linux/amd64' };
    const id = dockerIdentity(image, { locale: 'C', user: 'app' });
    expect(id).toEqual({
      mode: 'docker',
      imageId: 'sha256:abc',
      platform: 'linux/amd64',
      initdbArgs: ['--nosync', '--username=app'],
    });
    expect(dockerIdentity(image, { locale: 'de_DE.UTF-8', user: 'app' })).not.toEqual(id);
    // The containerd image store: one index ID on every platform.
    expect(dockerIdentity({ ...image, platform: 'linux/arm64/v8' }, { locale: 'C', user: 'app' })).not.toEqual(id);
  });

  it('puts user settings after the defaults, overriding them', () => {
    const { args } = buildRunPlan(config({ settings: 'fsync=on\nwork_mem=64MB' }), LAYOUT_17);
    expect(args).toContain('fsync=on');
    expect(args).not.toContain('fsync=off');
    expect(args.at(-1)).toBe('work_mem=64MB');
  });
});

describe('parseDockerPort', () => {
  it('reads the first host port', () => {
    expect(parseDockerPort('127.0.0.1:49153\n')).toBe(49153);
    expect(parseDockerPort('[::1]:5433\n0.0.0.0:5433\n')).toBe(5433);
    expect(() => parseDockerPort('')).toThrow(/no published port/);
  });
});

describe('pgdataFromEnv', () => {
  it('reads PGDATA from the image env for both layouts', () => {
    expect(pgdataFromEnv(['PATH=/bin', 'PGDATA=/var/lib/postgresql/data'])).toBe('/var/lib/postgresql/data');
    expect(pgdataFromEnv(['PGDATA=/var/lib/postgresql/18/docker'])).toBe('/var/lib/postgresql/18/docker');
    expect(pgdataFromEnv(['PATH=/bin'])).toBeNull();
    expect(pgdataFromEnv(null)).toBeNull();
  });
});

describe('classifyPullError', () => {
  it('retries rate limits, server and network errors; not credentials or unknown images', async () => {
    const { classifyPullError } = await import('../../src/docker/pull.js');
    expect(classifyPullError('Error response from daemon: toomanyrequests: You have reached your pull rate limit.')).toBe(
      'transient',
    );
    expect(classifyPullError('Error response from daemon: received unexpected HTTP status: 503 Service Unavailable')).toBe(
      'transient',
    );
    expect(classifyPullError('Error response from daemon: Get "https://r/v2/": dial tcp: connection refused')).toBe('transient');
    expect(classifyPullError('Error response from daemon: Head "https://r/v2/x/manifests/1": no basic auth credentials')).toBe(
      'credentials',
    );
    expect(classifyPullError('Error response from daemon: unauthorized: authentication required')).toBe('credentials');
    expect(classifyPullError('Error response from daemon: manifest for x:1 not found: manifest unknown')).toBe('not-found');
    expect(classifyPullError('Error response from daemon: something else')).toBe('other');
    expect(
      classifyPullError(
        'Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)',
      ),
    ).toBe('transient');
    expect(classifyPullError('Error response from daemon: Get "https://r/v2/": context deadline exceeded')).toBe('transient');
    expect(
      classifyPullError(
        'Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host',
      ),
    ).toBe('not-found');
    expect(
      classifyPullError(
        "Error response from daemon: pull access denied for x, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
      ),
    ).toBe('not-found');
    // The containerd image store (Docker 29) words them otherwise.
    expect(
      classifyPullError(
        'Error response from daemon: failed to resolve reference "127.0.0.1:5000/library/postgres:18": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials',
      ),
    ).toBe('credentials');
    expect(
      classifyPullError(
        'Error response from daemon: failed to resolve reference "docker.io/library/nope:1": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
      ),
    ).toBe('not-found');
    expect(classifyPullError('Error response from daemon: failed to resolve reference "r:5000/x:1": r:5000/x:1: not found')).toBe(
      'not-found',
    );
    expect(
      classifyPullError(
        'Error response from daemon: unknown: failed to resolve reference "r:5000/x:1": unexpected status from HEAD request to http://r:5000/v2/x/manifests/1: 503 Service Unavailable',
      ),
    ).toBe('transient');
    expect(
      classifyPullError(
        'Error response from daemon: failed to resolve reference "r:5000/x:1": unexpected status from HEAD request to http://r:5000/v2/x/manifests/1: 429 Too Many Requests',
      ),
    ).toBe('transient');
  });
});

describe('a registry that does not answer (#26)', () => {
  it("the daemon's own time-outs stay transient (retried): only pullImage's answer deadline means no answer", async () => {
    const { classifyPullError } = await import('../../src/docker/pull.js');
    for (const stderr of [
      'Error response from daemon: Get "http://127.0.0.1:45999/v2/": net/http: request canceled (Client.Timeout exceeded while awaiting headers)',
      'Error response from daemon: Get "https://r/v2/": net/http: TLS handshake timeout',
      'Error response from daemon: Get "https://r/v2/": dial tcp: connection refused',
      'Error response from daemon: received unexpected HTTP status: 503 Service Unavailable',
    ]) {
      expect(classifyPullError(stderr), stderr).toBe('transient');
    }
  });

  it('names the registry of an image reference as Docker reads it', async () => {
    const { registryOf } = await import('../../src/docker/pull.js');
    expect(registryOf('postgres:18')).toBe('docker.io');
    expect(registryOf('postgis/postgis:17-3.5')).toBe('docker.io');
    expect(registryOf('127.0.0.1:5000/library/postgres:18')).toBe('127.0.0.1:5000');
    expect(registryOf('mirror.gcr.io/library/postgres:18')).toBe('mirror.gcr.io');
    expect(registryOf('localhost/pg:1')).toBe('localhost');
  });

  it('run() ends a program that prints nothing within firstOutputMs, and says so (silent)', async () => {
    const { run } = await import('../../src/proc.js');
    const quiet = await run('sh', ['-c', 'sleep 30'], { timeoutMs: 20_000, firstOutputMs: 200 });
    expect(quiet).toMatchObject({ timedOut: true, silent: true, code: null });
    // Output that is not the expected first words does not count.
    const other = await run('sh', ['-c', 'echo Using default tag; sleep 30'], {
      timeoutMs: 20_000,
      firstOutputMs: 300,
      firstOutputPattern: /Pulling from /,
    });
    expect(other).toMatchObject({ timedOut: true, silent: true, stdout: 'Using default tag\n' });
    const spoke = await run('sh', ['-c', 'echo "18: Pulling from library/postgres"; sleep 0.5; echo done'], {
      timeoutMs: 20_000,
      firstOutputMs: 300,
      firstOutputPattern: /Pulling from /,
    });
    expect(spoke).toMatchObject({ timedOut: false, code: 0, stdout: '18: Pulling from library/postgres\ndone\n' });
    expect(spoke.silent).toBeUndefined();
  });
});
