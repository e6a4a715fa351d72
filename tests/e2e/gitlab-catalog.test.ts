/**
 * The pipeline of the GitLab mirror (.gitlab-ci.yml, docs/gitlab-catalog.md) through gitlab-ci-local,
 * as far as it runs without a GitLab server: the component job for real against the local test image,
 * which jobs each kind of pipeline gets, the release notes job for real, and the release job checked
 * as rendered (its `release:` needs GitLab's API, so it is not run).
 *
 * The scratch repository holds this checkout's files (tracked or new, as in the working tree) with
 * the release commit of package.json's version (CHANGELOG.md's [Unreleased] entries under
 * `## [X.Y.Z] - date`), and origin ORIGIN. What gitlab-ci-local 4.60.0 does with it
 * (node_modules/gitlab-ci-local/src):
 * - CI_SERVER_FQDN is the origin's host (gitlab.example.com; `:port` only off 443), CI_PROJECT_PATH
 *   its path (pg-tmpfs/pg-tmpfs-action), CI_COMMIT_SHA `git rev-parse HEAD` (predefined-variables.js,
 *   git-data.js).
 * - It expands the string values of every `include:` entry with the predefined variables and the
 *   --variable ones (parser-includes.js expandInclude), so `component:
 *   $CI_SERVER_FQDN/$CI_PROJECT_PATH/postgres@$CI_COMMIT_SHA` works unchanged. A component whose
 *   project path is the origin's and whose ref is HEAD's SHA (the host is not compared) is read from
 *   the working tree, templates/postgres.yml; any other would be fetched from the server. It does
 *   not expand variables in `inputs:`, and it does not check spec:inputs:regex (it warns "no-op").
 *   `include: rules:` see the predefined and --variable variables, so PG_TMPFS_TEST_IMAGES=true
 *   selects the include with the test image, as a pipeline variable would on GitLab.
 * - It never sets CI_COMMIT_TAG: git tags of the repository are ignored, and CI_COMMIT_BRANCH and
 *   CI_COMMIT_REF_NAME are `git rev-parse --abbrev-ref HEAD`. A tag pipeline is therefore
 *   `--variable CI_COMMIT_TAG=… --variable CI_COMMIT_REF_NAME=… --unset-variable CI_COMMIT_BRANCH`
 *   (job and include rules are evaluated with these), the least fake form it offers.
 * - It ignores `release:` and prints `--preview` without expanding variables.
 * - The stand-in helper image has no rsync, which gitlab-ci-local uses to copy a Docker job's
 *   artifacts out, so release-notes runs with --force-shell-executor (the host's sh and awk;
 *   scripts/changelog-notes.sh is POSIX sh and awk, like the glab image's busybox).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import { changelogSection, copyCheckout, PACKAGE_VERSION, releasedChangelog } from '../helpers/checkout.js';
import {
  commitRepository,
  gitlabCiLocal,
  gitlabCiLocalResources,
  jobOutput,
  removeGitlabCiLocalLeftovers,
  requireGitlabInfra,
  serviceLog,
} from '../helpers/gitlab-ci-local.js';
import { git } from '../helpers/git.js';
import { ROOT } from '../helpers/infra.js';

const VERSION = PACKAGE_VERSION;
const TAG = `v${VERSION}`;
/** The rule of the release jobs (.version-tag). */
const VERSION_TAG_RULE = { if: '$CI_COMMIT_TAG =~ /^v(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$/' };
/** Deadline of a gitlab-ci-local call that only parses the pipeline. */
const PARSE_TIMEOUT = 60_000;

/** A job as `gitlab-ci-local --preview` renders it (the keys used here). */
interface RenderedJob {
  stage: string;
  image?: { name: string; entrypoint?: string[] };
  services?: { name: string; alias: string; variables: Record<string, string> }[];
  variables?: Record<string, string>;
  before_script?: string[];
  script: string[];
  rules?: unknown[];
  dependencies?: string[];
  artifacts?: { paths?: string[]; reports?: { dotenv?: string } };
  release?: Record<string, string>;
}

