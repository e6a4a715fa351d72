/**
 * Starting the pool (issue #37) once the server runs and its template is made: the checks that
 * need the server (its major, max_connections, a copy's size against the free tmpfs), the SQL
 * side installed in `postgres` (sql.ts), and the keeper launched as a detached process of the
 * same program (`<entry> --pg-tmpfs-keeper`, the job on its stdin) carrying the run's RUN_ENV
 * token, so `down`, the post step and a killed start's cleanup end it with the server's other
 * processes (orphans.ts endMarkedProcesses).
 */
import type { ChildProcess } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { InputError, SetupError } from '../errors.js';
import { entryPath, launchDetached, readStdinJson } from '../launch.js';
import type { Logger } from '../log.js';
import { inheritedEnv, RUN_ENV } from '../proc.js';
import { openClient } from '../readiness.js';
import type { PoolInfo, Server } from '../server.js';
import { MAKERS, type KeeperJob } from './keeper.js';
import { runKeeper } from './keeper-run.js';
import { reclaimMs } from './reclaim.js';
import { INSTALL_SQL, POOL_SCHEMA } from './sql.js';

/** First argument that turns an entry (dist/main.js, dist/cli.js) into the pool's keeper. */
export const KEEPER_FLAG = '--pg-tmpfs-keeper';

/** How long the keeper has to take its lock once launched, in ms. */
const KEEPER_START_MS = 15_000;

/** Entry of the keeper process: reads its job on stdin and runs it. @returns its exit code */
export async function keeperChild(): Promise<number> {
  return runKeeper(await readStdinJson<KeeperJob>());
}

/** One number from the server. */
async function scalar(client: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await client.query<{ v: string }>(sql, params)).rows[0]?.v);
}

/**
 * Bytes free on the filesystem holding PGDATA: native mode's statfs of the data directory, Docker
 * mode's as the server sees it (`stat -f` run by the server in its data directory, its working
 * directory: the container's tmpfs; COPY … FROM PROGRAM, superuser only). The command is a constant.
 * @returns null when it cannot be measured (no `stat`, not a superuser)
 */
