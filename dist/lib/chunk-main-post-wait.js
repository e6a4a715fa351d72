import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  debug,
  endGroup,
  error,
  group,
  info,
  setFailed,
  startGroup,
  warning
} from "./chunk-cache-main-post-wait.js";
import {
  InputError,
  SetupError,
  argvOf,
  processAlive,
  run
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";

// src/profile.ts
var DURABILITY_SETTINGS = Object.freeze([
  {
    name: "fsync",
    value: "off",
    why: "no fsync() of data or WAL files (manual: Non-Durable Settings); CREATE DATABASE \u2026 FILE_COPY and checkpoints still call it (docs/performance.md, table 5)"
  },
  {
    name: "full_page_writes",
    value: "off",
    why: "no full page images in WAL after each checkpoint (manual: Non-Durable Settings): less WAL for write-heavy tests (table 5, tpcb-like)"
  },
  {
    name: "jit",
    value: "off",
    why: "near-empty test tables have bad row estimates that make JIT compile for nothing (table 5, report query)"
  }
]);
var INITDB_ARGS = Object.freeze(["--nosync"]);
var SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
var OWNED_SETTINGS = new Map([
  ["port", { owner: "input 'port' sets it", fix: "Remove it from settings and give the port input (--port) instead" }],
  [
    "listen_addresses",
    {
      owner: "input 'publish-host' sets it",
      fix: "Remove it from settings and give the publish-host input (--publish-host), e.g. 0.0.0.0 for every interface"
    }
  ],
  ...["unix_socket_directories", "data_directory", "hba_file", "ident_file", "config_file"].map(
    (name) => [
      name,
      {
        owner: "pg-tmpfs sets it for every run (the run's own data directory, socket folder, pg_hba.conf and pg_ident.conf)",
        fix: "Remove it from settings"
      }
    ]
  ),
  // Directives of a configuration file, not settings: on Windows the settings are lines of the
  // run's configuration file (src/native/run/windows.ts), where `include = 'x'` would read another file.
  ...["include", "include_dir", "include_if_exists"].map(
    (name) => [
      name,
      {
        owner: "it is a directive of configuration files (it reads another file), not a setting",
        fix: "Remove it from settings and give the settings themselves"
      }
    ]
  )
]);
function parseSettings(text, input = "settings") {
  const byName = /* @__PURE__ */ new Map();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) {
      throw new InputError(
        input,
        `line ${index + 1} "${line}" is not name=value`,
        'Write one setting per line, e.g. "work_mem=64MB".'
      );
    }
    const name = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!SETTING_NAME.test(name)) {
      throw new InputError(
        input,
        `"${name}" is not a PostgreSQL setting name`,
        'Use the name as in pg_settings, e.g. "shared_buffers".'
      );
    }
    const owned = OWNED_SETTINGS.get(name.toLowerCase());
    if (owned) throw new InputError(input, `setting "${name}" cannot be given here: ${owned.owner}`, owned.fix);
    if (value === "") {
      throw new InputError(input, `setting "${name}" has an empty value`, 'Give a value after "=", e.g. "work_mem=64MB".');
    }
    if (/[\0\r\n]/.test(value)) {
      throw new InputError(input, `setting "${name}" holds a NUL or a line break`, "Give the value on one line.");
    }
    byName.delete(name);
    byName.set(name, { name, value, why: "from the settings input" });
  }
  return [...byName.values()];
}
function effectiveSettings(overrides) {
  const merged = new Map(DURABILITY_SETTINGS.map((s) => [s.name, s]));
  for (const s of overrides) merged.set(s.name, s);
  return [...merged.values()];
}
function settingsToArgs(settings) {
  return settings.flatMap((s) => ["-c", `${s.name}=${s.value}`]);
}

