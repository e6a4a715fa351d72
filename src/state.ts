/**
 * What the main step hands to the post step (through GITHUB_STATE, via @actions/core's
 * saveState/getState), as in actions/setup-node and docker/login-action.
 */
import * as core from '@actions/core';

/** Keys saved by the main step. */
export const STATE = Object.freeze({
  /** Set to 'true' by the main step: tells post.ts it runs as the post step. */
  isPost: 'isPost',
  /** Docker container ID to remove. */
  containerId: 'containerId',
});

/** Marks that the main step ran, so the post step knows it has something to do. */
export function markMainRan(): void {
  core.saveState(STATE.isPost, 'true');
}

/** Saves the container ID for the post step. */
export function saveContainerId(id: string): void {
  core.saveState(STATE.containerId, id);
}

/** The container ID the main step saved, or '' when none. */
export function savedContainerId(): string {
  return core.getState(STATE.containerId);
}
