/**
 * Section 2: test-suite workloads on the four servers of the 2x2 matrix (durable / durability
 * off × disk / tmpfs), on the durable disk server under the disk model (flush +1 ms, +5 ms), and
 * on the container of the tuned services block of 2026 (bench/lib/tuned-service.ts), with one
 * client and several.
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { commitLatencyMs } from '../lib/disk-model.js';
import { runPgliteWorkloads } from '../lib/pglite-workloads.js';
import { matrixSpecs, modelledDiskSpecs, startServers, stopServers, type BenchServer } from '../lib/pgserver.js';
import { checkTuned, runWaitStep, startTunedService, TUNED_KEY, TUNED_LABEL, tunedDetails } from '../lib/tuned-service.js';
import { COMMIT_ROW, createdbWorkloads, prepareAll, serverMajor, WORKLOADS } from '../lib/workloads.js';

/** The first row: one commit's latency (bench/lib/disk-model.ts commitLatencyMs). */

/**
 * The tuned services block's container of `image` as a server of the comparison: started as the
 * runner starts it, then the wait step, its profile and tmpfs checked; over TCP only.
 * @returns the server, and what the tables name it by (image and versions)
 */
async function tunedServer(ctx: Context, image: string): Promise<{ server: BenchServer; about: Record<string, unknown> }> {
  const svc = await startTunedService(ctx, `${ctx.prefix}-wl-tuned`, image, { health: 'poll' });
  try {
    await runWaitStep(svc);
    const { serverVersion, filesystem } = await checkTuned(svc.conn);
    const spec = { key: TUNED_KEY, label: TUNED_LABEL, storage: 'tmpfs' as const, settings: [] };
    const server = { spec, conn: svc.conn, socketDir: '', dataDir: '', filesystem, stop: svc.remove };
    return { server, about: tunedDetails(svc, serverVersion) };
  } catch (error) {
    await svc.remove();
    throw error;
  }
}

export async function runWorkloads(ctx: Context): Promise<void> {
  const { options } = ctx;
  ctx.log('workloads: starting the four servers, the durable disk server under the disk model, the tuned services block');
  const servers = await startServers(ctx, [...matrixSpecs(), ...modelledDiskSpecs()]);
  try {
    const tuned = await tunedServer(ctx, options.image);
    servers.push(tuned.server);
    // CREATE DATABASE … STRATEGY where every server has it (the image's major may be older).
    const major = Math.min(await serverMajor(servers[0] as BenchServer), await serverMajor(tuned.server));
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
        (ms) => ctx.results.add(c, ms, server.spec.key === TUNED_KEY ? tuned.about : {}),
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
