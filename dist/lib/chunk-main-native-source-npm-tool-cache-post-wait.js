import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);

// src/errors.ts
var InputError = class extends Error {
  /**
   * @param input the input's name as the user writes it, e.g. `port`
   * @param problem what is wrong
   * @param fix how to fix it
   * @param detail extra lines (e.g. the server log tail that shows the problem), printed before the message
   * @param detailTitle what `detail` is, for the line above it
   */
  constructor(input, problem, fix, detail = "", detailTitle = "server log") {
    super(`Input '${input}': ${problem}. ${fix}`);
    this.input = input;
    this.problem = problem;
    this.fix = fix;
    this.detail = detail;
    this.detailTitle = detailTitle;
    this.name = "InputError";
  }
  input;
  problem;
  fix;
  detail;
  detailTitle;
  /** The file, 1-based line and column at fault (an init SQL file), for an annotation on that line. */
  location;
};
var SetupError = class extends Error {
  /**
   * @param problem what went wrong
   * @param fix how to fix it
   * @param detail extra lines (e.g. the server log tail), printed after the message
   */
  constructor(problem, fix, detail = "") {
    super(`${problem}. ${fix}`);
    this.problem = problem;
    this.fix = fix;
    this.detail = detail;
    this.name = "SetupError";
  }
  problem;
  fix;
  detail;
};

// src/proc.ts
import { spawn, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";

// src/processes.ts
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
function processAlive(pid) {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== "EPERM") return false;
  }
  return !isZombie(pid);
}
function isZombie(pid) {
  return process.platform === "linux" && procStat(pid)?.state === "Z";
}
function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return null;
  }
}
function findProcesses(match) {
  if (process.platform !== "linux") return [];
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!/^\d+$/.test(name) || pid === process.pid) continue;
    try {
      if (!match(pid)) continue;
    } catch {
      continue;
    }
    const stat = procStat(pid);
    if (!stat || stat.state === "Z" || stat.state === "X") continue;
    let argv = [];
    try {
      argv = argvOf(pid).filter(Boolean);
    } catch {
    }
    found.push({ pid, ppid: stat.ppid, pgid: stat.pgid, argv });
  }
  return found;
}
function groupMembers(pgid) {
  if (!(pgid > 1)) return [];
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch (error) {
      return error.code === "EPERM" ? [pgid] : [];
    }
  }
  return findProcesses((pid) => procStat(pid)?.pgid === pgid).map((p) => p.pid);
}
function argvOf(pid) {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  if (argv.at(-1) === "") argv.pop();
  return argv;
}
function environHas(pid, entry) {
  return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(entry);
}
function cwdOf(pid) {
  return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, "");
}
function mappedFiles(pid) {
  try {
    const paths = readFileSync(`/proc/${pid}/maps`, "utf8").split("\n").map((line) => /^\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\/.*)$/.exec(line)?.[1]?.replace(/ \(deleted\)$/, "")).filter((path) => path !== void 0);
    return [...new Set(paths)];
  } catch {
    return [];
  }
}
function openFiles(pid) {
  const targets = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
    }
  }
  return targets;
}

