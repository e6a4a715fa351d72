/**
 * The pieces of the warm start that need no server: facts kept by file identity, the cache
 * entry's manifest and the one-pass copy, the databases copied in the background, and phases.
 * They touch only a temporary folder.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FACTS_FILE, factsIn } from '../../src/native/facts.js';
import {
  copyCluster,
  copyLater,
  DamagedEntryError,
  deferrableDatabases,
  listFiles,
  MANIFEST_SUFFIX,
  readManifest,
} from '../../src/native/initdb-cache.js';
import { Phases } from '../../src/timing.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgt-warm-'));
  chmodSync(dir, 0o700);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('facts kept by file identity', () => {
  it('computes a fact once per program file and keeps it in facts.json', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    let runs = 0;
    const compute = () => {
      runs += 1;
      return `postgres (PostgreSQL) 15.${runs}`;
    };
    expect(factsIn(dir).get(program, '--version', compute)).toBe('postgres (PostgreSQL) 15.1');
    // A new process (a new store) reads the file instead of running the program.
    expect(factsIn(dir).get(program, '--version', compute)).toBe('postgres (PostgreSQL) 15.1');
    expect(runs).toBe(1);
    expect(statSync(join(dir, FACTS_FILE)).mode & 0o777).toBe(0o600);
  });

  it('asks again when the program file changes (an upgrade), and for another fact of it', () => {
    const program = join(dir, 'initdb');
    writeFileSync(program, 'v1');
    expect(factsIn(dir).get(program, '--version', () => 'old')).toBe('old');
    writeFileSync(program, 'version 2, longer');
    utimesSync(program, new Date(), new Date(Date.now() + 5000));
    expect(factsIn(dir).get(program, '--version', () => 'new')).toBe('new');
    expect(factsIn(dir).get(program, '--bindir', () => '/x')).toBe('/x');
  });

  it('keeps no unknown answer, and a missing program is computed every time', () => {
    const program = join(dir, 'pg_config');
    writeFileSync(program, '');
    expect(factsIn(dir).get(program, '--bindir', () => null)).toBeNull();
    expect(factsIn(dir).get(program, '--bindir', () => '/now')).toBe('/now');
    expect(factsIn(dir).get(join(dir, 'absent'), '--version', () => 'computed')).toBe('computed');
    expect(JSON.stringify(JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')))).not.toContain('absent');
  });

  it('does not believe or write facts in a folder others can write to', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    factsIn(dir).get(program, '--version', () => 'true answer');
    const planted = JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')) as Record<string, string>;
    for (const key of Object.keys(planted)) planted[key] = 'planted';
    writeFileSync(join(dir, FACTS_FILE), JSON.stringify(planted));
    chmodSync(dir, 0o777);
    expect(factsIn(dir).get(program, '--version', () => 'computed')).toBe('computed');
    chmodSync(dir, 0o700);
    expect(factsIn(dir).get(program, '--version', () => 'computed')).toBe('planted');
  });

  it('counts an unreadable facts file as empty and replaces it', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    writeFileSync(join(dir, FACTS_FILE), '{not json');
    expect(factsIn(dir).get(program, '--version', () => 'fresh')).toBe('fresh');
    expect(factsIn(dir).get(program, '--version', () => 'again')).toBe('fresh');
  });
});

/** A small cluster-like entry: three databases, global/, pg_wal/ and a config file. */
function makeEntry(): string {
  const entry = join(dir, 'entry');
  for (const d of ['base/1', 'base/4', 'base/5', 'global', 'pg_wal/archive_status'])
    mkdirSync(join(entry, d), { recursive: true });
  for (const [f, text] of [
    ['base/1/1259', 'template1 pg_class'],
    ['base/4/1259', 'template0 pg_class'],
    ['base/5/1259', 'postgres pg_class'],
    ['base/5/2619_fsm', ''],
    ['global/pg_control', 'control file'],
    ['pg_wal/000000010000000000000001', 'wal'],
    ['postgresql.conf', '# conf'],
  ] as const)
    writeFileSync(join(entry, f), text, { mode: 0o600 });
  writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify(listFiles(entry)));
  return entry;
}

