/**
 * The release workflow (.github/workflows/release.yml) through act, on a test tag in a scratch
 * repository, as GitHub runs it on a pushed `vX.Y.Z` tag: the version check, the tests (ci.yml and
 * e2e.yml called as reusable workflows, e2e.yml reduced to one job: see PG_TMPFS_E2E_ONLY below), the
 * release notes, the release and the major tag.
 *
 * The scratch repository holds this checkout's files with the release commit a maintainer makes
 * (CHANGELOG.md's [Unreleased] gains a `## [X.Y.Z] - date` section), an older `v1` tag, and the
 * release tag; its `origin` is a local bare repository, so the major tag's force-push is a real
 * push, checked there. The release creation is checked by its command: `gh` is a recorder on PATH
 * (no GitHub API here). actions/setup-node cannot be fetched: act gets a stand-in
 * (tests/fixtures/act/setup-node) for its step, which is skipped under act.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, ROOT, runAct, showLines, withNetwork } from '../helpers/infra.js';
import { changelogSection, copyCheckout, PACKAGE_VERSION, releasedChangelog } from '../helpers/checkout.js';
import { git } from '../helpers/git.js';

const VERSION = PACKAGE_VERSION;
const TAG = `v${VERSION}`;
const MAJOR_TAG = TAG.split('.')[0]!;
const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-release-'));
const repo = join(work, 'repo');
const origin = join(work, 'origin.git');
const bin = join(work, 'bin');
const recorded = join(work, 'gh-calls.json');
/** What the release job gets as github.token. */
const TOKEN = 'pg-tmpfs-test-token';

/** The SHA actions/setup-node is pinned to in ci.yml. */
function setupNodePin(): string {
  const m = /actions\/setup-node@([0-9a-f]{40})/.exec(readFileSync(join(ROOT, '.github', 'workflows', 'ci.yml'), 'utf8'));
  if (!m) throw new Error('ci.yml does not pin actions/setup-node by commit SHA');
  return m[1]!;
}

/**
 * Runs release.yml through act in the scratch repository as a push of `tag`: the job's token as
 * the GITHUB_TOKEN secret (without one, act asks `gh auth token`), the setup-node stand-in, the
 * gh recorder first on PATH, plus `args`.
 */
function runRelease(tag: string, args: string[], timeoutMs: number): ReturnType<typeof runAct> {
  const event = join(work, `event-${tag}.json`);
  writeFileSync(event, JSON.stringify({ ref: `refs/tags/${tag}`, repository: { full_name: 'org/pg-tmpfs-action' } }));
  return runAct(
    '.github/workflows/release.yml',
    [
      '-e',
      event,
      '-s',
      `GITHUB_TOKEN=${TOKEN}`,
      '--local-repository',
      `actions/setup-node@${setupNodePin()}=${join(ROOT, 'tests', 'fixtures', 'act', 'setup-node')}`,
      ...args,
    ],
    { cwd: repo, env: { PATH: `${bin}:${process.env.PATH}` }, timeoutMs },
  );
}

beforeAll(async () => {
  requireImages();

  // The scratch repository: an earlier commit with the old major tag, then the release commit.
  mkdirSync(repo);
  copyCheckout(repo);
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'before the release']);
  git(repo, ['tag', '-a', MAJOR_TAG, '-m', `${MAJOR_TAG}: the previous release`]);
  const changelog = join(repo, 'CHANGELOG.md');
  writeFileSync(changelog, releasedChangelog(readFileSync(changelog, 'utf8'), VERSION));
  git(repo, ['commit', '-q', '-a', '-m', `Release ${VERSION}`]);
  git(repo, ['tag', '-a', TAG, '-m', `Release ${VERSION}`]);
  git(work, ['init', '-q', '--bare', origin]);
  git(repo, ['remote', 'add', 'origin', origin]);
  git(repo, ['push', '-q', 'origin', 'main', `refs/tags/${MAJOR_TAG}`, `refs/tags/${TAG}`]);

  // gh: records its arguments and the notes file it was given; `release view` finds no release
  // (exit 1, as gh does for a release that does not exist).
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'gh'),
    `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const i = args.indexOf('--notes-file');
const calls = fs.existsSync(${JSON.stringify(recorded)}) ? JSON.parse(fs.readFileSync(${JSON.stringify(recorded)}, 'utf8')) : [];
calls.push({ args, notes: i >= 0 ? fs.readFileSync(args[i + 1], 'utf8') : null, token: process.env.GH_TOKEN ?? null });
fs.writeFileSync(${JSON.stringify(recorded)}, JSON.stringify(calls));
if (args[0] === 'release' && args[1] === 'view') process.exit(1);
`,
    { mode: 0o755 },
  );
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
});

