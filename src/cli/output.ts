/**
 * What the CLI prints: where it writes (Io), an error as the CLI prints it, and `up --json`.
 * Shared by every command; imports nothing of the commands (no cycles).
 */
import { connectionUri } from '../connection.js';
import { InputError, SetupError } from '../errors.js';
import type { Server } from '../server.js';

/** Where the program writes: stdout for results (export lines, JSON), stderr for everything else. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own streams. */
export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** The error as the CLI prints it: `error: --INPUT: problem. fix`, the server log first when there is one. */
export function formatError(error: unknown): string {
  if (error instanceof InputError) {
    return `${error.detail ? `--- ${error.detailTitle} ---\n${error.detail}\n---\n` : ''}error: --${error.input}: ${error.problem}. ${error.fix}\n`;
  }
  if (error instanceof SetupError) {
    return `${error.detail ? `--- server log ---\n${error.detail}\n---\n` : ''}error: ${error.message}\n`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}\n`;
}

/** What `up --json` prints: the connection, its URI, and what was measured. */
export function upJson(name: string, server: Server): Record<string, unknown> {
  return {
    name,
    mode: server.mode,
    connectionUri: connectionUri(server.connection),
    ...server.connection,
    containerId: server.mode === 'docker' ? server.containerId : undefined,
    serverVersion: server.serverVersion,
    binariesSource: server.binariesSource,
    dataDirectory: server.dataDirectory,
    filesystem: server.filesystem,
    tmpfs: server.tmpfs,
    socketDirectory: server.mode === 'native' ? server.socketDirectory : undefined,
    cacheHit: server.mode === 'native' ? server.cacheHit : undefined,
    startupMs: server.startupMs,
    pullMs: server.mode === 'docker' ? server.pullMs : undefined,
    settings: server.settings,
    databases: server.provisioned?.databases ?? {},
    templateDatabase: server.provisioned?.templateDatabase || undefined,
    schemaCacheHit: server.schemaCache ? server.schemaCache.hit : undefined,
    schemaCacheKey: server.schemaCache?.key,
    pool: server.pool,
  };
}
