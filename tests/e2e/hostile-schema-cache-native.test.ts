/**
 * The third hostile sweep's schema-cache cases (issue #35), native mode, through the CLI
 * in-process (runCli), each in a case folder of its own (cache-dir and state folder inside it): a
 * hit serves what the miss served, settings and authentication included (ALTER SYSTEM, a
 * rewritten postgresql.conf); an entry whose server does not start (planted in its
 * postgresql.conf) is a warned miss, dropped and not saved again; an init that marks its own
 * database a template hits; UNLOGGED tables in a database that refuses connections are found;
 * `down` removes the tablespace folder a run's server made outside its RAM folder; initdb in a
 * full RAM folder names tmpfs-size. Nothing is left behind (leftoverSnapshot). Docker mode's rows
 * are in hostile-schema-cache-docker.test.ts, what both share in
 * tests/helpers/hostile-schema-cache.ts; the initdb cache's in hostile-cache-native.test.ts.
 */
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAsUser } from '../../src/native/run/postgres.js';
import { cleanupCase, newCase, runRow } from '../helpers/hostile-rows.js';
import { defineSchemaCacheSweepTests, initFile, twice } from '../helpers/hostile-schema-cache.js';
import { queryValue } from '../helpers/infra.js';

afterEach(cleanupCase);

defineSchemaCacheSweepTests('native');

describe('schema cache and RAM folder limits, third sweep (#35)', () => {
  it('native: down removes the tablespace folder init made outside the RAM folder; the next identical up starts', async () => {
    const c = newCase();
    const location = mkdtempSync(join(tmpdir(), 'pg-tmpfs-tablespace-'));
    c.undo.push(() => rmSync(location, { recursive: true, force: true }));
    const runAs = runAsUser();
    if (runAs) chownSync(location, runAs.uid, runAs.gid);
    chmodSync(location, 0o700);
    const init = initFile(
      c,
      `-- pg-tmpfs: no-transaction\nCREATE TABLESPACE outside LOCATION '${location}';\nCREATE TABLE far (id int) TABLESPACE outside;\n`,
    );
    await twice(c, ['--mode', 'native'], ['--init', init], async (r) => {
      expect(r.stderr).toMatch(/^warning: schema cache not saved: pg_tblspc\/\d+ in the data directory is a symbolic link/m);
      expect(await queryValue(r.json.connectionUri, 'select count(*) as v from far')).toBe('0');
    });
    expect(readdirSync(location)).toEqual([]);
  });

  it('native: tmpfs-size 10m with an empty initdb cache names tmpfs-size', () =>
    runRow(
      {
        title: 'tmpfs-size 10m, empty initdb cache',
        argv: ['--cache-dir', '{dir}/cache', '--tmpfs-size', '10m'],
        input: '--tmpfs-size',
      },
      ['--mode', 'native'],
    ));
});
