/**
 * Section 2 (workloads): each workload on the four servers of the 2x2 matrix, on the durable
 * disk server under the disk model (flush +1 ms, +5 ms) and on the tuned services block's
 * container, the action's server (off, tmpfs) against the stock one (durable, disk), against
 * durable on tmpfs and against the tuned services block; then the action's server against the
 * durable disk server by flush latency.
 */
import type { CaseResult } from '../lib/results.js';
import { TUNED_KEY } from '../lib/tuned-service.js';
import { tunedNote } from './alternatives.js';
import { cell, grid, ratio, table } from './format.js';
import { pgliteWorkloadsNote } from './pglite.js';

/** The server key of a section 2 case (`workloads/<workload>/c<clients>/<server key>`). */
const serverKey = (c: CaseResult) => c.id.split('/').at(-1) ?? '';

/** Section 2's tables; columns in the order the servers ran. */
export function renderWorkloads(sc: readonly CaseResult[]): string {
  const g = grid(sc);
  const labelOf = (key: string) => sc.find((c) => serverKey(c) === key)?.variant;
  const stock = labelOf('durable-disk') ?? (g.cols[0] as string);
  const action = labelOf('off-tmpfs') ?? (g.cols[g.cols.length - 1] as string);
  const durableTmpfs = labelOf('durable-tmpfs') ?? (g.cols[g.cols.length - 2] as string);
  // The tuned services block of 2026 (issue #36), in runs that have it: a ratio column of its own.
  const tuned = labelOf(TUNED_KEY);
  const main = table(
    ['Workload', ...g.cols, `${action} vs ${stock}`, `${action} vs ${durableTmpfs}`, ...(tuned ? [`${action} vs ${tuned}`] : [])],
    ['l', ...g.cols.map(() => 'r' as const), 'r', 'r', ...(tuned ? ['r' as const] : [])],
    g.rows.map((r) => [
      r,
      ...g.cols.map((col) => cell(g.at(r, col))),
      ratio(g.at(r, action), g.at(r, stock)),
      ratio(g.at(r, action), g.at(r, durableTmpfs)),
      ...(tuned ? [ratio(g.at(r, action), g.at(r, tuned))] : []),
    ]),
  );
  const note = tunedNote(sc, 'workloads');
  const withNote = note ? `${main}\n\n${note}` : main;
  // Runs before issue #24 have no modelled servers: the first table alone.
  const modelled = [...new Set(sc.map(serverKey).filter((k) => /^durable-disk-\d+ms$/.test(k)))];
  const pglite = pgliteWorkloadsNote(sc).replace(/^./, '\n\n$&');
  if (!modelled.length) return withNote + pglite;
  const disks = [
    { key: 'durable-disk', head: 'this disk' },
    ...modelled.map((key) => ({ key, head: `flush +${/(\d+)ms$/.exec(key)?.[1] ?? '?'} ms` })),
  ];
  const byFlush = table(
    ['Workload', ...disks.map((d) => d.head)],
    ['l', ...disks.map(() => 'r' as const)],
    g.rows.map((r) => [r, ...disks.map((d) => ratio(g.at(r, action), g.at(r, labelOf(d.key) ?? '')))]),
  );
  return (
    [
      withNote,
      '',
      `The action’s server (${action}) against the durable server on disk, by the disk’s flush latency ` +
        '(the disk model: docs/performance.md#the-disk-model; what a commit costs on each is the first row above):',
      '',
      byFlush,
    ].join('\n') + pglite
  );
}
