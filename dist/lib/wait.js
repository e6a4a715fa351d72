import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  publish,
  writeSummary
} from "./chunk-main-wait.js";
import {
  BACKGROUND_ENV,
  awaitStart,
  errorFrom,
  markShown,
  readLaunch,
  replayLog,
  reportError
} from "./chunk-main-post-wait.js";
import {
  info,
  setOutput
} from "./chunk-cache-main-post-wait.js";
import {
  SetupError
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";
import "./chunk-common.js";

// src/action/wait-step.ts
import { delimiter } from "node:path";
async function waitFor(dir) {
  const launch = readLaunch(dir);
  const t0 = Date.now();
  const got = await awaitStart(dir, launch, () => info(`Waiting for PostgreSQL (background start, pid ${launch.pid})\u2026`));
  const waitedMs = Date.now() - t0;
  replayLog(dir);
  markShown(dir);
  if (got.kind === "timeout") {
    throw new SetupError(
      `The background start of PostgreSQL did not end by its deadline and was stopped`,
      "Raise 'wait-timeout' of the main step, or look at its log above"
    );
  }
  if (got.kind === "died") {
    throw new SetupError(
      `The background start of PostgreSQL (pid ${launch.pid}) was killed before it finished`,
      "The post step removes what it left; its log is above"
    );
  }
  if (!got.outcome.ok) throw errorFrom(got.outcome.error);
  const server = { ...got.outcome.server, startupMs: Math.max(0, got.outcome.readyAtMs - launch.startedAtMs) };
  publish(server, false);
  setOutput("waited-ms", String(waitedMs));
  await writeSummary(server);
  info(
    `PostgreSQL ${server.serverVersion} ready at ${server.connection.host}:${server.connection.port} (${server.mode} mode, ${server.binariesSource}, PGDATA on ${server.filesystem}, ${server.startupMs} ms after the main step began; this step waited ${waitedMs} ms)`
  );
  return server;
}
async function waitStep() {
  try {
    const dirs = (process.env[BACKGROUND_ENV] ?? "").split(delimiter).filter(Boolean);
    if (dirs.length === 0) {
      throw new SetupError(
        "There is no background start of PostgreSQL to wait for in this job",
        `Run the main action with 'wait: false' in an earlier step (it sets ${BACKGROUND_ENV}); without it, the main step waits itself`
      );
    }
    let last = null;
    for (const dir of dirs) last = await waitFor(dir);
    return last;
  } catch (error) {
    reportError(error);
    return null;
  }
}

// src/action/wait.ts
await waitStep();
process.exit();
//# sourceMappingURL=wait.js.map
