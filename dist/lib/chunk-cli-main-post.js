import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  CONTAINER_LABEL,
  CONTAINER_PORT,
  DEFAULTS,
  DOCKER_TIMEOUT_MS,
  EXTENSION_ALIASES,
  INITDB_ARGS,
  InputError,
  InterruptedError,
  PULL_ANSWER_MS,
  RESTORED_MARKER,
  RESTORE_TIMEOUT_MS,
  RESTORE_WRAPPER,
  RUN_ENV,
  RUN_TIMEOUT_MS,
  SetupError,
  VERSION_TIMEOUT_MS,
  apiGet,
  buildRunPlan,
  checkPlanned,
  choosePort,
  cleanupOnInterrupt,
  connectionEnv,
  connectionUri,
  defaultPasswordWarnings,
  docker,
  dockerOk,
  effectiveSettings,
  engineVersion,
  errorRecord,
  findProcesses,
  inheritedEnv,
  initdbArgsEnv,
  inspectImage,
  isLoopback,
  isRunning,
  localEngineSocket,
  logsTail,
  pathSafeName,
  processAlive,
  publishHostWarnings,
  publishedPort,
  pullImage,
  removeMatching,
  run,
  runOk,
  settingsToArgs,
  tail,
  throwIfInterrupted,
  tmpfsPaths
} from "./chunk-cli-main-post-wait.js";
import {
  __commonJS,
  __require,
  __toESM
} from "./chunk-common.js";

