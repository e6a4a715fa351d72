/**
 * npm clients of a local registry (npm-registry.ts), for the tests and the benchmark: the npm
 * settings one run of `npm`, the CLI or the action needs to fetch from it, in a folder of its
 * own; and the benchmark's registry, serving the PostgreSQL builds the setup fetched.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from './context.js';
import { npmTestPackages, type NpmTestPackage } from './npm-packages.js';
import { startNpmRegistry, type NpmRegistry } from './npm-registry.js';

/** The npm settings of one client run against a local registry, and their folder. */
export interface NpmClient {
  /** Environment to add to the run's (npm reads `npm_config_*`): see npmClient(). */
  env: Record<string, string>;
  /** The client's temporary folder: holds cache and userconfig; a place for `npm pack --pack-destination`. */
  dir: string;
  /** npm's cache folder for this client (`npm_config_cache`), empty at first. */
  cache: string;
  /** Its user configuration file (`npm_config_userconfig`), empty at first: a test may write an .npmrc there. */
  userconfig: string;
  /** Removes the folder holding both. */
  cleanup(): void;
}

/**
 * What a run of `npm`, the CLI or the action needs to fetch from `registry`, in a temporary folder
 * of its own (remove it with cleanup()):
 * - `npm_config_registry`: the local registry;
 * - `npm_config_cache`: a fresh cache (npm keeps tarballs in ~/.npm by integrity, and a second
 *   fetch from the same cache never reaches the registry);
 * - `npm_config_userconfig`: an empty .npmrc instead of the developer's ~/.npmrc (which may name
 *   a registry for the scope, a proxy, or `min-release-age`); the global one still applies;
 * - `npm_config_fetch_timeout` / `npm_config_fetch_retries`: npm's own deadline per request (ms)
 *   and retries (npm waits 10 s and more before a retry: 0 keeps a refusing registry's test short);
 * - `npm_config_noproxy`: 127.0.0.1 (a proxy set by HTTP_PROXY would be asked for the local registry);
 * - update notifier, audit and funding messages off.
 * @param options.fetchTimeoutMs default 30 000 ms
 * @param options.fetchRetries default 0
 * @param options.parent the folder the client's folder is made in; default the system's temporary folder
 */
export function npmClient(
  registry: { url: string },
  options: { fetchTimeoutMs?: number; fetchRetries?: number; parent?: string } = {},
): NpmClient {
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'pg-tmpfs-npm-client-'));
  const cache = join(dir, 'cache');
  const userconfig = join(dir, 'npmrc');
  writeFileSync(userconfig, '');
  return {
    env: {
      npm_config_registry: registry.url,
      npm_config_cache: cache,
      npm_config_userconfig: userconfig,
      npm_config_fetch_timeout: String(options.fetchTimeoutMs ?? 30_000),
      npm_config_fetch_retries: String(options.fetchRetries ?? 0),
      npm_config_noproxy: '127.0.0.1',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    },
    dir,
    cache,
    userconfig,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The benchmark's npm registry (sections 1 and 8) and the builds it serves. */
export interface BenchNpm {
  registry: NpmRegistry;
  /** The linux-x64 build of each major served, by major. */
  packages: Map<number, NpmTestPackage>;
  /** A fresh client in the run's disk folder (`npmClient`), registered for removal: call `remove` when done. */
  client(): NpmClient & { remove: () => Promise<void> };
  /** Tarball downloads (answered 200) of `major`'s build so far. */
  downloads(major: number): number;
  /** Stops the registry (once; also done by the run's cleanup). */
  close(): Promise<void>;
}

/**
 * Starts a registry on 127.0.0.1 serving the linux-x64 builds of `majors` that the setup fetched
 * (npm-packages.ts; newest minor of each), stopped when the run's cleanup runs. It answers from
 * this process's event loop: the programs that fetch from it must be started asynchronously.
 * @throws Error naming the setup step when a major has no build in the table or its tarball was not fetched
 */
export async function benchNpmRegistry(ctx: Context, majors: readonly number[]): Promise<BenchNpm> {
  const packages = new Map<number, NpmTestPackage>();
  for (const major of new Set(majors)) {
    const p = npmTestPackages().find((x) => x.platform === 'linux-x64' && x.major === major);
    if (!p) throw new Error(`no linux-x64 build of PostgreSQL ${major} among the npm test packages`);
    if (!existsSync(p.file))
      throw new Error(`${p.name}@${p.version} was not fetched (no ${p.file}): run bash scripts/setup-test-infra.sh (section 9)`);
    packages.set(major, p);
  }
  const registry = await startNpmRegistry({ tarballs: [...packages.values()].map((p) => p.file) });
  const close = ctx.cleanup.adopt(`npm registry ${registry.url}`, () => registry.close());
  return {
    registry,
    close,
    packages,
    client() {
      const c = npmClient(registry, { parent: ctx.diskWork });
      const remove = ctx.cleanup.adopt(`npm client ${c.dir}`, () => c.cleanup());
      return { ...c, remove };
    },
    downloads(major) {
      const p = packages.get(major);
      return p ? registry.tarballDownloads(p.name, p.version) : 0;
    },
  };
}
