import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  require_splitQuery
} from "./chunk-UR3RZWTY.js";
import "./chunk-AQB342A3.js";
export default require_splitQuery();
//# sourceMappingURL=chunk-QAPC3VK2.js.map
