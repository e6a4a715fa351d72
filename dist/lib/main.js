import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  actionsRemoteCache,
  backgroundChild,
  launchInBackground,
  saveForPost,
  saveHandle
} from "./chunk-main-post.js";
import {
  publish,
  writeSummary
} from "./chunk-main-wait.js";
import {
  actionsLogger,
  reportError
} from "./chunk-main-post-wait.js";
import {
  parseInputs
} from "./chunk-cli-main.js";
import {
  KEEPER_FLAG,
  KEEP_FLAG,
  guardedStart,
  keepChild,
  keeperChild,
  launchKeep
} from "./chunk-cli-main-post.js";
import "./chunk-cli-main-wait.js";
import {
  BACKGROUND_FLAG,
  DEFAULTS,
  entryPath,
  secretForms
} from "./chunk-cli-main-post-wait.js";
import {
  getInput,
  info,
  setSecret
} from "./chunk-cache-cli-main-native-source-npm-tool-cache-post-wait.js";
import {
  toolCacheProblem
} from "./chunk-cli-main-native-source-npm-tool-cache-post.js";
import {
  SetupError,
  interrupted,
  killActive
} from "./chunk-cli-main-native-source-npm-tool-cache-post-wait.js";
import "./chunk-common.js";

// src/action/main-step.ts
async function mainStep() {
  const startedAtMs = Date.now() - Math.round(performance.now());
  try {
    const config = {
      ...parseInputs((name) => getInput(name)),
      toolCache: Boolean(process.env.RUNNER_TOOL_CACHE)
    };
    const toolCache = process.env.RUNNER_TOOL_CACHE ?? "";
    const npmMayRun = config.mode !== "docker" && config.binaries !== "installed";
    const toolCacheBad = npmMayRun && toolCache ? toolCacheProblem(toolCache) : null;
    if (toolCacheBad) {
      throw new SetupError(
        `RUNNER_TOOL_CACHE ${toolCacheBad}: server builds from npm are kept there`,
        'Set RUNNER_TOOL_CACHE to an absolute folder whose path has none of $ ` " \\ (a job or step env: may have changed it), or use mode: docker'
      );
    }
    if (config.password !== DEFAULTS.password) {
      for (const form of secretForms(config.password)) setSecret(form);
    }
    if (!config.wait) return await launchInBackground(config, startedAtMs);
    const server = await guardedStart(
      config,
      actionsLogger,
      {
        saveHandle,
        saveServer: () => void 0,
        saveFailure: () => void 0,
        interruptedError: (signal) => new SetupError(`The start was interrupted by ${signal}`, "Run the job again")
      },
      { remote: actionsRemoteCache }
    );
    saveForPost(server);
    publish(server, config.exportEnv);
    await writeSummary(server);
    info(
      `PostgreSQL ${server.serverVersion} ready at ${server.connection.host}:${server.connection.port} (${server.mode} mode, ${server.binariesSource}, PGDATA on ${server.filesystem}, ${server.startupMs} ms)`
    );
    launchKeep(server, () => entryPath("main"), actionsLogger);
    return server;
  } catch (error) {
    reportError(error);
    return null;
  }
}

// src/action/main.ts
if (process.argv[2] === KEEP_FLAG) process.exit(await keepChild(process.argv.slice(3)));
if (process.argv[2] === KEEPER_FLAG) {
  const code = await keeperChild().catch((error) => {
    process.stderr.write(`The pool's keeper failed: ${String(error)}
`);
    return 1;
  });
  process.exit(code);
}
if (process.argv[2] === BACKGROUND_FLAG) {
  const code = await backgroundChild().catch((error) => {
    process.stderr.write(`The background start failed: ${String(error)}
`);
    return 1;
  });
  if (interrupted()) await new Promise(() => void 0);
  killActive();
  process.exit(code);
}
await mainStep();
if (interrupted()) await new Promise(() => void 0);
killActive();
process.exit();
//# sourceMappingURL=main.js.map
