/**
 * scripts/release.sh and scripts/changelog-notes.sh, the steps of .github/workflows/release.yml,
 * run for real (bash, git, a local bare repository as origin, a `gh` recorder on PATH) in a
 * scratch repository: tag forms, version agreement, the notes, `--latest`, and when the major tag
 * moves. tests/e2e/release.test.ts runs the whole workflow through act.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';

const ROOT = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-release-script-'));
const repo = join(work, 'repo');
const origin = join(work, 'origin.git');
const bin = join(work, 'bin');
const recorded = join(work, 'gh-args');

const CHANGELOG = `# Changelog

Intro.

## [Unreleased]

## [1.3.0] - 2026-11-21

### Added

- Three.

### Fixed

- Four.

## [1.2.0]

- Two.

## [1.1.0] - 2026-01-02

- One.

[1.1.0]: https://example.invalid/v1.1.0
`;

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATH: `${bin}:${process.env.PATH}` };

/** Runs a script of scripts/ in the scratch repository: status, stdout, stderr. */
function run(script: string, args: string[]): { status: number | null; out: string; err: string } {
  // changelog-notes.sh is POSIX sh (the GitLab release job's Alpine image has no bash).
  const shell = script === 'changelog-notes.sh' ? 'sh' : 'bash';
  const r = spawnSync(shell, [join(repo, 'scripts', script), ...args], {
    cwd: repo,
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** Sets the scratch repository's version (package.json, src/version.ts) and commits. */
function setVersion(version: string): void {
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'pg-tmpfs', version }));
  writeFileSync(join(repo, 'src', 'version.ts'), `export const VERSION = '${version}';\n`);
  git(repo, ['commit', '-q', '-a', '--allow-empty', '-m', `version ${version}`]);
}

/** Tags HEAD with an annotated tag and pushes it. */
function tag(name: string): void {
  git(repo, ['tag', '-a', name, '-m', name]);
  git(repo, ['push', '-q', 'origin', `refs/tags/${name}`]);
}

