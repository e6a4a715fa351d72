import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  InputError,
  debug,
  group,
  info,
  parseSettings,
  warning
} from "./chunk-5XL735P3.js";

// src/inputs.ts
import { randomBytes } from "node:crypto";
var DEFAULTS = Object.freeze({
  mode: "auto",
  "postgres-version": "",
  image: "",
  registry: "",
  port: "5432",
  "publish-host": "127.0.0.1",
  user: "postgres",
  password: "postgres",
  database: "postgres",
  "tmpfs-size": "",
  "shm-size": "512m",
  settings: "",
  "wait-timeout": "60",
  "container-name": "",
  "export-env": "true",
  locale: "C",
  "cache-dir": ""
});
var NEWEST_MAJOR = "18";
var VERSION = /^\d{1,2}(\.\d{1,2})?(-[a-z0-9][a-z0-9._-]*)?$/;
var SIZE = /^[1-9]\d*[bkmg]?$/i;
var CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
var REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*$/i;
var IMAGE = /^[a-z0-9][a-z0-9._/:@-]*$/i;
var MAX_IDENTIFIER_BYTES = 63;
function integer(input, raw, min, max, fix) {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InputError(input, `"${raw}" is not a whole number from ${min} to ${max}`, fix);
  }
  return Number(raw);
}
function identifier(input, raw) {
  if (raw === "") throw new InputError(input, "is empty", `Give a name, or leave the input out for "${DEFAULTS[input]}".`);
  if (Buffer.byteLength(raw) > MAX_IDENTIFIER_BYTES || raw.includes("\0")) {
    throw new InputError(input, `"${raw}" is longer than ${MAX_IDENTIFIER_BYTES} bytes or holds a NUL`, "Use a shorter name.");
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
function defaultContainerName(env = process.env) {
  return `pg-tmpfs-${env.GITHUB_RUN_ID ?? process.pid}-${randomBytes(3).toString("hex")}`;
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
  const postgresVersion = raw("postgres-version");
  if (postgresVersion !== "" && !VERSION.test(postgresVersion)) {
    throw new InputError(
      "postgres-version",
      `"${postgresVersion}" is not a PostgreSQL version`,
      'Give a major version such as "17", optionally with a tag suffix such as "17-alpine", or set `image` instead.'
    );
  }
  const imageInput = raw("image");
  if (imageInput !== "" && !IMAGE.test(imageInput)) {
    throw new InputError("image", `"${imageInput}" is not an image reference`, 'Give a reference like "postgis/postgis:17-3.5".');
  }
  const registry = raw("registry").replace(/\/+$/, "");
  if (registry !== "" && !REGISTRY.test(registry)) {
    throw new InputError(
      "registry",
      `"${registry}" is not a registry with an optional path`,
      'Give a host and path such as "mirror.gcr.io/library" (the default image is then <registry>/postgres:<version>).'
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
  if (!/^[0-9a-fA-F.:]+$/.test(publishHost)) {
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
  return {
    mode,
    postgresVersion,
    major: postgresVersion === "" ? null : parseInt(postgresVersion, 10),
    image: imageInput || `${registry ? `${registry}/` : ""}postgres:${postgresVersion || NEWEST_MAJOR}`,
    imageGiven: imageInput !== "" || registry !== "",
    port: integer("port", raw("port"), 0, 65535, "Use a TCP port such as 5432, or 0 to let Docker pick a free one."),
    publishHost,
    user: identifier("user", raw("user")),
    password: (() => {
      const p = get("password") === "" ? DEFAULTS.password : get("password");
      if (/[\0]/.test(p)) throw new InputError("password", "holds a NUL character", "Remove it.");
      return p;
    })(),
    database: identifier("database", raw("database")),
    tmpfsSize: raw("tmpfs-size") === "" ? null : size("tmpfs-size", raw("tmpfs-size")),
    shmSize: size("shm-size", raw("shm-size")),
    settings: parseSettings(get("settings")),
    waitTimeoutMs: integer("wait-timeout", raw("wait-timeout"), 1, 3600, "Give whole seconds, e.g. 60.") * 1e3,
    containerName,
    exportEnv: boolean("export-env", raw("export-env")),
    locale,
    cacheDir: raw("cache-dir")
  };
}

// src/log.ts
var actionsLogger = {
  info: (m) => info(m),
  warning: (m) => warning(m),
  debug: (m) => debug(m),
  group: (name, fn) => group(name, fn)
};
function consoleLogger(quiet = false, write = (t) => process.stderr.write(t)) {
  return {
    info: (m) => {
      if (!quiet) write(`${m}
`);
    },
    warning: (m) => write(`warning: ${m}
`),
    debug: (m) => {
      if (process.env.PG_TMPFS_DEBUG) write(`debug: ${m}
`);
    },
    group: async (name, fn) => {
      if (!quiet) write(`${name}
`);
      return fn();
    }
  };
}

// src/connection.ts
function connectionUri(c) {
  const host = c.host.includes(":") ? `[${c.host}]` : c.host;
  const enc = encodeURIComponent;
  return `postgresql://${enc(c.user)}:${enc(c.password)}@${host}:${c.port}/${enc(c.database)}`;
}
function connectionEnv(c) {
  return {
    DATABASE_URL: connectionUri(c),
    PGHOST: c.host,
    PGPORT: String(c.port),
    PGUSER: c.user,
    PGPASSWORD: c.password,
    PGDATABASE: c.database
  };
}

export {
  DEFAULTS,
  parseInputs,
  actionsLogger,
  consoleLogger,
  connectionUri,
  connectionEnv
};
//# sourceMappingURL=chunk-DMVP4IJB.js.map
