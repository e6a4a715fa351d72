/**
 * What the main step hands to the post step (through GITHUB_STATE, via @actions/core's
 * saveState/getState), as in actions/setup-node and docker/login-action.
 */
import * as core from '@actions/core';
import type { NativeState } from './native/native-mode.js';

/** Keys saved by the main step. */
export const STATE = Object.freeze({
  /** Docker container ID to remove. */
  containerId: 'containerId',
  /** JSON of NativeState: the postgres process and run folder to remove. */
  native: 'native',
});

/** Saves the container ID for the post step. */
export function saveContainerId(id: string): void {
  core.saveState(STATE.containerId, id);
}

/** The container ID the main step saved, or '' when none. */
export function savedContainerId(): string {
  return core.getState(STATE.containerId);
}

/** Saves native mode's state for the post step. */
export function saveNative(state: NativeState): void {
  core.saveState(STATE.native, JSON.stringify(state));
}

/** Native mode's saved state, or null when none. */
export function savedNative(): NativeState | null {
  const text = core.getState(STATE.native);
  return text ? (JSON.parse(text) as NativeState) : null;
}
