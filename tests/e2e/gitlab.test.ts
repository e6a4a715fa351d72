/**
 * The GitLab CI/CD component (templates/postgres.yml) end to end on the real Docker engine, for
 * every real major of the test images (pg-tmpfs-test/postgres:15, :17 and :18: both PGDATA layouts of the official image).
 *
 * 1. gitlab-ci-local runs tests/fixtures/gitlab/.gitlab-ci.yml, which includes the component with
 *    `include: component:` and inputs. It does so in a throwaway git repository: gitlab-ci-local
 *    resolves a component from the working tree when the component's project path and ref are the
 *    repository's own (origin remote and HEAD). Run once with privileged services (the component's
 *    privileged-tmpfs input mounts a tmpfs on PGDATA) and once without (it falls back to disk).
 * 2. Runner-side tmpfs (services_tmpfs and shm_size of templates/gitlab-runner.toml) cannot be set
 *    in gitlab-ci-local. The jobs of tests/fixtures/gitlab/runner.gitlab-ci.yml, rendered by
 *    `gitlab-ci-local --preview`, are run the way GitLab Runner's Docker executor runs them: the
 *    service with its entrypoint, command, job + service variables, network alias, HostConfig.Tmpfs
 *    and ShmSize; then the job's before_script and script in the job image on the same network.
 * 3. gitlab-ci-local runs tests/fixtures/gitlab/init.gitlab-ci.yml: the component's extensions,
 *    databases, init (tests/fixtures/gitlab/sql) and template inputs, checked from the job's script,
 *    and two jobs that must fail: an init file with an error, an extension the image lacks.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/program.js';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import {
  commitRepository,
  docker,
  gitlabCiLocal,
  gitlabCiLocalResources,
  jobOutput,
  lines,
  removeGitlabCiLocalLeftovers,
  requireGitlabInfra,
  serviceLog,
} from '../helpers/gitlab-ci-local.js';
import { officialPgdata, ROOT, TEST_IMAGES, TEST_MAJORS } from '../helpers/infra.js';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'gitlab');
const PRIVILEGED_SHIM = join(FIXTURES, 'docker-privileged-shim.sh');

/** The jobs of each sample pipeline, one per real major, with the image's own PGDATA. */
const MAJORS = TEST_MAJORS.map((major) => ({
  major,
  job: `pg-tmpfs-${major}`,
  image: TEST_IMAGES[major],
  pgdata: officialPgdata(major),
}));

/** Names and labels of the containers and networks the runner-side tests create. */
const RUN_ID = `pg-tmpfs-e2e-gitlab-${randomBytes(4).toString('hex')}`;
const LABEL = `pg-tmpfs-e2e=${RUN_ID}`;

/** Containers and networks of the runner-side tests. */
function ownResources(): string[] {
  const containers = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
  const networks = lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]));
  return [...containers.map((c) => `container ${c}`), ...networks.map((n) => `network ${n}`)];
}

/** A git repository holding the component and the sample pipelines, with the origin they name. */
function makeRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-'));
  cpSync(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true });
  for (const file of ['.gitlab-ci.yml', 'runner.gitlab-ci.yml', 'init.gitlab-ci.yml', 'check.yml', 'sql'])
    cpSync(join(FIXTURES, file), join(dir, file), { recursive: true });
  commitRepository(dir, 'sample pipelines');
  return dir;
}

/** What a job printed: see tests/fixtures/gitlab/check.yml and the component's before_script. */
interface JobFacts {
  connected?: string;
  settings: Record<string, string>;
  mounts: Record<string, { mountPoint: string; fs: string; options: string }>;
  waitLine?: string;
}

function jobFacts(output: string[]): JobFacts {
  const facts: JobFacts = { settings: {}, mounts: {} };
  for (const line of output) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^CONNECTED (.*)$/))) facts.connected = m[1];
    else if ((m = line.match(/^SETTING (\S+) (.*)$/))) facts.settings[m[1]!] = m[2]!;
    else if ((m = line.match(/^MOUNT (\S+) (\S+) (\S+) (\S+)$/)))
      facts.mounts[m[1]!] = { mountPoint: m[2]!, fs: m[3]!, options: m[4]! };
    else if (/^pg-tmpfs: PostgreSQL .* answers at /.test(line)) facts.waitLine = line;
  }
  return facts;
}

function expectDurable(facts: JobFacts): void {
  for (const s of DURABILITY_SETTINGS) expect(facts.settings[s.name], s.name).toBe(s.value);
  // Not raised: PostgreSQL's default (see src/profile.ts).
  expect(facts.settings.shared_buffers).toBe('128MB');
}

