/**
 * A comparison: the same pgbench workloads on several servers, the servers interleaved in each
 * repetition (rotated, so none is always first), every run its own sample.
 */
import { throwIfInterrupted } from './cleanup.js';
import type { Context } from './context.js';
import type { BenchServer } from './pgserver.js';
import { rotation, type Metric, type Section } from './results.js';
import { runWorkload, type Workload } from './workloads.js';

/** One row of a comparison: a workload at a client count, read as tps or latency. */
export interface Row {
  workload: Workload;
  clients: number;
  metric: Extract<Metric, 'tps' | 'latency_ms'>;
}

/** Row label as the tables show it. */
export function rowLabel(row: Row): string {
  return `${row.workload.label}, ${row.clients} client${row.clients === 1 ? '' : 's'}`;
}

/** Case id of a row on a server. */
export function caseId(section: Section, row: Row, server: BenchServer): string {
  return `${section}/${row.workload.key}/c${row.clients}/${server.spec.key}`;
}

/**
 * Runs every row on every server, `reps` times, servers interleaved. A failed run is recorded
 * on its case and the comparison goes on.
 * @param table for a section with several tables (e.g. one per storage): the table these
 *   servers' cases belong to
 */
export async function compare(
  ctx: Context,
  section: Section,
  servers: readonly BenchServer[],
  rows: readonly Row[],
  table?: string,
): Promise<void> {
  const { results, options } = ctx;
  // Cases are created up front so tables and chart list servers in the given order.
  const caseOf = (row: Row, server: BenchServer) =>
    results.get(section, caseId(section, row, server), rowLabel(row), server.spec.label, row.metric, table);
  for (const row of rows) for (const server of servers) caseOf(row, server);
  const where = table ? ` (${table})` : '';
  for (const [i, row] of rows.entries()) {
    for (let rep = 0; rep < options.reps; rep++) {
      ctx.log(
        `${section}${where} ${i + 1}/${rows.length} rep ${rep + 1}/${options.reps}: ${row.workload.key}, ${row.clients} client(s)`,
      );
      for (const server of rotation(servers, rep + i)) {
        throwIfInterrupted();
        const c = caseOf(row, server);
        try {
          const length = options.transactions ? { transactions: options.transactions } : { seconds: options.seconds };
          const r = await runWorkload(server, row.workload, row.clients, length);
          results.add(c, row.metric === 'tps' ? r.tps : r.latencyMs, {
            tps: r.tps,
            latencyMs: r.latencyMs,
            transactions: r.transactions,
          });
        } catch (error) {
          throwIfInterrupted();
          results.fail(c, error);
          ctx.log(`  ${server.spec.label} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }
}