async function freeBytes(client: pg.Client, server: Server): Promise<number | null> {
  // Native mode: this process sees the data directory too (Windows has no `stat` for the server to run).
  if (server.mode === 'native') {
    try {
      const s = statfsSync(server.dataDirectory);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }
  try {
    await client.query('CREATE TEMP TABLE pgtmpfs_statfs (line text)');
    await client.query(`COPY pgtmpfs_statfs FROM PROGRAM 'stat -f -c "%a %S" .'`);
    const line = (await client.query<{ line: string }>('SELECT line FROM pgtmpfs_statfs')).rows[0]?.line ?? '';
    await client.query('DROP TABLE pgtmpfs_statfs');
    const [blocks, size] = line.trim().split(/\s+/).map(Number);
    return Number.isFinite(blocks) && Number.isFinite(size) ? (blocks as number) * (size as number) : null;
  } catch {
    return null;
  }
}

/** Megabytes, one decimal, for messages. */
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

/**
 * Checks the pool against the server: PostgreSQL 15+ (statistics in shared memory make the
 * template's fingerprint exact: sql.ts), a pool no larger than the connections left
 * (max_connections less superuser_reserved_connections and the keeper's own), and room on the
 * tmpfs for the pool, the copies being made and the ones given back but not yet dropped.
 * @returns pg_database_size of the template, in bytes
 * @throws InputError (pool) naming what does not fit, and the fix
 */
async function checkFits(client: pg.Client, server: Server, size: number, template: string, log: Logger): Promise<number> {
  const version = await scalar(client, "SELECT current_setting('server_version_num') AS v");
  if (version < 150000) {
    throw new InputError(
      'pool',
      `needs PostgreSQL 15 or later; this server is ${Math.floor(version / 10000)}`,
      'Give postgres-version 15 or later, or leave pool at 0',
    );
  }
  const connections = await scalar(
    client,
    "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int AS v",
  );
  const keeper = MAKERS + 2;
  if (size > connections - keeper) {
    throw new InputError(
      'pool',
      `is ${size}, more copies than tests can connect to at once: max_connections leaves ${connections} connections, ${keeper} of them the keeper's`,
      `Give a pool of at most ${Math.max(connections - keeper, 1)}, or raise max_connections in settings`,
    );
  }
  const copyBytes = await scalar(client, 'SELECT pg_database_size($1) AS v', [template]);
  const free = await freeBytes(client, server);
  const need = (size + MAKERS + 2) * copyBytes;
  if (free === null) {
    log.warning(`Could not measure the free space of PGDATA's filesystem: the pool of ${size} needs about ${mb(need)}`);
  } else if (need > free) {
    throw new InputError(
      'pool',
      `is ${size}: with the copies being made and given back that is ${size + MAKERS + 2} copies of ${template} at ${mb(copyBytes)} each, ${mb(need)}, and PGDATA's tmpfs has ${mb(free)} free`,
      'Give a smaller pool, or a larger tmpfs-size',
    );
  }
  return copyBytes;
}

/** Whether the keeper holds its lock: pgtmpfs.keeper_running(), as take() looks (installed by INSTALL_SQL). */
async function keeperHoldsLock(client: pg.Client): Promise<boolean> {
  return (await client.query<{ ok: boolean }>(`SELECT ${POOL_SCHEMA}.keeper_running() AS ok`)).rows[0]?.ok === true;
}

/**
 * The keeper did not take its lock: it ended with exit code `exited` (null: still running at
 * KEEPER_START_MS), saying `said` (its stderr, or why it could not be launched).
 */
function keeperFailed(exited: number | null, said: string): SetupError {
  return new SetupError(
    `The pool's keeper ${exited !== null ? `ended (exit code ${exited})` : `took no lock within ${KEEPER_START_MS} ms`} before it made a copy${said ? `: ${said.trim().slice(0, 500)}` : ''}`,
    'Try again; if it keeps failing, leave pool at 0 and report it',
  );
}

/**
 * Starts the pool on a running, provisioned server whose template is marked.
 * Long because the launch waits for the keeper with its own deadline and failure text.
 * @param size the pool input (> 0)
 * @returns what the pool is; the keeper runs on, filling it, after this returns
 * @throws InputError (pool) when it does not fit the server (checkFits); SetupError when the
 *   keeper cannot be started or takes no lock within KEEPER_START_MS (it is killed then)
 */
export async function startPool(server: Server, size: number, log: Logger): Promise<PoolInfo> {
  const template = server.provisioned?.templateDatabase ?? '';
  if (!template) throw new InputError('pool', 'needs a template database, and none was marked', 'Set template: true');
  const client = await openClient(
    { ...server.connection, database: 'postgres' },
    { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000 },
  );
  try {
    const copyBytes = await checkFits(client, server, size, template, log);
    await client.query(INSTALL_SQL);
    await client.query(`INSERT INTO ${POOL_SCHEMA}.keeper (template, size) VALUES ($1, $2)`, [template, size]);
    const job: KeeperJob = {
      connection: server.connection,
      template,
      size,
      tmpfs: server.tmpfs,
      reclaimMs: reclaimMs(),
      // Headroom matters where PGDATA is in RAM (a full tmpfs makes the checkpointer PANIC).
      ...(server.mode === 'native' && server.tmpfs ? { dataDirectory: server.dataDirectory } : {}),
      ...(server.mode === 'native' ? { serverDirectory: server.dataDirectory } : {}),
    };
    const entry = entryPath(basename(process.argv[1] ?? '') === 'main.js' ? 'main' : 'cli');
    let child: ChildProcess;
    let stderr = '';
    const env = { ...inheritedEnv(), [RUN_ENV]: server.token };
    try {
      ({ child } = await launchDetached({ entry, flag: KEEPER_FLAG, job, output: 'stderr', env }));
    } catch (error) {
      throw keeperFailed(1, (error as Error).message); // not started, or its job not taken
    }
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const deadline = Date.now() + KEEPER_START_MS;
    while (!(await keeperHoldsLock(client))) {
      // Its exit status, once it has ended (by a signal: 1).
      const exited = child.exitCode ?? (child.signalCode ? 1 : null);
      if (exited !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw keeperFailed(exited, stderr);
      }
      await sleep(20);
    }
    child.stderr?.destroy();
    log.info(
      `Pool: the keeper (PID ${child.pid}) keeps ${size} copies of ${template} (${mb(copyBytes)} each) ready: SELECT ${POOL_SCHEMA}.take() in database postgres`,
    );
    return { size, template, copyBytes, keeperPid: child.pid ?? 0 };
  } finally {
    await client.end().catch(() => undefined);
  }
}
