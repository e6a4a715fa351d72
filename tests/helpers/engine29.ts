/**
 * What the Docker 29 files (tests/e2e/engine29*.test.ts) share: the second engine's DOCKER_HOST,
 * set for the whole worker on import; the CLI and docker on it; what a Docker start may leave on
 * it; and the setup that checks the engine (containerd image store, its oldest API) and removes
 * the CLI's instances afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { engine29Host, ourContainers, requireImages, ROOT, dockerVolumeNames } from './infra.js';

/** The second engine's DOCKER_HOST, or null (off CI, when it does not answer). */
export const host = engine29Host();
// This file's worker only: every docker command from here on (the product's, the helpers', act's)
// goes to the second engine.
if (host) process.env.DOCKER_HOST = host;

// The CLI's instance records, in a folder of this file's (made only when the engine answers).
/** The CLI's state folder's parent and the CLI's environment. */
export const work = host ? mkdtempSync(join(tmpdir(), 'pg-tmpfs-engine29-')) : '';
export const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };

/** `pg-tmpfs ARGS` on the second engine, with a deadline. */
export function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8', env, timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `docker ARGS` on the second engine (stdout), with a deadline. */
export function docker(args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * What a Docker start may leave on this engine: our containers (by label) and volumes; `added()`
 * lists what appeared since. (Not leftoverSnapshot's host-wide native servers, shared memory and
 * ports: a Docker start makes none, and other work on the machine may.)
 */
export function dockerLeftovers(): { added: () => string[] } {
  const all = () => [...ourContainers(), ...dockerVolumeNames().map((v) => `volume ${v}`)];
  const before = new Set(all());
  return { added: () => all().filter((x) => !before.has(x)) };
}

/** What the file's beforeAll found: the leftover snapshot and the action's first line (`Docker engine <version>`). */
export interface Engine29Setup {
  leftovers: { added: () => string[] };
  engineLine: string;
}

/** Registers the beforeAll (the engine checked, a leftover snapshot) and afterAll (the CLI's instances down, its folder removed). */
export function useEngine29(): Engine29Setup {
  const e: Engine29Setup = { leftovers: { added: () => [] }, engineLine: '' };
  beforeAll(() => {
    requireImages();
    e.leftovers = dockerLeftovers();
    const info = docker(['info', '--format', '{{json .DriverStatus}} {{.ServerVersion}}']);
    const api = docker(['version', '--format', '{{.Server.MinAPIVersion}} {{.Server.APIVersion}}']).trim();
    console.log(`engine: ${info.trim()}; API ${api}`);
    expect(info).toContain('io.containerd.snapshotter.v1');
    // As on GitHub's runners, a client older than API 1.44 is refused; unless the docker CLI here
    // is older (setup lowers it to the CLI's own API, read with no engine to negotiate with).
    const own = spawnSync('docker', ['version', '--format', '{{.Client.APIVersion}}'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
    }).stdout.trim();
    const oldest = own.localeCompare('1.44', 'en', { numeric: true }) < 0 ? own : '1.44';
    expect(api.split(' ')[0]).toBe(oldest);
    e.engineLine = `Docker engine ${docker(['version', '--format', '{{.Server.Version}}']).trim()}`;
  });
  afterAll(() => {
    for (const name of ['e29-15', 'e29-18']) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });
  return e;
}
