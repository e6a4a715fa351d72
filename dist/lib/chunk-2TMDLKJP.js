import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_splitQuery
} from "./chunk-64BGE7FR.js";
import "./chunk-AQB342A3.js";
export default require_splitQuery();
//# sourceMappingURL=chunk-2TMDLKJP.js.map
