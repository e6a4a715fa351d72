import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_options,
  require_splitQuery
} from "./chunk-dbgate-query-splitter-main-post-splitQuery.js";
import {
  __commonJS
} from "./chunk-common.js";

// node_modules/dbgate-query-splitter/lib/queryParamHandler.js
var require_queryParamHandler = __commonJS({
  "node_modules/dbgate-query-splitter/lib/queryParamHandler.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    exports.replaceQueryParameters = exports.extractQueryParameters = void 0;
    var splitQuery_1 = require_splitQuery();
    function createParameterizerContext(sql, options) {
      return {
        options,
        source: sql,
        position: 0,
        currentDelimiter: (0, splitQuery_1.getInitialDelimiter)(options),
        end: sql.length,
        wasDataOnLine: false,
        isCopyFromStdin: false,
        isCopyFromStdinCandidate: false,
        beginEndIdentLevel: 0
      };
    }
    function extractQueryParameters(sql, options) {
      if (!sql || !options) {
        return [];
      }
      const context = createParameterizerContext(sql, options);
      const res = /* @__PURE__ */ new Set();
      while (context.position < context.end) {
        const token = (0, splitQuery_1.scanToken)(context);
        if (token === null) {
          break;
        }
        if (token.type === "parameter") {
          if (token.value == "?") {
            res.add(`?${res.size + 1}`);
          } else {
            res.add(token.value);
          }
        }
        context.position += token.length;
      }
      return Array.from(res);
    }
    exports.extractQueryParameters = extractQueryParameters;
    function replaceQueryParameters(sql, params, options) {
      if (!sql || !options) {
        return sql;
      }
      const context = createParameterizerContext(sql, options);
      let res = "";
      let questionParamCounter = 0;
      while (context.position < context.end) {
        const token = (0, splitQuery_1.scanToken)(context);
        if (token === null) {
          break;
        }
        if (token.type === "parameter") {
          const paramName = token.value == "?" ? `?${++questionParamCounter}` : token.value;
          if (params[paramName]) {
            res += params[paramName];
          } else {
            res += sql.substring(context.position, context.position + token.length);
          }
        } else {
          res += sql.substring(context.position, context.position + token.length);
        }
        context.position += token.length;
      }
      return res;
    }
    exports.replaceQueryParameters = replaceQueryParameters;
  }
});

// node_modules/dbgate-query-splitter/lib/index.js
var require_lib = __commonJS({
  "node_modules/dbgate-query-splitter/lib/index.js"(exports) {
    var __createBinding = exports && exports.__createBinding || (Object.create ? (function(o, m, k, k2) {
      if (k2 === void 0) k2 = k;
      var desc = Object.getOwnPropertyDescriptor(m, k);
      if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
        desc = { enumerable: true, get: function() {
          return m[k];
        } };
      }
      Object.defineProperty(o, k2, desc);
    }) : (function(o, m, k, k2) {
      if (k2 === void 0) k2 = k;
      o[k2] = m[k];
    }));
    var __exportStar = exports && exports.__exportStar || function(m, exports2) {
      for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports2, p)) __createBinding(exports2, m, p);
    };
    Object.defineProperty(exports, "__esModule", { value: true });
    exports.replaceQueryParameters = exports.extractQueryParameters = exports.splitQuery = void 0;
    var splitQuery_1 = require_splitQuery();
    Object.defineProperty(exports, "splitQuery", { enumerable: true, get: function() {
      return splitQuery_1.splitQuery;
    } });
    var queryParamHandler_1 = require_queryParamHandler();
    Object.defineProperty(exports, "extractQueryParameters", { enumerable: true, get: function() {
      return queryParamHandler_1.extractQueryParameters;
    } });
    Object.defineProperty(exports, "replaceQueryParameters", { enumerable: true, get: function() {
      return queryParamHandler_1.replaceQueryParameters;
    } });
    __exportStar(require_options(), exports);
  }
});
export default require_lib();
//# sourceMappingURL=chunk-dbgate-query-splitter.js.map
