/**
 * Section 10 (schema_cache): what the schema cache buys a job whose init does real work.
 *
 * The init is a migrations folder made here: MIGRATIONS files (300; 20 in a quick run), each a
 * transaction that creates a table with an index, loads 200 rows, and alters the table, as a
 * framework's migrations do. Each variant is the CLI's whole process (`pg-tmpfs up --json`, from
 * spawn to exit: what a job step waits for), then `down`; variants interleaved, in both modes:
 * - a start without init (what the hit is held against: target ≤ 1.3×);
 * - the init without the cache; a miss (init, then the copy saved: target ≤ 1.1× the init
 *   without the cache); a hit (the copy restored, no initdb, no init);
 * - Docker mode: a hit of the cluster without init (schema-cache with no init caches the bare
 *   initdb'd cluster) against the raw `docker run` floor (target ≤ 0.6×).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageLayout } from '../lib/containers.js';
import { cliUp as cliUpProcess } from '../lib/cli.js';
import type { Context } from '../lib/context.js';
import { startDockerServer } from '../lib/docker-server.js';
import { pgliteSchemaCacheVariants } from '../lib/pglite.js';
import { measureVariants, type Variant } from '../lib/timed.js';

/** Migration files of a full run, and of a quick run. */
export const MIGRATIONS = { full: 300, quick: 20 } as const;

/** Writes the migrations folder: `db/NNN_table_NNN.sql`, each a table, an index, 200 rows and an ALTER. */
function writeMigrations(dir: string, count: number): void {
  mkdirSync(join(dir, 'db'), { recursive: true });
  for (let i = 1; i <= count; i++) {
    const n = String(i).padStart(3, '0');
    writeFileSync(
      join(dir, 'db', `${n}_table_${n}.sql`),
      [
        `CREATE TABLE t_${n} (id bigserial PRIMARY KEY, a int NOT NULL, b text, c timestamptz DEFAULT now());`,
        `CREATE INDEX t_${n}_a ON t_${n} (a);`,
        `INSERT INTO t_${n} (a, b) SELECT g, md5(g::text) FROM generate_series(1, 200) g;`,
        `ALTER TABLE t_${n} ADD COLUMN d int NOT NULL DEFAULT 0;`,
        '',
      ].join('\n'),
    );
  }
}

/**
 * One `pg-tmpfs up` as a separate process (bench/lib/cli.ts cliUp) in the project folder, with
 * its state and cache there, then `down`.
 * @returns seconds and details (the hit, the phases)
 */
async function cliUp(ctx: Context, name: string, project: string, args: string[]) {
  const env = { PG_TMPFS_STATE_DIR: join(project, 'state'), PG_TMPFS_CACHE_DIR: join(project, 'cache') };
  const { seconds, out } = await cliUpProcess(ctx, name, args, { env, cwd: project, timeoutMs: 900_000 });
  return { seconds, hit: out.schemaCacheHit, details: { phasesMs: out.phasesMs, schemaCacheHit: out.schemaCacheHit } };
}

/** The mode's flags: native with this run's binaries, or Docker with the run's image. */
function modeArgs(ctx: Context, mode: 'native' | 'docker'): string[] {
  return mode === 'native'
    ? ['--mode', 'native', '--postgres-version', String(ctx.major)]
    : ['--mode', 'docker', '--image', ctx.options.image];
}

/** The variants of one mode. */
function modeVariants(ctx: Context, project: string, mode: 'native' | 'docker'): Variant[] {
  const base = [...modeArgs(ctx, mode), '--database', 'app'];
  const init = [...base, '--init', 'db/*.sql'];
  const cached = [...init, '--schema-cache'];
  const expectHit = (hit: boolean | undefined, want: boolean) => {
    if (hit !== want) throw new Error(`schema cache ${want ? 'hit' : 'miss'} expected, got ${String(hit)}`);
  };
  const variants: Variant[] = [
    {
      key: `${mode}-bare`,
      label: `${mode}: start without init`,
      measure: async (rep) => cliUp(ctx, `${ctx.prefix}-${mode}-bare-${rep}`, project, base),
    },
    {
      key: `${mode}-init`,
      label: `${mode}: init, no cache`,
      measure: async (rep) => cliUp(ctx, `${ctx.prefix}-${mode}-init-${rep}`, project, init),
    },
    {
      key: `${mode}-miss`,
      label: `${mode}: schema cache miss (init, then the copy saved)`,
      async measure(rep) {
        const r = await cliUp(ctx, `${ctx.prefix}-${mode}-miss-${rep}`, project, [
          ...cached,
          '--schema-cache-key',
          `miss-${rep}`,
        ]);
        expectHit(r.hit, false);
        return r;
      },
    },
    {
      key: `${mode}-hit`,
      label: `${mode}: schema cache hit (no initdb, no init)`,
      async measure(rep) {
        const r = await cliUp(ctx, `${ctx.prefix}-${mode}-hit-${rep}`, project, cached);
        expectHit(r.hit, true);
        return r;
      },
    },
  ];
  if (mode === 'docker') {
    variants.push({
      key: 'docker-bare-hit',
      label: 'docker: the cluster without init from the schema cache',
      async measure(rep) {
        const r = await cliUp(ctx, `${ctx.prefix}-docker-bare-hit-${rep}`, project, [...base, '--schema-cache']);
        expectHit(r.hit, true);
        return r;
      },
    });
  }
  return variants;
}

export async function runSchemaCache(ctx: Context): Promise<void> {
  const project = join(ctx.diskWork, 'schema-cache');
  writeMigrations(project, ctx.options.quick ? MIGRATIONS.quick : MIGRATIONS.full);
  ctx.cleanup.add(`folder ${project}`, () => rmSync(project, { recursive: true, force: true }));
  const layout = await imageLayout(ctx.options.image);
  // Warm-ups (not measured): the entries the hits restore, and the native initdb cache.
  ctx.log('schema_cache: saving the entries the hits restore');
  for (const mode of ['native', 'docker'] as const) {
    const base = [...modeArgs(ctx, mode), '--database', 'app'];
    await cliUp(ctx, `${ctx.prefix}-${mode}-warm`, project, [...base, '--init', 'db/*.sql', '--schema-cache']);
    if (mode === 'docker') await cliUp(ctx, `${ctx.prefix}-docker-bare-warm`, project, [...base, '--schema-cache']);
  }
  const floor: Variant = {
    key: 'floor-docker-run',
    label: 'Floor: the same docker run (image, tmpfs, settings), a query every 5 ms',
    async measure(rep) {
      const server = await startDockerServer(ctx, {
        name: `${ctx.prefix}-sc-floor-${rep}`,
        image: ctx.options.image,
        layout,
        pollMs: 5,
      });
      await server.remove();
      return { seconds: server.seconds, details: { attempts: server.attempts } };
    },
  };
  await measureVariants(ctx, 'schema_cache', [
    ...modeVariants(ctx, project, 'native'),
    ...modeVariants(ctx, project, 'docker'),
    floor,
    ...(await pgliteSchemaCacheVariants(ctx, project, ctx.options.quick ? MIGRATIONS.quick : MIGRATIONS.full)),
  ]);
}
