/**
 * Section 6: PostgreSQL 15, 17 and 18 in Docker mode, through start() as the action runs it:
 * with the image on the machine, and with the image pulled from a registry on 127.0.0.1 (a full
 * pull: a copy of the image with a layer of its own, absent locally before every pull); the
 * pull's own time is start()'s pullMs. Per major, two raw `docker run` floors, each polled every
 * 5 ms: (a) the run plan's own arguments (tmpfs on the VOLUME holding PGDATA, the same settings),
 * which start() with the image present is held against (issue #11: at most 1.05×); (b) the tmpfs
 * on PGDATA only, the old way, for which Docker makes and fills an anonymous volume on 18 (its
 * VOLUME /var/lib/postgresql holds PGDATA). On 18 also the first query with initdb's data
 * checksums (18's default) and with `--no-data-checksums`, each a `docker run` polled every 5 ms.
 *
 * Section 7: PostgreSQL 18's initdb data checksums and io_method on the action's container (tmpfs,
 * profile): the test-suite workloads with 18's defaults (checksums on, io_method=worker), with
 * `--no-data-checksums`, with io_method=sync, and with io_method=io_uring where it can start.
 */
import type { ImageLayout } from '../../src/docker/run-plan.js';
import { INITDB_ARGS } from '../../src/profile.js';
import { compare, type Row } from '../lib/compare.js';
import { containerVolumes, expectVolumesGone, imageLayout, MAJOR_IMAGES } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { startDockerServer, type DockerServer } from '../lib/docker-server.js';
import { fullCopy } from '../lib/image-copy.js';
import { forgetImage } from '../../testkit/images.js';
import { pullsImages } from '../lib/quick.js';
import type { BenchServer } from '../lib/pgserver.js';
import { measureVariants, startRegistered, type Variant } from '../lib/timed.js';
import { createdbWorkloads, prepareAll, WORKLOADS } from '../lib/workloads.js';

/**
 * Section 6's variants of one major: start() with the image present, floors (a) and (b), and
 * start() pulling `copy` (a full copy in the run's registry, removed locally before and after;
 * the row is left out when `copy` is undefined, as in a quick run).
 */
function majorVariants(ctx: Context, major: string, image: string, layout: ImageLayout, copy: string | undefined): Variant[] {
  const rows: Variant[] = [
    {
      key: `present-${major}`,
      label: `Docker mode, PostgreSQL ${major}, image on the machine: start() until verified`,
      async measure(rep) {
        const { seconds, server } = await startRegistered(ctx, {
          mode: 'docker',
          image,
          port: '0',
          'container-name': `${ctx.prefix}-m${major}-${rep}`,
        });
        return { seconds, details: { serverVersion: server.serverVersion } };
      },
    },
    {
      key: `floor-plan-${major}`,
      label: `PostgreSQL ${major}, floor (a): docker run with the action’s arguments (tmpfs on the VOLUME holding PGDATA), a query every 5 ms`,
      measure: (rep) => rawRun(ctx, `${ctx.prefix}-fa${major}-${rep}`, image, layout),
    },
    {
      key: `floor-pgdata-${major}`,
      label: `PostgreSQL ${major}, floor (b): docker run with the tmpfs on PGDATA only (a VOLUME above it gets an anonymous volume), a query every 5 ms`,
      measure: (rep) => rawRun(ctx, `${ctx.prefix}-fb${major}-${rep}`, image, { pgdata: layout.pgdata, volumes: [] }),
    },
  ];
  if (!copy) return rows;
  rows.push({
    key: `pulled-${major}`,
    label: `Docker mode, PostgreSQL ${major}, image pulled from a registry on 127.0.0.1: start() until verified`,
    async measure(rep) {
      const ref = copy;
      forgetImage(ref);
      try {
        const { seconds, server } = await startRegistered(ctx, {
          mode: 'docker',
          image: ref,
          port: '0',
          'container-name': `${ctx.prefix}-p${major}-${rep}`,
        });
        const pullMs = server.mode === 'docker' ? server.pullMs : 0;
        if (pullMs <= 0) throw new Error(`no pull happened for ${ref}`);
        return { seconds, details: { pullMs } };
      } finally {
        forgetImage(ref);
      }
    },
  });
  return rows;
}

