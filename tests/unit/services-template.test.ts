/**
 * The GitHub services template (templates/github/services.yaml): its service agrees with the one
 * definition of the durability profile (src/profile.ts), each job's tmpfs path fits the major of
 * its image, the file is valid for GitHub's runner's own workflow schema (vendored,
 * tests/fixtures/github-workflow-schema), and the runner's way of turning a service into
 * `docker create` arguments (testkit/runner-service.ts, testkit/runner-args.ts) gives what
 * the runner's code gives. The service run for real: tests/e2e/services-template.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DURABILITY_SETTINGS, INITDB_ARGS, settingsToArgs } from '../../src/profile.js';
import {
  processArguments,
  runnerEscape,
  runnerHealthArgs,
  runnerNetworkCreateArgs,
  runnerVolumeOption,
} from '../../testkit/runner-args.js';
import {
  imageMajor,
  runnerCreateArgs,
  servicesTemplate,
  SERVICES_TEMPLATE,
  TEMPLATE_JOBS,
  templateJobs,
  tmpfsPaths,
  waitStep,
  waitStepArgv,
} from '../../testkit/runner-service.js';
import { RUNNER_WORKFLOW_SCHEMA, workflowSchemaErrors } from '../helpers/workflow-schema.js';

/** What the service must run: `postgres -c fsync=off -c ...`, from src/profile.ts. */
const EXPECTED_COMMAND = ['postgres', ...settingsToArgs(DURABILITY_SETTINGS)];
const TEXT = readFileSync(SERVICES_TEMPLATE, 'utf8');
const VARIANTS = ['runner', 'container'] as const;

/** PGDATA's tmpfs for a major of the official image (docker-library/postgres Dockerfiles). */
function expectedTmpfs(major: number): string {
  return major >= 18 ? '/var/lib/postgresql' : '/var/lib/postgresql/data';
}

/** The option words of a job's service, split as the runner's docker call splits them. */
function optionWords(variant: (typeof VARIANTS)[number]): string[] {
  const svc = templateJobs()[TEMPLATE_JOBS[variant]]!.services.postgres!;
  return processArguments(String(svc.options));
}

describe('templates/github/services.yaml: the service', () => {
  it.each(VARIANTS)('%s job: command is the durability profile of src/profile.ts, initdb args too', (variant) => {
    const svc = templateJobs()[TEMPLATE_JOBS[variant]]!.services.postgres!;
    // The runner passes `command` as one string into docker's command line (split by .NET).
    expect(processArguments(String(svc.command))).toEqual(EXPECTED_COMMAND);
    expect(svc.entrypoint).toBeUndefined(); // the image's docker-entrypoint.sh stays
    expect((svc.env as Record<string, string>).POSTGRES_INITDB_ARGS).toBe(INITDB_ARGS.join(' '));
    expect(svc.env).toMatchObject({ POSTGRES_USER: 'postgres', POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'postgres' });
  });

  it.each(VARIANTS)("%s job: the tmpfs is on PGDATA's path for the major of its image", (variant) => {
    const svc = templateJobs()[TEMPLATE_JOBS[variant]]!.services.postgres!;
    const major = imageMajor(String(svc.image));
    expect(major).toBeGreaterThanOrEqual(13);
    expect(tmpfsPaths(String(svc.options))).toEqual([expectedTmpfs(major)]);
  });

  it('shows one major up to 17 and one from 18', () => {
    const majors = VARIANTS.map((v) => imageMajor(String(templateJobs()[TEMPLATE_JOBS[v]]!.services.postgres!.image)));
    expect(majors.map((m) => m >= 18).sort()).toEqual([false, true]);
  });

  it.each(VARIANTS)('%s job: --shm-size and a health check that the socket-only temporary server fails', (variant) => {
    const words = optionWords(variant);
    expect(words[words.indexOf('--shm-size') + 1]).toBe('512m');
    // pg_isready over TCP: the entrypoint's temporary server (listen_addresses='') does not answer it.
    expect(words[words.indexOf('--health-cmd') + 1]).toBe('pg_isready -h 127.0.0.1');
    for (const flag of ['--health-interval', '--health-timeout', '--health-retries']) expect(words, flag).toContain(flag);
  });

  it('runner job: port 5432 published, the URL on localhost and the published port; container job: service name, 5432', () => {
    const jobs = templateJobs();
    const runner = jobs[TEMPLATE_JOBS.runner]!;
    const container = jobs[TEMPLATE_JOBS.container]!;
    expect(runner.container).toBeUndefined();
    expect(runner.services.postgres!.ports).toEqual([5432]);
    expect(runner.steps[0]!.env?.DATABASE_URL).toBe(
      "postgresql://postgres:postgres@localhost:${{ job.services.postgres.ports['5432'] }}/postgres",
    );
    expect(container.container).toMatch(/^postgres:\d+$/);
    expect(container.services.postgres!.ports).toBeUndefined();
    expect(container.steps[0]!.env?.DATABASE_URL).toBe('postgresql://postgres:postgres@postgres:5432/postgres');
  });
});

