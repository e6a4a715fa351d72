import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  BACKGROUND_ENV,
  FILES,
  actionsLogger,
  awaitStart,
  readLaunch,
  replayLog
} from "./chunk-main-post-wait.js";
import {
  guardedStart,
  launchKeep,
  planStart
} from "./chunk-cli-main-post.js";
import {
  backgroundAlive,
  backgroundDeadline,
  connectionEnv,
  connectionUri,
  entryPath,
  errorFrom,
  launchBackground,
  readJob,
  readJson,
  writeJson
} from "./chunk-cli-main-post-wait.js";
import {
  exportVariable,
  getInput,
  getState,
  info,
  saveState,
  setOutput,
  warning
} from "./chunk-cache-cli-main-native-source-npm-tool-cache-post-wait.js";
import {
  MANIFEST_SUFFIX
} from "./chunk-cli-main-native-source-npm-tool-cache-post.js";
import {
  SetupError
} from "./chunk-cli-main-native-source-npm-tool-cache-post-wait.js";

// src/action/background.ts
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

// src/action/state.ts
var STATE = Object.freeze({
  /** JSON of the ServerHandle: the container, or the postgres process and run folder, to remove. */
  server: "server",
  /** JSON of a SavedBackground (background.ts): the folder and PID of a background start. */
  background: "background",
  /** JSON of a SchemaCacheResult: an entry a miss saved locally, for the post step to upload (schema-cache.ts). */
  schemaCache: "schema-cache"
});
function saveHandle(handle) {
  saveState(STATE.server, JSON.stringify(handle));
}
function savedHandle() {
  const text = getState(STATE.server);
  if (!text) return null;
  const handle = JSON.parse(text);
  if (handle.mode !== "docker" && handle.mode !== "native") throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return handle;
}
function savedBackground() {
  const text = getState(STATE.background);
  if (!text) return null;
  const saved = JSON.parse(text);
  if (typeof saved.dir !== "string" || typeof saved.pid !== "number")
    throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return { dir: saved.dir, pid: saved.pid };
}

