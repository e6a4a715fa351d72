import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);
import {
  getState,
  saveState
} from "./chunk-F23F6TYD.js";

// src/action/state.ts
var STATE = Object.freeze({
  /** JSON of the ServerHandle: the container, or the postgres process and run folder, to remove. */
  server: "server"
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

export {
  saveHandle,
  savedHandle
};
//# sourceMappingURL=chunk-2YB3H63B.js.map
