/**
 * sealFolder and folderProblem: a folder of server binaries (files, folders, library links) kept
 * across runs and checked before each use, by one lstat per file while fingerprints match and
 * the sha256 of what changed. They touch only a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/store/file-seal.js';
import { folderProblem, sealFolder, type FolderManifest } from '../../src/store/folder-seal.js';

let dir: string;
let bins: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgt-seal-'));
  chmodSync(dir, 0o700);
  bins = join(dir, 'pg');
  mkdirSync(join(bins, 'bin'), { recursive: true, mode: 0o755 });
  mkdirSync(join(bins, 'lib/postgresql'), { recursive: true, mode: 0o755 });
  writeFileSync(join(bins, 'bin/postgres'), 'ELF postgres', { mode: 0o755 });
  writeFileSync(join(bins, 'bin/initdb'), 'ELF initdb'.repeat(50_000), { mode: 0o755 });
  writeFileSync(join(bins, 'lib/libpq.so.5.17'), 'ELF libpq', { mode: 0o644 });
  writeFileSync(join(bins, 'lib/postgresql/plpgsql.so'), 'ELF plpgsql', { mode: 0o644 });
  symlinkSync('libpq.so.5.17', join(bins, 'lib/libpq.so.5'));
  symlinkSync('../lib/libpq.so.5', join(bins, 'bin/libpq-link'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `file`'s content replaced by `text` (the same length), its atime and mtime put back to the ns (touch -r): only its ctime moves. */
function rewriteKeepingTimes(file: string, text: string): void {
  const reference = join(dir, 'times');
  const mtime = lstatSync(file, { bigint: true }).mtimeNs;
  execFileSync('touch', ['-r', file, reference], { timeout: 10_000 });
  writeFileSync(file, text);
  execFileSync('touch', ['-r', reference, file], { timeout: 10_000 });
  expect(lstatSync(file, { bigint: true }).mtimeNs).toBe(mtime);
}

