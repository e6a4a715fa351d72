import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);

// src/version.ts
var VERSION = "1.0.0";

export {
  VERSION
};
//# sourceMappingURL=chunk-cli-main-wait.js.map