describe('the cache entry and its copy', () => {
  it('the manifest lists folders (each after its parent) and files with sizes', () => {
    const entry = makeEntry();
    const m = readManifest(entry);
    expect(m?.dirs.indexOf('base')).toBeLessThan(m?.dirs.indexOf('base/1') ?? -1);
    expect(m?.files['global/pg_control']).toBe('control file'.length);
    expect(m?.files['base/5/2619_fsm']).toBe(0);
  });

  it('a manifest naming a path outside its entry is not a manifest', () => {
    const entry = makeEntry();
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify({ dirs: [], files: { '../../etc/passwd': 10 } }));
    expect(readManifest(entry)).toBeNull();
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify({ dirs: ['/abs'], files: {} }));
    expect(readManifest(entry)).toBeNull();
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, '[1,2]');
    expect(readManifest(entry)).toBeNull();
  });

  it('every database but the newest (postgres) may be copied later', () => {
    const m = readManifest(makeEntry());
    expect(m && deferrableDatabases(m)).toEqual(['base/1', 'base/4']);
    expect(deferrableDatabases({ dirs: ['base', 'base/1', 'base/13756', 'base/13757'], files: {} })).toEqual([
      'base/1',
      'base/13756',
    ]);
    expect(deferrableDatabases({ dirs: ['global'], files: {} })).toEqual([]);
  });

  it('copies everything but the later databases, folders 0700; copyLater puts those in place', async () => {
    const entry = makeEntry();
    const m = readManifest(entry);
    if (!m) throw new Error('no manifest');
    const dest = join(dir, 'run', 'data');
    mkdirSync(join(dir, 'run'));
    const later = deferrableDatabases(m);
    copyCluster(entry, m, dest, null, later);
    expect(readFileSync(join(dest, 'base/5/1259'), 'utf8')).toBe('postgres pg_class');
    expect(readFileSync(join(dest, 'global/pg_control'), 'utf8')).toBe('control file');
    expect(statSync(join(dest, 'global')).mode & 0o777).toBe(0o700);
    expect(() => statSync(join(dest, 'base/1'))).toThrow(/ENOENT/);
    copyLater(entry, m, dest, null, later, join(dir, 'run', 'templates.tmp'));
    expect(readFileSync(join(dest, 'base/1/1259'), 'utf8')).toBe('template1 pg_class');
    expect(readFileSync(join(dest, 'base/4/1259'), 'utf8')).toBe('template0 pg_class');
    expect(() => statSync(join(dir, 'run', 'templates.tmp'))).toThrow(/ENOENT/);
    expect(listFiles(dest)).toEqual(listFiles(entry));
  });

  it('a file of another size than the manifest says, or missing, is a damaged entry', async () => {
    const entry = makeEntry();
    const m = readManifest(entry);
    if (!m) throw new Error('no manifest');
    writeFileSync(join(entry, 'global/pg_control'), 'cut');
    expect(() => copyCluster(entry, m, join(dir, 'a'), null)).toThrow(DamagedEntryError);
    expect(() => copyCluster(entry, m, join(dir, 'b'), null)).toThrow(/global\/pg_control has 3 bytes, not 12/);
    writeFileSync(join(entry, 'global/pg_control'), 'control file');
    rmSync(join(entry, 'base/1/1259'));
    mkdirSync(join(dir, 'c'));
    copyCluster(entry, m, join(dir, 'c', 'data'), null, ['base/1']);
    expect(() => copyLater(entry, m, join(dir, 'c', 'data'), null, ['base/1'], join(dir, 'c', 'tmp'))).toThrow(/1259 is missing/);
    expect(() => statSync(join(dir, 'c', 'tmp'))).toThrow(/ENOENT/);
  });
});

describe('phases', () => {
  it('each end() closes the phase begun at the previous one; a repeated name adds up', () => {
    const p = new Phases(0);
    p.end('first');
    p.end('second');
    p.end('first');
    const ms = p.snapshot();
    expect(Object.keys(ms)).toEqual(['first', 'second']);
    expect(ms.first).toBeGreaterThan(0);
    expect(ms.second).toBeGreaterThanOrEqual(0);
  });
});
