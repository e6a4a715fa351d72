/**
 * The third hostile sweep's schema-cache cases (issue #35), Docker mode, through the CLI
 * in-process (runCli), each in a case folder of its own (cache-dir and state folder inside it): a
 * hit serves what the miss served, settings and authentication included (ALTER SYSTEM, a
 * rewritten postgresql.conf); an entry whose server does not start (planted in its base.tar) is a
 * warned miss, dropped and not saved again; an init that marks its own database a template hits;
 * UNLOGGED tables in a database that refuses connections are found; a tmpfs too small for a good
 * entry names tmpfs-size and keeps it. Nothing is left behind (leftoverSnapshot). Native mode's
 * rows are in hostile-schema-cache-native.test.ts; what both share in
 * tests/helpers/hostile-schema-cache.ts.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storedKeys } from '../../src/schema-cache/store.js';
import { cleanupCase, IMAGE, newCase } from '../helpers/hostile-rows.js';
import { cacheOf, defineSchemaCacheSweepTests, down, initFile, NOT_USED, up } from '../helpers/hostile-schema-cache.js';
import { leftoverSnapshot, requireImages } from '../helpers/infra.js';

afterEach(cleanupCase);
beforeAll(requireImages);

defineSchemaCacheSweepTests('docker');

describe('schema cache and RAM folder limits, third sweep (#35)', () => {
  it("docker: a good entry that this run's tmpfs-size cannot hold names tmpfs-size and is kept", async () => {
    const c = newCase();
    // About 60 MB of rows that do not compress (each under the TOAST threshold).
    const init = initFile(
      c,
      "CREATE TABLE big AS SELECT g, (SELECT string_agg(md5(random()::text || x), '') FROM generate_series(1, 30) x WHERE x > g * 0) AS t FROM generate_series(1, 60000) g;\n",
    );
    const docker = ['--mode', 'docker', '--image', IMAGE];
    const snap = leftoverSnapshot();
    const first = await up(c, docker, ['--init', init]);
    expect(first.code, first.stderr).toBe(0);
    await down(c);
    const key = first.json.schemaCacheKey ?? '';
    expect(storedKeys(cacheOf(c))).toEqual([key]);

    const small = await up(c, docker, ['--init', init, '--tmpfs-size', '50m']);
    expect(small.code).toBe(1);
    expect(small.stderr).toMatch(/^error: --tmpfs-size: a 50m tmpfs has no room for the schema cache entry/m);
    expect(small.stderr).not.toMatch(NOT_USED);
    expect(storedKeys(cacheOf(c))).toEqual([key]);
    expect(snap.added()).toEqual([]);
  });
});
