/**
 * The schema cache across runs in the action: @actions/cache (actions/toolkit) restores an entry
 * into the local store before the start looks it up, and the post step saves a new entry, only
 * when the job succeeded, as actions/cache does. The library loads only when schema-cache is on.
 * The job's status reaches the post step through the input `job-status`, whose default
 * `${{ job.status }}` the runner evaluates when each step runs (the workaround of
 * actions/setup-java's `job-status` input).
 */
import * as core from '@actions/core';
import { MANIFEST_SUFFIX } from '../store/manifest.js';
import type { RemoteCache } from '../schema-cache/cache.js';
import type { SchemaCacheResult } from '../server.js';
import type { Server } from '../server.js';
import { STATE } from './state.js';

/** Deadline of one download request of a cache entry, in ms (120 000); a slow segment is then a miss. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

/** How long the post step waits for the upload of an entry, in ms (600 000). */
const UPLOAD_TIMEOUT_MS = 600_000;

/** The paths @actions/cache archives for an entry: its folder and its manifest (the same at restore and save). */
function cachePaths(dir: string): string[] {
  return [dir, `${dir}${MANIFEST_SUFFIX}`];
}

/**
 * The remote cache of the main step and of the background start: restores an entry of the
 * exact key (no restore-keys: a near key is another schema). A cache service that is not there
 * (outside GitHub and act) or fails is a miss, with a note.
 */
export const actionsRemoteCache: RemoteCache = {
  async restore(key: string, dir: string): Promise<boolean> {
    try {
      const cache = await import('@actions/cache');
      if (!cache.isFeatureAvailable()) {
        core.info('schema cache: no GitHub cache service here (ACTIONS_CACHE_URL / ACTIONS_RESULTS_URL unset): local store only');
        return false;
      }
      const hit = await cache.restoreCache(cachePaths(dir), key, [], {
        timeoutInMs: DOWNLOAD_TIMEOUT_MS,
        segmentTimeoutInMs: DOWNLOAD_TIMEOUT_MS,
      });
      return hit === key;
    } catch (error) {
      core.warning(
        `schema cache: could not restore ${key} from the GitHub cache: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
  },
};

/** Records a miss that saved an entry locally, for the post step to upload (wait: true; a background start's outcome file holds it). */
export function saveForPost(server: Server): void {
  if (server.schemaCache && !server.schemaCache.hit && server.schemaCache.entry) {
    core.saveState(STATE.schemaCache, JSON.stringify(server.schemaCache));
  }
}

/**
 * The post step's part: uploads the entry a miss saved locally, when the job succeeded
 * (`job-status` is `success`). An entry that exists already (another job saved it first) is not
 * an error; any failure is a warning.
 * @param fromBackground the schema cache result of a background start's server, if any
 */
export async function uploadSchemaCache(fromBackground: SchemaCacheResult | undefined): Promise<void> {
  let result = fromBackground;
  try {
    const text = core.getState(STATE.schemaCache);
    result ??= text ? (JSON.parse(text) as SchemaCacheResult) : undefined;
  } catch {
    core.warning('schema cache: the saved state is not JSON; nothing uploaded');
    return;
  }
  if (!result || result.hit || !result.entry) return;
  const status = core.getInput('job-status');
  if (status !== 'success') {
    core.info(`schema cache: not saved, the job's status is ${status || 'unknown'} (saved only when the job succeeds)`);
    return;
  }
  const key = result.key;
  const entry = result.entry;
  let timer: NodeJS.Timeout | undefined;
  try {
    const cache = await import('@actions/cache');
    if (!cache.isFeatureAvailable()) {
      core.info('schema cache: no GitHub cache service here: kept in the local store only');
      return;
    }
    // saveCache reports what it could not save itself (an entry of that key saved first by
    // another job, a service error) and returns -1; it throws only for bad arguments.
    const id = await Promise.race([
      cache.saveCache(cachePaths(entry), key),
      new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), UPLOAD_TIMEOUT_MS))),
    ]);
    if (id === 'late')
      core.warning(`schema cache: ${key} was not saved within ${UPLOAD_TIMEOUT_MS / 1000} s; not waiting longer`);
    else if (id === -1)
      core.info(`schema cache: ${key} not saved to the GitHub cache (see the line above: it may be there already)`);
    else core.info(`schema cache: saved ${key} to the GitHub cache`);
  } catch (error) {
    core.warning(`schema cache: could not save ${key}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
