/**
 * The pieces of the warm start that need no server: the cache entry's manifest and the one-pass
 * copy, the databases copied in the background, and which entries are used. They touch only a
 * temporary folder. Facts kept by file identity and phases are in warm-start-facts.test.ts.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyCluster, copyLater, deferrableDatabases } from '../../src/native/cluster/copy.js';
import {
  checkEntry,
  entryProblem,
  listFiles,
  MANIFEST_SUFFIX,
  readManifest,
  DamagedEntryError,
} from '../../src/store/manifest.js';
import { dropEntry, removeOldFormats, removeStaleFills } from '../../src/store/removal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgt-warm-'));
  chmodSync(dir, 0o700);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function makeEntry(): string {
  const entry = join(dir, 'entry');
  for (const d of ['base/1', 'base/4', 'base/5', 'global', 'pg_wal/archive_status'])
    mkdirSync(join(entry, d), { recursive: true, mode: 0o700 });
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
  writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify(listFiles(entry)), { mode: 0o600 });
  return entry;
}

describe('the cache entry and its copy', () => {
  it('the manifest lists folders (each after its parent) and files with sizes and sha256', () => {
    const entry = makeEntry();
    const m = readManifest(entry);
    expect(m?.dirs.indexOf('base')).toBeLessThan(m?.dirs.indexOf('base/1') ?? -1);
    expect(m?.files['global/pg_control']).toEqual({
      size: 'control file'.length,
      sha256: createHash('sha256').update('control file').digest('hex'),
      fingerprint: expect.stringMatching(/^\d+:\d+:\d+$/) as unknown,
    });
    expect(m?.files['base/5/2619_fsm']?.size).toBe(0);
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
    const content = (d: string) => Object.fromEntries(Object.entries(listFiles(d).files).map(([f, e]) => [f, e.sha256]));
    expect(content(dest)).toEqual(content(entry)); // the same bytes (in new inodes: other fingerprints)
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
    expect(() => copyLater(entry, m, join(dir, 'c', 'data'), null, ['base/1'], join(dir, 'c', 'tmp'))).toThrow(
      /entry: base\/1\/1259 is missing/,
    );
    expect(() => statSync(join(dir, 'c', 'tmp'))).toThrow(/ENOENT/);
  });
});

/** uid of `nobody` (Debian): another user than the one running the tests. */
const NOBODY = 65534;
/** chown needs root (CI runs the suite as root). */
const asRoot = process.geteuid?.() === 0;

