/**
 * Real container registries for the tests (no public registry can be reached here): the CNCF
 * distribution registry (installed by scripts/setup-test-infra.sh) on 127.0.0.1, optionally
 * behind htpasswd authentication, and a proxy in front of one that fails the first requests with
 * given HTTP statuses (429, 503), as a rate-limited or overloaded registry does. Docker treats
 * registries on 127.0.0.0/8 as insecure (plain HTTP) by default, so nothing is configured.
 */
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { forgetImage } from '../../testkit/images.js';
import type { Registry } from '../../testkit/registry.js';
import { mainStep } from '../../src/action/main-step.js';
import { postStep } from '../../src/action/post-step.js';
import { processesWithArg } from '../../src/orphans.js';
import type { ProcessInfo } from '../../src/processes.js';
import { expect } from 'vitest';
import { ROOT } from './infra.js';
import type { RunnerJob, StepResult } from './runner-env.js';

export { startRegistry, type Registry } from '../../testkit/registry.js';
export { forgetImage } from '../../testkit/images.js';

/** A proxy in front of a registry that fails its first requests. */
export interface FaultyProxy extends Registry {
  /** Status of every request answered so far (failures and forwarded ones), in order. */
  statuses: number[];
}

/**
 * Starts an HTTP proxy on 127.0.0.1 that answers its first requests with `failures` (e.g.
 * [429, 503], with a Retry-After of 0 s), then forwards everything to `target`.
 */
export async function startFaultyProxy(target: string, failures: number[]): Promise<FaultyProxy> {
  const pending = [...failures];
  const statuses: number[] = [];
  const [targetHost, targetPort] = target.split(':') as [string, string];
  const server = http.createServer((req, res) => {
    const fail = pending.shift();
    if (fail !== undefined) {
      statuses.push(fail);
      res.writeHead(fail, { 'Content-Type': 'application/json', 'Retry-After': '0' });
      res.end(
        JSON.stringify({ errors: [{ code: fail === 429 ? 'TOOMANYREQUESTS' : 'UNAVAILABLE', message: `injected ${fail}` }] }),
      );
      return;
    }
    const upstream = http.request(
      {
        host: targetHost,
        port: Number(targetPort),
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target },
      },
      (up) => {
        statuses.push(up.statusCode ?? 0);
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    statuses,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Pushes an image to `registry` as `<registry>/library/postgres:<tag>` and removes it locally, so
 * that the next pull of that reference is real. The image pushed is `base` plus a small layer of
 * its own (the base layer stays local under the base's tag and is only checked, not fetched).
 * @param dockerEnv environment for the docker CLI (e.g. DOCKER_CONFIG of a logged-in client)
 * @returns the reference to pull
 */
export function pushProbeImage(base: string, registry: string, tag: string, dockerEnv: NodeJS.ProcessEnv = process.env): string {
  const ref = `${registry}/library/postgres:${tag}`;
  const opts = { env: dockerEnv, stdio: ['pipe', 'ignore', 'pipe'] as ['pipe', 'ignore', 'pipe'] };
  execFileSync('docker', ['build', '--quiet', '--tag', ref, '-'], {
    ...opts,
    input: `FROM ${base}\nRUN echo "pg-tmpfs registry probe ${ref} ${Date.now()}" > /pg-tmpfs-probe\n`,
    env: { ...dockerEnv, DOCKER_BUILDKIT: '0' },
  });
  execFileSync('docker', ['push', '--quiet', ref], opts);
  forgetImage(ref);
  return ref;
}

/**
 * A "registry" on 127.0.0.1 that accepts TCP connections and never answers (a hung registry, or
 * a port that is not a registry's), as the #26 sweep found: its `address` goes in an image
 * reference.
 */
export async function startSilentRegistry(): Promise<Registry> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The action's main step on `<proxy>/library/postgres:<tag>`, through a proxy in front of
 * `registry` that fails its first requests with `failures` (startFaultyProxy); then its post step
 * when it saved a server. `push(tag)` puts the image in `registry` first. The proxy is stopped and
 * the image forgotten locally afterwards.
 * @returns the image reference, the main step's result, what the post step reported (null when it
 *   did not run) and the status of every request the proxy answered
 */
export async function mainStepBehindFaultyProxy(
  job: RunnerJob,
  registry: string,
  failures: number[],
  tag: string,
  push: (tag: string) => unknown,
): Promise<{ image: string; main: StepResult<unknown>; post: unknown; statuses: number[] }> {
  const proxy = await startFaultyProxy(registry, failures);
  const image = `${proxy.address}/library/postgres:${tag}`;
  try {
    push(tag);
    const main = await job.step(mainStep, { mode: 'docker', image, port: '0' });
    const post = main.state.server ? (await job.step(postStep, {}, main.state)).value : null;
    return { image, main, post, statuses: proxy.statuses };
  } finally {
    forgetImage(image);
    await proxy.stop();
  }
}

/** The `docker pull` processes of `image` (not a CLI `up` that names it in --image). */
export function pullsOf(image: string): ProcessInfo[] {
  return processesWithArg(image).filter((p) => p.argv[1] === 'pull');
}

/**
 * Starts `pg-tmpfs up --mode docker --image IMAGE --name NAME` (dist/cli.js) with `env` and kills
 * it (SIGKILL) once its `docker pull` runs: from a silent registry (startSilentRegistry) that
 * pull is left running, an orphan for `down` or the next `up` of the name to end.
 * @returns how many pulls of `image` run after the kill (1: the orphan)
 * @throws Error when no pull started within 15 s
 */
export async function killUpDuringPull(image: string, name: string, env: NodeJS.ProcessEnv): Promise<number> {
  const up = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'up', '--mode', 'docker', '--image', image, '--name', name], {
    env,
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => up.once('exit', resolve));
  // Bounded: the pull starts within a second or two of `up`.
  for (let i = 0; i < 300 && pullsOf(image).length === 0; i++) await sleep(50);
  up.kill('SIGKILL');
  await exited;
  const running = pullsOf(image).length;
  if (running === 0) throw new Error(`no docker pull of ${image} ran while up --name ${name} did`);
  return running;
}

/**
 * The action's main step pulling `<silent>/library/postgres:18` from a registry that accepts and
 * never answers (startSilentRegistry), with a wait-timeout of 3 s, shorter than the answer deadline
 * (20 s); then its post step when it saved a server. Asserts what every engine must give: the
 * step fails once (no retry) with the error naming the registry, the image and the inputs to
 * check, the post step has nothing to report, and no `docker pull` of the image is left.
 * @returns the image it pulled
 */
export async function mainStepGivesUpOnSilentRegistry(job: RunnerJob, silent: Registry): Promise<string> {
  const image = `${silent.address}/library/postgres:18`;
  const main = await job.step(mainStep, { mode: 'docker', image, port: '0', 'wait-timeout': '3' });
  const post = main.state.server ? (await job.step(postStep, {}, main.state)).value : null;
  expect(main.exitCode, main.stdout).toBe(1);
  expect(main.stdout).toMatch(
    new RegExp(
      `^::error::Registry ${silent.address} did not answer the pull of image "${image}" within 3 s: no answer within 3 s\\. Check the inputs 'registry' and 'image'`,
      'm',
    ),
  );
  expect(main.stdout).not.toMatch(/retrying|attempts/);
  expect(post ?? []).toEqual([]);
  expect(pullsOf(image)).toEqual([]);
  return image;
}
