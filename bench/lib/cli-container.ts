/**
 * The CLI inside a long-running container of a local test image (section 1's npm rows): the
 * image's Debian packages put PostgreSQL <major> in /usr/lib/postgresql/<major>/bin, as on an
 * Ubuntu runner, so that its installed binaries and the npm build of the same major start side by
 * side in one place. As tests/e2e/native-majors.test.ts runs it: this checkout at /src (read
 * only), the host's node, and here also the host's npm beside it (where npm-fetch.ts's npmCommand
 * looks: `<node's prefix>/lib/node_modules/npm`), a cache folder of the run's at /cache, the
 * host's network (a registry on 127.0.0.1 is reachable) and a /dev/shm large enough for native
 * mode. Each `up` is timed inside the container, so `docker exec`'s own cost is not in it.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { npmCommand, realNpmProbe } from '../../src/native/source/npm/fetch.js';
import { run } from '../../src/proc.js';
import type { CliUpOut } from './cli.js';
import { runContainer, type BenchContainer } from './containers.js';
import type { Context } from './context.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Node code run with the container's node: runs its arguments as a program (`node ARGS…`), timed
 * from spawn to exit, and prints `{ ms, status, stdout, stderr }` as JSON. A synchronous spawn is
 * fine here: the registry the program may fetch from answers from the benchmark's process.
 */
const TIMER = [
  "const { spawnSync } = require('node:child_process');",
  'const t0 = performance.now();',
  "const r = spawnSync(process.execPath, process.argv.slice(1), { encoding: 'utf8', timeout: 600000, maxBuffer: 16 << 20 });",
  'const ms = performance.now() - t0;',
  'process.stdout.write(JSON.stringify({ ms, status: r.status, stdout: r.stdout, stderr: r.stderr }));',
].join('\n');

/** A container to run the CLI in. */
export interface CliContainer extends BenchContainer {
  /**
   * `pg-tmpfs up --name NAME --json --quiet ARGS…` inside the container, timed there from spawn
   * to exit, then `pg-tmpfs down --name NAME` off the clock (registered for cleanup before `up`).
   * @param env variables for the CLI (passed with `docker exec --env NAME`)
   * @returns seconds of `up` and what it printed
   * @throws Error when `up` or `down` fails, or PGDATA is not on tmpfs
   */
  up(name: string, args: readonly string[], env?: Record<string, string>): Promise<{ seconds: number; out: CliUpOut }>;
}

/** The folder of the host's npm (`…/node_modules/npm`), which the container gets beside node. */
function npmRoot(): string {
  const npm = npmCommand(realNpmProbe());
  if (!npm) throw new Error('npm is not installed here (the CLI in the container fetches with the host’s npm)');
  const cli = realpathSync(npm.prefixArgs[0] ?? npm.program);
  if (basename(cli) !== 'npm-cli.js') throw new Error(`npm at ${npm.program} is not npm-cli.js (found ${cli})`);
  return dirname(dirname(cli));
}

/** `docker exec NAME ARGS…` with `env` passed by name; deadline 600 000 ms. @throws Error on a non-zero exit */
async function exec(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const r = await run('docker', ['exec', ...Object.keys(env).flatMap((k) => ['--env', k]), name, ...args], {
    timeoutMs: 600_000,
    env,
  });
  if (r.code !== 0) throw new Error(`docker exec ${args.slice(0, 2).join(' ')} exited with ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * Starts a container of `image` that sleeps until removed (registered for removal), with the
 * mounts above: `cacheDir` at /cache, and each of `shared` at its own path (e.g. an npm client's
 * folder, so that its settings name the same paths inside).
 */
export async function startCliContainer(
  ctx: Context,
  name: string,
  image: string,
  cacheDir: string,
  shared: readonly string[] = [],
): Promise<CliContainer> {
  const mounts = [
    `${ROOT}:/src:ro`,
    `${process.execPath}:/usr/local/bin/node:ro`,
    `${npmRoot()}:/usr/local/lib/node_modules/npm:ro`,
    `${cacheDir}:/cache`,
    ...shared.map((dir) => `${dir}:${dir}`),
  ];
  const c = await runContainer(ctx, name, [
    '--network',
    'host',
    '--shm-size',
    '2g',
    ...mounts.flatMap((m) => ['--volume', m]),
    '--entrypoint',
    'sleep',
    image,
    'infinity',
  ]);
  const cli = '/src/dist/cli.js';
  return {
    ...c,
    async up(instance, args, env = {}) {
      const down = ctx.cleanup.add(`CLI instance ${instance} in ${name}`, async () => {
        await exec(name, ['node', cli, 'down', '--name', instance]);
      });
      try {
        const raw = await exec(name, ['node', '-e', TIMER, cli, 'up', '--name', instance, '--json', '--quiet', ...args], env);
        const r = JSON.parse(raw) as { ms: number; status: number | null; stdout: string; stderr: string };
        if (r.status !== 0) throw new Error(`pg-tmpfs up in ${image} exited with ${r.status}: ${r.stderr.trim()}`);
        const out = JSON.parse(r.stdout) as CliUpOut;
        if (!out.tmpfs) throw new Error(`pg-tmpfs up in ${image}: PGDATA not on tmpfs`);
        return { seconds: r.ms / 1000, out };
      } finally {
        await down();
      }
    },
  };
}
