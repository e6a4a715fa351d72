/**
 * The action's post step: show the server log tail, then stop and remove what the main step
 * made (the container and its anonymous volumes, or the native server and its run folder).
 * A cleanup problem is a warning, never a job failure. The one failure: a background start
 * (`wait: false`) that did not give the job its database when no wait step read it (the job's
 * steps ran without it, and nothing else said so).
 *
 * A JavaScript action's post step cannot see whether the job failed (actions/runner#2911), so
 * the log tail is always printed, in a collapsed group; a server that died is a warning.
 */
import * as core from '@actions/core';
import { describe, isAlive, logTail, stop } from '../lifecycle.js';
import { LOG_TAIL_LINES } from '../server.js';
import { finishBackground, removeFolder } from './background.js';
import { savedBackground, savedHandle } from './state.js';
import { uploadSchemaCache } from './schema-cache.js';
import { actionsLogger } from './log.js';
import { awaitKeep } from '../native/source/npm/keep.js';
import type { Server } from '../server.js';

/**
 * Runs the post step: the handle from GITHUB_STATE (STATE_server), or the background start's
 * folder (STATE_background), in; log lines, warnings and
 * removal out. Never throws; fails the step (an error annotation, exit code 1) only when a
 * background start failed and no wait step read it (finishBackground), after the cleanup.
 * @returns the problems met (each also a warning); [] when everything was removed or there was nothing
 */
export async function postStep(): Promise<string[]> {
  let unread: string | null = null;
  let schemaCache: Server['schemaCache'];
  try {
    // A background start (wait: false) still running is waited for first; its files then name
    // what to remove.
    const background = savedBackground();
    const finished = background ? await finishBackground(background) : null;
    unread = finished?.unread ?? null;
    const handle = finished ? finished.handle : savedHandle();
    // Uploaded after the removal (finally): the entry was saved when init ended.
    schemaCache = handle && 'schemaCache' in handle ? (handle as Server).schemaCache : undefined;
    // A start that ended (or was killed) while pulling made no container: only a `docker pull`
    // it left running may need ending.
    const pulling = handle?.mode === 'docker' && handle.pulling === true;
    // A build taken into RAM is being kept on disk: that ends first, then the server goes (npm-keep.ts).
    await awaitKeep(handle, actionsLogger);
    if (!handle || pulling) {
      const problems = handle ? await stop(handle) : [];
      for (const problem of problems) core.warning(problem);
      if (background && problems.length === 0) removeFolder(background.dir);
      if (problems.length === 0) core.info('No PostgreSQL server to remove.');
      return problems;
    }
    const what = describe(handle);
    if (!(await isAlive(handle))) core.warning(`PostgreSQL (${what}) was not running at the end of the job; its log follows.`);
    core.startGroup(`PostgreSQL server log (last ${LOG_TAIL_LINES} lines)`);
    core.info((await logTail(handle)) || '(empty)');
    core.endGroup();
    const problems = await stop(handle);
    for (const problem of problems) core.warning(problem);
    if (background && problems.length === 0) removeFolder(background.dir);
    if (problems.length === 0) {
      core.info(
        handle.mode === 'docker'
          ? `Removed PostgreSQL ${what} and its anonymous volumes.`
          : `Stopped PostgreSQL${handle.pid ? ` (pid ${handle.pid})` : ''} and removed ${handle.runDir || 'its run folder'}.`,
      );
    }
    return problems;
  } catch (error) {
    const problem = `Cleanup of PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}`;
    core.warning(problem);
    return [problem];
  } finally {
    await uploadSchemaCache(schemaCache);
    if (unread) core.setFailed(unread);
  }
}
