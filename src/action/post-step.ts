/**
 * The action's post step: show the server log tail, then stop and remove what the main step
 * made (the container and its anonymous volumes, or the native server and its run folder).
 * A cleanup problem is a warning, never a job failure.
 *
 * A JavaScript action's post step cannot see whether the job failed (actions/runner#2911), so
 * the log tail is always printed, in a collapsed group; a server that died is a warning.
 */
import * as core from '@actions/core';
import { isRunning, logsTail, removeContainer } from './docker.js';
import { actionsLogger } from './log.js';
import { nativeLogTail, stopNative, type NativeState } from './native/native-mode.js';
import { LOG_TAIL_LINES } from './server.js';
import { savedContainerId, savedNative } from './state.js';

function showLog(tail: string): void {
  core.startGroup(`PostgreSQL server log (last ${LOG_TAIL_LINES} lines)`);
  core.info(tail || '(empty)');
  core.endGroup();
}

async function cleanupContainer(id: string): Promise<void> {
  const running = await isRunning(id);
  const tail = await logsTail(id, LOG_TAIL_LINES);
  if (!running)
    core.warning(`The PostgreSQL container ${id.slice(0, 12)} was not running at the end of the job; its log follows.`);
  showLog(tail);
  const problem = await removeContainer(id);
  if (problem && !/No such container/i.test(problem)) {
    core.warning(`Could not remove PostgreSQL container ${id.slice(0, 12)}: ${problem}`);
  } else {
    core.info(`Removed PostgreSQL container ${id.slice(0, 12)} and its anonymous volumes.`);
  }
}

async function cleanupNative(state: NativeState): Promise<void> {
  showLog(nativeLogTail(state.runDir));
  await stopNative(state, actionsLogger);
  core.info(`Stopped PostgreSQL (pid ${state.pid}) and removed ${state.runDir}.`);
}

/** Runs the post step. Never throws and never fails the job. */
export async function cleanup(): Promise<void> {
  try {
    const id = savedContainerId();
    const native = savedNative();
    if (id) await cleanupContainer(id);
    if (native) await cleanupNative(native);
    if (!id && !native) core.info('No PostgreSQL server to remove.');
  } catch (error) {
    core.warning(`Cleanup of PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

await cleanup();
