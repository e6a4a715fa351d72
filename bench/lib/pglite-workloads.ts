/**
 * Section 2's one-client workloads on PGlite through pglite-socket (issue #36): one PGlite
 * process (bench/lib/pglite.ts) serving 127.0.0.1, prepared as the other servers are, each
 * workload run with the same pgbench script (`pgbench -c 1` over TCP). What it cannot run the
 * same way is tried once, and what happened is kept in the details of its commit row.
 */
import { run, tail } from '../../src/proc.js';
import { compare, type Row } from './compare.js';
import type { Context } from './context.js';
import { commitLatencyMs } from './disk-model.js';
import { PGLITE_MAX_CONNECTIONS, pgliteVersions, spawnPglite } from './pglite.js';
import { withClient, type BenchServer } from './pgserver.js';
import { COMMIT_ROW, createdbWorkloads, prepare, WORKLOADS, type Workload } from './workloads.js';

/** The spec key of the PGlite column (case ids `workloads/<workload>/c1/pglite-socket`). */
export const PGLITE_SOCKET_KEY = 'pglite-socket';

/** The row the other servers' commit probe uses (bench/sections/workloads.ts). */

/** PostgreSQL's major inside PGlite 0.5 (18.x): which CREATE DATABASE workloads section 2 has. */
const PGLITE_MAJOR = 18;

/**
 * pgbench's tables, generated on the server (`--init-steps dtGvp`): its default client-side
 * generation sends them with COPY FROM STDIN, which pglite-socket fails ("PQputline failed") and
 * after which it accepts no connection. The tables and rows are the same.
 */
async function pgbenchInitServerSide(conn: BenchServer['conn'], scale: number): Promise<void> {
  const args = ['--initialize', '--quiet', '--init-steps', 'dtGvp', '--scale', String(scale)];
  const where = ['--host', conn.host, '--port', String(conn.port), '--username', conn.user, conn.database];
  const r = await run('pgbench', [...args, ...where], {
    timeoutMs: 600_000,
    env: { PGPASSWORD: conn.password, PGCONNECT_TIMEOUT: '10' },
  });
  if (r.code !== 0) throw new Error(`pgbench -i (server-side generation) failed: ${tail(r.stderr)}`);
}

/**
 * Tries what the CREATE DATABASE … TEMPLATE workloads need: the database made, and a connection
 * to it to make the template's tables.
 * @returns why those rows are not run, from the attempt; null when a connection reaches the template (then they could be)
 */
async function tryTemplate(server: BenchServer): Promise<string | null> {
  const created = await withClient(server, (c) => c.query('CREATE DATABASE bench_template')).then(
    () => 'succeeds',
    (e: unknown) => `fails: ${e instanceof Error ? e.message : String(e)}`,
  );
  const served = await withClient(server, (c) => c.query<{ d: string }>('SELECT current_database() AS d'), 'bench_template')
    .then((r) => r.rows[0]?.d ?? '?')
    .catch((e: unknown) => `(error: ${e instanceof Error ? e.message : String(e)})`);
  if (served === 'bench_template') return null;
  return (
    `CREATE DATABASE bench_template ${created}, but a connection asking for database bench_template is served ` +
    `database ${served} (pglite-socket serves PGlite's one session): the template's tables cannot be made in it, ` +
    'so CREATE DATABASE … TEMPLATE would copy an empty database, not the workload of the other columns'
  );
}

/**
 * Starts PGlite with pglite-socket, prepares it, runs the commit probe and section 2's
 * one-client workloads that it can run (options.clients' 1 only: PGlite has one session, which
 * pglite-socket's connections share, so 4 clients would not be 4 sessions), and stops it.
 */
export async function runPgliteWorkloads(ctx: Context): Promise<void> {
  const v = pgliteVersions();
  const spec = {
    key: PGLITE_SOCKET_KEY,
    label: `PGlite ${v.pglite} via pglite-socket ${v.pgliteSocket}`,
    storage: 'tmpfs' as const, // PGlite's in-memory file system: nothing reaches a disk
    settings: [],
  };
  const commitCase = ctx.results.get('workloads', `workloads/commit/c1/${spec.key}`, COMMIT_ROW, spec.label, 'latency_ms');
  ctx.log('workloads: starting PGlite with pglite-socket');
  const child = await spawnPglite(ctx, { socket: true, maxConnections: PGLITE_MAX_CONNECTIONS.pgbench }, 4 * 3_600_000);
  try {
    const server: BenchServer = {
      spec,
      conn: child.conn,
      socketDir: '',
      dataDir: 'memory://',
      filesystem: 'PGlite in-memory',
      stop: child.stop,
    };
    const notRun: Record<string, string> = {};
    const templated = createdbWorkloads(PGLITE_MAJOR);
    const why = await tryTemplate(server);
    if (why === null)
      ctx.results.fail(
        commitCase,
        'a connection reached database bench_template through pglite-socket: add the CREATE DATABASE rows',
      );
    notRun[templated.map((w) => w.key).join(', ')] = why ?? 'not run';
    notRun['c4'] =
      `PGlite has one session, which pglite-socket's connections share (maxConnections ${PGLITE_MAX_CONNECTIONS.pgbench}): 4 clients would not be 4 sessions`;
    const measured: Workload[] = [
      WORKLOADS.rollback,
      WORKLOADS.truncate,
      WORKLOADS.createDropTable,
      WORKLOADS.tpcb,
      WORKLOADS.selectOnly,
    ];
    const details = { ...v, maxConnections: PGLITE_MAX_CONNECTIONS.pgbench, notRun, repeat: 'npm run bench -- --only workloads' };
    await commitLatencyMs(server.conn).then(
      (ms) => ctx.results.add(commitCase, ms, details),
      (error: unknown) => ctx.results.fail(commitCase, error),
    );
    ctx.log('workloads: preparing PGlite (fixtures, pgbench tables generated on the server)');
    await prepare(
      server,
      measured.filter((w) => !w.needs.includes('pgbench-tables')),
      1,
      ctx.options.scale,
    );
    await pgbenchInitServerSide(server.conn, ctx.options.scale);
    const rows: Row[] = measured.map((workload) => ({ workload, clients: 1, metric: 'tps' as const }));
    await compare(ctx, 'workloads', [server], rows);
  } finally {
    await child.stop();
  }
}