// src/docker/run-plan.ts
var CONTAINER_PORT = 5432;
var CONTAINER_LABEL = "io.github.pg-tmpfs-action";
function trimSlash(path) {
  return path.replace(/(.)\/+$/, "$1");
}
function isBelow(path, dir) {
  const d = dir.endsWith("/") ? dir : `${dir}/`;
  return path === dir || path.startsWith(d);
}
function tmpfsPaths(layout) {
  const pgdata = trimSlash(layout.pgdata);
  const holders = [...new Set(layout.volumes.map(trimSlash))].filter((v) => v !== "/" && isBelow(pgdata, v)).sort((a, b) => a.length - b.length);
  return holders.length ? holders : [pgdata];
}
function tmpfsMounts(layout, size) {
  const sized = size ? [`size=${size}`] : [];
  const pgdata = trimSlash(layout.pgdata);
  return tmpfsPaths(layout).map((path) => `${path}:${["rw", path === pgdata ? "mode=0700" : "mode=1777", ...sized].join(",")}`);
}
function initdbArgsEnv(config) {
  return [...INITDB_ARGS, ...config.locale !== "C" ? [`--locale=${config.locale}`] : []].join(" ");
}
var RESTORED_MARKER = "/tmp/.pg-tmpfs-restored";
var RESTORE_TIMEOUT_MS = 3e5;
var RESTORE_WRAPPER = [
  "end=$(( $(date +%s) + $1 )); shift",
  `while [ ! -e ${RESTORED_MARKER} ]; do`,
  '  if [ "$(date +%s)" -ge "$end" ]; then echo "pg-tmpfs: the schema cache restore did not arrive" >&2; exit 1; fi',
  "  sleep 0.01",
  "done",
  'exec "$@"'
].join("\n");
function restoreWaitSeconds(config) {
  return Math.ceil((RESTORE_TIMEOUT_MS + config.waitTimeoutMs) / 1e3);
}
function buildRunPlan(config, layout, reach = { kind: "publish" }, token = "", restore = null) {
  const publish = `${config.publishHost.includes(":") ? `[${config.publishHost}]` : config.publishHost}:${config.port === 0 ? "" : config.port}:${CONTAINER_PORT}`;
  const env = {
    POSTGRES_USER: config.user,
    POSTGRES_PASSWORD: config.password,
    POSTGRES_DB: config.database,
    POSTGRES_INITDB_ARGS: initdbArgsEnv(config)
  };
  const args = [
    "run",
    "--detach",
    "--name",
    config.containerName,
    "--label",
    `${CONTAINER_LABEL}=1`,
    ...token ? ["--label", `${CONTAINER_LABEL}.run=${token}`] : [],
    ...tmpfsMounts(layout, config.tmpfsSize).flatMap((m) => ["--tmpfs", m]),
    "--shm-size",
    config.shmSize,
    ...reach.kind === "network" ? ["--network", reach.network, "--network-alias", config.containerName] : ["--publish", publish],
    ...Object.keys(env).flatMap((name) => ["--env", name]),
    ...restore ? ["--entrypoint", "sh"] : [],
    config.image,
    ...restore ? ["-c", RESTORE_WRAPPER, "pg-tmpfs", String(restoreWaitSeconds(config)), ...restore.entrypoint, "postgres"] : [],
    ...settingsToArgs(effectiveSettings(config.settings))
  ];
  return { args, env };
}
function parseDockerPort(output) {
  for (const line of output.split("\n")) {
    const match = /:(\d+)\s*$/.exec(line.trim());
    if (match) return Number(match[1]);
  }
  throw new Error(`no published port in docker port output: ${JSON.stringify(output)}`);
}
function pgdataFromEnv(env) {
  for (const entry of env ?? []) {
    if (entry.startsWith("PGDATA=")) return entry.slice("PGDATA=".length) || null;
  }
  return null;
}
var DOCKER_SETTINGS_MAX_BYTES = 3e4;
function checkDockerSettings(settings) {
  const sizes = settings.map((s) => ({ name: s.name, bytes: Buffer.byteLength(`${s.name}=${s.value}`) }));
  const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
  if (total <= DOCKER_SETTINGS_MAX_BYTES) return;
  const longest = sizes.reduce((a, b) => b.bytes > a.bytes ? b : a);
  throw new InputError(
    "settings",
    `are ${total} bytes in all (${longest.name} alone ${longest.bytes}), and Docker mode passes at most ${DOCKER_SETTINGS_MAX_BYTES}: the image's entrypoint hands them to pg_ctl as one argument, which Linux limits to 128 KiB once quoted`,
    `Shorten ${longest.name}, set it in an init file instead (ALTER DATABASE \u2026 SET ${longest.name} = \u2026), or use mode: native`
  );
}

