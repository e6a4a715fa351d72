/**
 * Real container registries for the tests (no public registry can be reached here): the CNCF
 * distribution registry (installed by scripts/setup-test-infra.sh) on 127.0.0.1, optionally
 * behind htpasswd authentication, and a proxy in front of one that fails the first requests with
 * given HTTP statuses (429, 503), as a rate-limited or overloaded registry does. Docker treats
 * registries on 127.0.0.0/8 as insecure (plain HTTP) by default, so nothing is configured.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { forgetImage } from '../../bench/lib/image-copy.js';
import type { Registry } from '../../bench/lib/registry.js';

export { startRegistry, type Registry } from '../../bench/lib/registry.js';
export { forgetImage } from '../../bench/lib/image-copy.js';

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
