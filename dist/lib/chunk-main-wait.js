import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  DEFAULTS,
  connectionEnv,
  connectionUri,
  secretForms
} from "./chunk-main-post-wait.js";
import {
  exportVariable,
  setOutput,
  setSecret,
  summary
} from "./chunk-cache-main-post-wait.js";

// src/version.ts
var VERSION = "1.0.0";

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
    "binaries-source": s.binariesSource,
    "socket-directory": s.mode === "native" ? s.socketDirectory : "",
    "cache-hit": s.mode === "native" ? String(s.cacheHit) : "",
    databases: JSON.stringify(s.provisioned?.databases ?? {}),
    "template-database": s.provisioned?.templateDatabase ?? "",
    "pool-size": s.pool ? String(s.pool.size) : "",
    "schema-cache-hit": s.schemaCache ? String(s.schemaCache.hit) : "",
    "schema-cache-key": s.schemaCache?.key ?? ""
  };
}
function publish(s, exportEnv) {
  if (s.connection.password !== DEFAULTS.password) {
    for (const form of secretForms(s.connection.password)) setSecret(form);
  }
  for (const [name, value] of Object.entries(outputsOf(s))) setOutput(name, value);
  if (exportEnv) {
    for (const [name, value] of Object.entries(connectionEnv(s.connection))) exportVariable(name, value);
  }
}
function provisionedSummary(s) {
  const p = s.provisioned;
  if (!p) return "";
  const rows = [
    p.extensions.length ? `- extensions: ${p.extensions.join(", ")}` : "",
    p.initFiles.length ? `- init files (in ${s.connection.database}): ${p.initFiles.map((f) => `\`${f}\``).join(", ")}` : "",
    // Password left out: the summary is kept with the run, outside the log's masking.
    ...Object.keys(p.databases).map(
      (name) => `- database \`${name}\`: \`${connectionUri({ ...s.connection, password: "***", database: name })}\``
    ),
    p.templateDatabase ? `- template database: \`${p.templateDatabase}\` (clone per test: \`CREATE DATABASE \u2026 TEMPLATE ${p.templateDatabase} STRATEGY FILE_COPY\`)` : "",
    s.pool ? `- pool: ${s.pool.size} ready copies of \`${s.pool.template}\` (${(s.pool.copyBytes / 1048576).toFixed(1)} MB each), kept by a keeper process: \`SELECT pgtmpfs.take()\` / \`SELECT pgtmpfs.give_back(name)\` in database \`postgres\`` : ""
  ].filter(Boolean);
  return `

**After start** (${p.ms} ms)

${rows.join("\n")}

`;
}
async function writeSummary(s) {
  await summary.addHeading("PostgreSQL on tmpfs", 3).addTable([
    [
      { data: "what", header: true },
      { data: "value", header: true }
    ],
    ["pg-tmpfs-action", VERSION],
    s.mode === "docker" ? ["image", s.image] : ["binaries", s.binariesSource],
    ["mode", s.mode === "docker" ? s.mode : `${s.mode} (${s.cacheHit ? "initdb cache hit" : "initdb cache filled"})`],
    ["server version", s.serverVersion],
    ["PGDATA", `${s.dataDirectory} (${s.filesystem})`],
    ["startup", `${s.startupMs} ms to first answered query${s.mode === "docker" && s.pullMs ? ` (pull ${s.pullMs} ms)` : ""}`],
    ["connection", `${s.connection.host}:${s.connection.port} as ${s.connection.user}, database ${s.connection.database}`],
    ...s.schemaCache ? [
      [
        "schema cache",
        s.schemaCache.hit ? `hit: restored, no initdb, no init (key ${s.schemaCache.key})` : `miss: init ran${s.schemaCache.savedBytes ? `, copy saved (${Math.round(s.schemaCache.savedBytes / 1048576)} MB in ${s.schemaCache.saveMs} ms), uploaded in the post step if the job succeeds` : ""} (key ${s.schemaCache.key})`
      ]
    ] : []
  ]).addRaw(provisionedSummary(s)).addRaw(s.warnings.length ? `

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

export {
  publish,
  writeSummary
};
//# sourceMappingURL=chunk-main-wait.js.map
