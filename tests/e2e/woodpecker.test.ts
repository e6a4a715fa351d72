/**
 * The Woodpecker workflow (templates/woodpecker/pipeline.yaml) end to end on the real Docker
 * engine, for both PGDATA layouts of the official image. woodpecker-cli cannot be installed here,
 * so the test does what Woodpecker does with the file (tests/fixtures/woodpecker/backend.ts):
 * substitution, then for the Docker backend one network per workflow, one container per service
 * (image, environment, entrypoint, `tmpfs` entries as HostConfig.Tmpfs, the service name as host
 * name and network alias), then each step as a container on that network, its `commands` run by
 * /bin/sh from CI_SCRIPT. The workflow's `test` step is replaced by a query step that reports the
 * settings in effect and the filesystem of PGDATA. Only the image names are changed: postgres:18
 * becomes a local test image (no registry can be reached here).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import {
  asList,
  loadWorkflow,
  STEP_ENTRYPOINT,
  stepScript,
  toEnv,
  type WoodpeckerContainer,
  type WoodpeckerWorkflow,
} from '../fixtures/woodpecker/backend.js';
import { requireImages, ROOT, TEST_IMAGES, TEST_MAJORS } from '../helpers/infra.js';

const WORKFLOW = join(ROOT, 'templates', 'woodpecker', 'pipeline.yaml');
/**
 * Woodpecker's own pipeline schema (its linter's), kept outside the project in ../shared/schemas
 * (see its README there): infrastructure of this machine, hence an end-to-end test, not a unit test.
 */
const WOODPECKER_SCHEMA = join(ROOT, '..', 'shared', 'schemas', 'woodpecker-pipeline.schema.json');
const RUN_ID = `pg-tmpfs-e2e-woodpecker-${randomBytes(4).toString('hex')}`;
const LABEL = `pg-tmpfs-e2e=${RUN_ID}`;

/** Every major runs with the block's one PGDATA, /var/lib/postgresql/data, on its own tmpfs. */
const MAJORS = TEST_MAJORS.map((major) => ({ major, image: TEST_IMAGES[major] }));

/** Replaces the workflow's `test` step: what the test reads, one tagged line per fact. */
const QUERY_COMMANDS = [
  `psql "$DATABASE_URL" -XtAc "select 'CONNECTED ' || current_user || ' ' || current_database()"`,
  `psql -XtA -F ' ' -c "select 'SETTING', name, current_setting(name) from pg_settings where name in (${[
    ...DURABILITY_SETTINGS.map((s) => s.name),
    'shared_buffers',
  ]
    .map((n) => `'${n}'`)
    .join(', ')}) order by name"`,
  `psql -XtA -F ' ' -c "select 'MOUNT', p, split_part(l, ' ', 2), split_part(l, ' ', 3), split_part(l, ' ', 4)
     from (values ('data_directory', current_setting('data_directory')), ('/dev/shm', '/dev/shm')) v(p, dir),
          lateral (select l from regexp_split_to_table(pg_read_file('/proc/self/mounts'), E'\\n') with ordinality m(l, n)
                    where starts_with(dir || '/', rtrim(split_part(l, ' ', 2), '/') || '/')
                    order by length(split_part(l, ' ', 2)) desc, n desc limit 1) x"`,
];

function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

function ownResources(): string[] {
  const containers = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
  const networks = lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]));
  return [...containers.map((c) => `container ${c}`), ...networks.map((n) => `network ${n}`)];
}

/** The workflow with its postgres image swapped for a local test image. */
function workflowFor(image: string): WoodpeckerWorkflow {
  const { workflow } = loadWorkflow(WORKFLOW);
  const swap = (c: WoodpeckerContainer) => {
    expect(c.image).toBe('postgres:18');
    c.image = image;
  };
  swap(workflow.services.postgres!);
  swap(workflow.steps['wait-for-postgres']!);
  workflow.steps.test!.image = image;
  workflow.steps.test!.commands = QUERY_COMMANDS;
  return workflow;
}

let seq = 0;

/**
 * Runs a workflow as Woodpecker's Docker backend does and returns each step's output. Services
 * are removed at the end, like Woodpecker does when the workflow finishes.
 */
