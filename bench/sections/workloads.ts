/**
 * Section 2: test-suite workloads on the four servers of the 2x2 matrix (durable / durability
 * off × disk / tmpfs) and on the durable disk server under the disk model (flush +1 ms, +5 ms),
 * with one client and several.
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { commitLatencyMs } from '../lib/disk-model.js';
import { runPgliteWorkloads } from '../lib/pglite-workloads.js';
import { matrixSpecs, modelledDiskSpecs, startServers, stopServers } from '../lib/pgserver.js';
import { createdbWorkloads, prepareAll, serverMajor, WORKLOADS } from '../lib/workloads.js';

/** The first row: one commit's latency (bench/lib/disk-model.ts commitLatencyMs). */
const COMMIT_ROW = 'One commit: INSERT in autocommit (ms, median of 20, lower is better), 1 client';

export async function runWorkloads(ctx: Context): Promise<void> {
  const { options } = ctx;
  ctx.log('workloads: starting the four servers, and the durable disk server under the disk model');
  const servers = await startServers(ctx, [...matrixSpecs(), ...modelledDiskSpecs()]);
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
    // What one commit waits for on each server (the disk's flush, as modelled or as it is): the
    // first row, one probe per server.
    for (const server of servers) {
      const c = ctx.results.get(
        'workloads',
        `workloads/commit/c1/${server.spec.key}`,
        COMMIT_ROW,
        server.spec.label,
        'latency_ms',
      );
      await commitLatencyMs(server.conn).then(
        (ms) => ctx.results.add(c, ms),
        (error: unknown) => ctx.results.fail(c, error),
      );
    }
    ctx.log('workloads: preparing fixtures, template database, pgbench tables');
    await prepareAll(servers, workloads, Math.max(...options.clients), options.scale);
    const rows: Row[] = workloads.flatMap((workload) =>
      options.clients.map((clients) => ({ workload, clients, metric: 'tps' as const })),
    );
    await compare(ctx, 'workloads', servers, rows);
  } finally {
    await stopServers(servers);
  }
  await runPgliteWorkloads(ctx);
}
