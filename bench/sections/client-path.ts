/**
 * Section 4: the client path. The same containerised server (the action's image, tmpfs and
 * settings) reached three ways, select-only latency with one client:
 *   - TCP through the port docker publishes on 127.0.0.1 (docker-proxy relays it);
 *   - TCP on 127.0.0.1 with the container on the host network (`--network host`);
 *   - the Unix socket, its folder bind-mounted from the container.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import getPort from 'get-port';
import { compare } from '../lib/compare.js';
import { imageLayout } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { startDockerServer, type DockerServer } from '../lib/docker-server.js';
import { pgbenchInit } from '../lib/pgbench.js';
import type { BenchServer } from '../lib/pgserver.js';
import { WORKLOADS } from '../lib/workloads.js';

export async function runClientPath(ctx: Context): Promise<void> {
  const image = ctx.options.image;
  const layout = await imageLayout(image);
  const containers: DockerServer[] = [];
  try {
    // A: the action's flags (published port), plus the socket folder bind-mounted to the host. The
    // folder is on disk (a socket's traffic never touches it): the daemon resolves a bind mount's
    // path in its own mount namespace, where a /dev/shm of the run's own (the isolated test lane's)
    // is not the same folder.
    const sockDir = mkdtempSync(join(ctx.diskWork, 'socket-'));
    chmodSync(sockDir, 0o777);
    const a = await startDockerServer(ctx, {
      name: `${ctx.prefix}-path-bridge`,
      image,
      layout,
      extraOptions: ['--volume', `${sockDir}:/var/run/postgresql`],
      pollMs: 20,
    });
    containers.push(a);
    // B: the same on the host network, listening on 127.0.0.1 at a free port only.
    const b = await startDockerServer(ctx, {
      name: `${ctx.prefix}-path-host`,
      image,
      layout,
      hostNetworkPort: await getPort({ host: '127.0.0.1' }),
      pollMs: 20,
    });
    containers.push(b);
    const { user, password } = a.conn;
    await pgbenchInit(a.conn, ctx.options.scale);
    await pgbenchInit(b.conn, ctx.options.scale);

    const variant = (key: string, label: string, conn: BenchServer['conn'], socketDir = ''): BenchServer => ({
      spec: { key, label, storage: 'tmpfs', settings: [] },
      conn,
      socketDir,
      dataDir: layout.pgdata,
      filesystem: 'tmpfs',
      stop: async () => undefined,
    });
    const paths = [
      variant('docker-port', 'TCP, published port (docker-proxy)', a.conn),
      variant('host-network', 'TCP, host network', b.conn),
      variant(
        'unix-socket',
        'Unix socket (bind-mounted)',
        { host: sockDir, port: 5432, user, password, database: 'postgres' },
        sockDir,
      ),
    ];
    await compare(ctx, 'client_path', paths, [{ workload: WORKLOADS.selectOnly, clients: 1, metric: 'latency_ms' }]);
  } finally {
    for (const c of containers.reverse()) await c.remove();
  }
}
