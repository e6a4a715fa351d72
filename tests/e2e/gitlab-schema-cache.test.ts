/**
 * The GitLab component's schema cache (templates/postgres.yml, inputs schema-cache,
 * schema-cache-files, schema-cache-key) end to end: gitlab-ci-local runs
 * tests/fixtures/gitlab/schema-cache.gitlab-ci.yml several times in one throwaway repository, on
 * the real Docker engine with the PostgreSQL 17 test image.
 *
 * gitlab-ci-local 4.60 keeps a job's cache in .gitlab-ci-local/cache/<key>/ of the repository: it
 * copies that folder into the job's project directory before the scripts run, and after a job
 * whose status matches `cache:when` copies the cached paths back (merged into the folder, so files
 * removed in the job stay there; GitLab replaces the whole archive). A `cache:key` string is taken
 * as is, so the component's fixed key names the folder, and the content key names the dump in it.
 *
 * Each run starts a fresh service. Seed rows carry the time init ran, so a run that restored the
 * dump shows the time of the run that saved it. The before_script's other paths, in a job container
 * beside a real server, are in gitlab-schema-cache-job.test.ts.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitRepository,
  gitlabCiLocal,
  gitlabCiLocalResources,
  jobOutput,
  removeGitlabCiLocalLeftovers,
  requireGitlabInfra,
} from '../helpers/gitlab-ci-local.js';
import { git } from '../helpers/git.js';
import { ROOT } from '../helpers/infra.js';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'gitlab');
const PIPELINE = 'schema-cache.gitlab-ci.yml';
const JOB = 'schema-cache';
/** The component's cache:key for job-name .pg-cache, as gitlab-ci-local names its folder. */
const CACHE_KEY = 'pg-tmpfs-schema.pg-cache';
const KEY = /^pg-tmpfs-schema-1-gitlab-[0-9a-f]{32}$/;

let repo = '';
let before: string[] = [];

/** The schema cache folder as gitlab-ci-local keeps it between runs. */
const store = () => join(repo, '.gitlab-ci-local', 'cache', CACHE_KEY, '.pg-tmpfs-schema');

/** What one run of the job printed, by tag. */
interface Run {
  status: number | null;
  log: string;
  out: string[];
  ours: string[];
  hit: string;
  key: string;
  seed: string;
  tagged: (tag: string) => string[];
}

function run(): Run {
  const started = Date.now();
  const r = gitlabCiLocal(repo, ['--file', PIPELINE]);
  console.log(`run in ${((Date.now() - started) / 1000).toFixed(1)} s\n${r.log.slice(-4000)}`);
  const out = jobOutput(r.log, JOB);
  const tagged = (tag: string) => out.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));
  const [hit = '', key = ''] = (tagged('CACHE')[0] ?? '').split(' ');
  return {
    status: r.status,
    log: r.log,
    out,
    ours: out.filter((l) => l.startsWith('pg-tmpfs: ') && !/ answers at /.test(l)),
    hit,
    key,
    seed: tagged('SEED').join('\n'),
    tagged,
  };
}

/** The data a job's script saw, the same whether init ran or the dump was restored. */
function expectSchema(r: Run): void {
  expect(r.status, r.log.slice(-8000)).toBe(0);
  expect(r.log).toMatch(new RegExp(`PASS\\s+${JOB}\\s`));
  expect(r.seed).toMatch(/^3 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00 ada,grace,edsger$/);
  expect(r.tagged('OWNER')).toEqual(['app_reader']);
  expect(r.tagged('READER')).toEqual(['3']); // the role's password came back, not only the role
  expect(r.tagged('EXTENSIONS')).toEqual(['pg_trgm,plpgsql']);
  expect(r.tagged('TEMPLATE')).toEqual(['true']);
  expect(r.key).toMatch(KEY);
}

/** The lines of a run that load the schema, for a hit or a miss of `key`. */
function expectMiss(r: Run, key: string): void {
  expect(r.hit).toBe('false');
  expect(r.ours).toEqual([
    `pg-tmpfs: schema cache key ${key}: miss, init runs`,
    'pg-tmpfs: extensions pg_trgm created in app_test',
    'pg-tmpfs: init schema-cache/01_schema.sql',
    'pg-tmpfs: init schema-cache/02_seed.sql',
    expect.stringMatching(
      new RegExp(
        `^pg-tmpfs: schema cache: saved \\.pg-tmpfs-schema/${key}\\.dump \\(\\d+ bytes\\) and the roles init created; the job's cache keeps \\.pg-tmpfs-schema/ when the job succeeds$`,
      ),
    ),
    expect.stringMatching(/^pg-tmpfs: template database app_test ready /),
  ]);
  // The job's own folder holds this key's entry only; gitlab-ci-local's cache folder has it too.
  expect(r.tagged('STORE')).toEqual([`${key}.dump ${key}.roles.sql ${key}.sha256 `]);
  for (const ext of ['dump', 'roles.sql', 'sha256']) expect(existsSync(join(store(), `${key}.${ext}`)), ext).toBe(true);
}

