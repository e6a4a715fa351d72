/**
 * .github/workflows/platforms.yml through act: its Linux cells, as GitHub runs them on each label
 * (issue #42). Windows and macOS cells run only on GitHub.
 *
 * ubuntu-slim has no Docker daemon: its cell runs in a job container of the PostgreSQL 15 test
 * image with no Docker socket (act mounts the host's into every job container unless told
 * `--container-daemon-socket -`), node and npm mounted from the host (the runner brings its own),
 * a fresh tool cache, and the docker CLI there with DOCKER_HOST at a "daemon" that never answers
 * and counts its callers: mode auto asking for 16, which the container lacks, must choose the npm
 * build, fetched from the test's registry, without one docker call (one would connect, and wait).
 *
 * The other Linux labels run on the host (`-P <label>=-self-hosted`), PostgreSQL 15 standing for
 * the image's installed major. Each cell checks itself (its `platforms-check` lines), and its
 * cleanup check runs after the pg-tmpfs post steps (tests/fixtures/platforms/after-post).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, runActAsync, showLines, TEST_IMAGES } from '../helpers/infra.js';
import {
  hostNpmDir,
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmRegistry,
  type NpmTestPackage,
} from '../helpers/npm-packages.js';
import {
  cellArgs,
  ownLeftovers,
  PLATFORMS_WORKFLOW,
  platformCells,
  runTokens,
  setupNodeStandIn,
  startSilentDaemon,
} from '../helpers/platforms.js';

let packages: NpmTestPackage[] | null = null;
let registry: NpmRegistry | undefined;
const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-platforms-'));

beforeAll(async () => {
  packages = await requireNpmPackages();
  if (packages) registry = await startNpmRegistry({ tarballs: packages.map((p) => p.file) });
});
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The linux-x64 build the tests serve for `major` (its newest minor). */
function build(major: string): NpmTestPackage {
  const found = packages?.find((p) => p.platform === 'linux-x64' && p.major === Number(major));
  if (!found) throw new Error(`no linux-x64 build of PostgreSQL ${major} among the npm test packages`);
  return found;
}

/** The cell's lines that a passing cell prints, in order of the steps. */
const CHECKS = ['platforms-check first: ok', 'platforms-check npm: ok', 'platforms-check cleanup: ok (3 servers gone'];

/** act's arguments shared by every run: the schema cache key and act's cache server of this test. */
function commonArgs(run: string): string[] {
  return [
    ...setupNodeStandIn(),
    '--cache-server-path',
    join(work, `actcache-${run}`),
    '--var',
    `PG_TMPFS_PLATFORMS_KEY=${run}-${process.pid}-${Date.now()}`,
  ];
}

