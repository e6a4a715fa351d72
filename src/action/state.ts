/**
 * What the main step hands to the post step (through GITHUB_STATE, via @actions/core's
 * saveState/getState), as in actions/setup-node and docker/login-action: the server's handle,
 * saved the moment there is something to remove and again each time it grows.
 */
import * as core from '@actions/core';
import type { ServerHandle } from '../server.js';

/** Keys saved by the main step. */
export const STATE = Object.freeze({
  /** JSON of the ServerHandle: the container, or the postgres process and run folder, to remove. */
  server: 'server',
  /** JSON of a SavedBackground (background.ts): the folder and PID of a background start. */
  background: 'background',
  /** JSON of a SchemaCacheResult: an entry a miss saved locally, for the post step to upload (schema-cache.ts). */
  schemaCache: 'schema-cache',
});

/** Saves the handle for the post step (a later call replaces an earlier one). */
export function saveHandle(handle: ServerHandle): void {
  core.saveState(STATE.server, JSON.stringify(handle));
}

/**
 * The handle the main step saved.
 * @returns null when the main step saved none (it failed before anything started)
 * @throws Error when the saved state is not a handle (never written by this action)
 */
export function savedHandle(): ServerHandle | null {
  const text = core.getState(STATE.server);
  if (!text) return null;
  const handle = JSON.parse(text) as ServerHandle;
  if (handle.mode !== 'docker' && handle.mode !== 'native') throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return handle;
}

/**
 * The background start the main step launched (`wait: false`).
 * @returns null when it launched none
 */
export function savedBackground(): { dir: string; pid: number } | null {
  const text = core.getState(STATE.background);
  if (!text) return null;
  const saved = JSON.parse(text) as { dir?: unknown; pid?: unknown };
  if (typeof saved.dir !== 'string' || typeof saved.pid !== 'number')
    throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return { dir: saved.dir, pid: saved.pid };
}
