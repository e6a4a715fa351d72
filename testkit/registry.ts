/**
 * A container registry on 127.0.0.1 for the pulls the benchmark measures (sections 6 and 8) and
 * the tests (tests/helpers/registry.ts, which adds faulty and silent ones): the
 * CNCF distribution registry (`registry`, installed by scripts/setup-test-infra.sh), its storage
 * in a temporary folder. Docker treats registries on 127.0.0.0/8 as insecure (plain HTTP) by
 * default, so nothing is configured.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import bcrypt from 'bcryptjs';
import getPort from 'get-port';
import { stringify } from 'yaml';

/** A running registry. */
export interface Registry {
  /** `127.0.0.1:PORT`, the host part of image references. */
  address: string;
  /** Stops it and removes its storage. */
  stop(): Promise<void>;
}

/**
 * Path of a Go program installed by scripts/setup-test-infra.sh: on PATH, else in
 * $(go env GOPATH)/bin.
 * @throws Error pointing at the setup script when it is in neither
 */
export function goBinary(name: string): string {
  const onPath = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', name], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
  if (onPath) return onPath;
  const gopath =
    spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim() || join(homedir(), 'go');
  const candidate = join(gopath, 'bin', name);
  if (existsSync(candidate)) return candidate;
  throw new Error(`${name} is not installed: run bash scripts/setup-test-infra.sh`);
}

/**
 * Starts a registry on 127.0.0.1 with its storage in a temporary folder.
 * @param auth when given, clients must log in with this user and password (htpasswd, bcrypt)
 * @throws Error when it does not answer GET /v2/ within 20 000 ms
 */
export async function startRegistry(auth?: { user: string; password: string }): Promise<Registry> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-registry-'));
  const port = await getPort({ host: '127.0.0.1' });
  const config: Record<string, unknown> = {
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: join(dir, 'data') }, delete: { enabled: true } },
    http: { addr: `127.0.0.1:${port}`, secret: 'pg-tmpfs-local' },
  };
  if (auth) {
    writeFileSync(join(dir, 'htpasswd'), `${auth.user}:${bcrypt.hashSync(auth.password, 10)}\n`);
    config.auth = { htpasswd: { realm: 'pg-tmpfs-local', path: join(dir, 'htpasswd') } };
  }
  writeFileSync(join(dir, 'config.yml'), stringify(config));
  const child: ChildProcess = spawn(goBinary('registry'), ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGKILL: the registry drains connections on SIGTERM and may not exit; its storage is
      // deleted right after, so there is nothing to shut down cleanly.
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/v2/`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200 || status === 401) return { address: `127.0.0.1:${port}`, stop };
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`registry on 127.0.0.1:${port} did not answer (exit code ${child.exitCode})`);
    }
    await sleep(50);
  }
}
