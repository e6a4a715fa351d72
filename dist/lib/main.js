import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  debug,
  endGroup,
  exportVariable,
  getInput,
  group,
  info,
  saveHandle,
  setFailed,
  setOutput,
  setSecret,
  startGroup,
  summary,
  warning
} from "./chunk-CEXCIGAN.js";
import {
  DEFAULTS,
  InputError,
  SetupError,
  cleanupOnInterrupt,
  connectionEnv,
  connectionUri,
  killActive,
  parseInputs,
  start,
  stop
} from "./chunk-4QHZC65I.js";
import "./chunk-AQB342A3.js";

// src/action/log.ts
var actionsLogger = {
  info: (m) => info(m),
  warning: (m) => warning(m),
  debug: (m) => debug(m),
  group: (name, fn) => group(name, fn)
};

// src/action/outputs.ts
function outputsOf(s) {
  return {
    "connection-uri": connectionUri(s.connection),
    host: s.connection.host,
    port: String(s.connection.port),
    user: s.connection.user,
    password: s.connection.password,
    database: s.connection.database,
    "container-id": s.mode === "docker" ? s.containerId : "",
    "server-version": s.serverVersion,
    "data-directory": s.dataDirectory,
    tmpfs: String(s.tmpfs),
    "startup-ms": String(s.startupMs),
    "pull-ms": s.mode === "docker" ? String(s.pullMs) : "",
    mode: s.mode,
    "socket-directory": s.mode === "native" ? s.socketDirectory : "",
    "cache-hit": s.mode === "native" ? String(s.cacheHit) : ""
  };
}
function publish(s, exportEnv) {
  if (s.connection.password !== DEFAULTS.password) {
    setSecret(s.connection.password);
    setSecret(encodeURIComponent(s.connection.password));
  }
  for (const [name, value] of Object.entries(outputsOf(s))) setOutput(name, value);
  if (exportEnv) {
    for (const [name, value] of Object.entries(connectionEnv(s.connection))) exportVariable(name, value);
  }
}
async function writeSummary(s) {
  await summary.addHeading("PostgreSQL on tmpfs", 3).addTable([
    [
      { data: "what", header: true },
      { data: "value", header: true }
    ],
    s.mode === "docker" ? ["image", s.image] : ["binaries", s.bindir],
    ["mode", s.mode === "docker" ? s.mode : `${s.mode} (${s.cacheHit ? "initdb cache hit" : "initdb cache filled"})`],
    ["server version", s.serverVersion],
    ["PGDATA", `${s.dataDirectory} (${s.filesystem})`],
    ["startup", `${s.startupMs} ms to first answered query${s.mode === "docker" && s.pullMs ? ` (pull ${s.pullMs} ms)` : ""}`],
    ["connection", `${s.connection.host}:${s.connection.port} as ${s.connection.user}, database ${s.connection.database}`]
  ]).addRaw(s.warnings.length ? `

**Warnings**

${s.warnings.map((w) => `- ${w}`).join("\n")}

` : "").addHeading("Settings in effect", 4).addTable([
    [
      { data: "setting", header: true },
      { data: "asked", header: true },
      { data: "server reports", header: true }
    ],
    ...s.settings.map((c) => [
      c.name,
      c.requested,
      c.verified ? c.actual ?? "" : `${c.actual ?? ""} (not verified: extension setting)`
    ])
  ]).write();
}

// src/action/main-step.ts
function reportError(error) {
  if (error instanceof InputError || error instanceof SetupError) {
    if (error.detail) {
      startGroup("PostgreSQL server log (last lines)");
      info(error.detail);
      endGroup();
    }
    setFailed(error.message);
    return;
  }
  setFailed(error instanceof Error ? error.stack ?? error.message : String(error));
}
async function run() {
  try {
    const config = parseInputs((name) => getInput(name));
    if (config.password !== DEFAULTS.password) setSecret(config.password);
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
await run();
killActive();
process.exit();
//# sourceMappingURL=main.js.map
