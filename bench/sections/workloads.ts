/**
 * Section 2: test-suite workloads on the four servers of the 2x2 matrix (durable / durability
 * off × disk / tmpfs), with one client and several.
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { matrixSpecs, startServers, stopServers } from '../lib/pgserver.js';
import { createdbWorkloads, prepareAll, serverMajor, WORKLOADS } from '../lib/workloads.js';

export async function runWorkloads(ctx: Context): Promise<void> {
  const { options } = ctx;
  ctx.log('workloads: starting the four servers');
  const servers = await startServers(ctx, matrixSpecs());
  try {
    const major = await serverMajor(servers[0] as (typeof servers)[number]);
    const workloads = [
      WORKLOADS.rollback,
      WORKLOADS.truncate,
      WORKLOADS.createDropTable,
      ...createdbWorkloads(major),
      WORKLOADS.tpcb,
      WORKLOADS.selectOnly,
    ];
    ctx.log('workloads: preparing fixtures, template database, pgbench tables');
    await prepareAll(servers, workloads, Math.max(...options.clients), options.scale);
    const rows: Row[] = workloads.flatMap((workload) =>
      options.clients.map((clients) => ({ workload, clients, metric: 'tps' as const })),
    );
    await compare(ctx, 'workloads', servers, rows);
  } finally {
    await stopServers(servers);
  }
}
