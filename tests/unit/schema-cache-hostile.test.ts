/**
 * Issue #35's schema-cache cases that pure logic decides (the servers are in
 * tests/e2e/hostile-schema-cache-{native,docker}.test.ts): the warning of a cluster whose configuration files init
 * changed, initdb's full RAM folder named as tmpfs-size, the restore's empty postgresql.auto.conf,
 * this run's pg_hba.conf on the command line, and the tablespace folders a run's server made
 * outside its data directory (real files in a temporary folder).
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, SetupError } from '../../src/errors.js';
import { listFiles } from '../../src/store/manifest.js';
import { fillError, restoreCluster } from '../../src/native/cluster/place.js';
import { dataDirOf } from '../../src/native/run/postgres.js';
import { postgresArgs } from '../../src/native/run/server-config.js';
import { removeTablespaces } from '../../src/native/run/tablespaces.js';
import { EMPTY_AUTO_CONF } from '../../src/schema-cache/restored.js';
import { configProblem, unloggedProblem } from '../../src/schema-cache/save-checks.js';
import { parse } from '../helpers/inputs.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('what init changed in the configuration files is not saved', () => {
  it('nothing changed: no problem', () => {
    expect(configProblem({ altered: [], unapplied: [], hba: [] })).toBeNull();
  });

  it('ALTER SYSTEM names each setting and the settings input, and says nothing was saved', () => {
    const text = configProblem({ altered: ['work_mem', 'hba_file'], unapplied: [], hba: [] }) ?? '';
    expect(text).toMatch(/^init set server settings with ALTER SYSTEM \(work_mem, hba_file\)/);
    expect(text).toContain("input 'settings'");
    expect(text).toMatch(/the schema cache saved nothing$/);
  });

  it('a changed configuration file and a broken pg_hba.conf are named too; at most five names, then a count', () => {
    const text =
      configProblem({
        altered: [],
        unapplied: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
        hba: ['line 3: invalid connection type "hots"'],
      }) ?? '';
    expect(text).toContain('(a, b, c, d, e and 2 more)');
    expect(text).toContain('pg_hba.conf the server cannot load (line 3: invalid connection type "hots")');
  });

  it('UNLOGGED relations are named with their database', () => {
    expect(unloggedProblem(['closed.public.scratch'])).toMatch(/^the cluster has UNLOGGED relations \(closed\.public\.scratch\)/);
  });
});

describe("initdb's full RAM folder", () => {
  const config = parse({ 'tmpfs-size': '10m' });

  it('names tmpfs-size (initdb runs in the run folder, on the RAM folder)', () => {
    const error = fillError(
      new SetupError('initdb failed: could not write to file "x": No space left on device', "See initdb's message"),
      config,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe('tmpfs-size');
    expect((error as InputError).problem).toMatch(/^a 10m tmpfs has no room for initdb's cluster/);
  });

  it('leaves other failures as they are: another initdb error, a full cache-dir', () => {
    const other = new SetupError('initdb failed: invalid locale', "See initdb's message");
    expect(fillError(other, config)).toBe(other);
    const cache = new SetupError('Could not fill the initdb cache in /c: ENOSPC: No space left on device', 'x');
    expect(fillError(cache, config)).toBe(cache);
  });
});

describe('the restore of an entry and the native server it starts', () => {
  it("replaces the entry's postgresql.auto.conf with an empty one: ALTER SYSTEM of the saving run never reaches a hit", () => {
    const entry = mkdtempSync(join(work, 'entry-'));
    writeFileSync(join(entry, 'PG_VERSION'), '15\n');
    writeFileSync(join(entry, 'postgresql.auto.conf'), "hba_file = '/tmp/trust.conf'\nwork_mem = '77MB'\n");
    const runDir = mkdtempSync(join(work, 'run-'));
    const handle = { mode: 'native' as const, pid: 0, runDir, token: '', ram: null, bindir: '' };
    restoreCluster({ dir: entry, manifest: listFiles(entry) }, handle, parse({}), null);
    expect(readFileSync(join(dataDirOf(runDir), 'postgresql.auto.conf'), 'utf8')).toBe(EMPTY_AUTO_CONF);
  });

  it("passes this run's pg_hba.conf and pg_ident.conf on the command line, over any configuration file", () => {
    const args = postgresArgs('/d', 1, { settings: [], publishHost: '127.0.0.1' });
    expect(args).toContain('hba_file=/d/pg_hba.conf');
    expect(args).toContain('ident_file=/d/pg_ident.conf');
  });
});

describe('the tablespace folders a run made outside its data directory', () => {
  /** A data directory of major 15 with a tablespace link to a new location holding `names`. */
  function withTablespace(names: string[]): { dataDir: string; location: string } {
    const dataDir = mkdtempSync(join(work, 'data-'));
    writeFileSync(join(dataDir, 'PG_VERSION'), '15\n');
    mkdirSync(join(dataDir, 'pg_tblspc'));
    const location = mkdtempSync(join(work, 'location-'));
    for (const name of names) mkdirSync(join(location, name, '16384'), { recursive: true });
    symlinkSync(location, join(dataDir, 'pg_tblspc', '16385'));
    return { dataDir, location };
  }

  it("removes the server's PG_<major>_<catalog> folder, keeps the location and everything else in it", () => {
    const { dataDir, location } = withTablespace(['PG_15_202209061', 'PG_16_202307071', 'mine']);
    writeFileSync(join(location, 'PG_15_notes'), 'x');
    expect(removeTablespaces(dataDir)).toEqual([]);
    expect(readdirSync(location).sort()).toEqual(['PG_15_notes', 'PG_16_202307071', 'mine']);
  });

  it('does not follow a link in place of that folder', () => {
    const { dataDir, location } = withTablespace([]);
    const elsewhere = mkdtempSync(join(work, 'elsewhere-'));
    writeFileSync(join(elsewhere, 'keep'), 'x');
    symlinkSync(elsewhere, join(location, 'PG_15_202209061'));
    expect(removeTablespaces(dataDir)).toEqual([
      `Not removing tablespace folder ${join(location, 'PG_15_202209061')}: not a folder of the server's user`,
    ]);
    expect(readdirSync(elsewhere)).toEqual(['keep']);
    expect(lstatSync(join(location, 'PG_15_202209061')).isSymbolicLink()).toBe(true);
  });

  it('no cluster, no pg_tblspc, a location gone, an in-place tablespace: nothing to do', () => {
    expect(removeTablespaces(join(work, 'none'))).toEqual([]);
    const { dataDir, location } = withTablespace(['PG_15_202209061']);
    rmSync(location, { recursive: true });
    mkdirSync(join(dataDir, 'pg_tblspc', '16386'));
    expect(removeTablespaces(dataDir)).toEqual([]);
    expect(readdirSync(join(dataDir, 'pg_tblspc')).sort()).toEqual(['16385', '16386']);
  });
});