let repo = '';
let head = '';
let before: string[] = [];
/** The notes the release of VERSION must get: its CHANGELOG.md section, or else the [Unreleased] entries it takes over. */
let notes = '';

/** gitlab-ci-local's options for a pipeline of tag `tag` (see the header). */
function tagPipeline(tag: string): string[] {
  return [
    '--variable',
    `CI_COMMIT_TAG=${tag}`,
    '--variable',
    `CI_COMMIT_REF_NAME=${tag}`,
    '--unset-variable',
    'CI_COMMIT_BRANCH',
  ];
}

/** The jobs gitlab-ci-local would run (rules applied), by name, with their stage. */
function pipelineJobs(args: string[]): Record<string, string> {
  const r = gitlabCiLocal(repo, ['--list-json', ...args], PARSE_TIMEOUT);
  expect(r.status, r.log.slice(-4000)).toBe(0);
  const json = r.stdout.slice(r.stdout.search(/^\[/m)); // warnings come first
  const jobs = JSON.parse(json) as { name: string; stage: string; when: string }[];
  return Object.fromEntries(jobs.filter((j) => j.when !== 'never').map((j) => [j.name, j.stage]));
}

/** The merged configuration as gitlab-ci-local renders it, variables not expanded. */
function render(args: string[]): Record<string, RenderedJob> & { stages: string[] } {
  const r = gitlabCiLocal(repo, ['--preview', ...args], PARSE_TIMEOUT);
  expect(r.status, r.log.slice(-4000)).toBe(0);
  return parse(r.stdout.slice(r.stdout.indexOf('---\n'))) as Record<string, RenderedJob> & { stages: string[] };
}

/** The before_script of the component's hidden job, as templates/postgres.yml has it. */
function componentBeforeScript(): string[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8'));
  if (!Array.isArray(docs)) throw new Error('templates/postgres.yml is empty');
  const jobs = docs[1]!.toJS() as Record<string, { before_script: string[] }>;
  return jobs['$[[ inputs.job-name ]]']!.before_script;
}

beforeAll(() => {
  requireGitlabInfra();
  repo = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-catalog-'));
  copyCheckout(repo);
  const changelog = join(repo, 'CHANGELOG.md');
  const text = readFileSync(changelog, 'utf8');
  notes = changelogSection(text, VERSION) || changelogSection(text, 'Unreleased');
  if (notes === '') throw new Error(`CHANGELOG.md has neither a [${VERSION}] nor an [Unreleased] section with entries`);
  writeFileSync(changelog, releasedChangelog(text, VERSION));
  commitRepository(repo, `Release ${VERSION}`);
  head = git(repo, ['rev-parse', 'HEAD']);
  before = gitlabCiLocalResources();
});

afterAll(() => {
  removeGitlabCiLocalLeftovers(before);
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('GitLab mirror pipeline (.gitlab-ci.yml) through gitlab-ci-local', () => {
  it('includes the component from the working tree at the commit: official postgres:18, or pg-tmpfs-test/postgres:18 with PG_TMPFS_TEST_IMAGES=true', () => {
    const template = componentBeforeScript();
    for (const [args, image] of [
      [[], 'postgres:18'],
      [['--variable', 'PG_TMPFS_TEST_IMAGES=true'], 'pg-tmpfs-test/postgres:18'],
    ] as const) {
      const job = render([...args]).component!;
      expect(job.services).toHaveLength(1);
      expect(job.services![0]).toMatchObject({ name: image, alias: 'postgres' });
      expect(job.services![0]!.variables).toMatchObject({
        POSTGRES_USER: 'ci',
        POSTGRES_DB: 'catalog_test',
        PG_TMPFS_MOUNT: 'privileged-tmpfs=true',
        PG_TMPFS_SETTINGS: 'work_mem=8MB\n',
      });
      // The job runs in the service's image (it has psql): PG_TMPFS_IMAGE is set by the component.
      expect(job.variables!.PG_TMPFS_IMAGE).toBe(image);
      expect(job.image).toEqual({ name: '$PG_TMPFS_IMAGE', entrypoint: [''] });
      expect(job.before_script).toEqual(template);
    }
  });

  it("the component job checks exactly src/profile.ts's durability settings (plus the settings input)", () => {
    const script = render([]).component!.script.join('\n');
    const checked = [...script.matchAll(/\('([a-z_]+)', '([^']+)'\)/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(checked).toEqual([...DURABILITY_SETTINGS.map((s) => `${s.name}=${s.value}`), 'work_mem=8MB']);
  });

  it('runs the component job against pg-tmpfs-test/postgres:18: the query answers, every setting took, nothing is left', () => {
    const r = gitlabCiLocal(repo, ['--variable', 'PG_TMPFS_TEST_IMAGES=true', 'component']);
    console.log(r.log.slice(-3000));
    expect(r.status, r.log.slice(-8000)).toBe(0);
    expect(r.log).toMatch(/PASS\s+component/);
    const out = jobOutput(r.log, 'component');
    expect(out).toContainEqual(
      expect.stringMatching(/^pg-tmpfs: PostgreSQL 18\.\d+ .* answers at postgres:5432 \(attempt \d+\)$/),
    );
    expect(out).toContain('CONNECTED ci catalog_test');
    expect(out).toContain('QUERY 3 row 3');
    expect(out.filter((l) => l.startsWith('SETTING '))).toEqual(
      [
        ...DURABILITY_SETTINGS.map((s) => `SETTING ${s.name} ${s.value}`),
        'SETTING shared_buffers 128MB',
        'SETTING work_mem 8MB',
      ].sort(),
    );
    expect(out).toContain('DURABILITY off');
    expect(out).toContain('DATA_DIRECTORY /var/lib/postgresql/18/docker');
    // The privileged-tmpfs input reached the service; unprivileged here, it ran on disk.
    const service = serviceLog(repo, 'component').filter((l) => l.startsWith('pg-tmpfs:'));
    expect(service).toEqual([
      expect.stringMatching(
        /^pg-tmpfs: PGDATA \/var\/lib\/postgresql\/18\/docker is not on tmpfs but on \S+ \(privileged-tmpfs: mount not permitted, /,
      ),
    ]);
    expect(gitlabCiLocalResources().filter((x) => !before.includes(x))).toEqual([]);
  });

  it('a branch pipeline runs the component job only', () => {
    expect(pipelineJobs([])).toEqual({ component: 'test' });
  });

  it.each([
    ['v1', 'the major tag the GitHub release moves'],
    ['latest', 'not a version'],
    [VERSION, 'the tag a GitLab release creates'],
    [`${TAG}-rc.1`, 'a pre-release, which GitHub does not release either'],
    [TAG.split('.').slice(0, 2).join('.'), 'not a full version'],
  ])('a pipeline for tag %s (%s) runs the component job only', (tag) => {
    expect(pipelineJobs(tagPipeline(tag))).toEqual({ component: 'test' });
  });

  describe(`a pipeline for tag ${TAG}`, () => {
    const artifacts = () => join(repo, '.gitlab-ci-local', 'artifacts', 'release-notes');

    it('runs release-notes beside the component job, and release in the stage after them', () => {
      expect(pipelineJobs(tagPipeline(TAG))).toEqual({ component: 'test', 'release-notes': 'test', release: 'release' });
      expect(render(tagPipeline(TAG)).stages).toEqual(['.pre', 'test', 'release', '.post']);
    });

    it(`release-notes (run): the notes are CHANGELOG.md's ${VERSION} section, RELEASE_VERSION=${VERSION} a dotenv report`, () => {
      rmSync(join(repo, '.gitlab-ci-local', 'artifacts'), { recursive: true, force: true });
      const r = gitlabCiLocal(repo, ['--force-shell-executor', ...tagPipeline(TAG), 'release-notes'], 120_000);
      console.log(r.log.slice(-3000));
      expect(r.status, r.log.slice(-8000)).toBe(0);
      expect(r.log).toMatch(/PASS\s+release-notes/);
      expect(jobOutput(r.log, 'release-notes')).toContain(`Release ${VERSION} for tag ${TAG} at ${head}, notes:`);
      expect(readFileSync(join(artifacts(), 'release-notes.md'), 'utf8')).toBe(`${notes}\n`);
      expect(readFileSync(join(artifacts(), '.gitlab-ci-reports', 'dotenv', 'release.env'), 'utf8')).toBe(
        `RELEASE_VERSION=${VERSION}\n`,
      );
    });

    it('release-notes (run) fails the pipeline for a version tag without a CHANGELOG.md section', () => {
      const r = gitlabCiLocal(repo, ['--force-shell-executor', ...tagPipeline('v99.0.0'), 'release-notes'], 120_000);
      expect(r.status, r.log.slice(-8000)).toBe(1);
      expect(r.log).toMatch(/FAIL\s+release-notes/);
      expect(jobOutput(r.log, 'release-notes')).toContainEqual(expect.stringMatching(/no section.*\[99\.0\.0\]/));
    });

    it(`release (rendered, not run): tag and release ${VERSION} at the commit, with the notes, in the pinned glab image`, () => {
      const jobs = render(tagPipeline(TAG));
      const notesJob = jobs['release-notes']!;
      const release = jobs.release!;
      expect(notesJob.rules).toEqual([VERSION_TAG_RULE]);
      expect(notesJob.script).toContain('sh scripts/changelog-notes.sh "$RELEASE_VERSION" CHANGELOG.md > release-notes.md');
      expect(notesJob.artifacts).toEqual({ paths: ['release-notes.md'], reports: { dotenv: 'release.env' } });

      expect(release.rules).toEqual([VERSION_TAG_RULE]);
      expect(release.stage).toBe('release');
      expect(release.dependencies).toEqual(['release-notes']);
      // glab (the `release` keyword runs it), pinned, 1.58 or later.
      expect(release.image).toEqual({ name: '$RELEASE_TOOLS_IMAGE' });
      const pinned = /^registry\.gitlab\.com\/gitlab-org\/cli:v(\d+)\.(\d+)\.(\d+)$/.exec(
        release.variables!.RELEASE_TOOLS_IMAGE!,
      );
      expect(pinned, release.variables!.RELEASE_TOOLS_IMAGE).not.toBeNull();
      expect(Number(pinned![1]) * 1000 + Number(pinned![2])).toBeGreaterThanOrEqual(1058);
      // The script only checks its inputs; the release is the `release:` block.
      expect(release.script).toEqual([
        'test "$RELEASE_VERSION" = "${CI_COMMIT_TAG#v}"',
        'test -s release-notes.md',
        'echo "Publishing release $RELEASE_VERSION of $CI_PROJECT_PATH (tag $CI_COMMIT_TAG, commit $CI_COMMIT_SHA)"',
      ]);
      expect(release.release).toEqual({
        tag_name: '$RELEASE_VERSION',
        tag_message: 'pg-tmpfs-action $RELEASE_VERSION (GitHub tag $CI_COMMIT_TAG)',
        ref: '$CI_COMMIT_SHA',
        name: 'pg-tmpfs-action $RELEASE_VERSION',
        description: './release-notes.md',
      });
      // With the variables the job gets (release-notes' dotenv report, shown above), GitLab creates:
      const env: Record<string, string> = { RELEASE_VERSION: VERSION, CI_COMMIT_TAG: TAG, CI_COMMIT_SHA: head };
      const expand = (s: string) => s.replace(/\$([A-Z_]+)/g, (_, name: string) => env[name] ?? `$${name}`);
      expect(Object.fromEntries(Object.entries(release.release!).map(([k, v]) => [k, expand(v)]))).toEqual({
        tag_name: VERSION,
        tag_message: `pg-tmpfs-action ${VERSION} (GitHub tag ${TAG})`,
        ref: head,
        name: `pg-tmpfs-action ${VERSION}`,
        description: './release-notes.md', // the artifact of release-notes, in the project directory
      });
    });
  });
});
