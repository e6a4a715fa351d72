/**
 * Folders the user names, and folders programs are run from (issue #43: the sweep's 87, a
 * dangling link as cache-dir; item 7, a tool cache another user could change).
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs, pathTrustProblem } from '../../src/fsutil.js';

const scratch = mkdtempSync(join(tmpdir(), 'pg-tmpfs-fsutil-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

describe('makeDirs', () => {
  it('a dangling symbolic link is named with its target, not as EEXIST', () => {
    const link = join(scratch, 'dangling');
    symlinkSync(join(scratch, 'gone', 'target'), link);
    expect(() => makeDirs(join(link, 'below'))).toThrow(
      `${link} is a symbolic link to ${join(scratch, 'gone', 'target')}, which does not exist`,
    );
    expect(() => makeDirs(link)).toThrow(/a dangling link/);
  });
});

describe('pathTrustProblem', () => {
  const dir = (name: string, mode = 0o755) => {
    const at = join(scratch, name);
    mkdirSync(at, { recursive: true, mode });
    chmodSync(at, mode);
    return at;
  };

  it('a path of folders owned by root or this user, not writable by others, is trusted (the missing part is not looked at)', () => {
    expect(pathTrustProblem(join(dir('ok'), 'not', 'yet'))).toBeNull();
  });

  it('a folder others can write is named with its mode; with the sticky bit (as /tmp) it is trusted', () => {
    const open = dir('open', 0o777);
    expect(pathTrustProblem(join(open, 'build'))).toBe(
      `${open} can be written by others (mode 777): another user could put their own programs there`,
    );
    expect(pathTrustProblem(join(dir('sticky', 0o1777), 'build'))).toBeNull();
    expect(pathTrustProblem(join(dir('group', 0o775), 'build'))).toMatch(/group.* can be written by others \(mode 775\)/);
  });

  it('folders at and below lenientFrom may be world-writable (a GitHub-hosted tool cache)', () => {
    const tc = dir('hosted', 0o777);
    const below = join(tc, 'embedded-postgres');
    mkdirSync(below, { mode: 0o777 });
    chmodSync(below, 0o777);
    expect(pathTrustProblem(join(below, '16'), tc)).toBeNull();
    expect(pathTrustProblem(join(below, '16'), below)).toMatch(/hosted can be written by others/);
  });

  it('a symbolic link in a folder others can write is named, even when it points to a sound folder', () => {
    const open = dir('open-parent', 0o777);
    const link = join(open, 'tc');
    symlinkSync(dir('sound-target'), link);
    expect(pathTrustProblem(join(link, 'build'))).toMatch(/open-parent can be written by others \(mode 777\)/);
  });

  it('a symbolic link on the way is followed: the folder it points to is the one checked', () => {
    const open = dir('open-target', 0o777);
    const link = join(scratch, 'link-to-open');
    symlinkSync(open, link);
    expect(pathTrustProblem(join(link, 'build'))).toMatch(/open-target can be written by others/);
  });

  // chown needs root (as CI runs here); on a laptop as another user this row is skipped.
  it('a folder owned by another user is named with its owner', (ctx) => {
    if (!root && process.env.CI !== 'true') return ctx.skip();
    const theirs = dir('theirs');
    chownSync(theirs, 65534, 65534);
    expect(pathTrustProblem(join(theirs, 'build'))).toBe(`${theirs} belongs to uid 65534, neither root nor this user (uid 0)`);
  });
});
