/**
 * Where a native server listens and who may reach it: the socket path's limit, the address
 * clients use, and the warnings for a server reachable beyond loopback.
 */
import { join } from 'node:path';
import { defaultPasswordWarnings, publishHostWarnings } from '../../connection.js';
import { InputError } from '../../errors.js';
import type { Config } from '../../inputs.js';

/** Longest Unix socket path PostgreSQL accepts (sizeof(sun_path) - 1 on Linux). */
const MAX_SOCKET_PATH = 107;

/**
 * Checks that the socket `<dataDir>/.s.PGSQL.<port>` fits a Unix socket address; PostgreSQL
 * otherwise fails with "could not create any Unix-domain sockets". Native mode has no container:
 * the part of that path the user controls is the run folder, `<RAM folder>/<container-name>-<token>` (run-folder.ts).
 * @throws InputError (container-name: the run folder's name; the CLI maps it to `--name`) when the path is too long
 */
export function checkSocketPath(dataDir: string, port: number): void {
  const path = join(dataDir, `.s.PGSQL.${port}`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new InputError(
      'container-name',
      `the server's socket path ${path} would be ${Buffer.byteLength(path)} bytes, more than the ${MAX_SOCKET_PATH} a Unix socket allows (native mode names its run folder after container-name)`,
      'Use a shorter container-name (the CLI: a shorter --name)',
    );
  }
}

/** The address clients use for a server listening on `publishHost` (a wildcard: loopback of its family). */
export function clientHost(publishHost: string): string {
  if (publishHost === '0.0.0.0') return '127.0.0.1';
  if (publishHost === '::') return '::1';
  return publishHost;
}

/**
 * Warnings for a server reachable from other hosts: publish-host not loopback (listen_addresses
 * cannot be given in settings: profile.ts OWNED_SETTINGS), and the default password.
 */
export function listenWarnings(config: Pick<Config, 'publishHost' | 'password'>): string[] {
  return [...publishHostWarnings(config.publishHost), ...defaultPasswordWarnings(config.password, config.publishHost)];
}
