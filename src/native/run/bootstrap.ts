/**
 * A native server's first connection, made by the start as soon as postgres answers: over the
 * Unix socket with peer authentication, or on Windows over TCP with the cluster's bootstrap
 * password (windows.ts). It sets the run's password and creates the database.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { Config } from '../../inputs.js';
import { processAlive } from '../../processes.js';
import { waitForQuery } from '../../readiness.js';
import type { NativeHandle } from '../../server.js';
import { clientHost } from './listen.js';
import { dataDirOf } from './postgres.js';
import { hbaConf } from './server-config.js';
import { dropBootstrapSecret, hasPeerSocket, readBootstrapSecret } from './windows.js';

/**
 * The first query goes through the Unix socket (peer authentication, this process's OS user),
 * polled every 2 ms; on Windows (no socket, no peer: windows.ts) over TCP with the cluster's
 * bootstrap password, which is removed after. It sets the password (as a SCRAM verifier: the
 * password itself is never sent, so no server log can show it) and creates the database (unless
 * `restored`: a schema-cache entry has it).
 * @throws NotReadyError as waitForQuery; SetupError when a Windows cluster has no bootstrap password
 */
export async function bootstrap(
  config: Config,
  handle: NativeHandle,
  port: number,
  exited: () => boolean,
  verifier: string,
  restored: boolean,
): Promise<pg.Client> {
  const dataDir = dataDirOf(handle.runDir);
  const peer = hasPeerSocket();
  const local = await waitForQuery(
    {
      host: peer ? dataDir : clientHost(config.publishHost),
      port,
      user: config.user,
      password: peer ? '' : readBootstrapSecret(dataDir),
      // A restored cluster may lack `postgres` (an init may drop it); template1 is always there.
      database: restored ? 'template1' : 'postgres',
    },
    {
      timeoutMs: config.waitTimeoutMs,
      // A failed attempt on a socket costs well under a ms: poll often, the answer comes a few
      // ms after postgres creates its socket.
      intervalMs: 2,
      // Windows: pg_ctl has already waited for the server, whose PID may be unreadable (0).
      isAlive: async () => !exited() && ((process.platform === 'win32' && handle.pid === 0) || processAlive(handle.pid)),
      aliveEveryMs: 50,
    },
  );
  try {
    const c = local.client;
    await c.query(`ALTER ROLE ${c.escapeIdentifier(config.user)} PASSWORD ${c.escapeLiteral(verifier)}`);
    if (!peer) {
      dropBootstrapSecret(dataDir);
      // Now that the password is the run's: what publish-host allows (place-cluster.ts placed bootstrapHbaConf).
      writeFileSync(join(dataDir, 'pg_hba.conf'), hbaConf(config.publishHost));
      await c.query('SELECT pg_reload_conf()');
    }
    // A restored schema-cache entry has the database already.
    if (config.database !== 'postgres' && !restored) await c.query(`CREATE DATABASE ${c.escapeIdentifier(config.database)}`);
    return c;
  } catch (error) {
    await local.client.end().catch(() => undefined);
    throw error;
  }
}
