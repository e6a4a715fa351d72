import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  debug,
  group,
  info,
  warning
} from "./chunk-QCPZVCA7.js";

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

// src/connection.ts
function connectionUri(c) {
  const host = c.host.includes(":") ? `[${c.host}]` : c.host;
  const enc = encodeURIComponent;
  return `postgresql://${enc(c.user)}:${enc(c.password)}@${host}:${c.port}/${enc(c.database)}`;
}
function connectionEnv(c) {
  return {
    DATABASE_URL: connectionUri(c),
    PGHOST: c.host,
    PGPORT: String(c.port),
    PGUSER: c.user,
    PGPASSWORD: c.password,
    PGDATABASE: c.database
  };
}

export {
  actionsLogger,
  consoleLogger,
  connectionUri,
  connectionEnv
};
//# sourceMappingURL=chunk-26JGA7VY.js.map
