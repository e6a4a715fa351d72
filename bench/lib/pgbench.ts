/**
 * Running pgbench and reading its figures.
 */
import { cpus } from 'node:os';
import { run, tail } from '../../src/proc.js';

/** Where pgbench connects: a TCP host or a Unix socket directory. */
export interface PgbenchTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** What one pgbench run measured. */
export interface PgbenchResult {
  /** Transactions per second, without the initial connection time. */
  tps: number;
  /** Average latency per transaction, ms. */
  latencyMs: number;
  /** Transactions completed. */
  transactions: number;
}

/** Parses pgbench's report (PostgreSQL 13 and later wording). */
export function parsePgbench(output: string): PgbenchResult {
  const tps = /^tps = ([\d.]+) \(without initial connection time\)/m.exec(output);
  const latency = /^latency average = ([\d.]+) ms/m.exec(output);
  const processed = /^number of transactions actually processed: (\d+)/m.exec(output);
  if (!tps || !latency || !processed) throw new Error(`unreadable pgbench output: ${tail(output)}`);
  return { tps: Number(tps[1]), latencyMs: Number(latency[1]), transactions: Number(processed[1]) };
}

/** A pgbench workload: a built-in script (`-b`) or a script file (`-f`). */
export type Script = { builtin: 'tpcb-like' | 'select-only' } | { file: string };

/** How long a pgbench run lasts: a time, or a number of transactions per client (smoke runs). */
export type Length = { seconds: number } | { transactions: number };

/** pgbench's connection flags for a target (the database name goes last, separately). */
function connectionArgs(target: PgbenchTarget): string[] {
  return ['--host', target.host, '--port', String(target.port), '--username', target.user];
}

/** Environment for pgbench: the password (never in argv) and a connect timeout in seconds. */
function connectionEnv(target: PgbenchTarget): Record<string, string> {
  return { PGPASSWORD: target.password, PGCONNECT_TIMEOUT: '10' };
}

/**
 * Runs `pgbench -n -c clients -j min(clients, cpus)` with the script, for `-T seconds` or
 * `-t transactions`.
 * @throws Error when pgbench fails (any client aborted) or completed no transaction
 */
export async function pgbench(
  target: PgbenchTarget,
  script: Script,
  clients: number,
  length: Length,
  extra: readonly string[] = [],
): Promise<PgbenchResult> {
  const args = [
    '--no-vacuum',
    ...connectionArgs(target),
    '--client',
    String(clients),
    '--jobs',
    String(Math.max(1, Math.min(clients, cpus().length))),
    ...('seconds' in length ? ['--time', String(length.seconds)] : ['--transactions', String(length.transactions)]),
    ...('builtin' in script ? ['--builtin', script.builtin] : ['--file', script.file]),
    ...extra,
    target.database,
  ];
  const r = await run('pgbench', args, {
    timeoutMs: ('seconds' in length ? length.seconds * 1000 : 300_000) + 120_000,
    env: connectionEnv(target),
  });
  if (r.code !== 0) {
    throw new Error(`pgbench ${r.timedOut ? 'timed out' : `exited with ${r.code}`}: ${tail(r.stderr || r.stdout)}`);
  }
  const result = parsePgbench(r.stdout);
  if (result.transactions === 0) throw new Error(`pgbench completed no transaction: ${tail(r.stderr)}`);
  return result;
}

/** `pgbench -i -s scale` (tables pgbench_accounts etc.), quiet. */
export async function pgbenchInit(target: PgbenchTarget, scale: number): Promise<void> {
  const r = await run(
    'pgbench',
    ['--initialize', '--quiet', '--scale', String(scale), ...connectionArgs(target), target.database],
    { timeoutMs: 300_000, env: connectionEnv(target) },
  );
  if (r.code !== 0) throw new Error(`pgbench -i failed: ${tail(r.stderr)}`);
}