beforeAll(() => {
  requireGitlabInfra();
  repo = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-cache-'));
  cpSync(join(ROOT, 'templates'), join(repo, 'templates'), { recursive: true });
  for (const file of [PIPELINE, 'schema-cache']) cpSync(join(FIXTURES, file), join(repo, file), { recursive: true });
  commitRepository(repo, 'schema cache pipeline');
  before = gitlabCiLocalResources();
});

afterAll(() => {
  removeGitlabCiLocalLeftovers(before);
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('GitLab component schema cache through gitlab-ci-local, run after run in one repository', () => {
  let first: Run;
  let second: Run;
  let changed: Run;

  it('run 1 misses: init runs, then the dump, the roles and the manifest are saved in the job cache', () => {
    first = run();
    expectSchema(first);
    expectMiss(first, first.key);
    // The manifest names both files with their sha256, as sha256sum -c reads it.
    const manifest = readFileSync(join(store(), `${first.key}.sha256`), 'utf8');
    expect(manifest).toMatch(new RegExp(`^[0-9a-f]{64}  ${first.key}\\.dump\\n[0-9a-f]{64}  ${first.key}\\.roles\\.sql\\n$`));
    // The roles file: app_reader with its password hash, never the superuser (its password is not in the key).
    const roles = readFileSync(join(store(), `${first.key}.roles.sql`), 'utf8');
    expect(roles).toContain('CREATE ROLE app_reader;');
    expect(roles).toMatch(/^ALTER ROLE app_reader WITH .* PASSWORD 'SCRAM-SHA-256\$/m);
    expect(roles).not.toMatch(/ROLE ci\b/);
    // The job's own cache entry beside the component's.
    expect(existsSync(join(repo, '.gitlab-ci-local', 'cache', 'own-cache', 'own', 'stamp'))).toBe(true);
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });

  it('run 2 hits: the dump is restored instead of running init, with run 1 seed data, roles and password', () => {
    second = run();
    expectSchema(second);
    expect(second.hit).toBe('true');
    expect(second.key).toBe(first.key);
    expect(second.seed).toBe(first.seed); // clock_timestamp() of run 1: restored, not re-run
    expect(second.ours).toEqual([
      `pg-tmpfs: schema cache key ${first.key}: hit, restored .pg-tmpfs-schema/${first.key}.dump into app_test instead of running init`,
      'pg-tmpfs: extensions pg_trgm created in app_test',
      expect.stringMatching(/^pg-tmpfs: template database app_test ready /),
    ]);
    expect(second.out.filter((l) => l.startsWith('pg-tmpfs: init '))).toEqual([]);
  });

  it('a changed init file changes the key: a miss that runs init and saves the new key, dropping the old one in the job', () => {
    appendFileSync(join(repo, 'schema-cache', '02_seed.sql'), '-- a comment changes the key too\n');
    changed = run();
    expectSchema(changed);
    expect(changed.key).not.toBe(first.key);
    expectMiss(changed, changed.key);
    expect(changed.seed).not.toBe(first.seed);
  });

  it('a changed schema-cache-files file (a new migration in the listed folder) changes the key', () => {
    writeFileSync(join(repo, 'schema-cache', 'migrate', '20240202_more.sql'), '-- 2024-02-02\n');
    // gitlab-ci-local copies tracked files only (its rsync leaves untracked ones out).
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'a migration']);
    const withMigration = run();
    expectSchema(withMigration);
    expect(withMigration.key).not.toBe(changed.key);
    expectMiss(withMigration, withMigration.key);
    changed = withMigration;
  });

  it('a damaged dump is a miss with a warning: the job passes with init run again and the dump saved anew', () => {
    const dump = join(store(), `${changed.key}.dump`);
    const bytes = readFileSync(dump);
    bytes.write('damaged', Math.floor(bytes.length / 2));
    writeFileSync(dump, bytes);
    const r = run();
    expectSchema(r);
    expect(r.key).toBe(changed.key);
    expect(r.ours[0]).toBe(
      `pg-tmpfs: warning: schema cache: .pg-tmpfs-schema/${changed.key}.dump does not match its sha256 (damaged or incomplete), so it is removed and init runs`,
    );
    expectMiss({ ...r, ours: r.ours.slice(1) }, changed.key);
    expect(r.seed).not.toBe(changed.seed); // init ran again
    // The next run hits the dump saved anew.
    const again = run();
    expectSchema(again);
    expect(again.hit).toBe('true');
    expect(again.seed).toBe(r.seed);
    expect(readdirSync(store())).toEqual(expect.arrayContaining([`${changed.key}.dump`]));
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });
});