function runWorkflow(workflow: WoodpeckerWorkflow): {
  steps: Record<string, { status: number | null; output: string[] }>;
  serviceLogs: string[];
  /** Destinations of the postgres service's Docker volumes (anonymous volumes of its image). */
  serviceVolumes: string[];
} {
  const network = `${RUN_ID}-${++seq}`;
  const containers: string[] = [];
  docker(['network', 'create', '--label', LABEL, network]);
  try {
    for (const [name, service] of Object.entries(workflow.services)) {
      const container = `${network}-${name}`;
      const entrypoint = asList(service.entrypoint);
      const args = [
        'run',
        '-d',
        '--name',
        container,
        '--label',
        LABEL,
        '--network',
        network,
        '--network-alias',
        name,
        '--hostname',
        name,
      ];
      for (const t of service.tmpfs ?? []) args.push('--tmpfs', t);
      for (const e of toEnv({ CI: 'woodpecker', ...service.environment })) args.push('-e', e);
      if (entrypoint.length > 0) args.push('--entrypoint', entrypoint[0]!);
      args.push(service.image, ...entrypoint.slice(1));
      docker(args);
      containers.push(container);
    }
    const steps: Record<string, { status: number | null; output: string[] }> = {};
    for (const [name, step] of Object.entries(workflow.steps)) {
      const container = `${network}-step-${name}`;
      containers.push(container);
      const env = toEnv({
        CI: 'woodpecker',
        ...step.environment,
        CI_SCRIPT: Buffer.from(stepScript(asList(step.commands))).toString('base64'),
        SHELL: '/bin/sh',
      });
      const r = spawnSync(
        'docker',
        [
          'run',
          '--name',
          container,
          '--label',
          LABEL,
          '--network',
          network,
          ...env.flatMap((e) => ['-e', e]),
          '--entrypoint',
          STEP_ENTRYPOINT[0],
          step.image,
          ...STEP_ENTRYPOINT.slice(1),
        ],
        { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
      );
      steps[name] = { status: r.status, output: lines(`${r.stdout}\n${r.stderr}`) };
      if (r.status !== 0) break; // a failed step ends the workflow
    }
    const logs = spawnSync('docker', ['logs', `${network}-postgres`], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    const mounts = spawnSync(
      'docker',
      [
        'inspect',
        '--format',
        '{{range .Mounts}}{{if eq .Type "volume"}}{{println .Destination}}{{end}}{{end}}',
        `${network}-postgres`,
      ],
      { encoding: 'utf8' },
    );
    return { steps, serviceLogs: lines(`${logs.stdout}\n${logs.stderr}`), serviceVolumes: lines(mounts.stdout ?? '') };
  } finally {
    if (containers.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...containers], { stdio: 'ignore' });
    spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
  }
}

interface Facts {
  connected?: string;
  settings: Record<string, string>;
  mounts: Record<string, { mountPoint: string; fs: string; options: string }>;
}

function facts(output: string[]): Facts {
  const f: Facts = { settings: {}, mounts: {} };
  for (const line of output) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^CONNECTED (.*)$/))) f.connected = m[1];
    else if ((m = line.match(/^SETTING (\S+) (.*)$/))) f.settings[m[1]!] = m[2]!;
    else if ((m = line.match(/^MOUNT (\S+) (\S+) (\S+) (\S+)$/)))
      f.mounts[m[1]!] = { mountPoint: m[2]!, fs: m[3]!, options: m[4]! };
  }
  return f;
}

function expectDurable(f: Facts): void {
  for (const s of DURABILITY_SETTINGS) expect(f.settings[s.name], s.name).toBe(s.value);
  expect(f.settings.shared_buffers).toBe('128MB'); // PostgreSQL's default: not raised
}

beforeAll(() => {
  requireImages();
  expect(ownResources()).toEqual([]);
});

afterAll(() => {
  // runWorkflow removes its containers and network; this catches what an aborted run left.
  const containers = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
  if (containers.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...containers], { stdio: 'ignore' });
  for (const n of lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]))) {
    spawnSync('docker', ['network', 'rm', n], { stdio: 'ignore' });
  }
});

