import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_splitQuery
} from "./chunk-dbgate-query-splitter-main-post-splitQuery.js";
import "./chunk-common.js";
export default require_splitQuery();
//# sourceMappingURL=chunk-splitQuery.js.map
