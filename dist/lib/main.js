import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  BUILT_IN_DATABASES,
  KEEPER_FLAG,
  KEEP_FLAG,
  MAX_NAME_BYTES,
  TEMPLATE_DATABASES,
  actionsRemoteCache,
  backgroundChild,
  databaseNames,
  guardedStart,
  keepChild,
  keeperChild,
  launchInBackground,
  launchKeep,
  listItems,
  listLines,
  nameProblem,
  saveForPost,
  saveHandle
} from "./chunk-main-post.js";
import {
  publish,
  writeSummary
} from "./chunk-main-wait.js";
import {
  BACKGROUND_FLAG,
  DEFAULTS,
  NEWEST_MAJOR,
  actionsLogger,
  entryPath,
  parseSettings,
  reportError,
  secretForms
} from "./chunk-main-post-wait.js";
import {
  getInput,
  info,
  setSecret
} from "./chunk-cache-main-post-wait.js";
import {
  initdbPathProblem,
  interrupted,
  toolCacheProblem
} from "./chunk-main-native-source-npm-tool-cache-post.js";
import {
  InputError,
  SetupError,
  killActive
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";
import "./chunk-common.js";

// src/parse-inputs.ts
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";

// src/input-values.ts
var SIZE = /^[1-9]\d*[bkmg]?$/i;
function integer(input, raw, min, max, fix) {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InputError(input, `"${raw}" is not a whole number from ${min} to ${max}`, fix);
  }
  return Number(raw);
}
function identifier(input, raw) {
  if (raw === "") throw new InputError(input, "is empty", `Give a name, or leave the input out for "${DEFAULTS[input]}".`);
  if (Buffer.byteLength(raw) > MAX_NAME_BYTES || raw.includes("\0")) {
    throw new InputError(input, `"${raw}" is longer than ${MAX_NAME_BYTES} bytes or holds a NUL`, "Use a shorter name.");
  }
  return raw;
}
function boolean(input, raw) {
  const v = raw.toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw new InputError(input, `"${raw}" is not true or false`, "Write true or false.");
}
function size(input, raw) {
  if (!SIZE.test(raw)) {
    throw new InputError(
      input,
      `"${raw}" is not a size`,
      'Write a number with an optional unit b, k, m or g, e.g. "512m" or "2g".'
    );
  }
  return raw.toLowerCase();
}

// src/pool-input.ts
var MAX_POOL = 1e3;
function parsePool(value, template) {
  const text = value.trim();
  if (text === "") return 0;
  if (!/^\d+$/.test(text) || Number(text) > MAX_POOL) {
    throw new InputError(
      "pool",
      `"${value}" is not a whole number from 0 to ${MAX_POOL}`,
      "Give the number of ready copies, e.g. 8 (0: no pool)"
    );
  }
  const size2 = Number(text);
  if (size2 > 0 && !template) {
    throw new InputError(
      "pool",
      `is ${size2}, and the template input is false: the pool hands out copies of the template database`,
      "Set template: true (pg-tmpfs up --template) with an init that loads your schema into database, or leave pool at 0"
    );
  }
  return size2;
}

// src/provision-inputs.ts
function schemaCacheInputs(raw) {
  const schemaCache = boolean("schema-cache", raw("schema-cache"));
  const schemaCacheFiles = listLines(raw("schema-cache-files"));
  const schemaCacheKey = raw("schema-cache-key");
  if (/[\0\r\n]/.test(schemaCacheKey)) {
    throw new InputError("schema-cache-key", "holds a line break or a NUL", "Give the key on one line, e.g. v2");
  }
  if (schemaCache && raw("init-command") !== "" && schemaCacheFiles.length === 0) {
    throw new InputError(
      "schema-cache-files",
      "is empty while init-command is set and schema-cache is true: the output of a command cannot be keyed from outside, so a cached schema could be stale",
      "List in schema-cache-files every file that shapes what init-command builds (migrations, schema files, lockfiles), or turn schema-cache off"
    );
  }
  return { schemaCache, schemaCacheFiles, schemaCacheKey };
}
function provisionInputs(raw, database) {
  const databases = [];
  for (const name of databaseNames(raw("databases"))) {
    identifier("databases", name);
    const problem = nameProblem(name);
    if (problem) throw new InputError("databases", problem, 'Give names of letters, digits, "_", "." and "-", e.g. app_test');
    if (name === database || BUILT_IN_DATABASES.includes(name)) {
      throw new InputError(
        "databases",
        `"${name}" is ${name === database ? "the database input" : "a database every cluster has"}`,
        "List only the extra databases to create"
      );
    }
    if (!databases.includes(name)) databases.push(name);
  }
  const extensions = [...new Set(listItems(raw("extensions")))];
  for (const name of extensions) {
    if (nameProblem(name) !== null) {
      throw new InputError(
        "extensions",
        `"${name}" is not an extension name`,
        "Give names as in pg_available_extensions, e.g. pg_trgm or vector"
      );
    }
  }
  const template = boolean("template", raw("template"));
  if (template && BUILT_IN_DATABASES.includes(database)) {
    throw new InputError(
      "template",
      `the database input is "${database}", which clients connect to first (or a built-in template), so it cannot be your template`,
      "Give your own database name as well, e.g. database: app"
    );
  }
  return {
    init: listLines(raw("init")),
    initCommand: raw("init-command"),
    databases,
    template,
    pool: parsePool(raw("pool"), template),
    extensions,
    initTimeoutMs: integer("init-timeout", raw("init-timeout"), 1, 86400, "Give whole seconds, e.g. 600.") * 1e3,
    workDir: process.cwd()
  };
}