describe('templates/github/services.yaml: the wait step', () => {
  it('is the first step of both jobs, the same script, bash, with a deadline, polling SELECT 1 with psql', () => {
    const [a, b] = VARIANTS.map((v) => waitStep(v));
    expect(a!.run).toBe(b!.run);
    expect(a!['timeout-minutes']).toBe(2);
    expect(a!.run).toMatch(/^deadline=\$\(\(SECONDS \+ 60\)\) tries=1$/m);
    expect(a!.run).toMatch(
      /until err=\$\(PGCONNECT_TIMEOUT=2 timeout 5 psql "\$DATABASE_URL" -X -q -t -A -c 'SELECT 1' 2>&1 >\/dev\/null\); do/,
    );
    expect(a!.run).toMatch(/sleep 0\.1/);
    expect(a!.run).toMatch(/echo "DATABASE_URL=\$DATABASE_URL" >> "\$GITHUB_ENV"$/m);
  });

  it('waitStepArgv runs that script as the runner runs a bash step, DATABASE_URL given', () => {
    expect(waitStepArgv('postgresql://u:p@h:1/d')).toEqual([
      'env',
      'DATABASE_URL=postgresql://u:p@h:1/d',
      'bash',
      '--noprofile',
      '--norc',
      '-eo',
      'pipefail',
      '-c',
      waitStep().run,
    ]);
  });
});

describe("templates/github/services.yaml against GitHub's runner's workflow schema", () => {
  it('is the vendored schema of the recorded commit, with command and entrypoint for services', () => {
    const bytes = readFileSync(RUNNER_WORKFLOW_SCHEMA);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '37599daaf45dd1f53743f708f9b8427f90f06e3f889567ff988a09f5ef24bfb8',
    );
    const defs = (JSON.parse(bytes.toString('utf8')) as { definitions: Record<string, { mapping?: { properties?: object } }> })
      .definitions;
    expect(Object.keys(defs['service-container-mapping']!.mapping!.properties!)).toEqual(
      expect.arrayContaining(['command', 'entrypoint', 'options', 'image']),
    );
  });

  it('the template is valid', () => {
    expect(workflowSchemaErrors(TEXT, 'services.yaml')).toEqual([]);
  });

  it('the checker catches a misspelt key, a list for command, and command on the job container', () => {
    expect(workflowSchemaErrors(TEXT.replace('command:', 'commnd:'), 'services.yaml')).toEqual([
      "services.yaml (Line: 23, Col: 9): Unexpected value 'commnd'",
    ]);
    expect(workflowSchemaErrors(TEXT.replace(/command: postgres .*/, 'command: [postgres]'), 'services.yaml')).toEqual([
      'services.yaml (Line: 23, Col: 18): A sequence was not expected',
    ]);
    const jobContainer = TEXT.replace(/container: postgres:17.*/, 'container:\n      image: postgres:17\n      command: x');
    expect(workflowSchemaErrors(jobContainer, 'services.yaml')).toEqual([
      "services.yaml (Line: 65, Col: 7): Unexpected value 'command'",
    ]);
  });

  it('accepts entrypoint beside command; rejects the job context where job-level env is read', () => {
    const withEntrypoint = TEXT.replace('command: postgres', 'entrypoint: docker-entrypoint.sh\n        command: postgres');
    expect(workflowSchemaErrors(withEntrypoint, 'services.yaml')).toEqual([]);
    // Why DATABASE_URL with the published port is a step's env: a job's env cannot read `job`.
    const jobEnv = TEXT.replace(
      '    runs-on: ubuntu-latest\n    services:',
      "    runs-on: ubuntu-latest\n    env:\n      P: ${{ job.services.postgres.ports['5432'] }}\n    services:",
    );
    expect(workflowSchemaErrors(jobEnv, 'services.yaml')).toEqual([
      "services.yaml (Line: 14, Col: 10): Unrecognized named-value: 'job'",
    ]);
  });
});

