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
import { buildRunPlan } from '../../src/docker/run-plan.js';
import { parseInputs, type InputName } from '../../src/inputs.js';
import { compare } from '../lib/compare.js';
import { imageLayout, publishedPort, runContainer, type BenchContainer } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { pgbenchInit } from '../lib/pgbench.js';
import type { BenchServer } from '../lib/pgserver.js';
import { untilAnswered } from '../lib/query.js';
import { WORKLOADS } from '../lib/workloads.js';
import { runOptions } from './startup.js';

export async function runClientPath(ctx: Context): Promise<void> {
  const image = ctx.options.image;
  const layout = await imageLayout(image);
  const values = (name: string): Partial<Record<InputName, string>> => ({
    mode: 'docker',
    image,
    port: '0',
    'container-name': name,
  });
  const containers: BenchContainer[] = [];
  try {
    // A: the action's flags (published port), plus the socket folder bind-mounted to the host.
    const nameA = `${ctx.prefix}-path-bridge`;
    const configA = parseInputs((n) => values(nameA)[n] ?? '');
    const planA = buildRunPlan(configA, layout);
    const sockDir = mkdtempSync(join(ctx.shmWork, 'socket-'));
    chmodSync(sockDir, 0o777);
    const optsA = runOptions(planA.args);
    const imageAt = optsA.indexOf(image);
    containers.push(
      await runContainer(
        ctx,
        nameA,
        [...optsA.slice(0, imageAt), '--volume', `${sockDir}:/var/run/postgresql`, ...optsA.slice(imageAt)],
        planA.env,
      ),
    );
    // B: the same on the host network, listening on 127.0.0.1 at a free port only.
    const nameB = `${ctx.prefix}-path-host`;
    const configB = parseInputs((n) => values(nameB)[n] ?? '');
    const planB = buildRunPlan(configB, layout);
    const hostPort = await getPort({ host: '127.0.0.1' });
    const optsB = runOptions(planB.args).filter((a, i, all) => a !== '--publish' && all[i - 1] !== '--publish');
    const imageBt = optsB.indexOf(image);
    containers.push(
      await runContainer(
        ctx,
        nameB,
        [
          ...optsB.slice(0, imageBt),
          '--network',
          'host',
          ...optsB.slice(imageBt),
          '-c',
          `port=${hostPort}`,
          '-c',
          'listen_addresses=127.0.0.1',
        ],
        planB.env,
      ),
    );

    const user = configA.user;
    const password = configA.password;
    const portA = await publishedPort(nameA);
    const tcpA = { host: '127.0.0.1', port: portA, user, password, database: 'postgres' };
    const tcpB = { host: '127.0.0.1', port: hostPort, user, password, database: 'postgres' };
    await untilAnswered(tcpA, 120_000, 20);
    await untilAnswered(tcpB, 120_000, 20);
    await pgbenchInit(tcpA, ctx.options.scale);
    await pgbenchInit(tcpB, ctx.options.scale);

    const variant = (key: string, label: string, conn: BenchServer['conn'], socketDir = ''): BenchServer => ({
      spec: { key, label, storage: 'tmpfs', settings: [] },
      conn,
      socketDir,
      dataDir: layout.pgdata,
      filesystem: 'tmpfs',
      stop: async () => undefined,
    });
    const paths = [
      variant('docker-port', 'TCP, published port (docker-proxy)', tcpA),
      variant('host-network', 'TCP, host network', tcpB),
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