describe("a cache entry is used only when it is this user's alone and matches its manifest (#26)", () => {
  /** What copying the entry throws, or null when it copies. */
  const copyProblem = (entry: string): string | null => {
    const m = readManifest(entry);
    if (!m) return 'no manifest';
    try {
      copyCluster(entry, m, join(dir, `copy-${Math.random().toString(16).slice(2)}`), null);
      return null;
    } catch (error) {
      if (!(error instanceof DamagedEntryError)) throw error;
      return error.problem;
    }
  };

  it('a sound entry passes every check', () => {
    const entry = makeEntry();
    expect(checkEntry(entry)).toHaveProperty('manifest');
    expect(entryProblem(entry)).toBeNull();
    expect(copyProblem(entry)).toBeNull();
  });

  it('entries of an older cache format (no sha256 in their manifest) are removed on a miss; current ones stay', () => {
    const current = makeEntry();
    const keep = join(dir, 'a'.repeat(32));
    const old = join(dir, 'b'.repeat(32));
    for (const [target, manifest] of [
      [keep, JSON.stringify(listFiles(current))],
      [old, JSON.stringify({ dirs: [], files: { PG_VERSION: 3 } })],
    ] as const) {
      mkdirSync(target, { mode: 0o700 });
      writeFileSync(join(target, 'PG_VERSION'), '18\n', { mode: 0o600 });
      writeFileSync(`${target}${MANIFEST_SUFFIX}`, manifest, { mode: 0o600 });
    }
    expect(removeOldFormats(dir)).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(`${old}${MANIFEST_SUFFIX}`)).toBe(false);
    expect(existsSync(keep)).toBe(true);
    expect(existsSync(`${keep}${MANIFEST_SUFFIX}`)).toBe(true);
  });

  it('nothing at the key is no entry (null), and so is a manifest alone (a fill places its folder right after)', () => {
    expect(checkEntry(join(dir, 'none'))).toBeNull();
    writeFileSync(join(dir, `none${MANIFEST_SUFFIX}`), '{"dirs":[],"files":{}}', { mode: 0o600 });
    // A start looking between a fill's two steps must not drop that fill's manifest.
    expect(checkEntry(join(dir, 'none'))).toBeNull();
  });

  it('a file changed with its size kept (a planted setting) does not match its sha256', () => {
    const entry = makeEntry();
    // Same length as '# conf': the size check alone let this through.
    writeFileSync(join(entry, 'postgresql.conf'), 'port=1');
    expect(checkEntry(entry)).toHaveProperty('manifest'); // found while copying, not before
    expect(copyProblem(entry)).toBe('postgresql.conf does not match the sha256 in its manifest (it changed after the fill)');
    expect(entryProblem(entry)).toBe('postgresql.conf does not match the sha256 in its manifest');
  });

  it('a template database changed is found by copyLater', () => {
    const entry = makeEntry();
    const m = readManifest(entry);
    if (!m) throw new Error('no manifest');
    writeFileSync(join(entry, 'base/1/1259'), 'template1 pg_cla$$');
    mkdirSync(join(dir, 'run'));
    copyCluster(entry, m, join(dir, 'run', 'data'), null, ['base/1']);
    expect(() => copyLater(entry, m, join(dir, 'run', 'data'), null, ['base/1'], join(dir, 'run', 't'))).toThrow(
      /entry: base\/1\/1259 does not match the sha256/,
    );
  });

  it('a manifest of the previous format (sizes only) is not a manifest', () => {
    const entry = makeEntry();
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify({ dirs: [], files: { PG_VERSION: 3 } }), { mode: 0o600 });
    expect(checkEntry(entry)).toEqual({ problem: 'its manifest gives no size and sha256 for PG_VERSION' });
    expect(readManifest(entry)).toBeNull();
  });

  it('group- or other-writable folders, files or manifests are not used', () => {
    const entry = makeEntry();
    chmodSync(join(entry, 'base/5'), 0o770);
    expect(checkEntry(entry)).toEqual({ problem: 'base/5 can be written by group or others (mode 770)' });
    chmodSync(join(entry, 'base/5'), 0o700);
    chmodSync(entry, 0o707);
    expect(checkEntry(entry)).toEqual({ problem: 'its folder can be written by group or others (mode 707)' });
    chmodSync(entry, 0o700);
    chmodSync(`${entry}${MANIFEST_SUFFIX}`, 0o622);
    expect(checkEntry(entry)).toEqual({ problem: 'its manifest can be written by group or others (mode 622)' });
    chmodSync(`${entry}${MANIFEST_SUFFIX}`, 0o600);
    chmodSync(join(entry, 'global/pg_control'), 0o666);
    expect(copyProblem(entry)).toBe('global/pg_control can be written by group or others (mode 666)');
  });

  it('symbolic links and FIFOs in an entry are not followed or waited on', () => {
    const entry = makeEntry();
    writeFileSync(join(dir, 'elsewhere.conf'), '# conf');
    rmSync(join(entry, 'postgresql.conf'));
    symlinkSync(join(dir, 'elsewhere.conf'), join(entry, 'postgresql.conf'));
    expect(copyProblem(entry)).toBe('postgresql.conf is a symbolic link');
    rmSync(join(entry, 'postgresql.conf'));
    execFileSync('mkfifo', ['-m', '600', join(entry, 'postgresql.conf')]);
    expect(copyProblem(entry)).toBe('postgresql.conf is not a file');
    rmSync(join(entry, 'base/5'), { recursive: true });
    symlinkSync(join(entry, 'base/4'), join(entry, 'base/5'));
    expect(checkEntry(entry)).toEqual({ problem: 'base/5 is a symbolic link' });
  });

  it.runIf(asRoot)("another user's entry, folder, file or manifest is not used", () => {
    const entry = makeEntry();
    chownSync(join(entry, 'postgresql.conf'), NOBODY, NOBODY);
    expect(copyProblem(entry)).toBe(`postgresql.conf belongs to uid ${NOBODY}, not to this user (uid 0)`);
    expect(entryProblem(entry)).toBe(`postgresql.conf belongs to uid ${NOBODY}, not to this user (uid 0)`);
    chownSync(join(entry, 'postgresql.conf'), 0, 0);
    chownSync(join(entry, 'global'), NOBODY, NOBODY);
    expect(checkEntry(entry)).toEqual({ problem: `global belongs to uid ${NOBODY}, not to this user (uid 0)` });
    chownSync(join(entry, 'global'), 0, 0);
    chownSync(`${entry}${MANIFEST_SUFFIX}`, NOBODY, NOBODY);
    expect(checkEntry(entry)).toEqual({ problem: `its manifest belongs to uid ${NOBODY}, not to this user (uid 0)` });
  });

  it('dropEntry removes an entry that is ours alone, manifest too', () => {
    const entry = makeEntry();
    chmodSync(join(entry, 'base/5/1259'), 0o666); // a file: unlinking it follows nothing
    expect(dropEntry(entry)).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });

  it.runIf(asRoot)("dropEntry sets aside, never walks, an entry with another user's folder", () => {
    const entry = makeEntry();
    chownSync(join(entry, 'base'), NOBODY, NOBODY);
    const note = dropEntry(entry);
    expect(note).toMatch(/^left as .*entry\.untrusted-[0-9a-f]{8}, not removed, because .*base belongs to uid 65534/);
    const aside = readdirSync(dir).filter((n) => n.includes('.untrusted-'));
    expect(aside).toHaveLength(1);
    expect(existsSync(join(dir, aside[0] ?? '', 'base/5/1259'))).toBe(true);
    expect(existsSync(entry) || existsSync(`${entry}${MANIFEST_SUFFIX}`)).toBe(false);
  });

  it('removeStaleFills removes a dead fill that is ours, sets aside one others could change', async () => {
    const dead = 2 ** 22 + 12345; // above pid_max's default: no such process
    const ours = join(dir, `k1.tmp-${dead}-abcd`);
    mkdirSync(join(ours, 'base'), { recursive: true, mode: 0o700 });
    writeFileSync(`${ours}${MANIFEST_SUFFIX}`, '{}', { mode: 0o600 });
    const open = join(dir, `k2.tmp-${dead}-beef`);
    mkdirSync(join(open, 'base'), { recursive: true, mode: 0o700 });
    chmodSync(join(open, 'base'), 0o777);
    const r = await removeStaleFills(dir);
    expect(r.removed).toBe(2);
    expect(r.problems).toEqual([
      expect.stringMatching(
        /^A fill of a killed run in the cache folder \S+: left as .*k2\.untrusted-[0-9a-f]{8}, not removed, because .*base can be written by group or others \(mode 777\)/,
      ),
    ]);
    expect(readdirSync(dir).filter((n) => !n.startsWith('k2.untrusted-'))).toEqual([]);
  });
});