// src/docker/engine.ts
var DOCKER_TIMEOUT_MS = 6e4;
var VERSION_TIMEOUT_MS = 15e3;
var PULL_TIMEOUT_MS = 6e5;
var RUN_TIMEOUT_MS = 12e4;
async function docker(args, env, timeoutMs = DOCKER_TIMEOUT_MS) {
  const r = await dockerRun(args, { timeoutMs, env });
  if (r.timedOut) {
    throw new SetupError(
      `docker ${args[0] ?? ""} did not finish within ${Math.round(timeoutMs / 1e3)} s`,
      "The Docker daemon is not answering; check it (`docker info`) and try again"
    );
  }
  return { exitCode: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
}
async function dockerRun(args, options) {
  try {
    return await run("docker", args, options);
  } catch (error2) {
    if (error2.code === "ENOENT") {
      throw new SetupError(
        "The docker command was not found",
        "Install Docker (GitHub-hosted Ubuntu runners have it), or use mode: native with PostgreSQL binaries installed"
      );
    }
    throw error2;
  }
}
async function dockerOk(args, what, fix, env, timeoutMs = DOCKER_TIMEOUT_MS) {
  const result = await docker(args, env, timeoutMs);
  if (result.exitCode !== 0) {
    throw new SetupError(`${what} failed: ${result.stderr.trim() || `exit code ${result.exitCode}`}`, fix);
  }
  return result.stdout;
}
async function engineVersion() {
  const result = await docker(["version", "--format", "{{.Server.Version}}"], void 0, VERSION_TIMEOUT_MS);
  if (result.exitCode !== 0) {
    throw new SetupError(
      `The Docker daemon did not answer: ${result.stderr.trim().split("\n").pop() ?? ""}`,
      "Start Docker (e.g. `sudo systemctl start docker`), or use mode: native with PostgreSQL binaries installed"
    );
  }
  return result.stdout.trim();
}
async function isRunning(container) {
  const result = await docker(["container", "inspect", "--format", "{{.State.Running}}", container]);
  return result.exitCode === 0 && result.stdout.trim() === "true";
}
async function publishedPort(container, containerPort) {
  const out = await dockerOk(["port", container, `${containerPort}/tcp`], "docker port", "See the Docker error");
  try {
    return parseDockerPort(out);
  } catch (error2) {
    throw new SetupError(error2 instanceof Error ? error2.message : String(error2), "See the Docker error");
  }
}
async function logsTail(container, lines) {
  const result = await docker(["logs", "--tail", String(lines), container]);
  return result.exitCode === 0 ? `${result.stdout}${result.stderr}`.trimEnd() : "";
}
async function removeContainer(container) {
  const result = await docker(["rm", "--force", "--volumes", container]);
  if (result.exitCode === 0 || /No such container/i.test(result.stderr)) return null;
  return result.stderr.trim() || `exit code ${result.exitCode}`;
}
async function removeMatching(filters) {
  const list = await docker(["ps", "--all", "--quiet", "--no-trunc", ...filters.flatMap((f) => ["--filter", f])]);
  if (list.exitCode !== 0) return { removed: [], problems: [], listError: `docker ps failed: ${list.stderr.trim()}` };
  const removed = [];
  const problems = [];
  for (const id of list.stdout.split("\n").filter(Boolean)) {
    const problem = await removeContainer(id);
    if (problem) problems.push(problem);
    else removed.push(id);
  }
  return { removed, problems, listError: null };
}

// src/background.ts
import { closeSync, existsSync as existsSync2, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

// node_modules/get-port/index.js
import net from "node:net";
import os from "node:os";
var Locked = class extends Error {
  constructor(port) {
    super(`${port} is locked`);
  }
};
var lockedPorts = {
  old: /* @__PURE__ */ new Set(),
  young: /* @__PURE__ */ new Set()
};
var releaseOldLockedPortsIntervalMs = 1e3 * 15;
var reservedPorts = /* @__PURE__ */ new Set();
var timeout;
var getLocalHosts = () => {
  const interfaces = os.networkInterfaces();
  const results = /* @__PURE__ */ new Set([void 0, "0.0.0.0"]);
  for (const _interface of Object.values(interfaces)) {
    for (const config of _interface) {
      results.add(config.address);
    }
  }
  return results;
};
var checkAvailablePort = (options) => new Promise((resolve, reject) => {
  const server = net.createServer();
  server.unref();
  server.on("error", reject);
  server.listen(options, () => {
    const { port } = server.address();
    server.close(() => {
      resolve(port);
    });
  });
});
var getAvailablePort = async (options, hosts) => {
  if (options.host || options.port === 0) {
    return checkAvailablePort(options);
  }
  for (const host of hosts) {
    try {
      await checkAvailablePort({ port: options.port, host });
    } catch (error2) {
      if (!["EADDRNOTAVAIL", "EINVAL"].includes(error2.code)) {
        throw error2;
      }
    }
  }
  return options.port;
};
var isLockedPort = (port) => lockedPorts.old.has(port) || lockedPorts.young.has(port) || reservedPorts.has(port);
var portCheckSequence = function* (ports) {
  if (ports) {
    yield* ports;
  }
  yield 0;
};
async function getPorts(options) {
  let ports;
  let exclude = /* @__PURE__ */ new Set();
  if (options) {
    if (options.port) {
      ports = typeof options.port === "number" ? [options.port] : options.port;
    }
    if (options.exclude) {
      const excludeIterable = options.exclude;
      if (typeof excludeIterable[Symbol.iterator] !== "function") {
        throw new TypeError("The `exclude` option must be an iterable.");
      }
      for (const element of excludeIterable) {
        if (typeof element !== "number") {
          throw new TypeError("Each item in the `exclude` option must be a number corresponding to the port you want excluded.");
        }
        if (!Number.isSafeInteger(element)) {
          throw new TypeError(`Number ${element} in the exclude option is not a safe integer and can't be used`);
        }
      }
      exclude = new Set(excludeIterable);
    }
  }
  const { reserve, ...netOptions } = options ?? {};
  if (timeout === void 0) {
    timeout = setTimeout(() => {
      timeout = void 0;
      lockedPorts.old = lockedPorts.young;
      lockedPorts.young = /* @__PURE__ */ new Set();
    }, releaseOldLockedPortsIntervalMs);
    if (timeout.unref) {
      timeout.unref();
    }
  }
  const hosts = getLocalHosts();
  for (const port of portCheckSequence(ports)) {
    try {
      if (exclude.has(port)) {
        continue;
      }
      let availablePort = await getAvailablePort({ ...netOptions, port }, hosts);
      while (isLockedPort(availablePort)) {
        if (port !== 0) {
          throw new Locked(port);
        }
        availablePort = await getAvailablePort({ ...netOptions, port }, hosts);
      }
      if (reserve) {
        reservedPorts.add(availablePort);
      } else {
        lockedPorts.young.add(availablePort);
      }
      return availablePort;
    } catch (error2) {
      if (!["EADDRINUSE", "EACCES"].includes(error2.code) && !(error2 instanceof Locked)) {
        throw error2;
      }
    }
  }
  throw new Error("No available ports found");
}

// src/inputs.ts
var DEFAULTS = Object.freeze({
  mode: "auto",
  binaries: "auto",
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
  "cache-dir": "",
  wait: "true",
  init: "",
  "init-command": "",
  databases: "",
  template: "false",
  pool: "0",
  extensions: "",
  "init-timeout": "600",
  "schema-cache": "false",
  "schema-cache-files": "",
  "schema-cache-key": ""
});
var NEWEST_MAJOR = "18";

// src/connection.ts
function connectionUri(c) {
  const host = c.host.includes(":") ? `[${c.host}]` : c.host;
  const enc = encodeURIComponent;
  return `postgresql://${enc(c.user)}:${enc(c.password)}@${host}:${c.port}/${enc(c.database)}`;
}
var LIBPQ_SESSION_ENV = Object.freeze([
  "PGHOSTADDR",
  "PGPASSFILE",
  "PGREQUIREAUTH",
  "PGCHANNELBINDING",
  "PGSERVICE",
  "PGSERVICEFILE",
  "PGOAUTHDEBUG",
  "PGOPTIONS",
  "PGAPPNAME",
  "PGSSLMODE",
  "PGREQUIRESSL",
  "PGSSLNEGOTIATION",
  "PGSSLCOMPRESSION",
  "PGSSLCERT",
  "PGSSLKEY",
  "PGSSLCERTMODE",
  "PGSSLROOTCERT",
  "PGSSLCRL",
  "PGSSLCRLDIR",
  "PGSSLSNI",
  "PGREQUIREPEER",
  "PGSSLMINPROTOCOLVERSION",
  "PGSSLMAXPROTOCOLVERSION",
  "PGMINPROTOCOLVERSION",
  "PGMAXPROTOCOLVERSION",
  "PGGSSENCMODE",
  "PGKRBSRVNAME",
  "PGGSSLIB",
  "PGGSSDELEGATION",
  "PGCONNECT_TIMEOUT",
  "PGCLIENTENCODING",
  "PGTARGETSESSIONATTRS",
  "PGLOADBALANCEHOSTS",
  "PGDATESTYLE",
  "PGTZ",
  "PGGEQO",
  "PGSYSCONFDIR",
  "PGLOCALEDIR"
]);
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
function secretForms(secret) {
  const bytes = (c) => [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  const encode = (keep, space) => Array.from(secret).map((c) => c === " " ? space : keep.test(c) ? c : bytes(c)).join("");
  const unreserved = /^[A-Za-z0-9_.~-]$/;
  const forms = [
    secret,
    encodeURIComponent(secret),
    encode(unreserved, "%20"),
    encode(unreserved, "+"),
    encode(/^[A-Za-z0-9_.~/-]$/, "%20"),
    encode(/^[A-Za-z0-9_.*-]$/, "+"),
    JSON.stringify(secret).slice(1, -1)
  ];
  const lower = forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  return [.../* @__PURE__ */ new Set([...forms, ...lower])];
}
function isLoopback(address) {
  return /^127\./.test(address) || address === "::1" || address === "localhost";
}
async function choosePort(host, port) {
  let got;
  try {
    got = await getPorts({ host: host === "0.0.0.0" || host === "::" ? void 0 : host, ...port ? { port } : {} });
  } catch (error2) {
    const code = error2.code;
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAFNOSUPPORT") {
      throw new InputError(
        "publish-host",
        `${host} is not an address of this machine (${code})`,
        "Use 127.0.0.1 (default), or 0.0.0.0 for every interface"
      );
    }
    if (error2 instanceof Error && /No available ports found/.test(error2.message)) {
      if (port !== 0) {
        throw new InputError("port", `port ${port} on ${host} is in use`, "Choose another port, or 0 for a free one");
      }
      throw new InputError(
        "port",
        `no free TCP port on ${host}: every port of the kernel's ephemeral range is in use (${error2.message})`,
        "Give a free port (e.g. --port 5433 / port: 5433), or end what holds the ports (ss -tan) or widen net.ipv4.ip_local_port_range"
      );
    }
    throw error2;
  }
  if (port !== 0 && got !== port) {
    throw new InputError("port", `port ${port} on ${host} is in use`, "Choose another port, or 0 for a free one");
  }
  return got;
}
function publishHostWarnings(publishHost) {
  return isLoopback(publishHost) ? [] : [`Input 'publish-host' is ${publishHost}: PostgreSQL accepts password connections from other hosts`];
}
function defaultPasswordWarnings(password, publishHost, env = process.env) {
  if (password !== DEFAULTS.password) return [];
  const fix = "Set input 'password' (CLI: --password-file or PGPASSWORD) to a secret of your own";
  if (!isLoopback(publishHost)) {
    return [
      `Input 'password' is the default ("${DEFAULTS.password}") and the port is published on ${publishHost}: anyone who reaches it connects as superuser. ${fix}`
    ];
  }
  if (env.RUNNER_ENVIRONMENT === "github-hosted") return [];
  return [
    `Input 'password' is the default ("${DEFAULTS.password}"): any user of this machine can connect to 127.0.0.1 as superuser and run programs as the server's OS user (COPY ... TO PROGRAM). On a machine you share, ${fix.charAt(0).toLowerCase()}${fix.slice(1)}`
  ];
}

// src/launch.ts
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
var HANDOVER_TIMEOUT_MS = 1e4;
function entryPath(name) {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, "dist", `${name}.js`);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new SetupError(`Cannot find dist/${name}.js to start PostgreSQL in the background`, "Run npm run build");
}
var LaunchError = class extends Error {
  constructor(message, stage) {
    super(message);
    this.stage = stage;
    this.name = "LaunchError";
  }
  stage;
};
function spawnDetached(options) {
  const out = options.output === "stderr" ? ["ignore", "pipe"] : [options.output, options.output];
  return spawn(process.execPath, [options.entry, options.flag, ...options.args ?? []], {
    detached: true,
    stdio: [options.job === void 0 ? "ignore" : "pipe", ...out],
    env: options.env
  });
}
async function launchDetached(options) {
  const child = spawnDetached(options);
  const pid = await new Promise((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid ?? 0));
    child.once("error", (error2) => reject(new LaunchError(error2.message, "start")));
  });
  try {
    options.beforeJob?.(pid);
    if (options.job !== void 0) await handOver(child, options.job, options.handoverMs ?? HANDOVER_TIMEOUT_MS);
  } catch (error2) {
    child.kill("SIGKILL");
    throw error2;
  }
  child.unref();
  return { pid, child };
}
async function handOver(child, job, ms) {
  child.stdin?.on("error", () => void 0);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LaunchError(`no handover within ${ms} ms`, "handover")), ms);
    child.stdin?.once("error", (error2) => {
      clearTimeout(timer);
      reject(new LaunchError(error2.message, "handover"));
    });
    child.stdin?.end(JSON.stringify(job), () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
async function readStdinJson() {
  const chunks = [];
  const text = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no job on stdin within ${HANDOVER_TIMEOUT_MS} ms`)), HANDOVER_TIMEOUT_MS);
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    process.stdin.once("error", reject);
  });
  return JSON.parse(text);
}

// src/background.ts
var BACKGROUND_FLAG = "--pg-tmpfs-background";
var INITDB_MARGIN_MS = 18e4;
var DEADLINE_MARGIN_MS = PULL_TIMEOUT_MS + RUN_TIMEOUT_MS + INITDB_MARGIN_MS;
function backgroundDeadline(config, startedAtMs) {
  const init = (config.init?.length ?? 0) > 0 || Boolean(config.initCommand) ? 2 * (config.initTimeoutMs ?? 0) : 0;
  return startedAtMs + config.waitTimeoutMs + DEADLINE_MARGIN_MS + init;
}
async function launchBackground(entry, job, logFile, env, beforeJob = () => void 0) {
  const fd = openSync(logFile, "a", 384);
  try {
    return (await launchDetached({ entry, flag: BACKGROUND_FLAG, job, output: fd, env, beforeJob })).pid;
  } catch (error2) {
    if (error2 instanceof SetupError) throw error2;
    if (error2 instanceof LaunchError && error2.stage === "start") {
      throw new SetupError(`Could not start the background process: ${error2.message}`, "Check that node can run here");
    }
    throw new SetupError(`Could not hand the start to the background process: ${error2.message}`, "Try again");
  } finally {
    closeSync(fd);
  }
}
async function readJob() {
  const job = await readStdinJson();
  if (!job?.config || !job.connection) throw new Error("stdin did not hold a background job");
  return job;
}
function checkPlanned(planned, server) {
  const got = server.connection;
  if (got.host !== planned.host || got.port !== planned.port || got.user !== planned.user || got.database !== planned.database) {
    const hide = (c) => connectionUri({ ...c, password: "***" });
    throw new SetupError(
      `The background start reached PostgreSQL at ${hide(got)}, not at ${hide(planned)} as published`,
      "Report this as a bug; start without the background option meanwhile"
    );
  }
}
function errorRecord(error2) {
  if (error2 instanceof InputError) {
    return {
      kind: "input",
      input: error2.input,
      problem: error2.problem,
      fix: error2.fix,
      detail: error2.detail,
      detailTitle: error2.detailTitle,
      location: error2.location
    };
  }
  if (error2 instanceof SetupError) return { kind: "setup", problem: error2.problem, fix: error2.fix, detail: error2.detail };
  return { kind: "other", problem: error2 instanceof Error ? error2.message : String(error2) };
}
function errorFrom(record) {
  if (record.kind === "input") {
    const error2 = new InputError(record.input ?? "", record.problem, record.fix ?? "", record.detail, record.detailTitle);
    if (record.location) error2.location = record.location;
    return error2;
  }
  if (record.kind === "setup") return new SetupError(record.problem, record.fix ?? "", record.detail);
  return new Error(record.problem);
}
function writeJson(file, value) {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, JSON.stringify(value, null, 2), { mode: 384 });
    renameSync(tmp, file);
  } catch (error2) {
    rmSync(tmp, { force: true });
    throw error2;
  }
}
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
function backgroundAlive(pid) {
  if (!(pid > 0) || !processAlive(pid)) return false;
  try {
    return argvOf(pid).includes(BACKGROUND_FLAG);
  } catch (error2) {
    return error2.code !== "ENOENT" || !existsSync2("/proc/self");
  }
}
async function awaitOutcome(read, pid, deadlineAtMs, onWaiting = () => void 0, intervalMs = 10) {
  for (let first = true; ; first = false) {
    const outcome = read();
    if (outcome) return { kind: "ended", outcome };
    if (!backgroundAlive(pid)) {
      const late = read();
      return late ? { kind: "ended", outcome: late } : { kind: "died" };
    }
    if (Date.now() >= deadlineAtMs) return { kind: "timeout" };
    if (first) onWaiting();
    await sleep(intervalMs);
  }
}
async function stopBackground(pid, graceMs = 15e3) {
  if (!backgroundAlive(pid)) return true;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return !backgroundAlive(pid);
  }
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!backgroundAlive(pid)) return true;
    await sleep(20);
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
  }
  await sleep(50);
  return !backgroundAlive(pid);
}

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
import { readFileSync as readFileSync2, writeFileSync as writeFileSync2 } from "node:fs";
import { join as join2 } from "node:path";
var BACKGROUND_ENV = "PG_TMPFS_BACKGROUND";
var FILES = Object.freeze({
  launch: "launch.json",
  log: "start.log",
  handle: "handle.json",
  outcome: "outcome.json",
  shown: "shown"
});
function readLaunch(dir) {
  const launch = readJson(join2(dir, FILES.launch));
  if (!launch || typeof launch.pid !== "number") {
    throw new SetupError(
      `${dir} holds no background start of PostgreSQL`,
      `Check ${BACKGROUND_ENV}; it is set by the main step with 'wait: false'`
    );
  }
  return launch;
}
async function awaitStart(dir, launch, onWaiting) {
  const got = await awaitOutcome(() => readJson(join2(dir, FILES.outcome)), launch.pid, launch.deadlineAtMs, onWaiting);
  if (got.kind === "timeout") await stopBackground(launch.pid);
  return got;
}
function replayLog(dir) {
  let text = "";
  try {
    text = readFileSync2(join2(dir, FILES.log), "utf8");
  } catch {
    return;
  }
  if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}
`);
}
function markShown(dir) {
  writeFileSync2(join2(dir, FILES.shown), "");
}