// src/parse-inputs.ts
var VERSION = /^\d{1,2}(\.\d{1,2})?(-[a-z0-9][a-z0-9._-]*)?$/;
var CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
function withoutUserinfo(ref) {
  const slash = ref.indexOf("/");
  const at = ref.lastIndexOf("@", slash === -1 ? ref.length : slash);
  if (at < 0 || /^[a-z0-9]+:[0-9a-f]{32,}$/i.test(ref.slice(at + 1).split("/")[0] ?? "")) return ref;
  return `***${ref.slice(at)}`;
}
function credentialsFix(ref) {
  return withoutUserinfo(ref) === ref ? "" : " Credentials do not belong in it: log in to the registry before this step (docker/login-action, or docker login).";
}
var REGISTRY = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)+|[a-z0-9.-]+:\d{1,5}|localhost:\d{1,5})(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;
var IMAGE = /^[a-z0-9][a-z0-9._/:@-]*$/i;
function targetDatabase(raw) {
  const name = identifier("database", raw);
  if (TEMPLATE_DATABASES.includes(name)) {
    throw new InputError(
      "database",
      `"${name}" is a built-in template database${name === "template0" ? " that accepts no connections" : ""}; the tests' database must be one of their own`,
      'Leave the input out for "postgres", or give your own name, e.g. app'
    );
  }
  return name;
}
function minorOf(postgresVersion) {
  const match = /^\d+\.(\d+)/.exec(postgresVersion);
  return match ? Number(match[1]) : null;
}
function defaultContainerName(env = process.env) {
  return `pg-tmpfs-${env.GITHUB_RUN_ID ?? process.pid}-${randomBytes(3).toString("hex")}`;
}
function cacheDirInput(value) {
  const problem = initdbPathProblem(value);
  if (problem) throw new InputError("cache-dir", `"${value}" ${problem}`, 'Give a folder whose path has none of $ ` " \\');
  return value;
}
function parseInputs(get) {
  const raw = (name) => {
    const value = get(name).trim();
    return value === "" ? DEFAULTS[name] : value;
  };
  const mode = raw("mode");
  if (mode !== "docker" && mode !== "native" && mode !== "auto") {
    throw new InputError("mode", `"${mode}" is not a mode`, "Use docker, native or auto.");
  }
  const binaries = raw("binaries");
  if (binaries !== "auto" && binaries !== "installed" && binaries !== "npm") {
    throw new InputError("binaries", `"${binaries}" is not a source of binaries`, "Use auto, installed or npm.");
  }
  if (binaries !== "auto" && mode === "docker") {
    throw new InputError(
      "binaries",
      `is ${binaries}, and mode is docker: binaries chooses native mode's server programs`,
      "Leave binaries at auto, or use mode: native or auto"
    );
  }
  const postgresVersion = raw("postgres-version");
  if (postgresVersion !== "" && !VERSION.test(postgresVersion)) {
    throw new InputError(
      "postgres-version",
      `"${postgresVersion}" is not a PostgreSQL version`,
      'Give a major version such as "17", optionally with a tag suffix such as "17-alpine", or set `image` instead.'
    );
  }
  const imageInput = raw("image");
  if (imageInput !== "" && (!IMAGE.test(imageInput) || withoutUserinfo(imageInput) !== imageInput)) {
    throw new InputError(
      "image",
      `"${withoutUserinfo(imageInput)}" is not an image reference`,
      `Give a reference like "postgis/postgis:17-3.5".${credentialsFix(imageInput)}`
    );
  }
  const registry = raw("registry").replace(/\/+$/, "");
  if (registry !== "" && (!REGISTRY.test(registry) || withoutUserinfo(registry) !== registry)) {
    throw new InputError(
      "registry",
      `"${withoutUserinfo(registry)}" is not a registry with an optional path`,
      `Give a host and path such as "mirror.gcr.io/library" (the default image is then <registry>/postgres:<version>).${credentialsFix(registry)}`
    );
  }
  if (binaries !== "auto" && (imageInput !== "" || registry !== "")) {
    throw new InputError(
      "binaries",
      `is ${binaries}, and an ${imageInput !== "" ? "image" : "registry"} was given, which always runs in Docker`,
      "Remove the image and registry inputs, or leave binaries at auto"
    );
  }
  const containerName = raw("container-name") || defaultContainerName();
  if (!CONTAINER_NAME.test(containerName)) {
    throw new InputError(
      "container-name",
      `"${containerName}" is not a valid container name`,
      'Use letters, digits, "_", "." and "-", starting with a letter or digit.'
    );
  }
  const publishHost = raw("publish-host");
  if (isIP(publishHost) === 0) {
    throw new InputError(
      "publish-host",
      `"${publishHost}" is not an IP address`,
      "Use 127.0.0.1 (default), or 0.0.0.0 to accept connections from other hosts."
    );
  }
  const locale = raw("locale");
  if (!/^[A-Za-z0-9_.@-]+$/.test(locale)) {
    throw new InputError("locale", `"${locale}" is not a locale name`, "Use a name such as C, C.UTF-8 or en_US.UTF-8.");
  }
  const config = {
    mode,
    binaries,
    toolCache: false,
    postgresVersion,
    major: postgresVersion === "" ? null : parseInt(postgresVersion, 10),
    minor: minorOf(postgresVersion),
    image: imageInput || `${registry ? `${registry}/` : ""}postgres:${postgresVersion || NEWEST_MAJOR}`,
    imageGiven: imageInput !== "" || registry !== "",
    port: integer("port", raw("port"), 0, 65535, "Use a TCP port such as 5432, or 0 to let Docker pick a free one."),
    publishHost,
    user: (() => {
      const user = identifier("user", raw("user"));
      if (user.includes('"'))
        throw new InputError(
          "user",
          `"${user}" holds a double quote, which initdb cannot handle`,
          "Use a name without double quotes."
        );
      if ([...user].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127))
        throw new InputError("user", "holds a line break or another control character", "Use a name without them.");
      if (user.startsWith("pg_") || user === "public" || user === "none")
        throw new InputError(
          "user",
          `"${user}" is a name PostgreSQL reserves (pg_*, public, none)`,
          "Use another name, e.g. postgres or app."
        );
      return user;
    })(),
    password: (() => {
      const p = get("password") === "" ? DEFAULTS.password : get("password");
      if (/[\0]/.test(p)) throw new InputError("password", "holds a NUL character", "Remove it.");
      if (/[\r\n]/.test(p)) {
        throw new InputError(
          "password",
          "holds a line break, which no mode carries safely (a log masks each line of it apart; the image reads only the first line)",
          "Give the password on one line"
        );
      }
      return p;
    })(),
    database: targetDatabase(raw("database")),
    tmpfsSize: raw("tmpfs-size") === "" ? null : size("tmpfs-size", raw("tmpfs-size")),
    shmSize: size("shm-size", raw("shm-size")),
    settings: parseSettings(get("settings")),
    waitTimeoutMs: integer("wait-timeout", raw("wait-timeout"), 1, 3600, "Give whole seconds, e.g. 60.") * 1e3,
    containerName,
    exportEnv: boolean("export-env", raw("export-env")),
    locale,
    cacheDir: mode === "docker" ? raw("cache-dir") : cacheDirInput(raw("cache-dir")),
    wait: boolean("wait", raw("wait")),
    ...provisionInputs(raw, targetDatabase(raw("database"))),
    ...schemaCacheInputs(raw)
  };
  if (config.pool > 0 && config.major !== null && config.major < 15 && imageInput === "") {
    throw new InputError(
      "pool",
      `needs PostgreSQL 15 or later, and postgres-version is ${postgresVersion}`,
      "Give postgres-version 15 or later, or leave pool at 0"
    );
  }
  return config;
}

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
