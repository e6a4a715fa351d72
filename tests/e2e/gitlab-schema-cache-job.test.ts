/**
 * The GitLab component's schema cache (templates/postgres.yml): the before_script's other paths,
 * run in a job container beside a real server (the PostgreSQL 17 test image). The runs through
 * gitlab-ci-local are in gitlab-schema-cache.test.ts.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { docker, lines, requireGitlabInfra } from '../helpers/gitlab-ci-local.js';
import { ROOT } from '../helpers/infra.js';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'gitlab');
const KEY = /^pg-tmpfs-schema-1-gitlab-[0-9a-f]{32}$/;

beforeAll(() => {
  requireGitlabInfra();
});

/**
 * The paths a pipeline run does not take, each with a fresh server: the component's before_script
 * (both items in one shell, as the runner runs them) in a job container of the test image beside a
 * service container of it, on a network of their own.
 */
describe("the schema cache's other paths: the before_script in a job container beside a real server", () => {
  const IMAGE = 'pg-tmpfs-test/postgres:17';
  const id = `pg-tmpfs-e2e-schema-cache-${randomBytes(4).toString('hex')}`;
  const label = `pg-tmpfs-e2e=${id}`;
  const project = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-cache-job-'));
  const script = join(project, '.before_script.sh');
  let seq = 0;

  beforeAll(() => {
    const doc = parseAllDocuments(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8'));
    if (!Array.isArray(doc)) throw new Error('templates/postgres.yml is empty');
    const job = Object.values(doc[1]!.toJS() as Record<string, { before_script: string[] }>)[0]!;
    writeFileSync(script, job.before_script.join('\n'));
    cpSync(join(FIXTURES, 'schema-cache'), join(project, 'schema-cache'), { recursive: true });
    docker(['network', 'create', '--label', label, id]);
  });

  afterAll(() => {
    const own = lines(docker(['ps', '-aq', '--filter', `label=${label}`]));
    if (own.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...own], { stdio: 'ignore' });
    spawnSync('docker', ['network', 'rm', id], { stdio: 'ignore' });
    removeStore();
    rmSync(project, { recursive: true, force: true });
  });

  /** Starts a fresh server, then runs `prepare` and the before_script in the job container. */
  function job(env: Record<string, string>, prepare = ''): { status: number | null; out: string[] } {
    const name = `${id}-${++seq}`;
    const image = IMAGE;
    try {
      docker([
        'run',
        '-d',
        '--name',
        `${name}-service`,
        '--label',
        label,
        '--network',
        id,
        '--network-alias',
        `${name}-db`,
        '-e',
        'POSTGRES_USER=ci',
        '-e',
        'POSTGRES_PASSWORD=ci-secret',
        '-e',
        'POSTGRES_DB=app_test',
        '-e',
        'POSTGRES_INITDB_ARGS=--nosync',
        image,
        'postgres',
        '-c',
        'fsync=off',
      ]);
      const vars = {
        PGHOST: `${name}-db`,
        PGPORT: '5432',
        PGUSER: 'ci',
        PGPASSWORD: 'ci-secret',
        PGDATABASE: 'app_test',
        CI_PROJECT_DIR: '/builds/p',
        PG_TMPFS_WAIT_TIMEOUT: '60',
        PG_TMPFS_IMAGE: image,
        PG_TMPFS_INITDB_ARGS: '--nosync',
        PG_TMPFS_SCHEMA_CACHE: 'true',
        ...env,
      };
      const r = spawnSync(
        'docker',
        [
          'run',
          '--rm',
          '--name',
          `${name}-job`,
          '--label',
          label,
          '--network',
          id,
          '-v',
          `${project}:/builds/p`,
          '-w',
          '/builds/p',
          ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
          '--entrypoint',
          '/bin/sh',
          image,
          '-c',
          `${prepare}\n. ./.before_script.sh\necho "EXPORTED \${PG_TMPFS_SCHEMA_CACHE_HIT-unset} \${PG_TMPFS_SCHEMA_CACHE_KEY-unset}"`,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      return { status: r.status, out: lines(`${r.stdout}\n${r.stderr}`).filter((l) => !/ answers at /.test(l)) };
    } finally {
      spawnSync('docker', ['rm', '-f', '-v', `${name}-service`], { stdio: 'ignore' });
    }
  }

  /** Removes the store the jobs wrote (as root, like the jobs). */
  function removeStore(): void {
    spawnSync(
      'docker',
      ['run', '--rm', '-v', `${project}:/builds/p`, '--entrypoint', 'rm', IMAGE, '-rf', '/builds/p/.pg-tmpfs-schema'],
      { stdio: 'ignore', timeout: 60_000 },
    );
  }

  beforeEach(removeStore);

  it('with init empty there is nothing to cache: one note, no key, the job goes on', () => {
    const r = job({ PG_TMPFS_EXTENSIONS: 'pg_trgm' });
    expect(r.status, r.out.join('\n')).toBe(0);
    expect(r.out).toEqual([
      'pg-tmpfs: schema cache: nothing to cache, the init input names no file (the cache holds what init builds)',
      'pg-tmpfs: extensions pg_trgm created in app_test',
      'EXPORTED false ',
    ]);
  });

  it('a pg_dump older than the server: a warning, init runs, nothing is saved, the job passes', () => {
    const r = job(
      { PG_TMPFS_INIT: 'schema-cache/*.sql', PG_TMPFS_EXTENSIONS: 'pg_trgm' },
      'printf \'#!/bin/sh\\necho "pg_dump (PostgreSQL) 15.8"\\n\' > /usr/local/bin/pg_dump && chmod +x /usr/local/bin/pg_dump',
    );
    expect(r.status, r.out.join('\n')).toBe(0);
    expect(r.out).toEqual([
      'pg-tmpfs: warning: schema cache: pg_dump 15 of the job image is older than the server (PostgreSQL 17) and cannot dump it, so init runs and nothing is saved. Install the PostgreSQL client 17 or newer in the job image (apt-get install -y postgresql-client-17)',
      'pg-tmpfs: extensions pg_trgm created in app_test',
      'pg-tmpfs: init schema-cache/01_schema.sql',
      'pg-tmpfs: init schema-cache/02_seed.sql',
      'EXPORTED false ',
    ]);
    expect(existsSync(join(project, '.pg-tmpfs-schema'))).toBe(false);
  });

  it('an init that creates a database (which a dump of one database does not hold): a warning, nothing is saved', () => {
    writeFileSync(join(project, 'schema-cache', '03_database.sql'), '-- pg-tmpfs: no-transaction\nCREATE DATABASE reports;\n');
    try {
      const r = job({ PG_TMPFS_INIT: 'schema-cache/*.sql', PG_TMPFS_EXTENSIONS: 'pg_trgm' });
      expect(r.status, r.out.join('\n')).toBe(0);
      expect(r.out).toContain(
        "pg-tmpfs: warning: schema cache: init changed what a dump of app_test does not hold (it created or dropped a database, or changed app_test's owner, GRANTs, comment or ALTER DATABASE … SET settings), so nothing is saved and init runs in every job. Move that out of init (e.g. into the databases input)",
      );
      expect(r.out).toContain('pg-tmpfs: init schema-cache/03_database.sql');
      expect(r.out.filter((l) => l.startsWith('pg-tmpfs: schema cache: saved'))).toEqual([]);
      expect(r.out.at(-1)).toMatch(/^EXPORTED false pg-tmpfs-schema-1-gitlab-[0-9a-f]{32}$/);
    } finally {
      rmSync(join(project, 'schema-cache', '03_database.sql'));
    }
  });

  it('a dump whose restore fails (its sha256 matches): a miss with a warning, nothing of it kept, init runs', () => {
    const env = { PG_TMPFS_INIT: 'schema-cache/*.sql', PG_TMPFS_EXTENSIONS: 'pg_trgm' };
    const saved = job(env);
    expect(saved.status, saved.out.join('\n')).toBe(0);
    const key = saved.out.at(-1)!.split(' ')[2]!;
    expect(key).toMatch(KEY);
    // The roles file restores app_reader, then a table the dump creates too: the restore fails
    // after the role was created. The manifest is made to match, so only the restore can tell.
    const r = job(
      env,
      [
        `cd /builds/p/.pg-tmpfs-schema && echo 'CREATE TABLE public.seed (x int);' >> ${key}.roles.sql`,
        `sha256sum ${key}.dump ${key}.roles.sql > ${key}.sha256 && cd /builds/p`,
      ].join('\n'),
    );
    expect(r.status, r.out.join('\n')).toBe(0);
    // (stdout, then stderr: psql's error comes last here; in a job log it comes first)
    expect(r.out.slice(0, 2)).toEqual([
      `pg-tmpfs: warning: schema cache: restoring .pg-tmpfs-schema/${key}.dump failed (the error above; nothing of it was kept), so it is removed and init runs`,
      `pg-tmpfs: schema cache key ${key}: miss, init runs`,
    ]);
    expect(r.out.filter((l) => l.startsWith('psql:'))).toEqual([
      expect.stringMatching(/^psql:.*: ERROR: {2}relation "seed" already exists$/),
    ]);
    // init's CREATE ROLE app_reader ran: the restored role was rolled back with the rest.
    expect(r.out).toContain('pg-tmpfs: init schema-cache/02_seed.sql');
    expect(r.out).toContain(
      `pg-tmpfs: schema cache: saved .pg-tmpfs-schema/${key}.dump (${/\((\d+) bytes\)/.exec(r.out.join('\n'))![1]} bytes) and the roles init created; the job's cache keeps .pg-tmpfs-schema/ when the job succeeds`,
    );
    expect(r.out).toContain(`EXPORTED false ${key}`);
  });

  it('without sha256sum in the job image the job fails at once, naming the input', () => {
    const r = job({ PG_TMPFS_INIT: 'schema-cache/*.sql' }, 'rm -f "$(command -v sha256sum)"');
    expect(r.status).toBe(1);
    expect(r.out).toEqual([
      'pg-tmpfs: error: schema-cache input: sha256sum is not installed in the job image, so the schema cache key cannot be computed. Install it (apt-get install -y coreutils, apk add coreutils) or set schema-cache: false',
    ]);
  });
});
