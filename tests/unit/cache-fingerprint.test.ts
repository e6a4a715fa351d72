/**
 * The fingerprints of a cache entry's files (CACHE_FORMAT 4): a copy hashes only the files whose
 * inode, mtime or ctime differ from the manifest's, so a file changed after the fill is still
 * caught whatever its mtime says, and an entry copied elsewhere (new inodes) is used once its
 * hashes match. They touch only a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyCluster } from '../../src/native/cluster/copy.js';
import {
  entryProblem,
  listFiles,
  MANIFEST_SUFFIX,
  readManifest,
  type Manifest,
  DamagedEntryError,
} from '../../src/store/manifest.js';
import { removeOldFormats } from '../../src/store/removal.js';
import { fingerprintOf, sealClock, sealFile, sealFiles } from '../../src/store/file-seal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgt-fingerprint-'));
  chmodSync(dir, 0o700);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An entry of two folders and three files, and its manifest (listFiles), at `<dir>/<name>`. */
function makeEntry(name = 'entry'): { entry: string; manifest: Manifest } {
  const entry = join(dir, name);
  mkdirSync(join(entry, 'global'), { recursive: true, mode: 0o700 });
  mkdirSync(join(entry, 'base/5'), { recursive: true, mode: 0o700 });
  writeFileSync(join(entry, 'postgresql.conf'), '# conf', { mode: 0o600 });
  writeFileSync(join(entry, 'global/pg_control'), 'control file', { mode: 0o600 });
  writeFileSync(join(entry, 'base/5/1259'), 'x'.repeat(600_000), { mode: 0o600 }); // three 256 KiB reads
  const manifest = listFiles(entry);
  writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify(manifest), { mode: 0o600 });
  return { entry, manifest };
}

/** What copying `entry` with `manifest` throws (DamagedEntryError's problem), or null when it copies. */
function copyProblem(entry: string, manifest: Manifest): string | null {
  try {
    copyCluster(entry, manifest, join(dir, `copy-${Math.random().toString(16).slice(2)}`), null);
    return null;
  } catch (error) {
    if (!(error instanceof DamagedEntryError)) throw error;
    return error.problem;
  }
}

/** `file`'s content replaced by `text` (the same length), its atime and mtime put back to the ns (touch -r). */
function rewriteKeepingTimes(file: string, text: string): void {
  const before = lstatSync(file, { bigint: true });
  const reference = join(dir, 'times');
  execFileSync('touch', ['-r', file, reference], { timeout: 10_000 });
  writeFileSync(file, text);
  execFileSync('touch', ['-r', reference, file], { timeout: 10_000 });
  const after = lstatSync(file, { bigint: true });
  // All that is left of the change: its ctime.
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
  expect(after.ctimeNs).not.toBe(before.ctimeNs);
}

