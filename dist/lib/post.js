import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  LOG_TAIL_LINES,
  awaitKeep,
  describe,
  finishBackground,
  isAlive,
  logTail,
  removeFolder,
  savedBackground,
  savedHandle,
  stop,
  uploadSchemaCache
} from "./chunk-main-post.js";
import {
  actionsLogger
} from "./chunk-main-post-wait.js";
import {
  endGroup,
  info,
  setFailed,
  startGroup,
  warning
} from "./chunk-cache-main-post-wait.js";
import "./chunk-main-native-source-npm-tool-cache-post.js";
import "./chunk-main-native-source-npm-tool-cache-post-wait.js";
import "./chunk-common.js";

// src/action/post-step.ts
async function postStep() {
  let unread = null;
  let schemaCache;
  try {
    const background = savedBackground();
    const finished = background ? await finishBackground(background) : null;
    unread = finished?.unread ?? null;
    const handle = finished ? finished.handle : savedHandle();
    schemaCache = handle && "schemaCache" in handle ? handle.schemaCache : void 0;
    const pulling = handle?.mode === "docker" && handle.pulling === true;
    await awaitKeep(handle, actionsLogger);
    if (!handle || pulling) {
      const problems2 = handle ? await stop(handle) : [];
      for (const problem of problems2) warning(problem);
      if (background && problems2.length === 0) removeFolder(background.dir);
      if (problems2.length === 0) info("No PostgreSQL server to remove.");
      return problems2;
    }
    const what = describe(handle);
    if (!await isAlive(handle)) warning(`PostgreSQL (${what}) was not running at the end of the job; its log follows.`);
    startGroup(`PostgreSQL server log (last ${LOG_TAIL_LINES} lines)`);
    info(await logTail(handle) || "(empty)");
    endGroup();
    const problems = await stop(handle);
    for (const problem of problems) warning(problem);
    if (background && problems.length === 0) removeFolder(background.dir);
    if (problems.length === 0) {
      info(
        handle.mode === "docker" ? `Removed PostgreSQL ${what} and its anonymous volumes.` : `Stopped PostgreSQL${handle.pid ? ` (pid ${handle.pid})` : ""} and removed ${handle.runDir || "its run folder"}.`
      );
    }
    return problems;
  } catch (error) {
    const problem = `Cleanup of PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}`;
    warning(problem);
    return [problem];
  } finally {
    await uploadSchemaCache(schemaCache);
    if (unread) setFailed(unread);
  }
}

// src/action/post.ts
await postStep();
//# sourceMappingURL=post.js.map
