import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  backgroundChild,
  launchInBackground,
  saveHandle
} from "./chunk-main-post.js";
import {
  publish,
  writeSummary
} from "./chunk-main-wait.js";
import {
  actionsLogger,
  getInput,
  info,
  reportError,
  setSecret,
  warning
} from "./chunk-main-post-wait.js";
import {
  cleanupOnInterrupt,
  start,
  stop
} from "./chunk-cli-main-post.js";
import "./chunk-cli-main-wait.js";
import {
  BACKGROUND_FLAG,
  DEFAULTS,
  killActive,
  parseInputs,
  secretForms
} from "./chunk-cli-main-post-wait.js";
import "./chunk-common.js";

// src/action/main-step.ts
async function run() {
  const startedAtMs = Date.now() - Math.round(performance.now());
  try {
    const config = parseInputs((name) => getInput(name));
    if (config.password !== DEFAULTS.password) {
      for (const form of secretForms(config.password)) setSecret(form);
    }
    if (!config.wait) return await launchInBackground(config, startedAtMs);
    let handle = null;
    const server = await cleanupOnInterrupt(
      () => start(config, actionsLogger, (h) => {
        handle = h;
        saveHandle(h);
      }),
      async (signal) => {
        warning(`Interrupted by ${signal}: removing what was started`);
        if (handle) for (const problem of await stop(handle)) warning(problem);
      }
    );
    publish(server, config.exportEnv);
    await writeSummary(server);
    info(
      `PostgreSQL ${server.serverVersion} ready at ${server.connection.host}:${server.connection.port} (${server.mode} mode, PGDATA on ${server.filesystem}, ${server.startupMs} ms)`
    );
    return server;
  } catch (error) {
    reportError(error);
    return null;
  }
}

// src/action/main.ts
if (process.argv[2] === BACKGROUND_FLAG) {
  const code = await backgroundChild().catch((error) => {
    process.stderr.write(`The background start failed: ${String(error)}
`);
    return 1;
  });
  killActive();
  process.exit(code);
}
await run();
killActive();
process.exit();
//# sourceMappingURL=main.js.map
