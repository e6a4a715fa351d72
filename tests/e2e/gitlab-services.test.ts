/**
 * The GitLab CI/CD component (templates/postgres.yml) end to end on the real Docker engine,
 * through gitlab-ci-local, for every real major of the test images (pg-tmpfs-test/postgres:15,
 * :17 and :18: both PGDATA layouts of the official image).
 *
 * 1. gitlab-ci-local runs tests/fixtures/gitlab/.gitlab-ci.yml, which includes the component with
 *    `include: component:` and inputs. It does so in a throwaway git repository: gitlab-ci-local
 *    resolves a component from the working tree when the component's project path and ref are the
 *    repository's own (origin remote and HEAD). Run once with privileged services (the component's
 *    privileged-tmpfs input mounts a tmpfs on PGDATA) and once without (it falls back to disk).
 * 2. gitlab-ci-local runs tests/fixtures/gitlab/init.gitlab-ci.yml: the component's extensions,
 *    databases, init (tests/fixtures/gitlab/sql) and template inputs, checked from the job's script,
 *    and two jobs that must fail: an init file with an error, an extension the image lacks.
 * Runner-side settings are in gitlab-runner.test.ts, the before_script in gitlab-before-script.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { gitlabCiLocal, gitlabCiLocalResources, jobOutput, serviceLog } from '../helpers/gitlab-ci-local.js';
import { expectDurable, gl, jobFacts, MAJORS, ourLogLines, PRIVILEGED_SHIM, useGitlabSetup } from '../helpers/gitlab-e2e.js';

useGitlabSetup();

describe('GitLab component through gitlab-ci-local', () => {
  it('privileged services (as on GitLab-hosted runners): PGDATA on a tmpfs the service mounts, every major', () => {
    const shim = gl.privilegedWorks ? [] : ['--container-executable', PRIVILEGED_SHIM];
    const r = gitlabCiLocal(gl.repo, ['--privileged', ...shim]);
    console.log(`privileged via ${gl.privilegedWorks ? 'docker --privileged' : PRIVILEGED_SHIM}\n${r.log.slice(-5000)}`);
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
      expect(ourLogLines(serviceLog(gl.repo, job))).toEqual([
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
    expect(gitlabCiLocalResources().filter((x) => !gl.before.includes(x))).toEqual([]);
  });

  it('unprivileged services: the service logs that it could not mount, runs on disk, and the job passes', () => {
    const r = gitlabCiLocal(gl.repo, ['--no-privileged']);
    console.log(r.log.slice(-3000));
    expect(r.status, r.log.slice(-8000)).toBe(0);
    for (const { job, pgdata } of MAJORS) {
      expect(r.log).toMatch(new RegExp(`PASS\\s+${job}`));
      const facts = jobFacts(jobOutput(r.log, job));
      expect(facts.connected).toBe('ci app_test');
      expectDurable(facts);
      expect(facts.mounts.data_directory!.fs).not.toBe('tmpfs');
      expect(facts.waitLine).toMatch(new RegExp(`PGDATA ${pgdata} on (?!tmpfs)\\S+ answers at postgres:5432`));
      const log = serviceLog(gl.repo, job);
      expect(ourLogLines(log), log.join('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^pg-tmpfs: PGDATA ${pgdata} is not on tmpfs but on \\S+ \\(privileged-tmpfs: mount not permitted, .*\\); durability is off`,
          ),
        ),
      ]);
    }
    expect(gitlabCiLocalResources().filter((x) => !gl.before.includes(x))).toEqual([]);
  });
});

describe('GitLab component: extensions, databases, init and template inputs, through gitlab-ci-local', () => {
  let r: { status: number | null; log: string } = { status: null, log: '' };
  /** Lines of one job's output that start with a tag (upper-case word), or with pg-tmpfs:. */
  const tagged = (job: string, tag: string): string[] => jobOutput(r.log, job).filter((l) => l.startsWith(`${tag} `));

  beforeAll(() => {
    // One run for the three jobs of the sample pipeline (they run at the same time).
    r = gitlabCiLocal(gl.repo, ['--file', 'init.gitlab-ci.yml']);
    console.log(r.log.slice(-6000));
  });

  it('passes the job that uses them, and fails exactly the two jobs that must fail', () => {
    expect(r.status, r.log.slice(-8000)).toBe(1);
    expect(r.log).toMatch(/PASS\s+init\s/);
    expect(r.log).toMatch(/FAIL\s+init-fails\s/);
    expect(r.log).toMatch(/FAIL\s+extension-missing\s/);
    for (const job of ['init-fails', 'extension-missing']) expect(jobOutput(r.log, job)).not.toContain('NOT REACHED');
    expect(gitlabCiLocalResources().filter((x) => !gl.before.includes(x))).toEqual([]);
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
