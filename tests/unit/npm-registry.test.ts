/**
 * The local npm registry's pure parts (testkit/npm-registry.ts, testkit/npm-tarball.ts) on a
 * small package made here with tar: version order, tar entries (a pax long name), the tampered
 * copy, and the registry's answers over HTTP (forms of the name, ETag, refuse, stall and close()).
 * Real `npm pack` runs against it, with the real PostgreSQL packages: tests/e2e/npm-registry.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { compareVersions, startNpmRegistry } from '../../testkit/npm-registry.js';
import { digestsOf, tamperedTarball, tarballInfo, tarEntries } from '../../testkit/npm-tarball.js';

const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-npm-unit-'));
const longPath = `native/${'x'.repeat(120)}/file.txt`;

/** A package tarball as npm packs one (every path under package/), pax headers for long names. */
function makePackage(version: string): string {
  const root = join(dir, version);
  mkdirSync(join(root, 'package', 'native', 'x'.repeat(120)), { recursive: true });
  writeFileSync(
    join(root, 'package', 'package.json'),
    JSON.stringify({ name: '@scope/linux-x64', version, os: ['linux'], scripts: { postinstall: 'true' } }),
  );
  writeFileSync(join(root, 'package', 'README.md'), '# readme\n');
  writeFileSync(join(root, 'package', longPath), 'data\n');
  const file = join(dir, `scope-linux-x64-${version}.tgz`);
  execFileSync('tar', ['--format=pax', '-czf', file, '-C', root, 'package'], { timeout: 30_000 });
  return file;
}

const files = [makePackage('17.9.0-beta.17'), makePackage('17.10.0-beta.16')];
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** GET `url` with `headers`; resolves with status, headers and body, or rejects on a socket error. */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('npm tarballs', () => {
  it('orders versions as semver does: numbers numerically, a release after its prereleases', () => {
    const sorted = ['17.10.0', '17.10.0-beta.16', '17.9.0-beta.17', '17.10.0-beta.2', '17.10.0-alpha.5', '9.0.0'].sort(
      compareVersions,
    );
    expect(sorted).toEqual(['9.0.0', '17.9.0-beta.17', '17.10.0-alpha.5', '17.10.0-beta.2', '17.10.0-beta.16', '17.10.0']);
  });

  it('lists the entries of a tar archive, a pax long name applied', () => {
    const names = tarEntries(gunzipSync(readFileSync(files[0]!))).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', `package/${longPath}`]));
  });

  it('reads package.json and digests; the tampered copy differs in one byte of README.md', async () => {
    const info = await tarballInfo(files[0]!);
    expect(info.packageJson).toMatchObject({ name: '@scope/linux-x64', version: '17.9.0-beta.17' });
    expect(info.integrity).toBe(digestsOf(readFileSync(files[0]!)).integrity);
    const t = await tamperedTarball(files[0]!);
    expect(t.entry).toBe('package/README.md');
    expect(t.integrity).not.toBe(info.integrity);
    const [a, b] = [gunzipSync(readFileSync(files[0]!)), gunzipSync(t.bytes)];
    expect(b.length).toBe(a.length);
    expect([...a].filter((byte, i) => byte !== b[i])).toHaveLength(1);
    expect(b[t.offset]).toBe(a[t.offset]! ^ 1);
  });
});

describe('npm registry over HTTP', () => {
  it('serves the packument under both spellings of the scope, its tarballs with ETag, and 404 otherwise', async () => {
    const registry = await startNpmRegistry({ tarballs: files });
    try {
      const corgi = await get(`${registry.url}@scope%2flinux-x64`, { accept: 'application/vnd.npm.install-v1+json' });
      expect(corgi.headers['content-type']).toBe('application/vnd.npm.install-v1+json');
      const doc = JSON.parse(corgi.body.toString()) as {
        'dist-tags': { latest: string };
        versions: Record<string, { hasInstallScript?: boolean; dist: { tarball: string; integrity: string } }>;
      };
      expect(doc['dist-tags'].latest).toBe('17.10.0-beta.16');
      const v = doc.versions['17.9.0-beta.17']!;
      expect(v.hasInstallScript).toBe(true);
      expect(v.dist.integrity).toBe((await tarballInfo(files[0]!)).integrity);
      expect(JSON.parse((await get(`${registry.url}@scope/linux-x64`)).body.toString())).toHaveProperty('time');
      const tarball = await get(v.dist.tarball);
      expect(tarball.body.equals(readFileSync(files[0]!))).toBe(true);
      expect((await get(v.dist.tarball, { 'if-none-match': String(tarball.headers.etag) })).status).toBe(304);
      expect((await get(`${registry.url}@scope%2fother`)).status).toBe(404);
      expect(registry.tarballRequests('@scope/linux-x64')).toBe(2);
      expect(registry.tarballDownloads('@scope/linux-x64', '17.9.0-beta.17')).toBe(1);
      registry.behaviour = 'tamper';
      const tampered = await get(v.dist.tarball);
      expect(digestsOf(tampered.body).integrity).toBe((await registry.served('@scope/linux-x64', '17.9.0-beta.17')).integrity);
      registry.behaviour = 'refuse';
      registry.refuseStatus = 403;
      expect((await get(v.dist.tarball)).status).toBe(403);
    } finally {
      await registry.close();
    }
  });

  it('stall: never answers; close() ends the stalled request and stops listening', async () => {
    const registry = await startNpmRegistry({ tarballs: files, behaviour: 'stall' });
    const pending = get(`${registry.url}@scope%2flinux-x64`);
    for (let i = 0; i < 1000 && registry.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(registry.requests[0]).toMatchObject({ kind: 'packument', status: 0, behaviour: 'stall' });
    await registry.close();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect(get(registry.url)).rejects.toThrow(/ECONNREFUSED/);
  });
});
