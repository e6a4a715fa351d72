/**
 * Docker mode after the start: the container stopped and removed with its anonymous volumes
 * (found by the run's label, also when a killed start never learnt its ID), whether it runs, and
 * its log's tail.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { awaitProcessesWithArg } from '../orphans.js';
import type { DockerHandle } from '../server.js';
import { isRunning, logsTail, removeMatching } from './engine.js';
import { CONTAINER_LABEL } from './run-plan.js';

/**
 * How long stopDocker waits for a `docker run` its killed start left running, in ms (60 000),
 * before it kills it.
 */
const ORPHAN_RUN_WAIT_MS = 60_000;

/**
 * Removes the container and its anonymous volumes; a container already gone counts as removed.
 * @returns null on success, else docker's error text
 */
export async function stopDocker(handle: DockerHandle): Promise<string | null> {
  // The container carries this run's label, also when `docker run` was killed before it
  // returned the ID. A `docker run` of this run still running (its `up` was killed) may still
  // create the container: wait for it first (orphans.ts). Had it to be killed, the daemon may
  // still be creating the container, so look once more after 1 s.
  const problems: string[] = [];
  const killed = handle.token ? await awaitProcessesWithArg(`${CONTAINER_LABEL}.run=${handle.token}`, ORPHAN_RUN_WAIT_MS) : false;
  for (let pass = 0; pass < (handle.containerId && !killed ? 1 : 2); pass++) {
    if (pass > 0) await sleep(1000);
    const swept = await removeMatching([`label=${CONTAINER_LABEL}.run=${handle.token}`]);
    problems.push(...swept.problems, ...(swept.listError ? [swept.listError] : []));
  }
  return problems.length ? problems.join('; ') : null;
}

/** Whether the container is still running. */
export function dockerAlive(handle: DockerHandle): Promise<boolean> {
  return isRunning(handle.containerId || handle.containerName);
}

/** The last `lines` lines of the container's log; '' when it is gone. */
export function dockerLogTail(handle: DockerHandle, lines: number): Promise<string> {
  return logsTail(handle.containerId || handle.containerName, lines);
}
