/**
 * npm clients of a local registry (npm-registry.ts), for the tests and the benchmark: the npm
 * settings one run of `npm`, the CLI or the action needs to fetch from it, in a folder of its
 * own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
