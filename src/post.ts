/**
 * The action's post step: show the server log tail, remove the container and its anonymous
 * volumes. A cleanup problem is a warning, never a job failure.
 *
 * A JavaScript action's post step cannot see whether the job failed (actions/runner#2911), so
 * the log tail is always printed, in a collapsed group; a server that died is a warning.
 */
import * as core from '@actions/core';
import { isRunning, logsTail, removeContainer } from './docker.js';
import { LOG_TAIL_LINES } from './docker-mode.js';
import { savedContainerId } from './state.js';

/** Runs the post step. Never throws and never fails the job. */
export async function cleanup(): Promise<void> {
  const id = savedContainerId();
  if (!id) {
    core.info('No PostgreSQL container to remove.');
    return;
  }
  try {
    const running = await isRunning(id);
    const tail = await logsTail(id, LOG_TAIL_LINES);
    if (!running)
      core.warning(`The PostgreSQL container ${id.slice(0, 12)} was not running at the end of the job; its log follows.`);
    core.startGroup(`PostgreSQL server log (last ${LOG_TAIL_LINES} lines)`);
    core.info(tail || '(empty)');
    core.endGroup();
    const problem = await removeContainer(id);
    if (problem && !/No such container/i.test(problem)) {
      core.warning(`Could not remove PostgreSQL container ${id.slice(0, 12)}: ${problem}`);
    } else {
      core.info(`Removed PostgreSQL container ${id.slice(0, 12)} and its anonymous volumes.`);
    }
  } catch (error) {
    core.warning(`Cleanup of the PostgreSQL container failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

await cleanup();