// src/proc.ts
var active = /* @__PURE__ */ new Map();
function killActive(signal = "SIGKILL") {
  let signalled = 0;
  for (const [pid, leaderOnly] of active) {
    try {
      process.kill(leaderOnly || process.platform === "win32" ? pid : -pid, signal);
      signalled += 1;
    } catch {
      active.delete(pid);
    }
  }
  return signalled;
}
async function stopActive(graceMs = 2e3) {
  if (killActive("SIGTERM") === 0) return;
  const deadline = Date.now() + graceMs;
  while (active.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  killActive("SIGKILL");
}
var CLOSE_GRACE_MS = 2e3;
var STDERR_KEPT = 1 << 20;
var RUN_ENV = "PG_TMPFS_RUN";
function inheritedEnv() {
  return withoutNames(process.env, [RUN_ENV]);
}
function withoutNames(env, names) {
  if (!names?.length) return env;
  const copy = { ...env };
  for (const name of names) delete copy[name];
  return copy;
}
function run(program, args, options) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: withoutNames({ ...options.baseEnv ?? inheritedEnv(), ...options.env }, options.unsetEnv),
      stdio: [
        options.input === void 0 ? "ignore" : "pipe",
        options.outputFd ?? "pipe",
        options.outputFd ?? "pipe",
        ...options.markerFd !== void 0 ? [options.markerFd] : []
      ],
      // A process group of its own (the deadline and stopActive end the group). On Windows,
      // detached keeps it out of Node's kill-on-close job: a program a killed start leaves (pg_ctl,
      // initdb, which waits for its restricted copy of itself) then runs to its end, and the stop
      // waits for it (windows.ts) instead of finding a server or an initdb with no parent.
      detached: true,
      windowsHide: true,
      ...options.uid !== void 0 ? { uid: options.uid, gid: options.gid } : {}
    });
    if (child.pid) active.set(child.pid, options.stopLeaderOnly ?? false);
    if (child.pid) options.onSpawn?.(child.pid);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let leftoverPids = [];
    let silent = false;
    let spoke = false;
    if (options.input !== void 0 && child.stdin) {
      child.stdin.on("error", () => void 0);
      child.stdin.end(options.input);
    }
    const piped = options.stdoutStream ? new Promise((done) => {
      const out = options.stdoutStream;
      out.on("close", () => done());
      out.on("error", () => {
        child.stdout?.resume();
        done();
      });
      child.stdout?.pipe(out);
    }) : Promise.resolve();
    if (!options.stdoutStream)
      child.stdout?.setEncoding("utf8").on("data", (d) => {
        stdout += d;
        spoke ||= options.firstOutputPattern ? options.firstOutputPattern.test(stdout) : true;
        options.onOutput?.(d, "stdout");
      });
    child.stderr?.setEncoding("utf8").on("data", (d) => {
      stderr = (stderr + d).slice(-STDERR_KEPT);
      spoke ||= !options.firstOutputPattern;
      options.onOutput?.(d, "stderr");
    });
    const stopReading = (code) => {
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(code);
      }, CLOSE_GRACE_MS).unref();
    };
    const kill = () => {
      timedOut = true;
      try {
        if (child.pid) process.kill(options.stopLeaderOnly ? child.pid : -child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      if (child.exitCode !== null || child.signalCode !== null) stopReading(child.exitCode);
    };
    const timer = setTimeout(kill, options.timeoutMs);
    const silenceTimer = options.firstOutputMs !== void 0 && options.firstOutputMs < options.timeoutMs ? setTimeout(() => {
      if (spoke) return;
      silent = true;
      kill();
    }, options.firstOutputMs) : void 0;
    let settled = false;
    const finish = (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(silenceTimer);
      if (child.pid) active.delete(child.pid);
      let graceTimer;
      const settledOutput = options.stdoutStream ? Promise.race([piped, new Promise((done) => graceTimer = setTimeout(done, CLOSE_GRACE_MS))]).finally(
        () => clearTimeout(graceTimer)
      ) : piped;
      void settledOutput.then(
        () => resolve({
          code,
          stdout,
          stderr,
          ms: performance.now() - t0,
          timedOut,
          leftovers: leftoverPids.length,
          leftoverPids,
          ...silent ? { silent } : {}
        })
      );
    };
    child.on("error", (error) => {
      clearTimeout(timer);
      clearTimeout(silenceTimer);
      if (child.pid) active.delete(child.pid);
      settled = true;
      reject(error);
    });
    child.on("exit", (code) => {
      if (timedOut) stopReading(code);
      else if (options.endGroupOnExit && child.pid) void endGroup(child.pid).then(() => stopReading(code));
    });
    const endGroup = async (pgid) => {
      const left = groupMembers(pgid);
      if (left.length === 0 || timedOut) return;
      leftoverPids = left;
      const signal = (sig) => {
        try {
          process.kill(-pgid, sig);
        } catch {
        }
      };
      const gone = async (ms) => {
        const deadline = Date.now() + ms;
        while (groupMembers(pgid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        return groupMembers(pgid).length === 0;
      };
      signal("SIGTERM");
      if (await gone(CLOSE_GRACE_MS)) return;
      signal("SIGKILL");
      await gone(CLOSE_GRACE_MS);
    };
    child.on("close", (code) => finish(code));
  });
}
function tail(text, lines = 6) {
  return text.trimEnd().split("\n").slice(-lines).join(" | ");
}
function runSync(program, args, options) {
  const t0 = performance.now();
  const r = spawnSync(program, args, {
    cwd: options.cwd,
    env: withoutNames({ ...options.baseEnv ?? inheritedEnv(), ...options.env }, options.unsetEnv),
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: options.timeoutMs,
    killSignal: "SIGKILL",
    windowsHide: true,
    ...options.uid !== void 0 ? { uid: options.uid, gid: options.gid } : {}
  });
  const why = r.error?.code;
  if (r.error && !r.pid) throw r.error;
  const stderr = `${r.stderr ?? ""}${r.error && why !== "ETIMEDOUT" ? r.error.message : ""}`.slice(-STDERR_KEPT);
  const code = r.error ? null : r.status;
  return {
    code,
    stdout: r.stdout ?? "",
    stderr,
    ms: performance.now() - t0,
    timedOut: why === "ETIMEDOUT",
    leftovers: 0,
    leftoverPids: []
  };
}
async function runOk(program, args, options) {
  const r = await run(program, args, options);
  if (r.code !== 0) {
    const why = r.timedOut ? `timed out after ${options.timeoutMs} ms` : `exit code ${r.code}`;
    throw new Error(`${program} ${args.slice(0, 3).join(" ")} \u2026 ${why}: ${tail(r.stderr || r.stdout)}`);
  }
  return r;
}

export {
  InputError,
  SetupError,
  processAlive,
  findProcesses,
  argvOf,
  environHas,
  cwdOf,
  mappedFiles,
  openFiles,
  killActive,
  stopActive,
  RUN_ENV,
  inheritedEnv,
  run,
  tail,
  runSync,
  runOk
};
//# sourceMappingURL=chunk-main-native-source-npm-tool-cache-post-wait.js.map
