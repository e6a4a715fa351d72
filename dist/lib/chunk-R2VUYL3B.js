import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  debug,
  group,
  info,
  warning
} from "./chunk-F23F6TYD.js";

// src/log.ts
var actionsLogger = {
  info: (m) => info(m),
  warning: (m) => warning(m),
  debug: (m) => debug(m),
  group: (name, fn) => group(name, fn)
};
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

export {
  actionsLogger,
  consoleLogger
};
//# sourceMappingURL=chunk-R2VUYL3B.js.map
