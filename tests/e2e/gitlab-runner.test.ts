/**
 * The GitLab CI/CD component as GitLab Runner runs it. Runner-side tmpfs (services_tmpfs and
 * shm_size of templates/gitlab-runner.toml) cannot be set in gitlab-ci-local. The jobs of
 * tests/fixtures/gitlab/runner.gitlab-ci.yml, rendered by `gitlab-ci-local --preview`, are run the
 * way GitLab Runner's Docker executor runs them: the service with its entrypoint, command, job +
 * service variables, network alias, HostConfig.Tmpfs and ShmSize; then the job's before_script and
 * script in the job image on the same network.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { docker, gitlabCiLocal, lines } from '../helpers/gitlab-ci-local.js';
import { ROOT } from '../helpers/infra.js';
import {
  expectDurable,
  gl,
  jobFacts,
  LABEL,
  MAJORS,
  ourLogLines,
  ownResources,
  RUN_ID,
  useGitlabSetup,
} from '../helpers/gitlab-e2e.js';

useGitlabSetup();

/** A job as `gitlab-ci-local --preview` renders it (the keys used here). */
interface RenderedJob {
  image: string | { name: string };
  services: { name: string; alias: string; entrypoint: string[]; command: string[]; variables: Record<string, unknown> }[];
  variables: Record<string, unknown>;
  before_script: string[];
  script: string[];
}

function render(file: string): Record<string, RenderedJob> {
  const r = gitlabCiLocal(gl.repo, ['--preview', '--file', file]);
  expect(r.status, r.log.slice(-4000)).toBe(0);
  return parse(r.stdout.slice(r.stdout.indexOf('---\n'))) as Record<string, RenderedJob>;
}

/** services_tmpfs and shm_size from templates/gitlab-runner.toml. */
function runnerSettings(): { servicesTmpfs: Record<string, string>; shmSize: string } {
  const toml = readFileSync(join(ROOT, 'templates', 'gitlab-runner.toml'), 'utf8');
  const section = toml.slice(toml.indexOf('[runners.docker.services_tmpfs]'));
  const servicesTmpfs = Object.fromEntries([...section.matchAll(/^\s*"([^"]+)"\s*=\s*"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!]));
  const shmSize = toml.match(/^\s*shm_size = (\d+)$/m)?.[1];
  if (!shmSize || Object.keys(servicesTmpfs).length === 0)
    throw new Error('templates/gitlab-runner.toml: no shm_size or services_tmpfs');
  return { servicesTmpfs, shmSize };
}