export async function runMajors(ctx: Context): Promise<void> {
  const majors = Object.keys(MAJOR_IMAGES);
  // A quick run pulls nothing (bench/lib/quick.ts).
  const pulled = pullsImages(ctx) ? majors : [];
  if (pulled.length) ctx.log('majors: starting a registry on 127.0.0.1 and pushing a full copy of each image');
  // Off the clock: the copies are made at once (export and import wait on the disk, the push's
  // compression on a core).
  const refs = await Promise.allSettled(pulled.map((major) => fullCopy(ctx, MAJOR_IMAGES[major] as string, major)));
  const failed = refs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const copies = Object.fromEntries(pulled.map((major, i) => [major, (refs[i] as PromiseFulfilledResult<string>).value]));
  try {
    const variants: Variant[] = [];
    for (const major of majors) {
      const image = MAJOR_IMAGES[major] as string;
      variants.push(...majorVariants(ctx, major, image, await imageLayout(image), copies[major]));
    }
    const image18 = MAJOR_IMAGES[18] as string;
    const layout18 = await imageLayout(image18);
    for (const [key, label, initdb] of [
      ['checksums-18', 'PostgreSQL 18, initdb with data checksums (18’s default): docker run, a query every 5 ms', INITDB_ARGS],
      [
        'no-checksums-18',
        'PostgreSQL 18, initdb --no-data-checksums: docker run, a query every 5 ms',
        [...INITDB_ARGS, '--no-data-checksums'],
      ],
    ] as const) {
      variants.push({ key, label, measure: (rep) => rawRun(ctx, `${ctx.prefix}-${key}-${rep}`, image18, layout18, initdb) });
    }
    await measureVariants(ctx, 'majors', variants);
  } finally {
    for (const ref of Object.values(copies)) forgetImage(ref);
  }
}

/**
 * A raw `docker run` of `image` with buildRunPlan's arguments for `layout` (docker-server.ts),
 * polled every 5 ms from the moment `docker run` starts until a query is answered through the
 * published port with the password. Then, off the clock: the container's anonymous volumes are
 * counted, the container is removed with them, and they are checked to be gone.
 * @param initdbArgs POSTGRES_INITDB_ARGS instead of the plan's
 * @returns seconds to the first answer; details: attempts, anonymousVolumes
 */
async function rawRun(
  ctx: Context,
  name: string,
  image: string,
  layout: ImageLayout,
  initdbArgs?: readonly string[],
): Promise<{ seconds: number; details: Record<string, unknown> }> {
  const server = await startDockerServer(ctx, { name, image, layout, pollMs: 5, ...(initdbArgs ? { initdbArgs } : {}) });
  let volumes: string[] = [];
  try {
    volumes = await containerVolumes(name);
    return { seconds: server.seconds, details: { attempts: server.attempts, anonymousVolumes: volumes.length } };
  } finally {
    await server.remove();
    await expectVolumesGone(volumes);
  }
}

export async function runPg18(ctx: Context): Promise<void> {
  const image = MAJOR_IMAGES[18] as string;
  const layout = await imageLayout(image);
  type Spec = { key: string; label: string; initdb: readonly string[]; settings: string };
  const specs: Spec[] = [
    { key: 'defaults-18', label: '18’s defaults (checksums, io_method=worker)', initdb: INITDB_ARGS, settings: '' },
    { key: 'no-checksums', label: 'initdb --no-data-checksums', initdb: [...INITDB_ARGS, '--no-data-checksums'], settings: '' },
    { key: 'io-sync', label: 'io_method=sync', initdb: INITDB_ARGS, settings: 'io_method=sync' },
    { key: 'io-uring', label: 'io_method=io_uring', initdb: INITDB_ARGS, settings: 'io_method=io_uring' },
  ];
  const containers: DockerServer[] = [];
  const servers: BenchServer[] = [];
  try {
    for (const spec of specs) {
      const name = `${ctx.prefix}-pg18-${spec.key}`;
      let server: DockerServer;
      try {
        server = await startDockerServer(ctx, {
          name,
          image,
          layout,
          settings: spec.settings,
          initdbArgs: spec.initdb,
          pollMs: 20,
        });
      } catch (error) {
        // io_uring needs kernel support and a seccomp profile that allows it: leave it out when it cannot start.
        if (spec.key === 'io-uring') {
          ctx.log(
            `pg18: io_method=io_uring did not start here (${error instanceof Error ? error.message : String(error)}); left out`,
          );
          continue;
        }
        throw error;
      }
      containers.push(server);
      servers.push({
        spec: { key: spec.key, label: spec.label, storage: 'tmpfs', settings: [] },
        conn: server.conn,
        socketDir: '',
        dataDir: layout.pgdata,
        filesystem: 'tmpfs',
        stop: async () => undefined,
      });
    }
    const rows: Row[] = [
      { workload: WORKLOADS.truncate, clients: 1, metric: 'tps' },
      { workload: WORKLOADS.createDropTable, clients: 1, metric: 'tps' },
      ...createdbWorkloads(18).map((workload) => ({ workload, clients: 1, metric: 'tps' as const })),
      { workload: WORKLOADS.tpcb, clients: 1, metric: 'tps' },
      { workload: WORKLOADS.tpcb, clients: 4, metric: 'tps' },
      { workload: WORKLOADS.selectOnly, clients: 1, metric: 'tps' },
    ];
    await prepareAll(servers, [...new Set(rows.map((r) => r.workload))], 4, ctx.options.scale);
    await compare(ctx, 'pg18', servers, rows);
  } finally {
    for (const c of containers.reverse()) await c.remove();
  }
}