describe("the runner's docker arguments for the template's service", () => {
  const opts = { name: 'postgres_postgres18_0a1b2c', network: 'github_network_0123', alias: 'postgres', label: 'a1b2c3' };

  it('servicesTemplate: the job of the variant, the tmpfs path of the major asked, the image replaced', () => {
    for (const variant of VARIANTS) {
      for (const major of [15, 17, 18, 19]) {
        const svc = servicesTemplate(variant, major, `img:${major}`);
        expect(svc.image).toBe(`img:${major}`);
        expect(tmpfsPaths(svc.options)).toEqual([expectedTmpfs(major)]);
        expect(processArguments(svc.command!)).toEqual(EXPECTED_COMMAND);
        expect(svc.ports).toEqual(variant === 'runner' ? ['5432'] : []);
        expect(svc.volumes).toEqual([]);
      }
    }
  });

  it('runnerCreateArgs: DockerCreate in order, options and command split as .NET splits them', () => {
    const svc = servicesTemplate('runner', 18, 'pg-tmpfs-test/postgres:18');
    expect(runnerCreateArgs(svc, opts)).toEqual([
      'create',
      '--name',
      opts.name,
      '--label',
      'a1b2c3',
      '--network',
      'github_network_0123',
      '--network-alias',
      'postgres',
      '-p',
      '5432',
      '--tmpfs',
      '/var/lib/postgresql',
      '--shm-size',
      '512m',
      '--health-cmd',
      'pg_isready -h 127.0.0.1',
      '--health-interval',
      '1s',
      '--health-timeout',
      '5s',
      '--health-retries',
      '60',
      '-e',
      'POSTGRES_USER=postgres',
      '-e',
      'POSTGRES_PASSWORD=postgres',
      '-e',
      'POSTGRES_DB=postgres',
      '-e',
      'POSTGRES_INITDB_ARGS=--nosync',
      '-e',
      'GITHUB_ACTIONS=true',
      '-e',
      'CI=true',
      'pg-tmpfs-test/postgres:18',
      ...EXPECTED_COMMAND,
    ]);
  });

  it('runnerCreateArgs: entrypoint, volumes, a quoted env value, CI given', () => {
    const args = runnerCreateArgs(
      {
        image: 'i',
        env: { CI: 'no', Q: 'a "b" c\\' },
        ports: [],
        options: '',
        entrypoint: 'sh',
        command: '-c "echo hi"',
        volumes: ['/a:/b:ro', '/c'],
      },
      opts,
    );
    expect(args.slice(9)).toEqual([
      '-e',
      'CI=no',
      '-e',
      'Q=a "b" c\\',
      '-e',
      'GITHUB_ACTIONS=true',
      '-v',
      '/a:/b:ro',
      '-v',
      '/c',
      '--entrypoint',
      'sh',
      'i',
      '-c',
      'echo hi',
    ]);
  });

  it('processArguments follows .NET: double quotes group, single quotes do not, backslashes before quotes', () => {
    expect(processArguments('  a\t"b c"  d""e ')).toEqual(['a', 'b c', 'de']);
    expect(processArguments("--health-cmd 'pg_isready -h x'")).toEqual(['--health-cmd', "'pg_isready", '-h', "x'"]);
    expect(processArguments('"a ""q"" b"')).toEqual(['a "q" b']);
    expect(processArguments('a\\\\"b c"  a\\"b  a\\b')).toEqual(['a\\b c', 'a"b', 'a\\b']);
    expect(processArguments('')).toEqual([]);
    for (const value of ['plain', 'with space', 'q"uote', 'back\\slash\\', 'b\\"q']) {
      expect(processArguments(`-e ${runnerEscape(value)}`)).toEqual(['-e', value]);
    }
    expect(runnerVolumeOption('/x:ro')).toBe('-v "/x":ro');
  });

  it('network create and the health read as the runner runs them', () => {
    expect(runnerNetworkCreateArgs('github_network_0123', 'a1b2c3')).toEqual([
      'network',
      'create',
      '--label',
      'a1b2c3',
      'github_network_0123',
    ]);
    expect(runnerHealthArgs('abc')).toEqual([
      'inspect',
      '--format={{if .Config.Healthcheck}}{{print .State.Health.Status}}{{end}}',
      'abc',
    ]);
  });
});
