/**
 * Section 1: time to the first answered query.
 *
 * - The action's Docker mode and native mode (initdb cache cold and warm), through start(): the
 *   wall time of the call, which includes the project's verification of settings and tmpfs.
 * - The CLI as users run it, `pg-tmpfs up` in native mode, the whole process (node start until it
 *   exits), initdb cache warm and cold, with the breakdown of where its time went (`up --json`
 *   reports phasesMs, src/timing.ts); `node -e 0` for Node's own start.
 * - Floors: the same `docker run` (buildRunPlan's arguments) with a query every 5 ms; `pg_ctl -w
 *   start` of a ready data directory on /dev/shm, then one query; native: copy the cached cluster
 *   (fs.cpSync, then chown), spawn `postgres` with the profile, poll `SELECT 1` on its socket
 *   every 2 ms, all inside this process (no process start of its own); `initdb --nosync` alone,
 *   for the cold start's target.
 * - Docker mode and its floor again on the second engine (Docker 29, the containerd image store:
 *   what GitHub's runners have; testkit/engines.ts), when it answers.
 * - What users do today: a stock container with its default disk volume (query every 5 ms); a
 *   GitHub-style service container with `--health-cmd pg_isready` (time until "healthy", and
 *   whether a real query right after it succeeds), at the usual 10 s interval and at 1 s; the
 *   tuned services block of 2026 (PGDATA on tmpfs, durability off by `command`), created as the
 *   runner creates it, until healthy, then the template's wait step (bench/lib/tuned-service.ts).
 * - Server builds from npm per major (issue #34): kept and cold, against installed binaries and
 *   Docker mode with the image present and pulled, each the CLI's whole process (startup-npm.ts).
 */
import { runOk } from '../../src/proc.js';
import { imageLayout } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { engine29, withDockerHost } from '../../testkit/engines.js';
import { onEngine } from '../lib/engines.js';
import { pgliteStartupVariants } from '../lib/pglite.js';
import { measureVariants, type Variant } from '../lib/timed.js';
import { dockerStartupVariants } from './startup-docker.js';
import { nativeStartupVariants } from './startup-native.js';
import { npmStartupVariants } from './startup-npm.js';

/** The variants in the order they run in each repetition (rotated) and appear in the table. */
const ORDER = [
  'action-docker',
  'action-native-cold',
  'action-native-warm',
  'floor-docker-run',
  'action-docker-engine29',
  'floor-docker-run-engine29',
  'floor-pg-ctl',
  'cli-native-warm',
  'cli-native-cold',
  'node-start',
  'floor-native',
  'floor-initdb',
  'docker-disk-durable',
  'service-10s',
  'service-1s',
  'service-tuned',
];

export async function runStartup(ctx: Context): Promise<void> {
  const image = ctx.options.image;
  const layout = await imageLayout(image);

  // Warm-ups (not measured): the image's files in the page cache (a quick run's figures mean
  // nothing, so it goes without), and the warm initdb cache (nativeStartupVariants).
  ctx.log('startup: warming up (image files, native initdb cache)');
  // Docker mode and its floor also on the second engine (Docker 29), when it answers.
  const second = await engine29();
  if (!second) ctx.log('startup: the second engine (Docker 29) does not answer: its rows are left out');
  const warm = () => runOk('docker', ['run', '--rm', '--entrypoint', 'postgres', image, '--version'], { timeoutMs: 120_000 });
  if (!ctx.options.quick) {
    await warm();
    if (second) await withDockerHost(second.host, warm);
  }
  const native = await nativeStartupVariants(ctx);
  let npm: Awaited<ReturnType<typeof npmStartupVariants>> | null = null;
  try {
    npm = await npmStartupVariants(ctx);
    const docker = dockerStartupVariants(ctx, image, layout);
    const engine = `Docker ${second?.version ?? ''}, containerd image store`;
    const on29 = second
      ? docker
          .filter((v) => v.key === 'action-docker' || v.key === 'floor-docker-run')
          .map((v) => onEngine(v, second.host, engine))
      : [];
    const byKey = new Map([...docker, ...on29, ...native.variants, ...npm.variants].map((v) => [v.key, v]));
    // The npm rows after the others, in the order startup-npm.ts gives them (they depend on the majors here).
    const variants = [...ORDER, ...npm.variants.map((v) => v.key)]
      .filter((key) => second || !key.endsWith('-engine29'))
      .map((key) => {
        const v = byKey.get(key);
        if (!v) throw new Error(`startup: no variant ${key}`);
        return v;
      });
    if (variants.length !== byKey.size) throw new Error('startup: a variant is missing from ORDER');
    await measureVariants(ctx, 'startup', [...variants, ...pgliteStartupVariants(ctx)] satisfies Variant[]);
  } finally {
    await npm?.remove();
    await native.remove();
  }
}