beforeAll(() => {
  mkdirSync(join(repo, 'scripts'), { recursive: true });
  mkdirSync(join(repo, 'src'));
  for (const s of ['release.sh', 'changelog-notes.sh']) cpSync(join(ROOT, 'scripts', s), join(repo, 'scripts', s));
  writeFileSync(join(repo, 'CHANGELOG.md'), CHANGELOG);
  git(repo, ['init', '-q', '-b', 'main']);
  git(work, ['init', '-q', '--bare', origin]);
  git(repo, ['remote', 'add', 'origin', origin]);
  writeFileSync(join(repo, 'package.json'), '{}');
  writeFileSync(join(repo, 'src', 'version.ts'), '');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'start']);
  mkdirSync(bin);
  // gh: `release view TAG` answers whether `release create TAG` was run before (as GitHub
  // would); `release create` records its arguments.
  writeFileSync(
    join(bin, 'gh'),
    [
      '#!/bin/sh',
      `if [ "$1 $2" = "release view" ]; then test -e '${recorded}.made-'"$3"; exit; fi`,
      `printf '%s\\n' "$@" > '${recorded}'`,
      `touch '${recorded}.made-'"$3"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('changelog-notes.sh', () => {
  it("prints a version's section without its heading and surrounding blank lines; a leading v is dropped", () => {
    const expected = '### Added\n\n- Three.\n\n### Fixed\n\n- Four.\n';
    expect(run('changelog-notes.sh', ['1.3.0'])).toEqual({ status: 0, out: expected, err: '' });
    expect(run('changelog-notes.sh', ['v1.3.0']).out).toBe(expected);
    expect(run('changelog-notes.sh', ['1.2.0']).out).toBe('- Two.\n');
  });

  it('stops at the link references after the last section', () => {
    expect(run('changelog-notes.sh', ['1.1.0']).out).toBe('- One.\n');
  });

  it('fails on a missing, a partial or an empty section', () => {
    expect(run('changelog-notes.sh', ['1.4.0'])).toEqual({ status: 1, out: '', err: 'CHANGELOG has no section ## [1.4.0]\n' });
    expect(run('changelog-notes.sh', ['1.3'])).toMatchObject({ status: 1, err: 'CHANGELOG has no section ## [1.3]\n' });
    expect(run('changelog-notes.sh', ['Unreleased'])).toMatchObject({
      status: 1,
      err: 'CHANGELOG section ## [Unreleased] is empty\n',
    });
  });
});

describe('release.sh check', () => {
  it.each(['1.3.0', 'v1.3', 'v01.3.0', 'v1.3.0-rc.1', 'v1.3.0; true'])('refuses the tag %j', (t) => {
    const r = run('release.sh', ['check', t]);
    expect(r.status).toBe(1);
    expect(r.err).toBe(`::error::release tag '${t}' is not vMAJOR.MINOR.PATCH (e.g. v1.2.3): push a tag of that form\n`);
  });

  it('passes when package.json, src/version.ts and CHANGELOG.md name the tag, and HEAD is its commit', () => {
    setVersion('1.3.0');
    tag('v1.3.0');
    expect(run('release.sh', ['check', 'v1.3.0'])).toEqual({
      status: 0,
      out: 'release v1.3.0: package.json, src/version.ts and CHANGELOG.md agree\n',
      err: '',
    });
  });

  it('names the file that disagrees, and the fix', () => {
    expect(run('release.sh', ['check', 'v1.4.0']).err).toBe(
      '::error::tag v1.4.0 but package.json says 1.3.0: run npm version 1.4.0 --no-git-tag-version, tag again\n',
    );
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ version: '1.4.0' }));
    expect(run('release.sh', ['check', 'v1.4.0']).err).toBe(
      "::error::tag v1.4.0 but src/version.ts does not say '1.4.0': set it, npm run build, tag again\n",
    );
    writeFileSync(join(repo, 'src', 'version.ts'), "export const VERSION = '1.4.0';\n");
    expect(run('release.sh', ['check', 'v1.4.0']).err).toMatch(
      /^::error::CHANGELOG\.md has no non-empty section ## \[1\.4\.0\]: rename \[Unreleased\] to \[1\.4\.0\] - \d{4}-\d\d-\d\d, tag again\n$/,
    );
    git(repo, ['checkout', '-q', '--', '.']);
  });
});

describe('release.sh notes and publish', () => {
  it('writes the notes and creates the release with them, latest only when the tag is the highest', () => {
    const notes = join(work, 'notes.md');
    expect(run('release.sh', ['notes', 'v1.3.0', notes]).status).toBe(0);
    expect(readFileSync(notes, 'utf8')).toBe('### Added\n\n- Three.\n\n### Fixed\n\n- Four.\n');

    expect(run('release.sh', ['publish', 'v1.3.0', notes])).toMatchObject({
      status: 0,
      out: 'release v1.3.0 created (latest: true)\n',
    });
    expect(readFileSync(recorded, 'utf8').split('\n')).toEqual([
      'release',
      'create',
      'v1.3.0',
      '--verify-tag',
      '--title',
      'v1.3.0',
      '--notes-file',
      notes,
      '--latest=true',
      '',
    ]);

    // A patch of an older minor, after v1.3.0: released, not latest (v2.0.0 counts too).
    tag('v1.2.1');
    tag('v2.0.0');
    expect(run('release.sh', ['publish', 'v1.2.1', notes]).out).toBe('release v1.2.1 created (latest: false)\n');
    expect(readFileSync(recorded, 'utf8')).toContain('--latest=false');
    expect(run('release.sh', ['publish', 'v1.3.0', join(work, 'absent.md')]).err).toMatch(/release notes file .* is empty/);

    // A re-run finds the release: nothing is created again.
    rmSync(recorded);
    expect(run('release.sh', ['publish', 'v1.3.0', notes])).toEqual({
      status: 0,
      out: 'release v1.3.0 exists already: left as it is\n',
      err: '',
    });
    expect(existsSync(recorded)).toBe(false);
  });

  it('fails, creating nothing, when origin cannot be read or lacks the tag', () => {
    const notes = join(work, 'notes.md');
    writeFileSync(notes, 'Notes.\n');
    git(repo, ['tag', '-a', 'v1.4.0', '-m', 'v1.4.0']); // not pushed
    expect(run('release.sh', ['publish', 'v1.4.0', notes])).toEqual({
      status: 1,
      out: '',
      err: '::error::origin has no tag v1.4.0: push it first (git push origin v1.4.0)\n',
    });
    git(repo, ['remote', 'set-url', 'origin', join(work, 'no-such-origin.git')]);
    try {
      for (const cmd of [
        ['publish', 'v1.4.0', notes],
        ['move-major', 'v1.4.0'],
      ]) {
        const r = run('release.sh', cmd);
        expect(r.status, cmd[0]).toBe(1);
        expect(r.err, cmd[0]).toContain('::error::cannot list the tags of origin (git ls-remote failed or took over 120 s)');
      }
    } finally {
      git(repo, ['remote', 'set-url', 'origin', origin]);
    }
    expect(existsSync(recorded)).toBe(false);
  });
});

describe('release.sh move-major', () => {
  it('points v1 at the highest v1 release with an annotated tag; a lower release leaves it', () => {
    // v1.3.0 is the highest v1.*.* (v2.0.0 is another major).
    expect(run('release.sh', ['move-major', 'v1.3.0'])).toMatchObject({ status: 0 });
    const commit = git(repo, ['rev-parse', 'refs/tags/v1.3.0^{commit}']);
    expect(git(origin, ['cat-file', '-t', 'refs/tags/v1'])).toBe('tag');
    expect(git(origin, ['rev-parse', 'refs/tags/v1^{commit}'])).toBe(commit);
    expect(git(origin, ['for-each-ref', '--format=%(contents:subject)', 'refs/tags/v1'])).toBe('v1: v1.3.0');

    const before = git(origin, ['rev-parse', 'refs/tags/v1']);
    expect(run('release.sh', ['move-major', 'v1.2.1'])).toEqual({
      status: 0,
      out: 'v1 stays where it is: the highest v1 release is v1.3.0, not v1.2.1\n',
      err: '',
    });
    expect(git(origin, ['rev-parse', 'refs/tags/v1'])).toBe(before);

    // Moving it again (a re-run) gives the same commit; release tags are never touched.
    const releaseTag = git(origin, ['rev-parse', 'refs/tags/v1.3.0']);
    expect(run('release.sh', ['move-major', 'v1.3.0']).status).toBe(0);
    expect(git(origin, ['rev-parse', 'refs/tags/v1^{commit}'])).toBe(commit);
    expect(git(origin, ['rev-parse', 'refs/tags/v1.3.0'])).toBe(releaseTag);
  });
});
