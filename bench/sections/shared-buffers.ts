/**
 * Section 3: shared_buffers from 16MB to 1GB on the action's server (tmpfs, durability off),
 * under the workloads that drop or truncate relations (each drop scans the whole buffer pool),
 * and a write-heavy and a read-only one whose data (pgbench scale 4, about 60 MB) does not fit
 * in the smallest sizes.
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { startServers, stopServers, type ServerSpec } from '../lib/pgserver.js';
import { prepareAll, WORKLOADS } from '../lib/workloads.js';

/** PostgreSQL's default shared_buffers (the action does not change it). */
export const DEFAULT_SHARED_BUFFERS = '128MB';

export async function runSharedBuffers(ctx: Context): Promise<void> {
  const specs: ServerSpec[] = ctx.options.sharedBuffers.map((size) => ({
    key: `sb-${size}`,
    label: size === DEFAULT_SHARED_BUFFERS ? `${size} (default)` : size,
    storage: 'tmpfs',
    settings: [{ name: 'shared_buffers', value: size, why: 'benchmark sweep' }],
  }));
  ctx.log(`shared_buffers: starting ${specs.length} servers`);
  const servers = await startServers(ctx, specs);
  try {
    const workloads = [WORKLOADS.truncate, WORKLOADS.createDropTable, WORKLOADS.tpcb, WORKLOADS.selectOnly];
    await prepareAll(servers, workloads, 1, ctx.options.scale);
    const rows: Row[] = workloads.map((workload) => ({ workload, clients: 1, metric: 'tps' }));
    await compare(ctx, 'shared_buffers', servers, rows);
  } finally {
    await stopServers(servers);
  }
}