describe('Woodpecker workflow on the Docker backend', () => {
  it.each(MAJORS)(
    'PostgreSQL $major: waits for a real query, then runs with durability off and PGDATA on tmpfs',
    ({ major, image }) => {
      const { steps, serviceLogs, serviceVolumes } = runWorkflow(workflowFor(image));
      const wait = steps['wait-for-postgres']!;
      const test = steps.test!;
      console.log([...wait.output, ...test.output].join('\n'));
      expect(wait.status, wait.output.join('\n')).toBe(0);
      expect(test.status, test.output.join('\n')).toBe(0);
      // Woodpecker's trace of each command, then the wait step's one line.
      expect(wait.output[0]).toMatch(/^\+ /);
      expect(wait.output).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^pg-tmpfs: PostgreSQL ${major}\\.\\d+ .*, PGDATA /var/lib/postgresql/data on tmpfs answers at postgres:5432 \\(attempt \\d+\\)$`,
          ),
        ),
      );
      const f = facts(test.output);
      expect(f.connected).toBe('postgres postgres'); // through DATABASE_URL, host name "postgres"
      expectDurable(f);
      expect(f.mounts.data_directory).toMatchObject({ mountPoint: '/var/lib/postgresql/data', fs: 'tmpfs' });
      expect(f.mounts['/dev/shm']).toMatchObject({ fs: 'tmpfs' });
      expect(f.mounts['/dev/shm']!.options).toContain('size=524288k');
      expect(serviceLogs).toContain('PostgreSQL init process complete; ready for start up.');
      // A tmpfs on every VOLUME of the image: Docker made no anonymous volume for the service.
      expect(serviceVolumes).toEqual([]);
    },
  );

  it('the same tmpfs mounts without PGDATA set fail on 18 as the official entrypoint does (why the block sets it)', () => {
    const workflow = workflowFor(TEST_IMAGES[18]);
    delete workflow.services.postgres!.environment!.PGDATA;
    const wait = workflow.steps['wait-for-postgres']!;
    wait.environment = { ...wait.environment, PG_WAIT_TIMEOUT: 5 };
    const { steps, serviceLogs } = runWorkflow(workflow);
    expect(steps['wait-for-postgres']!.status).toBe(1);
    expect(serviceLogs).toContainEqual(expect.stringContaining('/var/lib/postgresql/data (unused mount/volume)'));
  });

  it('without tmpfs (repository not trusted for volumes): same settings, PGDATA on disk', () => {
    const workflow = workflowFor(TEST_IMAGES.layout18);
    delete workflow.services.postgres!.tmpfs;
    const { steps } = runWorkflow(workflow);
    expect(steps['wait-for-postgres']!.status, steps['wait-for-postgres']!.output.join('\n')).toBe(0);
    expect(steps['wait-for-postgres']!.output).toContainEqual(
      expect.stringMatching(/PostgreSQL 18\.\d+ .*PGDATA \/var\/lib\/postgresql\/data on (?!tmpfs)\S+ answers at postgres:5432/),
    );
    expect(steps.test!.status, steps.test!.output.join('\n')).toBe(0);
    const f = facts(steps.test!.output);
    expectDurable(f);
    expect(f.mounts.data_directory!.fs).not.toBe('tmpfs');
    expect(f.mounts['/dev/shm']!.options).toContain('size=65536k'); // Docker's default
  });

  it('a wait step that cannot reach the server fails with its message (no service)', () => {
    const workflow = workflowFor(TEST_IMAGES.layout17);
    workflow.services = {};
    const wait = workflow.steps['wait-for-postgres']!;
    expect(wait.environment?.PG_WAIT_TIMEOUT).toBe(60);
    wait.environment = { ...wait.environment, PG_WAIT_TIMEOUT: 2 };
    const { steps } = runWorkflow(workflow);
    expect(steps['wait-for-postgres']!.status).toBe(1);
    expect(steps['wait-for-postgres']!.output).toContainEqual(
      expect.stringMatching(
        /^pg-tmpfs: PostgreSQL at postgres did not answer 'select 1' within 2 s \(\d+ attempts\)\. Last error: .+/,
      ),
    );
    expect(steps.test).toBeUndefined();
  });

  it('leaves no containers or networks behind', () => {
    expect(ownResources()).toEqual([]);
  });
});

describe("Woodpecker's pipeline schema", () => {
  it("validates against Woodpecker's schema, tmpfs being the only exception", () => {
    if (!existsSync(WOODPECKER_SCHEMA)) throw new Error(`Woodpecker's schema is missing: ${WOODPECKER_SCHEMA}`);
    const schema = JSON.parse(readFileSync(WOODPECKER_SCHEMA, 'utf8')) as object;
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const workflow = loadWorkflow(WORKFLOW).workflow;

    expect(validate(workflow)).toBe(false);
    const errors = (validate.errors ?? []).map((e: ErrorObject) => ({
      path: e.instancePath,
      keyword: e.keyword,
      params: e.params,
    }));
    // The service definition rejects its one unknown key, tmpfs; the other two errors are that
    // rejection seen from `services` (neither the map nor the list form of its oneOf matches).
    expect(errors).toEqual([
      { path: '/services/postgres', keyword: 'additionalProperties', params: { additionalProperty: 'tmpfs' } },
      { path: '/services', keyword: 'type', params: { type: 'array' } },
      { path: '/services', keyword: 'oneOf', params: { passingSchemas: null } },
    ]);

    const withoutTmpfs = structuredClone(workflow);
    delete withoutTmpfs.services.postgres!.tmpfs;
    const valid = validate(withoutTmpfs);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });
});