function ourLogLines(log: string[]): string[] {
  return log.filter((l) => l.startsWith('pg-tmpfs:'));
}

let repo = '';
let before: string[] = [];
let privilegedWorks = false;

beforeAll(() => {
  requireGitlabInfra();
  repo = makeRepository();
  before = gitlabCiLocalResources();
  // Some Docker hosts (a CI sandbox whose capability bounding set lacks CAP_SYS_RESOURCE) cannot
  // start --privileged containers at all; there the shim maps --privileged to every capability the
  // host has. On a normal host gitlab-ci-local's own --privileged is used.
  const probe = ['run', '--rm', '--name', `${RUN_ID}-probe`, '--label', LABEL, '--privileged', '--entrypoint', 'true'];
  privilegedWorks = spawnSync('docker', [...probe, TEST_IMAGES.layout17], { stdio: 'ignore' }).status === 0;
});

afterAll(() => {
  removeGitlabCiLocalLeftovers(before);
  const own = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
  if (own.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...own], { stdio: 'ignore' });
  for (const n of lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]))) {
    spawnSync('docker', ['network', 'rm', n], { stdio: 'ignore' });
  }
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('GitLab component through gitlab-ci-local', () => {
  it('privileged services (as on GitLab-hosted runners): PGDATA on a tmpfs the service mounts, every major', () => {
    const shim = privilegedWorks ? [] : ['--container-executable', PRIVILEGED_SHIM];
    const r = gitlabCiLocal(repo, ['--privileged', ...shim]);
    console.log(`privileged via ${privilegedWorks ? 'docker --privileged' : PRIVILEGED_SHIM}\n${r.log.slice(-5000)}`);
    expect(r.status, r.log.slice(-8000)).toBe(0);
    for (const { major, job, pgdata } of MAJORS) {
      expect(r.log).toMatch(new RegExp(`PASS\\s+${job}`));
      const facts = jobFacts(jobOutput(r.log, job));
      expect(facts.connected).toBe('ci app_test');
      expectDurable(facts);
      expect(facts.settings.work_mem).toBe('8MB');
      expect(facts.mounts.data_directory).toMatchObject({ mountPoint: pgdata, fs: 'tmpfs' });
      expect(facts.mounts['/dev/shm']!.options).toContain('size=524288k'); // shm-size default 512m
      expect(facts.waitLine).toMatch(
        new RegExp(
          `^pg-tmpfs: PostgreSQL ${major}\\.\\d+ .*, PGDATA ${pgdata} on tmpfs answers at postgres:5432 \\(attempt \\d+\\)$`,
        ),
      );
      expect(ourLogLines(serviceLog(repo, job))).toEqual([
        expect.stringMatching(
          new RegExp(`^pg-tmpfs: PGDATA ${pgdata} is on tmpfs \\(mounted by privileged-tmpfs.*\\); /dev/shm 512m$`),
        ),
      ]);
    }
    // Inputs reach the service: the settings input of each include, tmpfs-size of the last.
    const f15 = jobFacts(jobOutput(r.log, 'pg-tmpfs-15'));
    const f18 = jobFacts(jobOutput(r.log, 'pg-tmpfs-18'));
    expect(f15.settings.max_connections).toBe('50');
    expect(f18.settings.max_connections).toBe('100');
    expect(f18.mounts.data_directory!.options).toContain('size=262144k');
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });

  it('unprivileged services: the service logs that it could not mount, runs on disk, and the job passes', () => {
    const r = gitlabCiLocal(repo, ['--no-privileged']);
    console.log(r.log.slice(-3000));
    expect(r.status, r.log.slice(-8000)).toBe(0);
    for (const { job, pgdata } of MAJORS) {
      expect(r.log).toMatch(new RegExp(`PASS\\s+${job}`));
      const facts = jobFacts(jobOutput(r.log, job));
      expect(facts.connected).toBe('ci app_test');
      expectDurable(facts);
      expect(facts.mounts.data_directory!.fs).not.toBe('tmpfs');
      expect(facts.waitLine).toMatch(new RegExp(`PGDATA ${pgdata} on (?!tmpfs)\\S+ answers at postgres:5432`));
      const log = serviceLog(repo, job);
      expect(ourLogLines(log), log.join('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^pg-tmpfs: PGDATA ${pgdata} is not on tmpfs but on \\S+ \\(privileged-tmpfs: mount not permitted, .*\\); durability is off`,
          ),
        ),
      ]);
    }
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });
});

