import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  awaitOutcome,
  readJson,
  stopBackground
} from "./chunk-cli-main-post-wait.js";
import {
  debug,
  endGroup,
  error,
  group,
  info,
  setFailed,
  startGroup,
  warning
} from "./chunk-cache-cli-main-native-source-npm-tool-cache-post-wait.js";
import {
  InputError,
  SetupError
} from "./chunk-cli-main-native-source-npm-tool-cache-post-wait.js";

// src/action/log.ts
var actionsLogger = {
  info: (m) => info(m),
  warning: (m) => warning(m),
  debug: (m) => debug(m),
  group: (name, fn) => group(name, fn)
};
function reportError(error2) {
  if (error2 instanceof InputError || error2 instanceof SetupError) {
    if (error2.detail) {
      startGroup(error2 instanceof InputError ? error2.detailTitle : "PostgreSQL server log (last lines)");
      info(error2.detail);
      endGroup();
    }
    if (error2 instanceof InputError && error2.location) {
      const { file, line, column } = error2.location;
      error(error2.message, { title: `init: ${file}`, file, startLine: line, startColumn: column });
      process.exitCode = 1;
      return;
    }
    setFailed(error2.message);
    return;
  }
  setFailed(error2 instanceof Error ? error2.stack ?? error2.message : String(error2));
}

// src/action/background-files.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
var BACKGROUND_ENV = "PG_TMPFS_BACKGROUND";
var FILES = Object.freeze({
  launch: "launch.json",
  log: "start.log",
  handle: "handle.json",
  outcome: "outcome.json",
  shown: "shown"
});
function readLaunch(dir) {
  const launch = readJson(join(dir, FILES.launch));
  if (!launch || typeof launch.pid !== "number") {
    throw new SetupError(
      `${dir} holds no background start of PostgreSQL`,
      `Check ${BACKGROUND_ENV}; it is set by the main step with 'wait: false'`
    );
  }
  return launch;
}
async function awaitStart(dir, launch, onWaiting) {
  const got = await awaitOutcome(() => readJson(join(dir, FILES.outcome)), launch.pid, launch.deadlineAtMs, onWaiting);
  if (got.kind === "timeout") await stopBackground(launch.pid);
  return got;
}
function replayLog(dir) {
  let text = "";
  try {
    text = readFileSync(join(dir, FILES.log), "utf8");
  } catch {
    return;
  }
  if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}
`);
}
function markShown(dir) {
  writeFileSync(join(dir, FILES.shown), "");
}

export {
  actionsLogger,
  reportError,
  BACKGROUND_ENV,
  FILES,
  readLaunch,
  awaitStart,
  replayLog,
  markShown
};
//# sourceMappingURL=chunk-main-post-wait.js.map