// src/action/schema-cache.ts
var DOWNLOAD_TIMEOUT_MS = 12e4;
var UPLOAD_TIMEOUT_MS = 6e5;
function cachePaths(dir) {
  return [dir, `${dir}${MANIFEST_SUFFIX}`];
}
var actionsRemoteCache = {
  async restore(key, dir) {
    try {
      const cache = await import("./chunk-cache.js");
      if (!cache.isFeatureAvailable()) {
        info("schema cache: no GitHub cache service here (ACTIONS_CACHE_URL / ACTIONS_RESULTS_URL unset): local store only");
        return false;
      }
      const hit = await cache.restoreCache(cachePaths(dir), key, [], {
        timeoutInMs: DOWNLOAD_TIMEOUT_MS,
        segmentTimeoutInMs: DOWNLOAD_TIMEOUT_MS
      });
      return hit === key;
    } catch (error) {
      warning(
        `schema cache: could not restore ${key} from the GitHub cache: ${error instanceof Error ? error.message : String(error)}`
      );
      return false;
    }
  }
};
function saveForPost(server) {
  if (server.schemaCache && !server.schemaCache.hit && server.schemaCache.entry) {
    saveState(STATE.schemaCache, JSON.stringify(server.schemaCache));
  }
}
async function uploadSchemaCache(fromBackground) {
  let result = fromBackground;
  try {
    const text = getState(STATE.schemaCache);
    result ??= text ? JSON.parse(text) : void 0;
  } catch {
    warning("schema cache: the saved state is not JSON; nothing uploaded");
    return;
  }
  if (!result || result.hit || !result.entry) return;
  const status = getInput("job-status");
  if (status !== "success") {
    info(`schema cache: not saved, the job's status is ${status || "unknown"} (saved only when the job succeeds)`);
    return;
  }
  const key = result.key;
  const entry = result.entry;
  let timer;
  try {
    const cache = await import("./chunk-cache.js");
    if (!cache.isFeatureAvailable()) {
      info("schema cache: no GitHub cache service here: kept in the local store only");
      return;
    }
    const id = await Promise.race([
      cache.saveCache(cachePaths(entry), key),
      new Promise((done) => timer = setTimeout(() => done("late"), UPLOAD_TIMEOUT_MS))
    ]);
    if (id === "late")
      warning(`schema cache: ${key} was not saved within ${UPLOAD_TIMEOUT_MS / 1e3} s; not waiting longer`);
    else if (id === -1)
      info(`schema cache: ${key} not saved to the GitHub cache (see the line above: it may be there already)`);
    else info(`schema cache: saved ${key} to the GitHub cache`);
  } catch (error) {
    warning(`schema cache: could not save ${key}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

// src/action/background.ts
function childEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|GITHUB_(OUTPUT|ENV|STATE|PATH|STEP_SUMMARY)$)/.test(k))
  );
}
function makeFolder(base) {
  for (; ; ) {
    const dir = join(base, `pg-tmpfs-start-${randomBytes(6).toString("hex")}`);
    saveState(STATE.background, JSON.stringify({ dir, pid: 0 }));
    try {
      mkdirSync(dir, { mode: 448 });
      return dir;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
}
async function launchInBackground(config, startedAtMs) {
  const planned = await planStart(config, actionsLogger);
  const dir = makeFolder(process.env.RUNNER_TEMP || tmpdir());
  let pid;
  try {
    pid = await launchBackground(
      entryPath("main"),
      { config: planned.config, connection: planned.connection, startedAtMs, extra: { dir } },
      join(dir, FILES.log),
      childEnv(),
      (childPid) => {
        saveState(STATE.background, JSON.stringify({ dir, pid: childPid }));
        writeJson(join(dir, FILES.launch), {
          pid: childPid,
          startedAtMs,
          deadlineAtMs: backgroundDeadline(config, startedAtMs)
        });
      }
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    saveState(STATE.background, "");
    throw error;
  }
  const c = planned.connection;
  const known = {
    "connection-uri": connectionUri(c),
    host: c.host,
    port: String(c.port),
    user: c.user,
    password: c.password,
    database: c.database,
    mode: planned.config.mode
  };
  for (const [name, value] of Object.entries(known)) setOutput(name, value);
  if (config.exportEnv) for (const [name, value] of Object.entries(connectionEnv(c))) exportVariable(name, value);
  const others = (process.env[BACKGROUND_ENV] ?? "").split(delimiter).filter(Boolean);
  exportVariable(BACKGROUND_ENV, [...others, dir].join(delimiter));
  info(
    `Starting PostgreSQL in the background (${planned.config.mode} mode, pid ${pid}); it will answer at ${c.host}:${c.port}. Wait for it with a step \`uses: <this action>/wait@<ref>\` (or let clients retry); its log: ${join(dir, FILES.log)}`
  );
  return { background: true, dir, pid, connection: c };
}
async function backgroundChild() {
  const job = await readJob();
  const dir = job.extra.dir;
  try {
    const server = await guardedStart(
      job.config,
      actionsLogger,
      {
        saveHandle: (h) => writeJson(join(dir, FILES.handle), h),
        saveServer: (server2) => writeJson(join(dir, FILES.outcome), { ok: true, server: server2, readyAtMs: Date.now() }),
        saveFailure: ({ error, record, interrupted }) => {
          if (!interrupted) info(`The background start failed: ${error instanceof Error ? error.message : String(error)}`);
          writeJson(join(dir, FILES.outcome), { ok: false, error: record });
        },
        interruptedError: (signal) => new SetupError(`The background start was interrupted by ${signal}`, "Start PostgreSQL again")
      },
      { planned: job.connection, remote: actionsRemoteCache }
    );
    launchKeep(server, () => entryPath("main"), actionsLogger);
    return 0;
  } catch {
    return 1;
  }
}
async function finishBackground(saved) {
  const { dir, pid } = saved;
  let launch = null;
  try {
    launch = readLaunch(dir);
  } catch {
  }
  let timedOut = false;
  if (backgroundAlive(pid)) {
    const got = await awaitStart(
      dir,
      launch ?? { pid, startedAtMs: Date.now(), deadlineAtMs: Date.now() + 6e4 },
      () => info(`The background start of PostgreSQL (pid ${pid}) is still running: waiting for it to end before cleaning up`)
    );
    if (got.kind === "timeout") {
      timedOut = true;
      warning(`The background start of PostgreSQL (pid ${pid}) passed its deadline and was stopped`);
    }
  }
  const read = existsSync(join(dir, FILES.shown));
  if (!read) {
    info("The background start's log (no wait step showed it):");
    replayLog(dir);
  }
  const outcome = readJson(join(dir, FILES.outcome));
  let unread = null;
  if (outcome && !outcome.ok) {
    if (read) warning(`The background start of PostgreSQL failed: ${outcome.error.problem}`);
    else unread = errorFrom(outcome.error).message;
  } else if (!outcome && !read) {
    unread = timedOut ? `The background start of PostgreSQL (pid ${pid}) did not end by its deadline and was stopped` : pid > 0 ? `The background start of PostgreSQL (pid ${pid}) was killed before it finished` : "The main step was killed before it launched the background start of PostgreSQL";
  }
  if (unread) {
    unread = `The background start of PostgreSQL (wait: false) did not give the job its database, and no wait step read it: ${unread.replace(/\.?$/, "")}. Add a step \`uses: <this action>/wait@<same ref>\` after the main step: it fails there, before the steps that need the database`;
  }
  return { handle: outcome?.ok ? outcome.server : readJson(join(dir, FILES.handle)), unread };
}
function removeFolder(dir) {
  rmSync(dir, { recursive: true, force: true });
}

export {
  saveHandle,
  savedHandle,
  savedBackground,
  actionsRemoteCache,
  saveForPost,
  uploadSchemaCache,
  launchInBackground,
  backgroundChild,
  finishBackground,
  removeFolder
};
//# sourceMappingURL=chunk-main-post.js.map
