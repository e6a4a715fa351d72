/**
 * The disk model: this machine's disk made to flush like a slower one, so the durable servers can
 * be measured on the disk a CI runner has (issue #24).
 *
 * bench/disk-model/fsync-delay.c, built here with `cc` into an LD_PRELOAD library, adds a fixed
 * latency after every fsync, fdatasync, syncfs and sync of the processes it is loaded into (native
 * servers through their environment, containers through a read-only bind mount and `--env
 * LD_PRELOAD`). What it reproduces and what it does not is in that file and in
 * docs/performance.md#the-disk-model.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ConnectionInfo } from '../../src/connection.js';
import { run } from '../../src/proc.js';
import pg from 'pg';
import type { Context } from './context.js';

/** The library's source. */
const SOURCE = resolve(import.meta.dirname, '..', 'disk-model', 'fsync-delay.c');

/** The variable the library reads: the added latency in microseconds. */
export const DELAY_ENV = 'PG_TMPFS_FSYNC_DELAY_US';

/** Where the library is mounted in a container. */
export const CONTAINER_LIBRARY = '/usr/local/lib/pg-tmpfs-fsync-delay.so';

/**
 * The modelled flush latencies, in ms. Public figures for the disks CI machines run on:
 * - 1 ms: a network SSD volume: Azure Premium SSD / Standard SSD ("single-digit millisecond
 *   latencies", learn.microsoft.com/azure/virtual-machines/disks-types; GitHub's hosted runners
 *   are Azure VMs), AWS EBS gp3 ("single-digit millisecond", docs.aws.amazon.com/ebs/latest/
 *   userguide/general-purpose.html); io2 Block Express is under 0.5 ms.
 * - 5 ms: the middle of those single-digit milliseconds, and Azure Standard HDD ("write
 *   latencies under 10 ms", same page).
 */
export const FSYNC_LATENCIES_MS = [1, 5] as const;

/**
 * Builds the library into `dir` (`cc -shared -fPIC -O2`, 60 000 ms deadline).
 * @returns the library's path
 * @throws Error naming the compiler's output when it fails, or when there is no `cc`
 */
export async function buildDiskModel(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'fsync-delay.so');
  const r = await run('cc', ['-shared', '-fPIC', '-O2', '-o', out, SOURCE, '-ldl'], { timeoutMs: 60_000 }).catch(
    (error: unknown) => ({ code: -1, stdout: '', stderr: error instanceof Error ? error.message : String(error) }),
  );
  if (r.code !== 0) throw new Error(`building the disk model (cc ${SOURCE}) failed: ${r.stderr.trim()}`);
  return out;
}

/** The run's library (ctx.diskModel), built on first use into its disk folder. */
export async function ensureDiskModel(ctx: Context): Promise<string> {
  if (!ctx.diskModel) ctx.diskModel = await buildDiskModel(join(ctx.diskWork, 'disk-model'));
  return ctx.diskModel;
}

/**
 * A quick run models every flush latency at most this long, ms: the model is still loaded and
 * checked to have taken (checkModelTook: a commit at least 0.9 ms, where this disk's own takes
 * about 0.3), without +5 ms on every flush (a quick run's figures mean nothing; bench/lib/quick.ts).
 */
export const QUICK_LATENCY_CAP_MS = 1;

/** The flush latency to model for a case labelled `latencyMs`: at most QUICK_LATENCY_CAP_MS in a quick run, ms. */
export function modelledLatencyMs(ctx: Context, latencyMs: number): number {
  return ctx.options.quick ? Math.min(latencyMs, QUICK_LATENCY_CAP_MS) : latencyMs;
}

/** The environment that loads the library with `latencyMs` added to every flush. */
export function diskModelEnv(library: string, latencyMs: number): Record<string, string> {
  return { LD_PRELOAD: library, [DELAY_ENV]: String(Math.round(latencyMs * 1000)) };
}

/** `docker run` options that load the library in the container with `latencyMs`. */
export function diskModelDockerArgs(library: string, latencyMs: number): string[] {
  return [
    '--volume',
    `${library}:${CONTAINER_LIBRARY}:ro`,
    '--env',
    `LD_PRELOAD=${CONTAINER_LIBRARY}`,
    '--env',
    `${DELAY_ENV}=${Math.round(latencyMs * 1000)}`,
  ];
}

/**
 * What one commit costs on a server: 20 single-row INSERTs in autocommit into a scratch table,
 * each timed; the table is dropped after. With synchronous_commit on, each waits for its WAL
 * flush, so the median shows the flush latency the server really has (the model's check).
 * @returns the median commit in ms
 * @throws Error from the client
 */
export async function commitLatencyMs(target: ConnectionInfo): Promise<number> {
  const client = new pg.Client({ ...target, connectionTimeoutMillis: 10_000, statement_timeout: 60_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('CREATE TABLE pgt_commit_probe (i int)');
    const ms: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await client.query('INSERT INTO pgt_commit_probe VALUES ($1)', [i]);
      ms.push(performance.now() - t0);
    }
    await client.query('DROP TABLE pgt_commit_probe');
    return ms.sort((a, b) => a - b)[10] as number;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Checks that a modelled server waits for its flushes: its median commit must take at least
 * 0.9 × the latency.
 * @throws Error when it does not (the library was not loaded)
 */
export function checkModelTook(label: string, commitMs: number, latencyMs: number): void {
  if (commitMs < 0.9 * latencyMs)
    throw new Error(
      `${label}: a commit took ${commitMs.toFixed(2)} ms, under the modelled ${latencyMs} ms flush: the disk model was not loaded`,
    );
}