// ../../main/node_modules/@mongodb-js/saslprep/dist/index.js
var require_dist = __commonJS({
  "../../main/node_modules/@mongodb-js/saslprep/dist/index.js"(exports, module) {
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

// ../../main/node_modules/memory-pager/index.js
var require_memory_pager = __commonJS({
  "../../main/node_modules/memory-pager/index.js"(exports, module) {
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

// ../../main/node_modules/sparse-bitfield/index.js
var require_sparse_bitfield = __commonJS({
  "../../main/node_modules/sparse-bitfield/index.js"(exports, module) {
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

// ../../main/node_modules/@mongodb-js/saslprep/dist/memory-code-points.js
var require_memory_code_points = __commonJS({
  "../../main/node_modules/@mongodb-js/saslprep/dist/memory-code-points.js"(exports) {
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

// ../../main/node_modules/@mongodb-js/saslprep/dist/code-points-data.js
var require_code_points_data = __commonJS({
  "../../main/node_modules/@mongodb-js/saslprep/dist/code-points-data.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    var zlib_1 = __require("zlib");
    exports.default = (0, zlib_1.gunzipSync)(Buffer.from("H4sIAAAAAAACA+3dTYgcaRkA4LemO9Mhxm0FITnE9Cwr4jHgwgZ22B6YywqCJ0HQg5CL4sGTuOjCtGSF4CkHEW856MlTQHD3EJnWkU0Owh5VxE3LHlYQdNxd2U6mU59UV/d09fw4M2EySSXPAzNdP1/9fX/99bzVNZEN4jisRDulVFnQmLxm1aXF9Id/2/xMxNJ4XZlg576yuYlGt9gupV6xoFf8jhu9YvulVrFlp5XSx+lfvYhORGPXvqIRWSxERKtIm8bKFd10WNfKDS5Fo9jJWrq2+M2IlW+8uHgl/+BsROfPF4v5L7148Ur68Sha6dqZpYiVVy8tvLCWXo80Sf/lS89dGX2wHGvpzoXVn75/YWH5wmqe8uika82ViJXTy83Ve2k5Urozm38wm4/ls6t5uT6yfsTSJ7J3T0VKt8c5ExEXI8aFkH729c3eT+7EC6ca8cVULZUiYacX0R5PNWNxlh9L1y90q5kyzrpyy+9WcvOV6URntqw7La9sNVstXyczWVaWYbaaTYqzOHpr7pyiNT3/YzKuT63Z/FqKZlFTiuXtFM2vVOtIq7jiyKJbWZaOWD0euz0yoV2Z7kY0xq2x0YhfzVpmM5px9nTEH7JZ0ot5u39p0ma75Z472/s/H+2yr2inYyuq7fMvJivH2rM72N/Z3lyL31F2b1ya1P0zn816k2KP6JU9UzseucdQH5YqVeH/lFajSN2udg+TLJ9rksNxlvV2lki19rXKI43TPLejFu4ov7k3nMbhyhfY3Xb37f8BAGCf0eMTOH5szf154KmnNgKcnLb+Fzi2AfXktbN7fJelwTAiO/W5uQ2KINXRYu+znqo/WTAdLadURHmy3qciazd3bra4T3w16/f7t7Ms9U5gfJu10955sx1r3vmhBAAAAAAAgId20J1iZbDowNvIjuH427Gr5l/eiC+8OplZON8sVjx/qr9y+Pj+YRItT+NqAM+kkZs3AAAAAID6yfx1FwCAI97/dCh1/ub6SA0AAAAAAAAAgNoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hP/BwAAAAAAAID6E/8HAAAAAAAAgPoT/wcAAAAAAACA+hutp5SiQpYAAAAAAAAAQO2MIpZiT804flnAE2fhwjOeAZXr76kOAAAAAAAA8FjNf4N/l0NE3U/vuVQskLpSd4/Yh2xu9xTu0tFeeNYsLI2f/VMdNxTzj6Je9E/+6pp6Nn3awW3A54goe4Bss6v+PGsjQGMAAAAAAOBp5XEgwH6e7J7rwEQHRb/XvAMAAAAAAAA8yzoDeQDwVGjIAgAAAAAAAACoPfF/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqD/xfwAAAAAAAACoP/F/AAAAAAAAAKg/8X8AAAAAAAAAqL/GSkSkClkCAAAAAAAAALXTSAAAAAAAAABA3Y1kAQAAAAAAAADUX8RSXZ9dsHC9+M8Fg2Ex/em1lAZpEBGttcrVjZqLEa+k0XpKw9mG4zWx4ukPUMhkAQAAAAAAABzBqbSe3//rXOS9HxGdo4TqR2XkutCdBu+LaPZw/lBbO7cbHnh2C7N7AIo4evEznllqLqWUp/LnYOtpM2bnOH66wI1+9GO4sOuISwv/TOlumu56FDv3NZhc4mR9v7zYIrafr40j/Cccvj9Xns3t3mu99E7qxUv3bqS0/ouNH/08++RGemfQ+nsx/5uNXsQPGulynPvv3ZTW37zd+1ovrqaYpP/122X6Xpx779Z3zr/3YOPKW1lkaRDf31pPaf3j/msRsVGkL+d/f+/m4sJsPm1cfSsr16e8m9Ldj/KsnyIuR3nXw83Is3EhxLd/2V773ks3m/cj/THKUummdP9qKhIOImuOU0Xjwb3y+oqt735rpTetVbF9n8R4x9crRfO77TKqVOZpDclv5bfK18lMnk+q0K18UpxF/RrGXE0Zxtqx3tWSj+vxbL4XaasfKb0dRbtLW73JsfPGg177H+OmGKlfvS1msllt7JEJm9XOJqXR+Fkfo1H66uy5H1v3Xx5+uJmGLw9jro2u7Loj4PnuR6+f+e3d261+eazNhzrL7X83MohoHpS4PddV8ki1it61//pw1g7z6p1U/26Nm2llST57B5rUvuG0XqSU/rPd7jYrqWcbd+beJQ77BgPMDwn37/8BAGCf0eMTOH4cPlufv9VGgJOzqf8Fjm1APXkd7B7f5dF57GPMaWy/MTvjvNvtXj6h8W2+GXvnzXaseeeHEgAAAAAAAB7aQXeKlcGiadBoEOeLb2dtpGOL2MyOtf391a3P/zD96c3JzIP3t4oV797vrh8+vn+YRL5bBuj/AQAAAABqJvfHXQAAHkX82zfXAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACeAgkAAAAAAAAAqLuRLAAAAAAAAACA2hv9D1iu/VAYaAYA", "base64"));
  }
});

// ../../main/node_modules/@mongodb-js/saslprep/dist/node.js
var require_node = __commonJS({
  "../../main/node_modules/@mongodb-js/saslprep/dist/node.js"(exports, module) {
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

// src/server.ts
var LOG_TAIL_LINES = 50;

// src/lifecycle.ts
import { readdirSync as readdirSync7, readFileSync as readFileSync10 } from "node:fs";
import { join as join16 } from "node:path";

// src/docker/job-container.ts
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
var BUILTIN_NETWORKS = /* @__PURE__ */ new Set(["bridge", "host", "none"]);
function containerIdFromMountinfo(mountinfo) {
  return /\/containers\/([0-9a-f]{64})\/(?:hostname|hosts|resolv\.conf)\b/.exec(mountinfo)?.[1] ?? null;
}
function userNetwork(networksJson) {
  const networks = JSON.parse(networksJson || "{}");
  return Object.keys(networks ?? {}).filter((n) => !BUILTIN_NETWORKS.has(n)).sort()[0] ?? null;
}
async function detectJobNetwork(timeoutMs = DOCKER_TIMEOUT_MS) {
  if (!existsSync("/.dockerenv")) return null;
  let container = hostname();
  try {
    container = containerIdFromMountinfo(readFileSync("/proc/self/mountinfo", "utf8")) ?? container;
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

// src/docker/start.ts
import { randomBytes as randomBytes2 } from "node:crypto";
import { performance as performance3 } from "node:perf_hooks";
import { setTimeout as sleep3 } from "node:timers/promises";

// src/readiness.ts
import { setTimeout as sleep } from "node:timers/promises";
var pgModule = null;
function loadPg() {
  pgModule ??= import("./chunk-pg.js").then((m) => m.default);
  return pgModule;
}
async function newClient(target, timeouts) {
  const { Client } = await loadPg();
  const client = new Client({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs,
    ...timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}
  });
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
    await sleep(interval);
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

// src/orphans.ts
import { readdirSync, readFileSync as readFileSync2, readlinkSync, realpathSync, rmSync } from "node:fs";
import { setTimeout as sleep2 } from "node:timers/promises";
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
    const cwd = readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, "");
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
  try {
    return readFileSync2(`/proc/${pid}/maps`, "utf8").split("\n").map((l) => /\s(\/dev\/shm\/PostgreSQL\.\d+)(?: \(deleted\))?$/.exec(l)?.[1]).filter((f) => f !== void 0);
  } catch {
    return [];
  }
}
function mappedByAnyone(file) {
  for (const name of readdirSync("/proc")) {
    if (/^\d+$/.test(name) && mappedShm(Number(name)).includes(file)) return true;
  }
  return false;
}
function sysvRows() {
  try {
    return readFileSync2("/proc/sysvipc/shm", "utf8").split("\n").slice(1).map((l) => l.trim().split(/\s+/)).filter((f) => f.length > 6);
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
  return findProcesses((pid) => readFileSync2(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(arg));
}
async function awaitProcessesWithArg(arg, ms) {
  const left = await waitNone(() => processesWithArg(arg), ms);
  if (left.length === 0) return false;
  for (const p of left) signal(p.pid, "SIGKILL");
  await waitNone(() => processesWithArg(arg), KILL_WAIT_MS);
  return true;
}
function processesWithEnv(name, value) {
  if (!value) return [];
  const entry = `${name}=${value}`;
  return findProcesses((pid) => readFileSync2(`/proc/${pid}/environ`, "utf8").split("\0").includes(entry));
}
async function endMarkedProcesses(token, graceMs = 5e3) {
  const found = processesWithEnv(RUN_ENV, token);
  if (found.length === 0) return [];
  const groups = [...new Set(found.map((p) => p.pgid))].filter((g) => g > 1 && g !== process.pid);
  for (const g of groups) signal(-g, "SIGTERM");
  const find = () => processesWithEnv(RUN_ENV, token);
  const stubborn = await waitNone(find, graceMs);
  for (const g of new Set(stubborn.map((p) => p.pgid))) if (groups.includes(g)) signal(-g, "SIGKILL");
  for (const p of stubborn) signal(p.pid, "SIGKILL");
  const left = await waitNone(find, KILL_WAIT_MS);
  return left.map((p) => `Process ${p.pid} (${p.argv.join(" ").slice(0, 80)}) of run ${token} did not end`);
}

// src/timing.ts
import { performance as performance2 } from "node:perf_hooks";
var Phases = class {
  last;
  ms = {};
  /** @param origin ms (performance.now() scale) where the first phase began; 0 = process start */
  constructor(origin = performance2.now()) {
    this.last = origin;
  }
  /** Closes phase `name` now. */
  end(name) {
    const now = performance2.now();
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
  let best = null;
  for (const line of procMounts.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 3) continue;
    const point = (fields[1] ?? "").replace(/\\(\d{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)));
    const type = fields[2] ?? "";
    const covers = point === "/" || path === point || path.startsWith(point.endsWith("/") ? point : `${point}/`);
    if (covers && (!best || point.length >= best.point.length)) best = { point, type };
  }
  return best?.type ?? null;
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
  const stopped = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "57P01", "57P02", "57P03"].includes(e.code ?? "") || /Connection terminated|timeout/i.test(e.message ?? "");
  return new InputError(
    input,
    stopped ? `${after}, the server no longer answers at ${c.host}:${c.port}: ${message}; it was stopped or is restarting` : `${after}, the connection the outputs give fails: ${message}`,
    stopped ? `Leave the server running (pg-tmpfs stops it at the end; restart it from init only with the same settings, and wait for it) ${removed}` : `Leave the server, its user, password and database as the outputs give them ${removed}`
  );
}

// src/native/cache-copy.ts
import { createHash as createHash2 } from "node:crypto";
import { chownSync, closeSync as closeSync2, fchownSync, fstatSync as fstatSync2, mkdirSync, openSync as openSync2, renameSync, rmSync as rmSync2, writeSync } from "node:fs";
import { join as join3, relative as relative2 } from "node:path";

// src/native/cache-manifest.ts
import { lstatSync as lstatSync2, readdirSync as readdirSync2 } from "node:fs";
import { isAbsolute, join as join2, relative } from "node:path";

// src/native/file-seal.ts
import { createHash } from "node:crypto";
import { join } from "node:path";
import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
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
var READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
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
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + SETTLE_MS;
  do {
    Atomics.wait(wait, 0, 0, 1);
    since = sealClock(dir);
  } while (since <= newest && Date.now() < end);
  for (const [path, entry] of Object.entries(files)) {
    if (!entry.fingerprint) files[path] = sealFile(join(dir, path), since);
  }
  return { files, sealedNs: String(since) };
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

// src/native/cache-manifest.ts
var MANIFEST_SUFFIX = ".manifest.json";
var MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
function listFiles(dir) {
  const dirs = [];
  const paths = [];
  const walk = (at) => {
    for (const name of readdirSync2(at)) {
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
    const added = readdirSync2(join2(root, dir)).find((name) => !known.has(dir ? join2(dir, name) : name));
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

// src/native/cache-copy.ts
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
function deferrableDatabases(manifest) {
  const oids = manifest.dirs.map((d) => /^base[\\/](\d+)$/.exec(d)?.[1]).filter((o) => o !== void 0).map(Number).sort((a, b) => a - b);
  return oids.slice(0, -1).map((oid) => join3("base", String(oid)));
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
    const hash = unchanged(s, want) ? null : createHash2("sha256");
    const out = openSync2(to, "wx", Number(s.mode) & 488);
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
      closeSync2(out);
    }
    if (read !== want.size) throw new FileProblem(`has ${read} bytes, not ${want.size}`);
    if (hash && hash.digest("hex") !== want.sha256) {
      throw new FileProblem("does not match the sha256 in its manifest (it changed after the fill)");
    }
    if (!hash && !unchanged(fstatSync2(fd, { bigint: true }), want)) {
      throw new FileProblem("changed while it was copied");
    }
  } finally {
    closeSync2(fd);
  }
}
function copyCluster(entry, manifest, dest, runAs, later = []) {
  const now = (path) => !later.some((dir) => isUnder(path, dir));
  const dirs = manifest.dirs.filter(now);
  const untrusted = foldersProblem(entry, dirs);
  if (untrusted) throw new DamagedEntryError(entry, untrusted);
  mkdirSync(dest, { mode: 448 });
  if (runAs) chownSync(dest, runAs.uid, runAs.gid);
  for (const dir of dirs) {
    const path = join3(dest, dir);
    mkdirSync(path, { mode: 448 });
    if (runAs) chownSync(path, runAs.uid, runAs.gid);
  }
  for (const [file, want] of Object.entries(manifest.files)) {
    if (!now(file)) continue;
    try {
      copyFile(join3(entry, file), join3(dest, file), want, runAs);
    } catch (error) {
      if (error instanceof FileProblem) throw new DamagedEntryError(entry, `${file} ${error.message}`);
      throw error;
    }
  }
}
function copyLater(entry, manifest, dest, runAs, later, staging) {
  if (later.length === 0) return;
  mkdirSync(staging, { mode: 448 });
  try {
    for (const [n, dir] of later.entries()) {
      const into = join3(staging, String(n));
      const part = {
        dirs: manifest.dirs.filter((p) => p !== dir && isUnder(p, dir)).map((p) => relative2(dir, p)),
        files: Object.fromEntries(
          Object.entries(manifest.files).filter(([f]) => isUnder(f, dir)).map(([f, e]) => [relative2(dir, f), e])
        )
      };
      try {
        copyCluster(join3(entry, dir), part, into, runAs);
      } catch (error) {
        if (!(error instanceof DamagedEntryError)) throw error;
        const what = error.problem.replace(/^its folder /, "");
        throw new DamagedEntryError(entry, what === error.problem ? `${dir}/${what}` : `${dir} ${what}`);
      }
      renameSync(into, join3(dest, dir));
    }
  } finally {
    rmSync2(staging, { recursive: true, force: true });
  }
}

// src/schema-cache/docker.ts
import { createHash as createHash5 } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Writable } from "node:stream";
import { join as join4 } from "node:path";

// ../../main/node_modules/@mongodb-js/saslprep/dist/.esm-wrapper.mjs
var import_node = __toESM(require_node(), 1);
var saslprep = import_node.default.saslprep;

// src/native/scram.ts
import { createHash as createHash3, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
var SCRAM_ITERATIONS = 4096;
function preparePassword(password) {
  if (![...password].some((c) => c.charCodeAt(0) > 127)) return password;
  try {
    return saslprep(password);
  } catch {
    return password;
  }
}
function scramVerifier(password, salt = randomBytes(16), iterations = SCRAM_ITERATIONS) {
  const salted = pbkdf2Sync(preparePassword(password), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash3("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

// src/schema-cache/key.ts
import { createHash as createHash4 } from "node:crypto";
import { readFileSync as readFileSync4 } from "node:fs";

// src/init-files.ts
import { accessSync, constants as constants2, readFileSync as readFileSync3, realpathSync as realpathSync2, statSync } from "node:fs";
import { isAbsolute as isAbsolute2, relative as relative3, resolve } from "node:path";

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
    const path = resolve(config.workDir, entry);
    const folder = input === "schema-cache-files" && !isDynamicPattern(entry) && isFolder(path);
    if (isDynamicPattern(entry) || folder) {
      const signal2 = AbortSignal.timeout(GLOB_TIMEOUT_MS);
      found = (await glob(folder ? "**" : entry, {
        cwd: folder ? path : config.workDir,
        absolute: true,
        onlyFiles: true,
        expandDirectories: false,
        deep: GLOB_DEPTH,
        // A dotfile shapes a schema as any other file (.env.test, prisma/.env, .sequelizerc).
        dot: input === "schema-cache-files",
        signal: signal2
      })).sort();
      if (signal2.aborted) {
        throw new InputError(
          input,
          `"${entry}" was still walking folders after ${GLOB_TIMEOUT_MS / 1e3} s (relative to ${config.workDir})`,
          input === "init" ? "Narrow the glob to the folder of your SQL files, e.g. db/migrations/*.sql" : "Narrow the glob to the folders that shape the schema"
        );
      }
    } else {
      try {
        accessSync(path, constants2.R_OK);
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
        real = realpathSync2(file);
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
    return { label, text: initText(label, readFileSync3(file)) };
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
  const rel = relative3(workDir, file);
  return rel.startsWith("..") || isAbsolute2(rel) ? file : rel;
}
async function checkNotPsql(label, text) {
  refusePsqlOnly(label, await scanSql(text));
}

// src/schema-cache/key.ts
var SCHEMA_CACHE_FORMAT = 1;
function sha2562(data) {
  return createHash4("sha256").update(data).digest("hex");
}
async function readSchemaInputs(config, initFiles) {
  const matched = await resolveFiles(config.schemaCacheFiles, config.workDir, "schema-cache-files");
  const files = [...new Set(matched)].map((file) => ({ path: shownPath(config.workDir, file), sha256: sha2562(readFileSync4(file)) })).sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
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

// src/schema-cache/docker.ts
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
    problem = withFile(join4(dir, BASE_TAR), (read, s) => {
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
async function restoreDocker(containerId, tar, user, password, timeoutMs) {
  const sql = `ALTER ROLE "${user.replace(/"/g, '""')}" PASSWORD '${scramVerifier(password)}';`;
  const tries = Math.max(1, Math.ceil(timeoutMs / 10));
  const script = [
    "user=$1; tries=$2; i=0",
    'mkdir -p "$PGDATA" && tar -x -f - -C "$PGDATA" || exit 3',
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
    ["exec", "-i", "-e", "PG_TMPFS_SQL", containerId, "sh", "-c", script, "pg-tmpfs", user, String(tries)],
    { timeoutMs: deadlineMs, input: tar, env: { PG_TMPFS_SQL: sql } }
  );
  if (r.code === 0) return;
  const said = tail(r.stderr.trim() || `exit code ${String(r.code)}`);
  throw new SetupError(
    r.timedOut ? `the schema cache restore into the container did not finish within ${deadlineMs / 1e3} s` : r.code === 4 ? `could not set the password on the restored cluster: ${said}` : `the schema cache restore into the container failed: ${said}`,
    "The image needs sh, tar and psql, and must trust local connections (the official image does); or turn schema-cache off"
  );
}
async function snapshotDocker(server, dest) {
  const file = createWriteStream(join4(dest, BASE_TAR), { mode: 384 });
  let writeError = "";
  file.on("error", (error) => writeError ||= error.message);
  const hash = createHash5("sha256");
  let size = 0;
  const out = new Writable({
    write(chunk2, _encoding, done) {
      hash.update(chunk2);
      size += chunk2.length;
      file.write(chunk2, (error) => done(error ?? null));
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

// src/docker/start.ts
var ORPHAN_RUN_WAIT_MS = 6e4;
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
    token: randomBytes2(8).toString("hex")
  };
  let pullMs = 0;
  let image = inspected;
  if (!image) {
    throwIfInterrupted();
    onHandle({ ...handle, pulling: true });
    const t0 = performance3.now();
    await log.group(`Pulling ${config.image}`, async () => {
      await pullImage(config.image, (message) => log.warning(message), void 0, {
        answerMs: Math.min(PULL_ANSWER_MS, config.waitTimeoutMs),
        env: { [RUN_ENV]: handle.token }
      });
      pullMs = Math.round(performance3.now() - t0);
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
        await restoreDocker(handle.containerId, restore.tar, config.user, config.password, config.waitTimeoutMs);
        phases.end("schema cache restore, password set");
      } catch (error) {
        if (!(error instanceof SetupError || error instanceof DamagedEntryError)) throw error;
        const problem = await stopDocker(handle);
        if (problem) log.warning(`Could not remove container ${handle.containerName}: ${problem}`);
        schema.damaged(error instanceof DamagedEntryError ? error.problem : error.message);
        return await startDocker(config, log, onHandle, phases, schema);
      }
    }
    const firstAliveCheck = performance3.now() + FIRST_ALIVE_CHECK_MS;
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
      isAlive: async () => performance3.now() < firstAliveCheck || isRunning(handle.containerId)
    }).catch(async (error) => {
      if (error instanceof NotReadyError) throw notReadyError(error, await logsTail(handle.containerId, LOG_TAIL_LINES));
      throw error;
    });
    phases.end("first query answered");
    const startupMs = Math.round(performance3.now());
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
function checkDockerInputs(config) {
  if (/[\r\n]/.test(config.password)) {
    throw new InputError(
      "password",
      "holds a line break, which Docker mode cannot carry (the image's initdb reads only the first line of the password)",
      "Use a password without line breaks, or mode: native"
    );
  }
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
async function stopDocker(handle) {
  const problems = [];
  const killed = handle.token ? await awaitProcessesWithArg(`${CONTAINER_LABEL}.run=${handle.token}`, ORPHAN_RUN_WAIT_MS) : false;
  for (let pass = 0; pass < (handle.containerId && !killed ? 1 : 2); pass++) {
    if (pass > 0) await sleep3(1e3);
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

// src/native/binaries.ts
import { execFileSync } from "node:child_process";
import { existsSync as existsSync2, readdirSync as readdirSync3 } from "node:fs";
import { join as join6, posix, win32 } from "node:path";

// src/native/facts.ts
import { randomBytes as randomBytes3 } from "node:crypto";
import { readFileSync as readFileSync5, renameSync as renameSync2, statSync as statSync3, writeFileSync, rmSync as rmSync3 } from "node:fs";
import { join as join5 } from "node:path";

// src/fsutil.ts
import { accessSync as accessSync2, constants as constants3, mkdirSync as mkdirSync2, statSync as statSync2 } from "node:fs";
import { dirname, resolve as resolve2 } from "node:path";
var FolderError = class extends Error {
};
function makeDirs(path, mode = 493) {
  const full = resolve2(path);
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
      mkdirSync2(dir, { mode });
    } catch (error) {
      const code = error.code;
      if (code === "EEXIST" && statSync2(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw new FolderError(`${dir} cannot be made (${code ?? String(error)})`);
    }
  }
  try {
    accessSync2(full, constants3.W_OK | constants3.X_OK);
  } catch {
    throw new FolderError(`${full} is not writable by this user`);
  }
}
function checkPrivateDir(path) {
  const uid = process.getuid?.();
  if (uid === void 0) return;
  const s = statSync2(path);
  if (s.uid !== uid) throw new FolderError(`${path} belongs to uid ${s.uid}, not to this user (uid ${uid})`);
  if ((s.mode & 18) !== 0) {
    throw new FolderError(`${path} can be written by others (mode ${(s.mode & 511).toString(8).padStart(3, "0")})`);
  }
}

// src/native/facts.ts
var FACTS_FILE = "facts.json";
var MAX_FACTS = 64;
function fileIdentity(path) {
  try {
    const s = statSync3(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}
var noFacts = { get: (_program, _what, compute) => compute() };
function factsIn(cacheDir) {
  const file = join5(cacheDir, FACTS_FILE);
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
      const parsed = JSON.parse(readFileSync5(file, "utf8"));
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
      const tmp = `${file}.tmp-${process.pid}-${randomBytes3(4).toString("hex")}`;
      try {
        writeFileSync(tmp, JSON.stringify(all), { mode: 384 });
        renameSync2(tmp, file);
      } catch {
        rmSync3(tmp, { force: true });
      }
      return value;
    }
  };
}

// src/native/binaries.ts
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
    const path = join6(dir, "pg_config");
    if (existsSync2(path)) return path;
  }
  return null;
}
function realProbe(facts = noFacts) {
  return {
    platform: process.platform,
    env: process.env,
    exists: existsSync2,
    list: (dir) => {
      try {
        return readdirSync3(dir);
      } catch {
        return [];
      }
    },
    pgConfigBindir: () => {
      const pgConfig = pgConfigOnPath(process.env);
      if (!pgConfig) return null;
      return facts.get(pgConfig, "--bindir", () => {
        try {
          return execFileSync(pgConfig, ["--bindir"], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "ignore"],
            timeout: 1e4
          }).trim() || null;
        } catch {
          return null;
        }
      });
    },
    majorOf: (bindir) => {
      const postgres = join6(bindir, exe("postgres", process.platform));
      const version = facts.get(postgres, "--version", () => {
        try {
          return execFileSync(postgres, ["--version"], { encoding: "utf8", timeout: 1e4 });
        } catch {
          return null;
        }
      });
      return version === null ? null : parseMajor(version);
    }
  };
}

// src/native/initdb-cache.ts
import { randomBytes as randomBytes5 } from "node:crypto";
import { spawnSync } from "node:child_process";
import { chmodSync as chmodSync2, chownSync as chownSync2, cpSync, lstatSync as lstatSync4, mkdirSync as mkdirSync3, renameSync as renameSync4, rmSync as rmSync5, writeFileSync as writeFileSync2 } from "node:fs";
import { join as join9 } from "node:path";

// src/native/cache-key.ts
import { createHash as createHash6 } from "node:crypto";
import { homedir } from "node:os";
import { join as join7 } from "node:path";
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
var CACHE_FORMAT = 4;
function cacheKey(initdbVersion2, args) {
  return createHash6("sha256").update(JSON.stringify({ format: CACHE_FORMAT, initdbVersion: initdbVersion2.trim(), args })).digest("hex").slice(0, 32);
}
function defaultCacheDir(env = process.env) {
  if (env.PG_TMPFS_CACHE_DIR) return env.PG_TMPFS_CACHE_DIR;
  if (process.getuid?.() === 0) return "/var/cache/pg-tmpfs";
  return join7(env.XDG_CACHE_HOME || join7(homedir(), ".cache"), "pg-tmpfs");
}

// src/native/cache-removal.ts
import { randomBytes as randomBytes4 } from "node:crypto";
import { lstatSync as lstatSync3, readdirSync as readdirSync4, renameSync as renameSync3, rmSync as rmSync4 } from "node:fs";
import { join as join8 } from "node:path";
var MAX_WALK = 1e5;
function removalProblem(path) {
  let seen = 0;
  const walk = (at) => {
    const s = lstatSync3(at, { throwIfNoEntry: false });
    if (!s || !s.isDirectory()) return null;
    const problem = trustProblem(s, "folder");
    if (problem) return `${at} ${problem}`;
    for (const name of readdirSync4(at)) {
      seen += 1;
      if (seen > MAX_WALK) return `${path} holds more than ${MAX_WALK} files and folders`;
      const inner = walk(join8(at, name));
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
      rmSync4(path, { recursive: true, force: true });
      return null;
    }
    const aside = `${path.replace(/\.tmp-\d+-[0-9a-f]+$/, "")}.untrusted-${randomBytes4(4).toString("hex")}`;
    renameSync3(path, aside);
    return `left as ${aside}, not removed, because ${problem}: look at it and remove it yourself`;
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT") return null;
    return `could not remove ${path} (${code ?? String(error)}): remove it yourself`;
  }
}
function cacheNames(cacheDir) {
  try {
    return readdirSync4(cacheDir);
  } catch {
    return [];
  }
}
async function removeStaleFills(cacheDir, names = cacheNames(cacheDir)) {
  let removed = 0;
  const problems = [];
  for (const name of names) {
    const match = /\.tmp-(\d+)-[0-9a-f]+(\.manifest\.json)?$/.exec(name);
    if (!match || Number(match[1]) === process.pid || processAlive(Number(match[1]))) continue;
    const path = join8(cacheDir, name);
    const left = match[2] ? [] : await endProcessesIn(path);
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
    const entry = join8(cacheDir, name);
    const m = loadManifest(entry);
    const old = typeof m === "string" ? m.includes("no size and sha256") : m.sealedNs === void 0;
    if (!old) continue;
    if (removeTree(entry) === null) {
      rmSync4(`${entry}${MANIFEST_SUFFIX}`, { force: true });
      removed += 1;
    }
  }
  return removed;
}
function dropEntry(entry) {
  const notes = [];
  let folder = entry;
  if (removalProblem(entry) === null) {
    const aside = `${entry}.tmp-${process.pid}-${randomBytes4(4).toString("hex")}`;
    try {
      renameSync3(entry, aside);
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

// src/native/initdb-cache.ts
var VERSION_TIMEOUT_MS2 = 3e4;
var INITDB_TIMEOUT_MS = 3e5;
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
function initdbCause(output) {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  const causes = lines.filter((l) => /\b(FATAL|ERROR|PANIC)\b|^initdb: error:/.test(l));
  const picked = [.../* @__PURE__ */ new Set([...causes.slice(0, 3), lines[lines.length - 1] ?? ""])].filter(Boolean);
  return picked.join(" | ") || "no output";
}
async function ensureCluster(cacheDir, spec, runAs, stagingBase, facts = noFacts) {
  const initdb = join9(spec.bindir, exe("initdb", process.platform));
  const args = initdbArgs(spec);
  const entry = join9(cacheDir, cacheKey(initdbVersion(initdb, facts), args));
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
  const suffix = `.tmp-${process.pid}-${randomBytes5(4).toString("hex")}`;
  const fill = {
    staging: `${entry}${suffix}`,
    initdbDir: stagingBase ? join9(stagingBase, `initdb${suffix}`) : `${entry}${suffix}`
  };
  throwIfInterrupted();
  mkdirSync3(fill.initdbDir, { mode: 448 });
  if (runAs) chownSync2(fill.initdbDir, runAs.uid, runAs.gid);
  const t0 = performance.now();
  await runInitdb(initdb, args, spec, fill, runAs);
  let filled = await recordFill(cacheDir, fill);
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
    const r = spawnSync(initdb, ["--version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS2 });
    if (r.status === 0) return r.stdout;
    versionProblem = r.error ? r.error.message : initdbCause(`${r.stderr}${r.stdout}`);
    return null;
  });
  if (version === null) {
    throw new SetupError(`${initdb} --version failed: ${versionProblem}`, "Check the PostgreSQL installation");
  }
  return version;
}
async function removeFill(fill) {
  await endProcessesIn(fill.initdbDir);
  rmSync5(fill.initdbDir, { recursive: true, force: true });
  rmSync5(fill.staging, { recursive: true, force: true });
}
async function runInitdb(initdb, args, spec, fill, runAs) {
  const failed = async (problem, fix) => {
    await removeFill(fill);
    return new SetupError(problem, fix);
  };
  const result = await run(initdb, ["-D", fill.initdbDir, ...args], {
    timeoutMs: INITDB_TIMEOUT_MS,
    stopLeaderOnly: true,
    cwd: fill.initdbDir,
    ...runAs ? { uid: runAs.uid, gid: runAs.gid } : {},
    env: { LC_ALL: "", LANG: "" }
  }).catch(async (error) => {
    throw await failed(
      `initdb could not be run: ${error instanceof Error ? error.message : String(error)}`,
      "Check the PostgreSQL installation"
    );
  });
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
    writeFileSync2(`${fill.staging}${MANIFEST_SUFFIX}`, JSON.stringify(filled), { mode: 384 });
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
  rmSync5(staging, { recursive: true, force: true });
  rmSync5(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  let problem = entryProblem(entry);
  for (let i = 0; problem !== null && i < PLACE_WAIT_TRIES; i++) {
    await new Promise((resolve3) => setTimeout(resolve3, 100));
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
function placeEntry(staging, entry, data) {
  const manifest = `${entry}${MANIFEST_SUFFIX}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (lstatSync4(entry, { throwIfNoEntry: false })) return false;
    try {
      writeFileSync2(manifest, data, { flag: "wx", mode: 384 });
    } catch (error) {
      if (error.code !== "EEXIST") return false;
      const since = Date.now() - (lstatSync4(manifest, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (attempt > 0 || since < 6e4) return false;
      rmSync5(manifest, { force: true });
      continue;
    }
    try {
      renameSync4(staging, entry);
      rmSync5(`${staging}${MANIFEST_SUFFIX}`, { force: true });
      return true;
    } catch {
      rmSync5(manifest, { force: true });
      return false;
    }
  }
  return false;
}

// src/native/postgres.ts
import { execFileSync as execFileSync3, spawn } from "node:child_process";
import { chownSync as chownSync3, closeSync as closeSync3, existsSync as existsSync4, openSync as openSync3, readFileSync as readFileSync7, rmSync as rmSync6 } from "node:fs";
import { basename as basename2, join as join11 } from "node:path";
import { setTimeout as sleep4 } from "node:timers/promises";

// src/native/ramdir.ts
import { execFileSync as execFileSync2 } from "node:child_process";
import { existsSync as existsSync3, mkdtempSync, readFileSync as readFileSync6, rmdirSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute as isAbsolute3, join as join10 } from "node:path";
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
    if (!basename(mount.dir).startsWith(MOUNT_PREFIX) || !isAbsolute3(mount.dir)) return null;
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
    execFileSync2("sudo", ["-n", "true"], { stdio: "ignore", timeout: 2e3 });
    return { may: true, root };
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
    const dir = mkdtempSync(join10(tempBase(), MOUNT_PREFIX));
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
    const mounts = readFileSync6("/proc/self/mounts", "utf8");
    return mounts.split("\n").some((line) => line.split(" ")[1]?.replace(/\\040/g, " ") === dir);
  } catch {
    return true;
  }
}
async function teardownRam(mount) {
  if (!mount) return [];
  const command = unmountCommand(mount);
  if (!command) return [`Not undoing ${JSON.stringify(mount)}: it does not name a mount this project makes`];
  try {
    if (mount.kind === "ramdisk" || existsSync3(mount.dir) && isMountPoint(mount.dir)) await runCommand(command);
    if (mount.kind === "mount" && existsSync3(mount.dir)) rmdirSync(mount.dir);
    return [];
  } catch (error) {
    return [`${command.program} ${command.args.join(" ")} failed: ${error instanceof Error ? error.message : String(error)}`];
  }
}

// src/native/postgres.ts
var RUN_MARKER = ".pg-tmpfs-run";
var SERVER_LOG = "server.log";
function dataDirOf(runDir) {
  return join11(runDir, "data");
}
function runAsUser() {
  if (process.getuid?.() !== 0) return null;
  try {
    const [name, , uid, gid] = execFileSync3("getent", ["passwd", "postgres"], { encoding: "utf8", timeout: 1e4 }).trim().split(":");
    return { name: name ?? "postgres", uid: Number(uid), gid: Number(gid) };
  } catch {
    throw new SetupError(
      'PostgreSQL refuses to run as root, and there is no "postgres" user to run it as',
      "Run as a normal user, or create a postgres user (useradd postgres)"
    );
  }
}
function postgresArgs(dataDir, port, config) {
  return [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    `listen_addresses=${config.publishHost}`,
    ...settingsToArgs(nativeSettings(dataDir, config))
  ];
}
function nativeSettings(dataDir, config) {
  const settings = effectiveSettings(config.settings);
  const socket = settings.find((s) => s.name.toLowerCase() === "unix_socket_directories");
  const dsm = settings.some((s) => s.name.toLowerCase() === "dynamic_shared_memory_type");
  return [
    ...settings.filter((s) => s !== socket),
    ...dsm ? [] : [
      {
        name: "dynamic_shared_memory_type",
        value: "mmap",
        why: "parallel query segments as files in PGDATA (RAM already), removed with it even after a postmaster was killed"
      }
    ],
    {
      name: "unix_socket_directories",
      value: socket ? `${dataDir},${socket.value}` : dataDir,
      why: "the bootstrap connection uses the socket in the 0700 data directory"
    }
  ];
}
function spawnPostgres(bindir, runDir, port, config, runAs, extraEnv = {}) {
  const logFile = join11(runDir, SERVER_LOG);
  const logFd = openSync3(logFile, "a");
  if (runAs) chownSync3(logFile, runAs.uid, runAs.gid);
  const child = spawn(join11(bindir, exe("postgres", process.platform)), postgresArgs(dataDirOf(runDir), port, config), {
    detached: true,
    stdio: ["ignore", logFd, logFd],
    cwd: runDir,
    env: { ...inheritedEnv(), ...extraEnv },
    ...runAs ? { uid: runAs.uid, gid: runAs.gid } : {}
  });
  closeSync3(logFd);
  let exited = false;
  child.on("exit", () => exited = true);
  child.unref();
  return { pid: child.pid ?? 0, exited: () => exited };
}
function postmasterRunning(dataDir, pid) {
  try {
    const first = readFileSync7(join11(dataDir, "postmaster.pid"), "utf8").split("\n")[0]?.trim();
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
      readFileSync7(join11(dataDirOf(handle.runDir), "postmaster.pid"), "utf8").split("\n")[0]?.trim()
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
    const argv = readFileSync7(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return argv.includes(dataDir) && /postgres$/.test(argv[0] ?? "");
  } catch {
    return false;
  }
}
function sysvSegment(dataDir) {
  try {
    const line = readFileSync7(join11(dataDir, "postmaster.pid"), "utf8").split("\n")[6] ?? "";
    const id = Number(line.trim().split(/\s+/)[1]);
    return Number.isInteger(id) && id >= 0 && line.trim() !== "" ? id : null;
  } catch {
    return null;
  }
}
function isOurRunDir(runDir, token) {
  if (!token) return false;
  const marker = join11(runDir, RUN_MARKER);
  if (existsSync4(marker)) return readFileSync7(marker, "utf8") === token;
  return basename2(runDir).endsWith(`-${token}`);
}
function nameHasToken(handle) {
  return handle.token !== "" && basename2(handle.runDir).endsWith(`-${handle.token}`);
}
function postgresLogTail(runDir, lines = LOG_TAIL_LINES) {
  if (!runDir) return "";
  try {
    return readFileSync7(join11(runDir, SERVER_LOG), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
var PG_CTL_TIMEOUT_MS = 3e4;
var IMMEDIATE_STOP_MS = 2500;
async function stopPostgres(handle) {
  const problems = [];
  const dataDir = dataDirOf(handle.runDir);
  const pid = postmasterPid(handle);
  const segment = sysvSegment(dataDir);
  if (pid > 0 && (postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir))) {
    try {
      if (process.platform === "win32") {
        await runOk(join11(handle.bindir, exe("pg_ctl", "win32")), ["stop", "-m", "immediate", "-D", dataDir], {
          timeoutMs: PG_CTL_TIMEOUT_MS
        });
      } else {
        process.kill(pid, "SIGQUIT");
      }
      const ours2 = () => postmasterRunning(dataDir, pid) || startingPostgres(pid, dataDir);
      const deadline = Date.now() + IMMEDIATE_STOP_MS;
      while (ours2() && Date.now() < deadline) await sleep4(5);
      if (ours2()) {
        if (process.platform === "linux") problems.push(...await endProcessesIn(handle.runDir, 0));
        else process.kill(pid, "SIGKILL");
      }
      for (let i = 0; i < 200 && processAlive(pid); i++) await sleep4(5);
    } catch (error) {
      problems.push(`Could not stop postgres (pid ${pid}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const ours = handle.runDir !== "" && (existsSync4(handle.runDir) ? isOurRunDir(handle.runDir, handle.token) : nameHasToken(handle));
  if (ours) problems.push(...await endProcessesIn(handle.runDir));
  if (segment !== null) problems.push(...await removeSysvSegment(segment));
  if (handle.runDir && existsSync4(handle.runDir)) {
    if (ours) {
      rmSync6(handle.runDir, { recursive: true, force: true });
    } else {
      problems.push(`Not removing ${handle.runDir}: it does not carry this run's marker`);
    }
  }
  problems.push(...await teardownRam(handle.ram));
  if (handle.cacheDir) problems.push(...(await removeStaleFills(handle.cacheDir)).problems);
  return problems;
}
function hbaConf(listen) {
  return [
    "# Written by pg-tmpfs for this run.",
    "local all all peer map=pg_tmpfs",
    // The schema cache copies the cluster after init with pg_basebackup (schema-cache/native.ts).
    "local replication all peer map=pg_tmpfs",
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

// src/native/start.ts
import { randomBytes as randomBytes6 } from "node:crypto";
import { chownSync as chownSync4, mkdirSync as mkdirSync4, readFileSync as readFileSync9, writeFileSync as writeFileSync4 } from "node:fs";
import { join as join14 } from "node:path";
import { performance as performance4 } from "node:perf_hooks";

// src/native/place-cluster.ts
import { renameSync as renameSync5, rmSync as rmSync7, writeFileSync as writeFileSync3 } from "node:fs";
import { userInfo } from "node:os";
import { join as join12 } from "node:path";
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
  let cache = await ensureCluster(cacheDir, spec, runAs, handle.runDir, facts);
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
      rmSync7(dataDir, { recursive: true, force: true });
      const note = dropEntry(cache.entry);
      cache = {
        ...await ensureCluster(cacheDir, spec, runAs, handle.runDir, facts),
        dropped: note ? `${error.message}; ${note}` : error.message
      };
      report(cache);
      throwIfInterrupted();
      later = place(cache);
    }
  } catch (error) {
    throw copyError(error, config, dataDir);
  }
  writeFileSync3(join12(dataDir, "pg_hba.conf"), hbaConf(config.publishHost));
  writeFileSync3(join12(dataDir, "pg_ident.conf"), identConf(osUsers(runAs), config.user));
  const entry = cache.entry;
  const copyTemplates = () => {
    try {
      copyLater(entry, cache.manifest, dataDir, runAs, later, join12(handle.runDir, "templates.tmp"));
    } catch (error) {
      if (error instanceof DamagedEntryError) throw new TemplatesNotUsed(error, dropEntry(entry));
      throw copyError(error, config, dataDir);
    }
  };
  phases.end("copy");
  return { cache, copyTemplates };
}
function restoreCluster(entry, handle, config, runAs) {
  const dataDir = dataDirOf(handle.runDir);
  try {
    copyCluster(entry.dir, entry.manifest, dataDir, runAs);
  } catch (error) {
    if (error instanceof DamagedEntryError) {
      rmSync7(dataDir, { recursive: true, force: true });
      throw error;
    }
    throw copyError(error, config, dataDir);
  }
  writeFileSync3(join12(dataDir, "pg_hba.conf"), hbaConf(config.publishHost));
  writeFileSync3(join12(dataDir, "pg_ident.conf"), identConf(osUsers(runAs), config.user));
}
function osUsers(runAs) {
  let me;
  try {
    me = userInfo().username;
  } catch {
    throw new SetupError(
      `This process's user (uid ${process.getuid?.() ?? "?"}) has no name in the user database, which peer authentication needs`,
      "Run as a user listed in /etc/passwd"
    );
  }
  return runAs ? [me, runAs.name] : [me];
}

// src/schema-cache/native.ts
import { execFileSync as execFileSync4 } from "node:child_process";
import { createHash as createHash7 } from "node:crypto";
import { readdirSync as readdirSync5, readFileSync as readFileSync8 } from "node:fs";
import { join as join13 } from "node:path";
var PROBE_TIMEOUT_MS = 1e4;
var SNAPSHOT_TIMEOUT_MS2 = 6e5;
function ask(facts, program, args) {
  return facts.get(program, args.join(" "), () => {
    try {
      return execFileSync4(program, args, {
        encoding: "utf8",
        timeout: PROBE_TIMEOUT_MS,
        stdio: ["ignore", "pipe", "ignore"]
      }).trim();
    } catch {
      return null;
    }
  }) ?? "";
}
function nativeIdentity(bins, config, facts) {
  const version = ask(facts, join13(bins.bindir, exe("postgres", process.platform)), ["--version"]);
  if (!version) throw new SetupError(`${bins.bindir}/postgres --version failed`, "Check the PostgreSQL installation");
  const sharedir = ask(facts, join13(bins.bindir, exe("pg_config", process.platform)), ["--sharedir"]);
  const extensionControls = {};
  const folder = sharedir ? join13(sharedir, "extension") : "";
  let names = [];
  try {
    names = folder ? readdirSync5(folder).filter((n) => n.endsWith(".control")) : [];
  } catch {
  }
  for (const name of [...names.map((n) => n.slice(0, -".control".length)), ...config.extensions].sort()) {
    if (name in extensionControls) continue;
    if (!folder) {
      extensionControls[name] = "";
      continue;
    }
    try {
      extensionControls[name] = createHash7("sha256").update(readFileSync8(join13(folder, `${name}.control`))).digest("hex");
    } catch {
      extensionControls[name] = "";
    }
  }
  return {
    mode: "native",
    version,
    bindir: bins.bindir,
    arch: process.arch,
    initdbArgs: initdbArgs({ bindir: bins.bindir, user: config.user, locale: config.locale }),
    extensionControls
  };
}
async function snapshotNative(server, dest) {
  const result = await run(
    join13(server.bindir, exe("pg_basebackup", process.platform)),
    [
      "-D",
      dest,
      "-X",
      "fetch",
      "-c",
      "fast",
      "-N",
      ...noManifest(server.serverVersion),
      "-h",
      server.socketDirectory,
      "-p",
      String(server.connection.port),
      "-U",
      server.connection.user
    ],
    { timeoutMs: SNAPSHOT_TIMEOUT_MS2, env: { PGAPPNAME: "pg-tmpfs schema cache" }, unsetEnv: ["PGPASSWORD", "PGOPTIONS"] }
  );
  if (result.code === 0) return;
  const text = `${result.stderr}${result.stdout}`.trim();
  if (/wal_level|max_wal_senders|number of requested standby connections/i.test(text)) {
    throw new SetupError(
      `the cluster cannot be copied while it runs: ${text}`,
      "Remove wal_level=minimal or max_wal_senders=0 from input 'settings' (the schema cache copies the cluster with pg_basebackup)"
    );
  }
  throw new SetupError(
    result.timedOut ? `pg_basebackup did not finish within ${SNAPSHOT_TIMEOUT_MS2 / 1e3} s` : `pg_basebackup failed: ${text}`,
    "See its message"
  );
}

// src/native/start.ts
var MAX_SOCKET_PATH = 107;
function checkSocketPath(dataDir, port) {
  const path = join14(dataDir, `.s.PGSQL.${port}`);
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
  const warnings = [];
  const listen = config.settings.find((s) => s.name.toLowerCase() === "listen_addresses");
  if (listen && !listen.value.split(",").every((a) => isLoopback(a.trim()))) {
    warnings.push(
      `Setting listen_addresses=${listen.value} makes PostgreSQL listen beyond this machine's loopback (it overrides input 'publish-host'); only password (scram-sha-256) connections from loopback are allowed by pg_hba.conf`
    );
  }
  return [
    ...warnings,
    ...publishHostWarnings(config.publishHost),
    ...defaultPasswordWarnings(config.password, config.publishHost)
  ];
}
function makeRunDir(handle, runAs) {
  throwIfInterrupted();
  mkdirSync4(handle.runDir, { mode: 448 });
  writeFileSync4(join14(handle.runDir, RUN_MARKER), handle.token);
  if (runAs) chownSync4(handle.runDir, runAs.uid, runAs.gid);
}
async function bootstrap(config, handle, port, exited, verifier, restored) {
  const local = await waitForQuery(
    // A restored cluster may lack `postgres` (an init may drop it); template1 is always there.
    { host: dataDirOf(handle.runDir), port, user: config.user, password: "", database: restored ? "template1" : "postgres" },
    {
      timeoutMs: config.waitTimeoutMs,
      // A failed attempt on a socket costs well under a ms: poll often, the answer comes a few
      // ms after postgres creates its socket.
      intervalMs: 2,
      isAlive: async () => !exited() && processAlive(handle.pid),
      aliveEveryMs: 50
    }
  );
  try {
    const c = local.client;
    await c.query(`ALTER ROLE ${c.escapeIdentifier(config.user)} PASSWORD ${c.escapeLiteral(verifier)}`);
    if (config.database !== "postgres" && !restored) await c.query(`CREATE DATABASE ${c.escapeIdentifier(config.database)}`);
    return c;
  } catch (error) {
    await local.client.end().catch(() => void 0);
    throw error;
  }
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
      if (process.platform === "linux") return filesystemTypeOf(dir, readFileSync9("/proc/mounts", "utf8")) ?? "unknown";
      return plan.kind === "ramdisk" ? "ramdisk" : "disk";
    },
    plan.kind !== "disk"
  );
  return { ...verified, tmpfs: isRamFilesystem(verified.filesystem) || verified.filesystem === "ramdisk" };
}
async function startNative(config, log, onHandle = () => void 0, binaries, phases = new Phases(), schema = null) {
  if (config.imageGiven) {
    throw new InputError(
      "image",
      "native mode runs the installed binaries, and an image or registry was given",
      "Remove the image and registry inputs, or use mode: docker (mode auto picks Docker when an image is given)"
    );
  }
  const cacheDir = config.cacheDir || defaultCacheDir();
  prepareCacheDir(cacheDir);
  for (const problem of (await removeStaleFills(cacheDir)).problems) log.warning(problem);
  const facts = factsIn(cacheDir);
  const bins = binaries ?? findBinaries(config.major, realProbe(facts));
  log.info(`PostgreSQL ${bins.major} binaries: ${bins.bindir} (${bins.source})`);
  const runAs = runAsUser();
  if (runAs) log.info(`Running as root: postgres runs as user ${runAs.name}`);
  phases.end("binaries, run-as user, cache folder");
  const port = await choosePort(config.publishHost, config.port);
  phases.end("port");
  const warnings = listenWarnings(config);
  for (const w of warnings) log.warning(w);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(config, log, onHandle, { bins, port, warnings, cacheDir, runAs, facts, phases, schema });
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
    token: randomBytes6(4).toString("hex"),
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
    handle.runDir = join14(ram.base, `${config.containerName}-${handle.token}`);
    checkSocketPath(dataDirOf(handle.runDir), port);
    record();
    makeRunDir(handle, runAs);
    phases.end("RAM folder and run folder");
    const restored = schema ? await restoreSchema(schema, bins, config, facts, handle, runAs) : false;
    if (restored) phases.end("schema cache restore");
    const { cache, copyTemplates } = restored ? { cache: { hit: true }, copyTemplates: () => void 0 } : await placeCluster(config, bins, handle, runAs, log, phases, facts);
    throwIfInterrupted();
    const postgres = spawnPostgres(bins.bindir, handle.runDir, port, config, runAs);
    handle.pid = postgres.pid;
    record();
    phases.end("spawn postgres");
    copyTemplates();
    phases.end("copy of the template databases");
    const notReady = (error) => {
      if (error instanceof NotReadyError) throw notReadyError(error, postgresLogTail(handle.runDir));
      throw error;
    };
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
      const startupMs = Math.round(performance4.now());
      log.info(`Answered a query after ${startupMs} ms: PostgreSQL ${tcp.value.serverVersion}`);
      return {
        ...handle,
        connection,
        serverVersion: tcp.value.serverVersion,
        ...verified.value,
        warnings,
        startupMs,
        socketDirectory: dataDirOf(handle.runDir),
        cacheHit: cache.hit,
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
  const flush = (stream, chunk2, end = false) => {
    pending[stream] += chunk2;
    const lines = pending[stream].split("\n");
    pending[stream] = end ? "" : lines.pop() ?? "";
    for (const line of lines) if (!end || line !== "") log.info(line);
  };
  const result = await run("sh", ["-c", config.initCommand], {
    timeoutMs: config.initTimeoutMs,
    cwd: config.workDir,
    env: { ...connectionEnv(connection), ...runToken ? { [RUN_ENV]: runToken } : {} },
    // libpq variables that would send the command elsewhere than the server just started.
    unsetEnv: ["PGHOSTADDR", "PGSERVICE", "PGSERVICEFILE", "PGOPTIONS", "PGSSLMODE", "PGPASSFILE", "PGREQUIRESSL"],
    onOutput: (chunk2, stream) => flush(stream, chunk2),
    endGroupOnExit: true
  });
  flush("stdout", "", true);
  flush("stderr", "", true);
  const escaped = runToken ? processesWithEnv(RUN_ENV, runToken).map((p) => p.pid) : [];
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
import { randomBytes as randomBytes7 } from "node:crypto";
import { chmodSync as chmodSync3, lstatSync as lstatSync5, mkdirSync as mkdirSync5, readdirSync as readdirSync6, rmSync as rmSync8, utimesSync, writeFileSync as writeFileSync5 } from "node:fs";
import { join as join15 } from "node:path";
var DEFAULT_STORE_MAX_BYTES = 2 * 1024 ** 3;
function storeDir(cacheDir) {
  return join15(cacheDir, "schema");
}
function lookup(cacheDir, key) {
  const store = storeDir(cacheDir);
  prepareCacheDir(cacheDir);
  prepareCacheDir(store);
  const dir = join15(store, key);
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
  const staging = join15(store, `${key}.tmp-${process.pid}-${randomBytes7(4).toString("hex")}`);
  mkdirSync5(staging, { mode: 448 });
  try {
    const written = await fill(staging);
    chmodSync3(staging, 448);
    const manifest = written ?? listFiles(staging);
    const text = JSON.stringify(manifest);
    writeFileSync5(`${staging}${MANIFEST_SUFFIX}`, text, { mode: 384 });
    const dir = join15(store, key);
    if (!placeEntry(staging, dir, text)) return null;
    return { dir, bytes: entryBytes(manifest) };
  } finally {
    rmSync8(staging, { recursive: true, force: true });
    rmSync8(`${staging}${MANIFEST_SUFFIX}`, { force: true });
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
    const found = checkEntry(join15(store, key));
    if (!found || "problem" in found) continue;
    const used = lstatSync5(join15(store, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    entries.push({ key, bytes: entryBytes(found.manifest), used });
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const removed = [];
  for (const e of entries.sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    if (e.key === keep) continue;
    if (dropEntry(join15(store, e.key)) === null) {
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
   */
  damaged(problem) {
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

// src/schema-cache/restored.ts
var ForeignEntryError = class extends Error {
  constructor(problem) {
    super(problem);
    this.name = "ForeignEntryError";
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
    if ((found.get(config.database) ?? false) !== config.template) {
      throw new ForeignEntryError(`database ${config.database} is ${config.template ? "not " : ""}a template`);
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

// src/schema-cache/save.ts
var TIMEOUTS = { connectTimeoutMs: 1e4, queryTimeoutMs: 6e4 };
var NAMED = 5;
async function unloggedRelations(server) {
  const first = await openClient(server.connection, TIMEOUTS);
  let databases;
  try {
    databases = (await first.query("SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1")).rows.map((r) => r.datname);
  } finally {
    await first.end().catch(() => void 0);
  }
  const found = [];
  for (const database of databases) {
    const client = await openClient({ ...server.connection, database }, TIMEOUTS);
    try {
      const rows = await client.query(
        `SELECT format('%s.%s.%s', current_database(), n.nspname, c.relname) AS name
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relpersistence = 'u' AND c.relkind IN ('r', 'S', 'm', 'p') ORDER BY 1`
      );
      found.push(...rows.rows.map((r) => r.name));
    } finally {
      await client.end().catch(() => void 0);
    }
  }
  return found;
}
function unloggedProblem(relations) {
  const named = relations.slice(0, NAMED).join(", ");
  const more = relations.length > NAMED ? ` and ${relations.length - NAMED} more` : "";
  return `the cluster has UNLOGGED relations (${named}${more}), which a copy of a running server holds empty; make them logged in init (ALTER TABLE \u2026 SET LOGGED; Rails: create_unlogged_tables = false), or turn schema-cache off`;
}
async function withoutPassword(server, copy) {
  const client = await openClient(server.connection, TIMEOUTS);
  const role = client.escapeIdentifier(server.connection.user);
  try {
    await client.query(`ALTER ROLE ${role} PASSWORD NULL`);
    try {
      return await copy();
    } finally {
      await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(scramVerifier(server.connection.password))}`);
    }
  } finally {
    await client.end().catch(() => void 0);
  }
}
async function saveCluster(server, dir) {
  const unlogged = await unloggedRelations(server);
  if (unlogged.length) throw new Error(unloggedProblem(unlogged));
  return withoutPassword(
    server,
    () => server.mode === "native" ? snapshotNative(server, dir) : snapshotDocker(server, dir)
  );
}

// src/lifecycle.ts
async function chooseMode(config, log, probe = realProbe(factsIn(config.cacheDir || defaultCacheDir()))) {
  if (config.mode !== "auto") return { mode: config.mode };
  const installed = installedBinaries(probe);
  if (!config.imageGiven) {
    const match = config.major === null ? installed[0] : installed.find((b) => b.major === config.major);
    if (match) {
      log.info(`mode auto: native (PostgreSQL ${match.major} binaries in ${match.bindir})`);
      return { mode: "native", binaries: match };
    }
  }
  try {
    await engineVersion();
    log.info(
      config.imageGiven ? "mode auto: docker (an image or registry was given)" : `mode auto: docker (no PostgreSQL ${config.major ?? ""} binaries installed)`
    );
    return { mode: "docker" };
  } catch (error) {
    const found = installed.length ? `found majors ${installed.map((b) => b.major).join(", ")}` : "found none";
    throw new SetupError(
      `mode auto: no PostgreSQL ${config.major ?? ""} server binaries (${found})${config.imageGiven ? " (and an image or registry was given)" : ""}, and Docker did not answer (${error instanceof SetupError ? error.problem : String(error)})`.replace(
        "  ",
        " "
      ),
      `Install PostgreSQL ${config.major ?? ""} server binaries or start Docker, or set 'postgres-version' to an installed major`.replace(
        "  ",
        " "
      )
    );
  }
}
async function planStart(config, log) {
  await loadInitFiles(config);
  const chosen = await chooseMode(config, log);
  const who = { user: config.user, password: config.password, database: config.database };
  if (chosen.mode === "native" && config.imageGiven) {
    throw new InputError(
      "image",
      "native mode runs the installed binaries, and an image or registry was given",
      "Remove the image and registry inputs, or use mode: docker (mode auto picks Docker when an image is given)"
    );
  }
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
  return { config: { ...config, mode: "native", port }, connection: { host: clientHost(config.publishHost), port, ...who } };
}
async function start(config, log, onHandle = () => void 0, phases = new Phases(), remote = null) {
  const initFiles = await loadInitFiles(config);
  const schema = await SchemaCache.prepare(config, initFiles, config.cacheDir || defaultCacheDir(), log, remote);
  const chosen = await chooseMode(config, log);
  phases.end("mode");
  const store = schema ? storeDir(schema.cacheDir) : void 0;
  const recordHandle = (h) => onHandle(store ? { ...h, schemaStore: store } : h);
  for (; ; ) {
    let server = null;
    try {
      server = chosen.mode === "native" ? await startNative(config, log, recordHandle, chosen.binaries, phases, schema) : await startDocker(config, log, recordHandle, phases, schema);
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
        await schema.save((dir) => saveCluster(started, dir));
        phases.end("schema cache save");
      }
    } catch (error) {
      if (server) for (const problem of await stop(server)) log.warning(problem);
      if (!schema?.hit || error instanceof InputError || error instanceof InterruptedError) throw error;
      schema.damaged(error instanceof Error ? error.message : String(error));
      continue;
    }
    if (schema) server.schemaCache = schema.result();
    return server;
  }
}
async function stop(handle) {
  try {
    const problems = await endMarkedProcesses(handle.token);
    if (handle.mode === "native") problems.push(...await stopPostgres(handle));
    else {
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
async function logTail(handle, lines = LOG_TAIL_LINES) {
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
      names = readdirSync7(base).filter((n) => n.startsWith(`${containerName}-`));
    } catch {
      continue;
    }
    for (const n of names) {
      const runDir = join16(base, n);
      let token;
      try {
        token = readFileSync10(join16(runDir, RUN_MARKER), "utf8");
      } catch {
        continue;
      }
      if (n !== `${containerName}-${token}`) continue;
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
  return { removed, problems };
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
      async (signal2) => {
        log.warning(`Interrupted by ${signal2}: removing what was started`);
        const problems = handle ? await stop(handle) : [];
        if (options.sweepName) problems.push(...(await sweepLeftovers(options.sweepName)).problems);
        for (const problem of problems) log.warning(problem);
        sink.saveFailure(failure(sink.interruptedError(signal2), handle, problems, true));
      },
      { untilExit: options.untilExit }
    );
  } catch (error) {
    const problems = handle ? await stop(handle) : [];
    sink.saveFailure(failure(error, handle, problems, false));
    throw error;
  }
}
function failure(error, handle, problems, interrupted) {
  return { error, record: errorRecord(error), interrupted, left: handle && problems.length ? { handle, problems } : null };
}

export {
  openClient,
  LOG_TAIL_LINES,
  Phases,
  MANIFEST_SUFFIX,
  FolderError,
  makeDirs,
  checkPrivateDir,
  planStart,
  stop,
  isAlive,
  logTail,
  describe,
  sweepLeftovers,
  guardedStart
};
//# sourceMappingURL=chunk-cli-main-post.js.map