describe('fingerprints of a cache entry (#26 follow-up: the check without a hash per file)', () => {
  it('the fill records each file’s inode, mtime and ctime, and when its seal began', () => {
    const { entry, manifest } = makeEntry();
    const conf = lstatSync(join(entry, 'postgresql.conf'), { bigint: true });
    expect(manifest.files['postgresql.conf']?.fingerprint).toBe(`${conf.ino}:${conf.mtimeNs}:${conf.ctimeNs}`);
    expect(BigInt(manifest.sealedNs ?? '0')).toBeGreaterThan(conf.ctimeNs);
    expect(readManifest(entry)).toEqual(manifest);
  });

  it('a matching fingerprint stands for the sha256 (it is not hashed); a differing one is hashed', () => {
    const { entry, manifest } = makeEntry();
    const wrong = structuredClone(manifest);
    const conf = wrong.files['postgresql.conf'];
    if (!conf) throw new Error('no postgresql.conf');
    conf.sha256 = '0'.repeat(64);
    expect(copyProblem(entry, wrong)).toBeNull();
    delete conf.fingerprint;
    expect(copyProblem(entry, wrong)).toBe(
      'postgresql.conf does not match the sha256 in its manifest (it changed after the fill)',
    );
  });

  it('a file changed after the fill, its mtime put back (utimes), is caught: its ctime moved', () => {
    const { entry, manifest } = makeEntry();
    rewriteKeepingTimes(join(entry, 'postgresql.conf'), 'port=1');
    expect(copyProblem(entry, manifest)).toBe(
      'postgresql.conf does not match the sha256 in its manifest (it changed after the fill)',
    );
    rewriteKeepingTimes(join(entry, 'postgresql.conf'), '# conf');
    expect(copyProblem(entry, manifest)).toBeNull(); // its bytes are as filled again
    rewriteKeepingTimes(join(entry, 'base/5/1259'), `${'x'.repeat(599_999)}y`);
    expect(copyProblem(entry, manifest)).toBe(
      'base/5/1259 does not match the sha256 in its manifest (it changed after the fill)',
    );
  });

  it('an entry copied with cp -a (new inodes and ctimes, the same bytes) is used once its hashes match', () => {
    const { entry, manifest } = makeEntry();
    const other = join(dir, 'other-cache');
    mkdirSync(other, { mode: 0o700 });
    execFileSync('cp', ['-a', entry, `${entry}${MANIFEST_SUFFIX}`, other], { timeout: 10_000 });
    const copied = join(other, 'entry');
    for (const [file, want] of Object.entries(manifest.files)) {
      expect(fingerprintOf(lstatSync(join(copied, file), { bigint: true }))).not.toBe(want.fingerprint);
    }
    const m = readManifest(copied);
    if (!m) throw new Error('no manifest');
    expect(entryProblem(copied)).toBeNull(); // the walk of a fill that lost a race: hashed, matching
    const dest = join(dir, 'data');
    copyCluster(copied, m, dest, null);
    expect(readFileSync(join(dest, 'global/pg_control'), 'utf8')).toBe('control file');
    expect(readFileSync(join(dest, 'base/5/1259'), 'utf8')).toBe('x'.repeat(600_000));
    // Hashed, not trusted: a byte changed in the copy is found though the manifest came with it.
    rewriteKeepingTimes(join(copied, 'global/pg_control'), 'control filE');
    expect(copyProblem(copied, m)).toBe(
      'global/pg_control does not match the sha256 in its manifest (it changed after the fill)',
    );
    expect(entryProblem(copied)).toBe('global/pg_control does not match the sha256 in its manifest');
    writeFileSync(join(copied, 'base/5/2619'), '', { mode: 0o600 });
    expect(entryProblem(copied)).toBe('base/5/2619 was added');
  });

  it('a file changed after its seal began gets no fingerprint; sealFiles seals it again once the clock passed it', () => {
    mkdirSync(join(dir, 'f'), { mode: 0o700 });
    const since = sealClock(join(dir, 'f'));
    writeFileSync(join(dir, 'f', 'late'), 'late', { mode: 0o600 });
    const late = sealFile(join(dir, 'f', 'late'), since);
    expect(late.fingerprint).toBeUndefined();
    expect(late.size).toBe(4);
    const sealed = sealFiles(join(dir, 'f'), ['late']);
    const s = lstatSync(join(dir, 'f', 'late'), { bigint: true });
    expect(sealed.files.late?.fingerprint).toBe(fingerprintOf(s));
    expect(BigInt(sealed.sealedNs)).toBeGreaterThan(s.ctimeNs);
  });

  it('a file with no fingerprint in the manifest is hashed, and used when it matches', () => {
    const { entry, manifest } = makeEntry();
    const none = structuredClone(manifest);
    for (const f of Object.values(none.files)) delete f.fingerprint;
    expect(copyProblem(entry, none)).toBeNull();
  });

  it('entries of CACHE_FORMAT 3 (sha256 but no seal, no fingerprints) are removed on a miss; format 4 stays', () => {
    const { manifest } = makeEntry();
    const keep = join(dir, 'a'.repeat(32));
    const old = join(dir, 'b'.repeat(32));
    const format3: Manifest = { dirs: manifest.dirs, files: structuredClone(manifest.files) };
    for (const f of Object.values(format3.files)) delete f.fingerprint;
    for (const [target, m] of [
      [keep, manifest],
      [old, format3],
    ] as const) {
      mkdirSync(target, { mode: 0o700 });
      writeFileSync(`${target}${MANIFEST_SUFFIX}`, JSON.stringify(m), { mode: 0o600 });
    }
    expect(removeOldFormats(dir)).toBe(1);
    expect(existsSync(old) || existsSync(`${old}${MANIFEST_SUFFIX}`)).toBe(false);
    expect(existsSync(keep) && existsSync(`${keep}${MANIFEST_SUFFIX}`)).toBe(true);
  });

  it('a manifest whose fingerprint or seal is not of this format is not a manifest', () => {
    const { entry, manifest } = makeEntry();
    const bad = structuredClone(manifest) as unknown as { files: Record<string, { fingerprint: unknown }> };
    const conf = bad.files['postgresql.conf'];
    if (conf) conf.fingerprint = 12;
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify(bad));
    expect(readManifest(entry)).toBeNull();
    writeFileSync(`${entry}${MANIFEST_SUFFIX}`, JSON.stringify({ ...manifest, sealedNs: 'soon' }));
    expect(readManifest(entry)).toBeNull();
  });
});
