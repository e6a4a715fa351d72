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
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { buildRunPlan, type ImageLayout } from '../../src/docker/run-plan.js';
import { dockerOk, removeContainer } from '../../src/docker/engine.js';
import { INITDB_ARGS } from '../../src/profile.js';
import { startRegistry, type Registry } from '../../tests/helpers/registry.js';
import { compare, type Row } from '../lib/compare.js';
import {
  containerVolumes,
  expectVolumesGone,
  imageLayout,
  publishedPort,
  runContainer,
  type BenchContainer,
} from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import type { BenchServer } from '../lib/pgserver.js';
import { untilAnswered } from '../lib/query.js';
import { inputs, measureVariants, startRegistered, type Variant } from '../lib/timed.js';
import { runOptions } from './startup.js';
import { createdbWorkloads, prepare, WORKLOADS } from '../lib/workloads.js';

/** The local test images, one per real major (tests/images/build.sh). */
export const MAJOR_IMAGES: Record<string, string> = {
  15: 'pg-tmpfs-test/postgres:15',
  17: 'pg-tmpfs-test/postgres:17',
  18: 'pg-tmpfs-test/postgres:18',
};

export async function runMajors(ctx: Context): Promise<void> {
  const majors = Object.keys(MAJOR_IMAGES);
  ctx.log('majors: starting a registry on 127.0.0.1 and pushing a full copy of each image');
  const registry = await startRegistry();
  const stopRegistry = ctx.cleanup.adopt('registry', () => registry.stop());
  const copies: Record<string, string> = {};
  /** Every copy imported locally, removed at the end even when its push failed. */
  const imported: string[] = [];
  try {
    for (const major of majors) copies[major] = await pushFullCopy(ctx, MAJOR_IMAGES[major] as string, registry, major, imported);
    const variants: Variant[] = [];
    for (const major of majors) {
      const image = MAJOR_IMAGES[major] as string;
      const layout = await imageLayout(image);
      variants.push({
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
      });
      variants.push({
        key: `floor-plan-${major}`,
        label: `PostgreSQL ${major}, floor (a): docker run with the action’s arguments (tmpfs on the VOLUME holding PGDATA), a query every 5 ms`,
        measure: (rep) => rawRun(ctx, `${ctx.prefix}-fa${major}-${rep}`, image, layout),
      });
      variants.push({
        key: `floor-pgdata-${major}`,
        label: `PostgreSQL ${major}, floor (b): docker run with the tmpfs on PGDATA only (a VOLUME above it gets an anonymous volume), a query every 5 ms`,
        measure: (rep) => rawRun(ctx, `${ctx.prefix}-fb${major}-${rep}`, image, { pgdata: layout.pgdata, volumes: [] }),
      });
      variants.push({
        key: `pulled-${major}`,
        label: `Docker mode, PostgreSQL ${major}, image pulled from a registry on 127.0.0.1: start() until verified`,
        async measure(rep) {
          const ref = copies[major] as string;
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
    for (const ref of new Set([...imported, ...Object.values(copies)])) forgetImage(ref);
    await stopRegistry();
  }
}

/**
 * A raw `docker run` of `image` with buildRunPlan's arguments for `layout` (runOptions: without
 * the project's labels), polled every 5 ms from the moment `docker run` starts until a query is
 * answered through the published port with the password. Then, off the clock: the container's
 * anonymous volumes are counted, the container is removed with them, and they are checked to be
 * gone.
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
  const config = inputs({ mode: 'docker', image, port: '0', 'container-name': name });
  const plan = buildRunPlan(config, layout);
  const env = initdbArgs ? { ...plan.env, POSTGRES_INITDB_ARGS: initdbArgs.join(' ') } : plan.env;
  const t0 = performance.now();
  const c = await runContainer(ctx, name, runOptions(plan.args), env);
  let volumes: string[] = [];
  try {
    const port = await publishedPort(name);
    const attempts = await untilAnswered(
      { host: '127.0.0.1', port, user: config.user, password: config.password, database: config.database },
      120_000,
      5,
    );
    const seconds = (performance.now() - t0) / 1000;
    volumes = await containerVolumes(name);
    return { seconds, details: { attempts, anonymousVolumes: volumes.length } };
  } finally {
    await c.remove();
    await expectVolumesGone(volumes);
  }
}

/** Removes a local image tag; nothing when it is not there. */
/** Removes a local image tag; nothing when it is not there. */
export function forgetImage(ref: string): void {
  try {
    execFileSync('docker', ['image', 'rm', '--force', ref], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // not there
  }
}

/**
 * A full copy of `image` in `registry` as `<registry>/pg-tmpfs-bench/postgres:<tag>`: the image's
 * files exported (`docker export` to a file in the run's disk folder) and imported as one new
 * layer, so that no local image shares it, with the image's environment, entrypoint, command and
 * volumes; pushed, then removed locally. Argument arrays only.
 * @returns the reference to pull
 */
export async function pushFullCopy(
  ctx: Context,
  image: string,
  registry: Registry,
  tag: string,
  registered: string[],
): Promise<string> {
  const ref = `${registry.address}/pg-tmpfs-bench/postgres:${tag}`;
  const cfg = JSON.parse(
    await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image], 'docker image inspect', ''),
  ) as {
    Env?: string[];
    Entrypoint?: string[];
    Cmd?: string[];
    Volumes?: Record<string, unknown>;
  };
  const changes = [
    ...(cfg.Env ?? []).map((e) => `ENV ${e}`),
    `ENTRYPOINT ${JSON.stringify(cfg.Entrypoint ?? [])}`,
    `CMD ${JSON.stringify(cfg.Cmd ?? [])}`,
    ...Object.keys(cfg.Volumes ?? {}).map((v) => `VOLUME ${v}`),
    'EXPOSE 5432',
  ].flatMap((c) => ['--change', c]);
  const name = `${ctx.prefix}-export-${tag}`;
  const tar = `${ctx.diskWork}/export-${tag}.tar`;
  const removeTemp = ctx.cleanup.add(`container ${name} and ${tar}`, async () => {
    await removeContainer(name);
    execFileSync('rm', ['-f', tar]);
  });
  try {
    await dockerOk(['create', '--name', name, image], 'docker create', 'See the Docker error');
    await dockerOk(['export', '--output', tar, name], 'docker export', 'See the Docker error', undefined, 600_000);
    await dockerOk(['import', ...changes, tar, ref], 'docker import', 'See the Docker error', undefined, 600_000);
    registered.push(ref);
    await dockerOk(['push', '--quiet', ref], 'docker push', 'See the Docker error', undefined, 600_000);
    forgetImage(ref);
    return ref;
  } finally {
    await removeTemp();
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
  const containers: BenchContainer[] = [];
  const servers: BenchServer[] = [];
  try {
    for (const spec of specs) {
      const name = `${ctx.prefix}-pg18-${spec.key}`;
      const config = inputs({ mode: 'docker', image, port: '0', 'container-name': name, settings: spec.settings });
      const plan = buildRunPlan(config, layout);
      const args = runOptions(plan.args);
      const c = await runContainer(ctx, name, args, { ...plan.env, POSTGRES_INITDB_ARGS: spec.initdb.join(' ') });
      containers.push(c);
      const conn = {
        host: '127.0.0.1',
        port: await publishedPort(name),
        user: config.user,
        password: config.password,
        database: 'postgres',
      };
      try {
        await untilAnswered(conn, 120_000, 20);
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
      servers.push({
        spec: { key: spec.key, label: spec.label, storage: 'tmpfs', settings: [] },
        conn,
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
    for (const s of servers) await prepare(s, [...new Set(rows.map((r) => r.workload))], 4, ctx.options.scale);
    await compare(ctx, 'pg18', servers, rows);
  } finally {
    for (const c of containers.reverse()) await c.remove();
  }
}