export {
  INITDB_ARGS,
  parseSettings,
  effectiveSettings,
  settingsToArgs,
  CONTAINER_PORT,
  CONTAINER_LABEL,
  tmpfsPaths,
  initdbArgsEnv,
  RESTORED_MARKER,
  RESTORE_TIMEOUT_MS,
  RESTORE_WRAPPER,
  buildRunPlan,
  pgdataFromEnv,
  checkDockerSettings,
  DOCKER_TIMEOUT_MS,
  VERSION_TIMEOUT_MS,
  PULL_TIMEOUT_MS,
  RUN_TIMEOUT_MS,
  docker,
  dockerRun,
  dockerOk,
  engineVersion,
  isRunning,
  publishedPort,
  logsTail,
  removeMatching,
  DEFAULTS,
  NEWEST_MAJOR,
  connectionUri,
  LIBPQ_SESSION_ENV,
  connectionEnv,
  secretForms,
  isLoopback,
  choosePort,
  publishHostWarnings,
  defaultPasswordWarnings,
  entryPath,
  spawnDetached,
  launchDetached,
  readStdinJson,
  BACKGROUND_FLAG,
  backgroundDeadline,
  launchBackground,
  readJob,
  checkPlanned,
  errorRecord,
  errorFrom,
  writeJson,
  readJson,
  backgroundAlive,
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