describe('sealFolder and folderProblem (a folder of binaries checked before each use)', () => {
  it('records folders, files (size, sha256, fingerprint) and links (their target, not followed)', () => {
    const m = sealFolder(bins);
    expect(m.dirs.sort()).toEqual(['bin', 'lib', 'lib/postgresql']);
    expect(Object.keys(m.files).sort()).toEqual(['bin/initdb', 'bin/postgres', 'lib/libpq.so.5.17', 'lib/postgresql/plpgsql.so']);
    expect(m.links).toEqual({ 'lib/libpq.so.5': 'libpq.so.5.17', 'bin/libpq-link': '../lib/libpq.so.5' });
    expect(m.files['bin/postgres']).toMatchObject({
      size: 12,
      fingerprint: fingerprintOf(lstatSync(join(bins, 'bin/postgres'), { bigint: true })),
    });
    expect(folderProblem(bins, m)).toBeNull();
    // As kept on disk and read back.
    expect(folderProblem(bins, JSON.parse(JSON.stringify(m)) as FolderManifest)).toBeNull();
  });

  it('a matching fingerprint stands for the sha256; a changed file, its mtime put back, is hashed and caught', () => {
    const m = sealFolder(bins);
    const wrong = structuredClone(m);
    const postgres = wrong.files['bin/postgres'];
    if (!postgres) throw new Error('no bin/postgres');
    postgres.sha256 = 'f'.repeat(64);
    expect(folderProblem(bins, wrong)).toBeNull(); // one lstat, no read
    rewriteKeepingTimes(join(bins, 'bin/postgres'), 'ELF postgrez');
    expect(folderProblem(bins, m)).toBe('bin/postgres does not match the sha256 in its manifest');
    rewriteKeepingTimes(join(bins, 'bin/postgres'), 'ELF postgres');
    expect(folderProblem(bins, m)).toBeNull(); // the bytes are as sealed again
    rewriteKeepingTimes(join(bins, 'bin/initdb'), `${'ELF initdb'.repeat(49_999)}ELF initdB`);
    expect(folderProblem(bins, m)).toBe('bin/initdb does not match the sha256 in its manifest');
  });

  it('a copy with cp -a (new inodes and ctimes, the same bytes) passes once its hashes match', () => {
    const m = sealFolder(bins);
    const copy = join(dir, 'copy');
    execFileSync('cp', ['-a', bins, copy], { timeout: 10_000 });
    for (const [file, want] of Object.entries(m.files)) {
      expect(fingerprintOf(lstatSync(join(copy, file), { bigint: true }))).not.toBe(want.fingerprint);
    }
    expect(folderProblem(copy, m)).toBeNull();
    rewriteKeepingTimes(join(copy, 'lib/libpq.so.5.17'), 'ELF libpQ');
    expect(folderProblem(copy, m)).toBe('lib/libpq.so.5.17 does not match the sha256 in its manifest');
  });

  it('names what was added, removed, resized, relinked, replaced or opened to others', () => {
    const m = sealFolder(bins);
    const at = (p: string) => join(bins, p);
    const cases: Array<[string, () => void, () => void]> = [
      [
        'lib/postgresql/evil.so was added',
        () => writeFileSync(at('lib/postgresql/evil.so'), 'x'),
        () => unlinkSync(at('lib/postgresql/evil.so')),
      ],
      [
        'bin/postgres is missing',
        () => rmSync(at('bin/postgres')),
        () => writeFileSync(at('bin/postgres'), 'ELF postgres', { mode: 0o755 }),
      ],
      [
        'bin/postgres has 13 bytes, not 12',
        () => writeFileSync(at('bin/postgres'), 'ELF postgres!'),
        () => writeFileSync(at('bin/postgres'), 'ELF postgres'),
      ],
      [
        'lib/libpq.so.5 points to libpq.so.5.16, not libpq.so.5.17',
        () => (unlinkSync(at('lib/libpq.so.5')), symlinkSync('libpq.so.5.16', at('lib/libpq.so.5'))),
        () => (unlinkSync(at('lib/libpq.so.5')), symlinkSync('libpq.so.5.17', at('lib/libpq.so.5'))),
      ],
      [
        'lib/libpq.so.5 is not a symbolic link',
        () => (unlinkSync(at('lib/libpq.so.5')), writeFileSync(at('lib/libpq.so.5'), 'ELF libpq')),
        () => (unlinkSync(at('lib/libpq.so.5')), symlinkSync('libpq.so.5.17', at('lib/libpq.so.5'))),
      ],
      [
        'bin/postgres is a symbolic link',
        () => (unlinkSync(at('bin/postgres')), symlinkSync('initdb', at('bin/postgres'))),
        () => (unlinkSync(at('bin/postgres')), writeFileSync(at('bin/postgres'), 'ELF postgres', { mode: 0o755 })),
      ],
      [
        'bin/initdb can be written by group or others (mode 775)',
        () => chmodSync(at('bin/initdb'), 0o775),
        () => chmodSync(at('bin/initdb'), 0o755),
      ],
      ['lib can be written by group or others (mode 777)', () => chmodSync(at('lib'), 0o777), () => chmodSync(at('lib'), 0o755)],
      ['lib/postgresql is missing', () => rmSync(at('lib/postgresql'), { recursive: true }), () => undefined],
    ];
    for (const [problem, change, undo] of cases) {
      change();
      expect(folderProblem(bins, m)).toBe(problem);
      undo();
    }
  });

  it('refuses to seal a link that leads out of the folder, or a FIFO', () => {
    symlinkSync('/etc/passwd', join(bins, 'lib/abs'));
    expect(() => sealFolder(bins)).toThrow(/lib\/abs points outside .* \(\/etc\/passwd\)/);
    unlinkSync(join(bins, 'lib/abs'));
    symlinkSync('../../..', join(bins, 'lib/up'));
    expect(() => sealFolder(bins)).toThrow(/lib\/up points outside/);
    unlinkSync(join(bins, 'lib/up'));
    // Inside by its text (lib/up/.. is lib), outside through another link (lib/up is the folder itself).
    symlinkSync('..', join(bins, 'lib/up'));
    symlinkSync('up/..', join(bins, 'lib/via'));
    expect(() => sealFolder(bins)).toThrow(/lib\/via points outside .* \(up\/\.\.\)/);
    unlinkSync(join(bins, 'lib/via'));
    expect(sealFolder(bins).links['lib/up']).toBe('..');
    unlinkSync(join(bins, 'lib/up'));
    execFileSync('mkfifo', ['-m', '600', join(bins, 'bin/fifo')], { timeout: 10_000 });
    expect(() => sealFolder(bins)).toThrow(/bin\/fifo is not a file/);
  });

  it('a manifest naming paths or link targets outside the folder is refused, not followed', () => {
    const m = sealFolder(bins);
    expect(folderProblem(bins, { ...m, files: { ...m.files, '../x': { size: 1, sha256: 'a'.repeat(64) } } })).toBe(
      'its manifest names a file outside its entry',
    );
    expect(folderProblem(bins, { ...m, links: { ...m.links, 'lib/libpq.so.5': '../../../etc' } })).toBe(
      'its manifest gives lib/libpq.so.5 a target outside its folder',
    );
    expect(folderProblem(bins, { dirs: [], files: {} } as unknown as FolderManifest)).toBe('its manifest lists no links');
  });
});
