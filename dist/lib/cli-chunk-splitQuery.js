import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import{b as a}from"./cli-chunk-cli-dbgate-query-splitter-splitQuery.js";import"./cli-chunk-common.js";export default a();
//# sourceMappingURL=cli-chunk-splitQuery.js.map
