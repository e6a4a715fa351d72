/**
 * The native schema cache's copy of a running cluster (native/schema-cache/backup-copy.ts and the SQL of
 * native/schema-cache/snapshot.ts): what a base backup leaves out, the WAL segments it needs, the backup
 * functions of each server version, the copy of a folder tree as a data directory, and the
 * restore of an entry saved before (real files in a temporary folder; the copy of a running
 * server is in the e2e tests).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listFiles } from '../../src/store/manifest.js';
import { restoreCluster } from '../../src/native/cluster/place.js';
import { dataDirOf } from '../../src/native/run/postgres.js';
import { hbaConf } from '../../src/native/run/server-config.js';
import { BackupCopy, copyRule, labelStartSegment, walSegments } from '../../src/native/schema-cache/backup-copy.js';
import { backupStatements } from '../../src/native/schema-cache/snapshot.js';
import { parse } from '../helpers/inputs.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-backup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('what the copy of a data directory leaves out', () => {
  const cases: Array<[string, boolean, 'copy' | 'skip']> = [
    ['PG_VERSION', false, 'copy'],
    ['postgresql.conf', false, 'copy'],
    ['postgresql.auto.conf', false, 'copy'],
    ['backup_label.old', false, 'copy'],
    ['postmaster.pid', false, 'skip'],
    ['postmaster.opts', false, 'skip'],
    ['backup_label', false, 'skip'],
    ['tablespace_map', false, 'skip'],
    ['backup_manifest', false, 'skip'],
    ['postgresql.auto.conf.tmp', false, 'skip'],
    ['current_logfiles.tmp', false, 'skip'],
    ['.s.PGSQL.5432', false, 'skip'],
    ['.s.PGSQL.5432.lock', false, 'skip'],
    ['global/pg_control', false, 'copy'],
    ['global/pg_internal.init', false, 'skip'],
    ['base/5/pg_internal.init', false, 'skip'],
    ['base/5/pg_internal.init.1234', false, 'skip'],
    ['base/5/1259', false, 'copy'],
    ['base/5/1259_fsm', false, 'copy'],
    ['base/5/16384.1', false, 'copy'],
    ['base/5/t3_16384', false, 'skip'],
    ['base/5/t3_16384_fsm', false, 'skip'],
    ['base/5/t3_16384.2', false, 'skip'],
    ['base/pgsql_tmp', true, 'skip'],
    ['base/pgsql_tmp/pgsql_tmp123.0', false, 'skip'],
    ['pg_wal', true, 'copy'],
    ['pg_wal/000000010000000000000002', false, 'skip'],
    ['pg_wal/00000002.history', false, 'skip'],
    ['pg_wal/archive_status', true, 'copy'],
    ['pg_wal/archive_status/000000010000000000000002.done', false, 'skip'],
    ['pg_wal/summaries', true, 'copy'],
    ['pg_replslot', true, 'copy'],
    ['pg_replslot/slot1', true, 'skip'],
    ['pg_dynshmem/mmap.1234', false, 'skip'],
    ['pg_notify/0000', false, 'skip'],
    ['pg_serial/0000', false, 'skip'],
    ['pg_snapshots/00000003-1', false, 'skip'],
    ['pg_stat_tmp/global.stat', false, 'skip'],
    ['pg_subtrans/0000', false, 'skip'],
    ['pg_xact/0000', false, 'copy'],
    ['pg_multixact/offsets/0000', false, 'copy'],
    ['pg_logical/replorigin_checkpoint', false, 'copy'],
    ['pg_stat', true, 'copy'],
  ];
  it.each(cases)('%s (folder: %s): %s', (rel, isDir, rule) => {
    expect(copyRule(rel, isDir)).toBe(rule);
  });
});

describe('the WAL a backup needs', () => {
  it('lists the segments from the first to the last, both included', () => {
    expect(walSegments('000000010000000000000002', '000000010000000000000002', 16 * 1024 ** 2)).toEqual([
      '000000010000000000000002',
    ]);
    expect(walSegments('0000000100000000000000FE', '000000010000000100000001', 16 * 1024 ** 2)).toEqual([
      '0000000100000000000000FE',
      '0000000100000000000000FF',
      '000000010000000100000000',
      '000000010000000100000001',
    ]);
  });

  it('splits segment numbers by the segment size (4 GiB per high half)', () => {
    // 1 GiB segments: four per high half (initdb --wal-segsize=1024).
    expect(walSegments('000000020000000000000003', '000000020000000100000000', 1024 ** 3)).toEqual([
      '000000020000000000000003',
      '000000020000000100000000',
    ]);
    expect(walSegments('0000000100000000000000FF', '0000000100000000000001FF', 1024 ** 2)).toHaveLength(257);
  });

  it('refuses what is not a range of one timeline', () => {
    const mb16 = 16 * 1024 ** 2;
    expect(() => walSegments('000000010000000000000003', '000000010000000000000002', mb16)).toThrow(/comes before/);
    expect(() => walSegments('000000010000000000000002', '000000020000000000000002', mb16)).toThrow(/different timelines/);
    expect(() => walSegments('00000001000000000000000g', '000000010000000000000002', mb16)).toThrow(/not WAL segment names/);
    expect(() => walSegments('000000010000000000000002', '000000010000000000000002', 3_000_000)).toThrow(/power of two/);
    expect(() => walSegments('000000010000000000000000', '000000010000FFFF00000000', mb16)).toThrow(/more than/);
  });

  it("reads the first segment from pg_backup_stop's label", () => {
    const label = [
      'START WAL LOCATION: 0/2000028 (file 000000010000000000000002)',
      'CHECKPOINT LOCATION: 0/2000060',
      'BACKUP METHOD: streamed',
      'BACKUP FROM: primary',
      'START TIME: 2026-11-26 13:42:58 UTC',
      'LABEL: pg-tmpfs schema cache',
      'START TIMELINE: 1',
      '',
    ].join('\n');
    expect(labelStartSegment(label)).toBe('000000010000000000000002');
    expect(() => labelStartSegment('LABEL: x\n')).toThrow(/no start WAL file/);
  });
});

describe('the backup functions by server version', () => {
  it('uses pg_backup_start and pg_backup_stop from PostgreSQL 15, non-exclusive pg_start_backup before', () => {
    expect(backupStatements(150018)).toEqual({
      start: 'SELECT pg_backup_start($1, true)',
      stop: 'SELECT labelfile, spcmapfile, pg_walfile_name(lsn) AS last_wal FROM pg_backup_stop(false)',
    });
    expect(backupStatements(180001).start).toBe('SELECT pg_backup_start($1, true)');
    for (const v of [130022, 140019]) {
      expect(backupStatements(v)).toEqual({
        start: 'SELECT pg_start_backup($1, true, false)',
        stop: 'SELECT labelfile, spcmapfile, pg_walfile_name(lsn) AS last_wal FROM pg_stop_backup(false, false)',
      });
    }
  });

  it('needs no replication connection: pg_hba.conf allows none', () => {
    expect(hbaConf('127.0.0.1')).not.toMatch(/replication/);
    expect(hbaConf('0.0.0.0')).not.toMatch(/replication/);
  });
});

describe('the copy of a data directory', () => {
  /** A small tree shaped like a data directory, with what the copy leaves out. */
  function fakeDataDirectory(): string {
    const src = mkdtempSync(join(work, 'src-'));
    const files: Record<string, string> = {
      PG_VERSION: '15\n',
      'postmaster.pid': '123\n',
      '.s.PGSQL.5432.lock': '123\n',
      'global/pg_control': 'control',
      'global/1260': 'roles',
      'global/pg_internal.init': 'cache',
      'base/5/1259': 'x'.repeat(3 * 1024 * 1024 + 17),
      'base/5/t3_16384': 'temp',
      'base/pgsql_tmp/pgsql_tmp1.0': 'sort',
      'pg_wal/000000010000000000000001': 'old',
      'pg_wal/000000010000000000000002': 'needed',
      'pg_wal/00000001.history': 'history',
      'pg_wal/archive_status/000000010000000000000001.ready': '',
      'pg_notify/0000': 'n',
    };
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(join(src, rel, '..'), { recursive: true });
      writeFileSync(join(src, rel), content);
    }
    mkdirSync(join(src, 'pg_tblspc'));
    return src;
  }

  it('copies what a base backup holds, each file with its size and sha256, pg_control when asked, then the WAL', async () => {
    const src = fakeDataDirectory();
    const dest = mkdtempSync(join(work, 'dest-'));
    const copy = new BackupCopy(src, dest, Date.now() + 60_000);
    await copy.copyDataDirectory(['global/pg_control']);
    expect(Object.keys(copy.manifest.files).sort()).toEqual(['PG_VERSION', 'base/5/1259', 'global/1260']);
    expect(copy.copyFile('global/pg_control')).toBe(true);
    expect(copy.copyFile('global/gone')).toBe(false);
    copy.writeFile('backup_label', 'START WAL LOCATION: 0/2000028 (file 000000010000000000000002)\n');
    await copy.copyWal(['000000010000000000000002']);
    expect(copy.manifest.dirs).toEqual(['base', 'base/5', 'global', 'pg_notify', 'pg_tblspc', 'pg_wal', 'pg_wal/archive_status']);
    expect(Object.keys(copy.manifest.files).sort()).toEqual([
      'PG_VERSION',
      'backup_label',
      'base/5/1259',
      'global/1260',
      'global/pg_control',
      'pg_wal/00000001.history',
      'pg_wal/000000010000000000000002',
      'pg_wal/archive_status/000000010000000000000002.done',
    ]);
    for (const [rel, { size, sha256 }] of Object.entries(copy.manifest.files)) {
      const bytes = readFileSync(join(dest, rel));
      expect([rel, bytes.length, createHash('sha256').update(bytes).digest('hex')]).toEqual([rel, size, sha256]);
    }
    expect(readdirSync(join(dest, 'pg_notify'))).toEqual([]);
    expect(readFileSync(join(dest, 'base/5/1259'), 'utf8')).toBe(readFileSync(join(src, 'base/5/1259'), 'utf8'));
  });

  it('names a WAL segment that is gone', async () => {
    const src = fakeDataDirectory();
    const copy = new BackupCopy(src, mkdtempSync(join(work, 'dest-')), Date.now() + 60_000);
    await copy.copyDataDirectory([]);
    await expect(copy.copyWal(['000000010000000000000002', '000000010000000000000003'])).rejects.toThrow(
      /WAL segment 000000010000000000000003, which the copy needs, was removed/,
    );
  });

  it('refuses a symbolic link (a tablespace outside the data directory)', async () => {
    const src = fakeDataDirectory();
    symlinkSync(work, join(src, 'pg_tblspc', '16385'));
    const copy = new BackupCopy(src, mkdtempSync(join(work, 'dest-')), Date.now() + 60_000);
    await expect(copy.copyDataDirectory([])).rejects.toThrow(
      /pg_tblspc\/16385 in the data directory is a symbolic link \(a tablespace outside it\).*CREATE TABLESPACE/,
    );
  });
});

describe('the restore of an entry', () => {
  it("leaves out the socket lock file of the postmaster that saved it (pg_basebackup's entries hold it)", () => {
    const entry = mkdtempSync(join(work, 'entry-'));
    writeFileSync(join(entry, 'PG_VERSION'), '15\n');
    writeFileSync(join(entry, '.s.PGSQL.5432.lock'), '4242\n');
    for (const name of ['pg_hba.conf', 'pg_ident.conf']) writeFileSync(join(entry, name), '');
    mkdirSync(join(entry, 'global'));
    writeFileSync(join(entry, 'global', 'pg_control'), 'control');
    const runDir = mkdtempSync(join(work, 'run-'));
    const handle = { mode: 'native' as const, pid: 0, runDir, token: '', ram: null, bindir: '' };
    restoreCluster({ dir: entry, manifest: listFiles(entry) }, handle, parse({}), null);
    expect(readdirSync(dataDirOf(runDir)).sort()).toEqual([
      'PG_VERSION',
      'global',
      'pg_hba.conf',
      'pg_ident.conf',
      'postgresql.auto.conf',
    ]);
    expect(readFileSync(join(dataDirOf(runDir), 'global', 'pg_control'), 'utf8')).toBe('control');
  });
});