const asEnv = (vars: Record<string, unknown>): string[] => Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${String(v)}`]);

let seq = 0;

/**
 * Runs a rendered job the way GitLab Runner's Docker executor does, on a network of its own:
 * the service container (Env = job variables + service variables, Entrypoint, Cmd = command,
 * the alias as network alias, HostConfig.Tmpfs = services_tmpfs, ShmSize = shm_size), then the job
 * container with the job's variables running before_script and script.
 */
function runAsDockerExecutor(
  job: RenderedJob,
  opts: {
    servicesTmpfs?: Record<string, string>;
    shmSize?: string;
    entrypointOverwrite?: boolean;
    serviceEnv?: Record<string, string>;
  } = {},
): { status: number | null; output: string[]; serviceLog: string[] } {
  const name = `${RUN_ID}-${++seq}`;
  const service = job.services[0]!;
  const overwrite = opts.entrypointOverwrite ?? true;
  docker(['network', 'create', '--label', LABEL, name]);
  try {
    const args = [
      'run',
      '-d',
      '--name',
      `${name}-service`,
      '--label',
      LABEL,
      '--network',
      name,
      '--network-alias',
      service.alias,
    ];
    if (opts.shmSize) args.push('--shm-size', opts.shmSize);
    for (const [path, options] of Object.entries(opts.servicesTmpfs ?? {}))
      args.push('--tmpfs', options ? `${path}:${options}` : path);
    args.push(...asEnv({ ...job.variables, ...service.variables, ...opts.serviceEnv }));
    if (overwrite) args.push('--entrypoint', service.entrypoint[0]!);
    args.push(service.name, ...(overwrite ? service.entrypoint.slice(1) : []), ...service.command);
    docker(args);
    const image = typeof job.image === 'string' ? job.image : job.image.name;
    const script = ['set -e', ...job.before_script, ...job.script].join('\n');
    const r = spawnSync(
      'docker',
      [
        'run',
        '--rm',
        '--name',
        `${name}-job`,
        '--label',
        LABEL,
        '--network',
        name,
        ...asEnv(job.variables),
        '--entrypoint',
        '/bin/sh',
        image,
        '-c',
        script,
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
    );
    const logs = spawnSync('docker', ['logs', `${name}-service`], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return { status: r.status, output: lines(`${r.stdout}\n${r.stderr}`), serviceLog: lines(`${logs.stdout}\n${logs.stderr}`) };
  } finally {
    spawnSync('docker', ['rm', '-f', '-v', `${name}-service`, `${name}-job`], { stdio: 'ignore' });
    spawnSync('docker', ['network', 'rm', name], { stdio: 'ignore' });
  }
}

describe('GitLab component as GitLab Runner runs it, with runner-side settings', () => {
  let jobs: Record<string, RenderedJob> = {};
  beforeAll(() => {
    jobs = render('runner.gitlab-ci.yml');
  });

  it.each(MAJORS)(
    'services_tmpfs and shm_size of templates/gitlab-runner.toml: PostgreSQL $major has PGDATA on tmpfs unprivileged',
    ({ major, job, pgdata: imagePgdata }) => {
      // From 18 the image's PGDATA lies below the runner's tmpfs; up to 17 the component moves it there.
      const pgdata = `/var/lib/postgresql/${major}/docker`;
      const moved =
        imagePgdata !== pgdata
          ? ` \\(moved from ${imagePgdata}, a volume on \\S+, below the runner's tmpfs on /var/lib/postgresql\\)`
          : '';
      const { servicesTmpfs, shmSize } = runnerSettings();
      const r = runAsDockerExecutor(jobs[job]!, { servicesTmpfs, shmSize });
      console.log([...r.output, ...ourLogLines(r.serviceLog)].join('\n'));
      expect(r.status, r.output.join('\n')).toBe(0);
      const facts = jobFacts(r.output);
      expect(facts.connected).toBe('postgres postgres');
      expectDurable(facts);
      expect(facts.mounts.data_directory).toMatchObject({ mountPoint: '/var/lib/postgresql', fs: 'tmpfs' });
      expect(facts.mounts.data_directory!.options).toContain('size=2097152k');
      expect(facts.mounts['/dev/shm']!.options).toContain('size=524288k');
      expect(facts.waitLine).toMatch(new RegExp(`PGDATA ${pgdata} on tmpfs answers at postgres:5432`));
      expect(ourLogLines(r.serviceLog)).toEqual([
        expect.stringMatching(new RegExp(`^pg-tmpfs: PGDATA ${pgdata} is on tmpfs${moved}$`)),
      ]);
    },
  );

  it('runner with disable_entrypoint_overwrite: the image entrypoint runs `command`, durability still off', () => {
    const r = runAsDockerExecutor(jobs['pg-tmpfs-17']!, { entrypointOverwrite: false });
    expect(r.status, r.output.join('\n')).toBe(0);
    const facts = jobFacts(r.output);
    expectDurable(facts);
    expect(facts.mounts.data_directory!.fs).not.toBe('tmpfs');
    expect(ourLogLines(r.serviceLog)).toEqual([]);
  });

  it.each([
    ['an image without PGDATA, postgres-version 18', { PGDATA: '', PG_TMPFS_VERSION: '18' }, '/var/lib/postgresql/18/docker'],
    ['an image without PGDATA, postgres-version 17', { PGDATA: '', PG_TMPFS_VERSION: '17-alpine' }, '/var/lib/postgresql/data'],
    [
      'an image without PGDATA, postgres-version 0.8.0-pg18 (pgvector)',
      { PGDATA: '', PG_TMPFS_VERSION: '0.8.0-pg18' },
      '/var/lib/postgresql/18/docker',
    ],
    ['the pgdata input', { PG_TMPFS_PGDATA: '/var/lib/postgresql/custom' }, '/var/lib/postgresql/custom'],
  ])('PGDATA from %s', (_what, serviceEnv, pgdata) => {
    const r = runAsDockerExecutor(jobs['pg-tmpfs-18']!, { serviceEnv });
    expect(r.status, r.output.join('\n')).toBe(0);
    expect(r.output).toContain(`DATA_DIRECTORY ${pgdata}`);
    expect(ourLogLines(r.serviceLog)).toEqual([
      expect.stringMatching(new RegExp(`^pg-tmpfs: PGDATA ${pgdata} is not on tmpfs but on `)),
    ]);
  });

  it.each([
    ['fsync', 'pg-tmpfs: error: settings: "fsync" is not name=value'],
    ['work_mem=8MB\nbad-name=1', 'pg-tmpfs: error: settings: "bad-name" is not a setting name'],
  ])('a bad settings line (%j) stops the service with a clear message', (settings, message) => {
    const service = jobs['pg-tmpfs-17']!.services[0]!;
    const r = spawnSync(
      'docker',
      [
        'run',
        '--rm',
        '--name',
        `${RUN_ID}-${++seq}-service`,
        '--label',
        LABEL,
        ...asEnv({ ...service.variables, PG_TMPFS_SETTINGS: settings }),
        '--entrypoint',
        service.entrypoint[0]!,
        service.name,
        ...service.entrypoint.slice(1),
        ...service.command,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(message);
  });

  it('leaves no containers or networks behind', () => {
    expect(ownResources()).toEqual([]);
  });
});
