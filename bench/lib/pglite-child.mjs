/**
 * One PGlite (PostgreSQL compiled to WASM, @electric-sql/pglite) in a Node process of its own,
 * for the benchmark's PGlite rows (bench/lib/pglite.ts): its WASM runs off the benchmark's
 * thread, and a fresh process measures what a job's first use of PGlite pays. Plain JavaScript
 * run with `node` (not tsx), so the process's start is Node's own, as a user's would be.
 *
 * Argument: one JSON object
 *   - `lifeMs` (number): the process exits after this many ms whatever happens (its deadline);
 *   - `loadFrom` (string, optional): a file written by dumpDataDir() to start from (loadDataDir);
 *   - `initDir` (string, optional): a folder of `*.sql` files run in name order, each in one
 *     transaction (BEGIN, the file as one simple query, COMMIT), as `pg-tmpfs up --init` runs them;
 *   - `dumpTo` (string, optional): after the first answer, dumpDataDir() written to this file;
 *   - `extensions` (boolean): load the contrib extensions citext and hstore (SQLAlchemy's suite
 *     creates them);
 *   - `socket` (boolean): serve the database with pglite-socket's PGLiteSocketServer on
 *     127.0.0.1 (a free port) instead of answering `SELECT 1` in the process;
 *   - `maxConnections` (number): the socket server's connection limit.
 *
 * Prints one JSON line on stdout: `bootMs` (performance.now() when this script began: Node's own
 * start), `inProcessMs` (from there to `SELECT 1` answered in the process, or to the socket
 * listening), `port` (socket only), `tables` (user tables after the start; not with `socket`). Without `socket` it
 * then exits; with it, it serves until its stdin closes (the benchmark closes it, or dies), then
 * stops the server and closes the database. Errors go to stderr with exit code 1.
 */
import { Blob } from 'node:buffer';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';

const bootMs = performance.now();
const config = JSON.parse(process.argv[2] ?? '{}');
setTimeout(() => {
  console.error(`pglite-child: deadline of ${config.lifeMs} ms passed`);
  process.exit(2);
}, config.lifeMs).unref();

const { PGlite } = await import('@electric-sql/pglite');
const options = {};
if (config.extensions) {
  const [{ citext }, { hstore }] = await Promise.all([
    import('@electric-sql/pglite/contrib/citext'),
    import('@electric-sql/pglite/contrib/hstore'),
  ]);
  options.extensions = { citext, hstore };
}
if (config.loadFrom) options.loadDataDir = new Blob([readFileSync(config.loadFrom)]);
const db = await PGlite.create(options);
if (config.initDir) {
  for (const file of readdirSync(config.initDir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    await db.exec('BEGIN');
    await db.exec(readFileSync(join(config.initDir, file), 'utf8'));
    await db.exec('COMMIT');
  }
}

const count = async () =>
  Number(
    (await db.query("SELECT count(*) AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")).rows[0]
      .n,
  );

if (!config.socket) {
  await db.query('SELECT 1');
  const inProcessMs = performance.now() - bootMs;
  const tables = await count();
  if (config.dumpTo) writeFileSync(config.dumpTo, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
  console.log(JSON.stringify({ bootMs, inProcessMs, tables }));
  await db.close();
  process.exit(0);
}

const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: config.maxConnections });
await server.start();
const inProcessMs = performance.now() - bootMs;
const port = Number(server.getServerConn().split(':').pop());
console.log(JSON.stringify({ bootMs, inProcessMs, port }));
process.stdin.on('end', () => {
  void server
    .stop()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
process.stdin.resume();