describe('release workflow through act', () => {
  it(`on tag ${TAG}: checks the version, runs ci.yml and e2e.yml, releases, moves ${MAJOR_TAG}`, () => {
    const leftovers = leftoverSnapshot();
    const releaseTagBefore = git(origin, ['rev-parse', `refs/tags/${TAG}`]);
    const releaseCommit = git(origin, ['rev-parse', `refs/tags/${TAG}^{commit}`]);
    const oldMajor = git(origin, ['rev-parse', `refs/tags/${MAJOR_TAG}^{commit}`]);
    expect(oldMajor).not.toBe(releaseCommit);

    // e2e.yml as release.yml calls it, reduced to its native-mode job (PG_TMPFS_E2E_ONLY): the
    // other e2e tests run every job of it and assert each job's check (action, background, init
    // and registry tests); a real release, without the variable, runs them all.
    const vars: Record<string, string> = {
      PG_TMPFS_E2E_ONLY: 'native-mode',
      PG_TMPFS_NATIVE_VERSION: NATIVE_MAJOR,
    };
    const r = withNetwork((network) =>
      runRelease(
        TAG,
        [
          '--network',
          network,
          // One job at a time: the e2e jobs start servers, and this machine has 2 cores.
          '--concurrent-jobs',
          '1',
          ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
        ],
        40 * 60_000,
      ),
    );
    showLines(r.log, /e2e-check|release v|release notes|created|now points|Job (succeeded|failed)|❌/);
    expect(r.status, r.log.slice(-8000)).toBe(0);

    // 1. The version check, 2. the tests: ci.yml's steps, and e2e.yml called with the job it was asked for.
    expect(r.log).toContain(`release ${TAG}: package.json, src/version.ts and CHANGELOG.md agree`);
    for (const step of [
      'npm ci',
      'npm run typecheck',
      'npm run lint',
      'npm run check-dist',
      'npx vitest run --project unit --project bench',
      'Workflow linters',
    ]) {
      expect(r.log, step).toContain(`Success - Main ${step}`);
    }
    expect(r.log).toContain('e2e-check native: ok');
    expect(r.log).not.toContain('e2e-check bad-input');
    expect(r.log).not.toMatch(/setup-node stand-in ran/);

    // 3. The release: gh asked whether it exists, then created it with the tag, its CHANGELOG
    // section as notes, and the job's token.
    const calls = JSON.parse(readFileSync(recorded, 'utf8')) as { args: string[]; notes: string; token: string | null }[];
    expect(calls.map((c) => c.args.slice(0, 3))).toEqual([
      ['release', 'view', TAG],
      ['release', 'create', TAG],
    ]);
    const create = calls[1]!;
    const notesFile = create.args[create.args.indexOf('--notes-file') + 1];
    expect(create.args).toEqual([
      'release',
      'create',
      TAG,
      '--verify-tag',
      '--title',
      TAG,
      '--notes-file',
      notesFile,
      '--latest=true',
    ]);
    const section = changelogSection(readFileSync(join(repo, 'CHANGELOG.md'), 'utf8'), VERSION);
    expect(section.length).toBeGreaterThan(100);
    expect(create.notes.trim()).toBe(section);
    expect(calls.map((c) => c.token)).toEqual([TOKEN, TOKEN]);
    expect(r.log).not.toContain(TOKEN);

    // 4. The major tag on origin: annotated, at the release commit; the release tag unchanged.
    expect(git(origin, ['cat-file', '-t', `refs/tags/${MAJOR_TAG}`])).toBe('tag');
    expect(git(origin, ['rev-parse', `refs/tags/${MAJOR_TAG}^{commit}`])).toBe(releaseCommit);
    expect(git(origin, ['for-each-ref', '--format=%(contents:subject)', `refs/tags/${MAJOR_TAG}`])).toBe(`${MAJOR_TAG}: ${TAG}`);
    expect(git(origin, ['rev-parse', `refs/tags/${TAG}`])).toBe(releaseTagBefore);
    expect(r.log).toContain(`${MAJOR_TAG} now points at ${TAG} (${releaseCommit})`);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('release workflow: a tag that does not name the version', () => {
  it('stops at the version check: no tests, no release, the major tag not moved', () => {
    const wrong = 'v9.9.9';
    git(repo, ['tag', '-a', wrong, '-m', wrong]);
    git(repo, ['push', '-q', 'origin', `refs/tags/${wrong}`]);
    const majorBefore = git(origin, ['rev-parse', `refs/tags/${MAJOR_TAG}`]);
    const callsBefore = readFileSync(recorded, 'utf8');
    const r = runRelease(wrong, [], 5 * 60_000);
    expect(r.status).not.toBe(0);
    expect(r.log).toContain(`::error::tag ${wrong} but package.json says ${VERSION}`);
    expect(r.log).not.toContain('Main npm ci');
    expect(r.log).not.toContain('e2e-check');
    expect(readFileSync(recorded, 'utf8')).toBe(callsBefore);
    expect(git(origin, ['rev-parse', `refs/tags/${MAJOR_TAG}`])).toBe(majorBefore);
  });
});