describe('GitLab component: extensions, databases, init and template inputs, through gitlab-ci-local', () => {
  let r: { status: number | null; log: string } = { status: null, log: '' };
  /** Lines of one job's output that start with a tag (upper-case word), or with pg-tmpfs:. */
  const tagged = (job: string, tag: string): string[] => jobOutput(r.log, job).filter((l) => l.startsWith(`${tag} `));

  beforeAll(() => {
    // One run for the three jobs of the sample pipeline (they run at the same time).
    r = gitlabCiLocal(repo, ['--file', 'init.gitlab-ci.yml']);
    console.log(r.log.slice(-6000));
  });

  it('passes the job that uses them, and fails exactly the two jobs that must fail', () => {
    expect(r.status, r.log.slice(-8000)).toBe(1);
    expect(r.log).toMatch(/PASS\s+init\s/);
    expect(r.log).toMatch(/FAIL\s+init-fails\s/);
    expect(r.log).toMatch(/FAIL\s+extension-missing\s/);
    for (const job of ['init-fails', 'extension-missing']) expect(jobOutput(r.log, job)).not.toContain('NOT REACHED');
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });

  it('creates the databases and extensions, runs the init files in order (a glob in name order, each file once), marks the template', () => {
    const out = jobOutput(r.log, 'init');
    expect(tagged('init', 'pg-tmpfs:')).toEqual([
      expect.stringMatching(/^pg-tmpfs: PostgreSQL 17\.\d+ .* answers at postgres:5432 \(attempt \d+\)$/),
      'pg-tmpfs: database app_b: postgresql://ci:***@postgres:5432/app_b',
      'pg-tmpfs: database app-c: postgresql://ci:***@postgres:5432/app-c',
      'pg-tmpfs: extensions pg_trgm, uuid-ossp created in app_test, app_b, app-c',
      'pg-tmpfs: init sql/schema.sql',
      'pg-tmpfs: init sql/seed/01_users.sql',
      'pg-tmpfs: init sql/seed/02_orders.sql',
      expect.stringMatching(/^pg-tmpfs: template database app_test ready \(other sessions ended: 0\); .* TEMPLATE app_test$/),
    ]);
    // The password is printed nowhere but in the job's own echo of the exported JSON.
    expect(out.filter((l) => l.includes('ci-secret') && !l.startsWith('EXPORTED '))).toEqual([]);
    expect(tagged('init', 'TABLES')).toEqual(['TABLES orders,users']);
    expect(tagged('init', 'ROWS')).toEqual(['ROWS 3 3']); // 01_users.sql's \set worked; uuid-ossp's default filled token
    expect(tagged('init', 'EXTENSIONS')).toEqual([
      'EXTENSIONS app_test pg_trgm,uuid-ossp',
      'EXTENSIONS app_b pg_trgm,uuid-ossp',
      'EXTENSIONS app-c pg_trgm,uuid-ossp',
    ]);
    expect(tagged('init', 'DATABASE')).toEqual([
      'DATABASE app-c false',
      'DATABASE app_b false',
      'DATABASE app_test true',
      'DATABASE postgres false',
    ]);
    expect(tagged('init', 'CLONE')).toEqual(['CLONE 3']); // CREATE DATABASE clone_1 TEMPLATE app_test
    expect(tagged('init', 'EXPORTED')).toEqual([
      'EXPORTED {"app_b":"postgresql://ci:ci-secret@postgres:5432/app_b","app-c":"postgresql://ci:ci-secret@postgres:5432/app-c"} app_test',
    ]);
    expect(tagged('init', 'SHELL')).toEqual(['SHELL 2 sql/seed/01_users.sql sql/seed/02_orders.sql']);
  });

  it('a failing init file: psql names file:line, that file is rolled back, later files do not run', () => {
    const out = jobOutput(r.log, 'init-fails');
    expect(out.filter((l) => l.startsWith('pg-tmpfs: init '))).toEqual([
      'pg-tmpfs: init sql/bad/01_ok.sql',
      'pg-tmpfs: init sql/bad/02_broken.sql',
    ]);
    expect(out).toContain('psql:sql/bad/02_broken.sql:3: ERROR:  relation "no_such_table" does not exist');
    expect(out).toContain(
      "pg-tmpfs: error: init input: sql/bad/02_broken.sql failed (psql's error above names file:line); that file was rolled back, later files did not run",
    );
    // after_script, with the service still up: 01 kept, 02 rolled back, 03 never ran.
    expect(tagged('init-fails', 'TABLES')).toEqual(['TABLES kept']);
  });

  it('an extension the image lacks: fails before anything is created, naming the input, the image and the fix', () => {
    const errors = jobOutput(r.log, 'extension-missing').filter((l) => l.startsWith('pg-tmpfs: error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^pg-tmpfs: error: extensions input: "pgvector" is not available in the service image pg-tmpfs-test\/postgres:17 \(PostgreSQL 17\)\. The extension of pgvector is named "vector", which this image lacks too\. Use an image that has it \(inputs image and postgres-version\), e\.g\. pgvector\/pgvector with pg17 for vector/,
    );
    expect(tagged('extension-missing', 'EXTENSIONS')).toEqual(['EXTENSIONS ']); // not even pg_trgm
  });
});

/** A job as `gitlab-ci-local --preview` renders it (the keys used here). */
interface RenderedJob {
  image: string | { name: string };
  services: { name: string; alias: string; entrypoint: string[]; command: string[]; variables: Record<string, unknown> }[];
  variables: Record<string, unknown>;
  before_script: string[];
  script: string[];
}

function render(file: string): Record<string, RenderedJob> {
  const r = gitlabCiLocal(repo, ['--preview', '--file', file]);
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

describe("the component's before_script against a real server (native mode), as the job's shell runs it (#26)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-shell-'));
  const state = join(dir, 'state');
  const project = join(dir, 'project');
  const password = 'shell-secret';
  let port = 0;

  /** Runs the component's before_script (its entries in one shell, as the runner does). */
  function beforeScript(shell: string, env: Record<string, string>) {
    const job = Object.values(parse(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8').split('\n---\n')[1]!))[0] as {
      before_script: string[];
    };
    const r = spawnSync(shell, ['-c', job.before_script.join('\n')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        PGHOST: '127.0.0.1',
        PGPORT: String(port),
        PGUSER: 'postgres',
        PGPASSWORD: password,
        PGDATABASE: 'app',
        CI_PROJECT_DIR: project,
        PG_TMPFS_WAIT_TIMEOUT: '60',
        ...env,
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'], // stdin no socket: bash would read ~/.bashrc
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  const sql = (query: string) =>
    spawnSync('psql', ['-XtAc', query], {
      env: {
        ...process.env,
        PGHOST: '127.0.0.1',
        PGPORT: String(port),
        PGUSER: 'postgres',
        PGPASSWORD: password,
        PGDATABASE: 'app',
      },
      encoding: 'utf8',
      timeout: 30_000,
    }).stdout.trim();

  beforeAll(async () => {
    mkdirSync(project);
    let out = '';
    const saved = process.env.PG_TMPFS_STATE_DIR;
    process.env.PG_TMPFS_STATE_DIR = state;
    try {
      const code = await runCli(
        [
          'node',
          'pg-tmpfs',
          'up',
          '--mode',
          'native',
          '--name',
          'gitlab-shell',
          '--password',
          password,
          '--database',
          'app',
          '--json',
          '--quiet',
        ],
        { stdout: (t) => (out += t), stderr: () => undefined },
      );
      expect(code).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.PG_TMPFS_STATE_DIR;
      else process.env.PG_TMPFS_STATE_DIR = saved;
    }
    port = (JSON.parse(out) as { port: number }).port;
  }, 60_000);

  afterAll(async () => {
    process.env.PG_TMPFS_STATE_DIR = state;
    try {
      await runCli(['node', 'pg-tmpfs', 'down', '--name', 'gitlab-shell'], { stdout: () => undefined, stderr: () => undefined });
    } finally {
      delete process.env.PG_TMPFS_STATE_DIR;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['sh', 'bash'])(
    '%s: init files named -nt.sql (no-transaction) and - run as files, not as options or stdin',
    (shell) => {
      const db = `nt_${shell}`;
      writeFileSync(join(project, '-nt.sql'), `-- pg-tmpfs: no-transaction\nCREATE DATABASE ${db};\n`);
      writeFileSync(join(project, '-'), `CREATE TABLE dash_${shell} ();\n`);
      const r = beforeScript(shell, { PG_TMPFS_INIT: '-nt.sql\n-' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('pg-tmpfs: init -nt.sql\npg-tmpfs: init -\n');
      expect(sql(`select count(*) from pg_database where datname = '${db}'`)).toBe('1');
      expect(sql(`select count(*) from pg_tables where tablename = 'dash_${shell}'`)).toBe('1');
    },
    60_000,
  );

  it.each(['sh', 'bash'])('%s: wait-timeout 1.5 with the server up fails at once, naming the input', (shell) => {
    const r = beforeScript(shell, { PG_TMPFS_WAIT_TIMEOUT: '1.5' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'pg-tmpfs: error: wait-timeout input: "1.5" is not a whole number of seconds from 1 to 3600. Give whole seconds, e.g. 60\n',
    );
  });
});