describe('platforms.yml through act', () => {
  it('ubuntu-slim: no Docker socket, mode auto picks the npm build from the registry, nothing asks Docker, nothing is left', async (ctx) => {
    if (!packages || !registry) return ctx.skip();
    requireImages();
    const slim = platformCells().find((c) => c.label === 'ubuntu-slim');
    expect(slim).toMatchObject({ first: { binaries: 'auto' } });
    const [first, second] = [build(slim!.first.version), build(slim!.npm)];
    expect(first.major).not.toBe(15); // the job image has PostgreSQL 15: the first start must not find it installed
    const leftovers = leftoverSnapshot();
    const daemon = await startSilentDaemon();
    const client = npmClient(registry);
    const before = [first, second].map((p) => registry!.tarballDownloads(p.name, p.version));
    try {
      const dockerCli = execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8', timeout: 10_000 }).trim();
      const mounts = [
        [process.execPath, '/usr/bin/node'],
        [hostNpmDir(), '/usr/lib/node_modules/npm'],
        [dockerCli, '/usr/bin/docker'],
      ].flatMap(([from, to]) => ['-v', `${from}:${to}:ro`]);
      const env = {
        ...client.env,
        // Inside the container: npm's folders, and an empty tool cache, as on a fresh runner (act's
        // own tool cache volume is shared by every act run of this engine).
        npm_config_cache: '/tmp/npm-cache',
        npm_config_userconfig: '/tmp/npmrc',
        RUNNER_TOOL_CACHE: '/tmp/pg-tmpfs-toolcache',
        DOCKER_HOST: daemon.dockerHost,
      };
      const r = await runActAsync(PLATFORMS_WORKFLOW, [
        ...cellArgs(['ubuntu-slim'], TEST_IMAGES[15]),
        '--container-daemon-socket',
        '-',
        '--container-options',
        ['--shm-size=2g', ...mounts].join(' '),
        ...commonArgs('slim'),
        ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      ]);
      showLines(r.log, /platforms-check|mode auto|Fetched|schema cache|Pool:|Stopped PostgreSQL|docker\.sock/);
      expect(r.status, r.log.slice(-8000)).toBe(0);
      // The job saw no socket, and DOCKER_HOST at the silent daemon (a docker call would go there).
      expect(r.log).toContain(`platforms-check no-docker: ok (no /var/run/docker.sock; DOCKER_HOST ${daemon.dockerHost})`);
      expect(r.log).toContain(`mode auto: native (PostgreSQL ${first.minor} from npm, ${first.name} ${first.version})`);
      expect(r.log).toContain(`platforms-check first: ok (PostgreSQL ${first.major}, npm ${first.name} ${first.version}`);
      for (const check of CHECKS) expect(r.log).toContain(check);
      // Both builds came from the test's registry, each fetched once (the hit reuses the miss's).
      expect([first, second].map((p, i) => registry!.tarballDownloads(p.name, p.version) - before[i]!)).toEqual([1, 1]);
      // No step asked Docker: no call reached the daemon, none waited for it to answer.
      expect(daemon.connections()).toBe(0);
      expect(r.log).not.toMatch(/Docker did not answer|did not finish within|The docker command was not found/);
      expect(r.log.match(/Stopped PostgreSQL \(pid \d+\) and removed/g)).toHaveLength(3);
      expect(await ownLeftovers(leftovers.added(), runTokens(r.log))).toEqual([]);
    } finally {
      client.cleanup();
      await daemon.close();
    }
  });

  it('the other Linux labels on the host: installed and npm majors, schema cache, pool, cleanup', async (ctx) => {
    if (!packages || !registry) return ctx.skip();
    const labels = platformCells()
      .map((c) => c.label)
      .filter((l) => l.startsWith('ubuntu-') && l !== 'ubuntu-slim');
    expect(labels).toEqual(['ubuntu-24.04', 'ubuntu-22.04', 'ubuntu-26.04', 'ubuntu-24.04-arm', 'ubuntu-22.04-arm']);
    const leftovers = leftoverSnapshot();
    const client = npmClient(registry);
    try {
      const r = await runActAsync(PLATFORMS_WORKFLOW, [
        ...cellArgs(labels, '-self-hosted'),
        ...commonArgs('host'),
        '--var',
        `PG_TMPFS_PLATFORMS_INSTALLED=${NATIVE_MAJOR}`,
        ...Object.entries(client.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      ]);
      showLines(r.log, /platforms-check/);
      expect(r.status, r.log.slice(-8000)).toBe(0);
      for (const label of labels) {
        // act's prefix of a matrix cell's lines: `[platforms/<label>-<index>  ]`, padded.
        const prefix = new RegExp(`^\\[platforms/${label.replace(/\./g, '\\.')}-\\d+ *\\]`);
        const own = r.log.split('\n').filter((l) => prefix.test(l));
        for (const check of CHECKS)
          expect(
            own.some((l) => l.includes(check)),
            `${label}: ${check}`,
          ).toBe(true);
      }
      expect(await ownLeftovers(leftovers.added(), runTokens(r.log))).toEqual([]);
    } finally {
      client.cleanup();
    }
  });
});
