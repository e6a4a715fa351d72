/**
 * Native mode's plans for systems that cannot run here (macOS, Windows) and the pure parts of
 * Linux's: what would run, with what arguments. Nothing is executed.
 */
import { describe, expect, it } from 'vitest';
import { candidateBindirs, findBinaries, installedBinaries, parseMajor } from '../../src/native/source/installed.js';
import { probe } from '../helpers/probes.js';
import { cacheKey, initdbArgs } from '../../src/native/cluster/cache-key.js';
import { hbaConf, identConf, postgresArgs } from '../../src/native/run/server-config.js';
import { diskPlan, macRamDiskCommands, mountCommand, sizeToBytes, unmountCommand } from '../../src/native/ramdir.js';
import { SetupError } from '../../src/errors.js';

describe('finding binaries', () => {
  it('Linux: Debian/Ubuntu layout by major, newest first', () => {
    const p = probe('linux', [
      '/usr/lib/postgresql/15/bin/postgres',
      '/usr/lib/postgresql/15/bin/initdb',
      '/usr/lib/postgresql/17/bin/postgres',
      '/usr/lib/postgresql/17/bin/initdb',
    ]);
    expect(installedBinaries(p).map((b) => [b.major, b.bindir, b.source])).toEqual([
      [17, '/usr/lib/postgresql/17/bin', 'debian'],
      [15, '/usr/lib/postgresql/15/bin', 'debian'],
    ]);
    expect(findBinaries(null, p).major).toBe(17);
    expect(findBinaries(15, p).bindir).toBe('/usr/lib/postgresql/15/bin');
  });

  it('a missing major lists the majors found and how to install it', () => {
    const p = probe('linux', ['/usr/lib/postgresql/15/bin/postgres', '/usr/lib/postgresql/15/bin/initdb']);
    expect(() => findBinaries(16, p)).toThrow(SetupError);
    expect(() => findBinaries(16, p)).toThrow(/installed: 15 \(\/usr\/lib\/postgresql\/15\/bin\).*apt-get install postgresql-16/);
  });

  it('macOS: Homebrew postgresql@<major> on Apple silicon and Intel prefixes', () => {
    const p = probe('darwin', [
      '/opt/homebrew/opt/postgresql@17/bin/postgres',
      '/opt/homebrew/opt/postgresql@17/bin/initdb',
      '/usr/local/opt/postgresql@16/bin/postgres',
      '/usr/local/opt/postgresql@16/bin/initdb',
    ]);
    expect(installedBinaries(p).map((b) => [b.major, b.bindir, b.source])).toEqual([
      [17, '/opt/homebrew/opt/postgresql@17/bin', 'homebrew'],
      [16, '/usr/local/opt/postgresql@16/bin', 'homebrew'],
    ]);
    expect(() => findBinaries(15, p)).toThrow(/brew install postgresql@15/);
  });

  it('Windows: PGBIN first, then C:\\Program Files\\PostgreSQL\\<major>\\bin, with .exe names', () => {
    const p = probe(
      'win32',
      [
        'C:\\Program Files\\PostgreSQL\\17\\bin\\postgres.exe',
        'C:\\Program Files\\PostgreSQL\\17\\bin\\initdb.exe',
        'D:\\pg16\\bin\\postgres.exe',
        'D:\\pg16\\bin\\initdb.exe',
      ],
      { PGBIN: 'D:\\pg16\\bin', ProgramFiles: 'C:\\Program Files', PATH: 'C:\\Windows;C:\\tools' },
    );
    expect(candidateBindirs(p).map((c) => c.source)).toEqual(['PGBIN', 'windows', 'PATH', 'PATH']);
    expect(installedBinaries(p).map((b) => [b.major, b.bindir])).toEqual([
      [17, 'C:\\Program Files\\PostgreSQL\\17\\bin'],
      [16, 'D:\\pg16\\bin'],
    ]);
  });

  it('pg_config --bindir and PATH are searched too', () => {
    const p = probe(
      'linux',
      ['/opt/pg18/bin/postgres', '/opt/pg18/bin/initdb'],
      { PATH: '/usr/bin:/opt/pg18/bin' },
      '/opt/pg18/bin',
    );
    expect(candidateBindirs(p).map((c) => `${c.source}:${c.bindir}`)).toEqual([
      'pg_config:/opt/pg18/bin',
      'PATH:/usr/bin',
      'PATH:/opt/pg18/bin',
    ]);
    expect(findBinaries(18, p).source).toBe('pg_config');
  });

  it('reads the major from postgres --version', () => {
    expect(parseMajor('postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)')).toBe(15);
    expect(parseMajor('postgres (PostgreSQL) 18beta1')).toBe(18);
    expect(parseMajor('nonsense')).toBeNull();
  });
});

describe('RAM plans', () => {
  it('macOS: a RAM disk of whole MB in 512-byte sectors, erased as HFS+, detached after', () => {
    expect(macRamDiskCommands(sizeToBytes('1g'), 'pg-tmpfs-x')).toEqual([
      { program: 'hdiutil', args: ['attach', '-nomount', 'ram://2097152'] },
      { program: 'diskutil', args: ['erasevolume', 'HFS+', 'pg-tmpfs-x', 'DEVICE'] },
    ]);
    expect(unmountCommand({ kind: 'ramdisk', device: '/dev/disk4' })).toEqual({
      program: 'hdiutil',
      args: ['detach', '/dev/disk4', '-force'],
    });
  });

  it('Linux: mounts a tmpfs owned by this user (0711, so postgres can reach its folder), through sudo -n unless root', () => {
    expect(mountCommand('/tmp/pg-tmpfs-mnt-a', 1024, true, 0, 0)).toEqual({
      program: 'mount',
      args: ['-t', 'tmpfs', '-o', 'size=1024,uid=0,gid=0,mode=0711', 'tmpfs', '/tmp/pg-tmpfs-mnt-a'],
    });
    expect(mountCommand('/tmp/pg-tmpfs-mnt-a', 1024, false, 1001, 1001).program).toBe('sudo');
    expect(unmountCommand({ kind: 'mount', dir: '/tmp/pg-tmpfs-mnt-a', sudo: true })).toEqual({
      program: 'sudo',
      args: ['-n', 'umount', '/tmp/pg-tmpfs-mnt-a'],
    });
  });

  it('a recorded mount that does not name one of ours is never undone (records are data, not commands)', () => {
    expect(unmountCommand({ kind: 'mount', dir: '/home', sudo: false })).toBeNull();
    expect(unmountCommand({ kind: 'mount', dir: 'pg-tmpfs-mnt-relative', sudo: false })).toBeNull();
    expect(unmountCommand({ kind: 'ramdisk', device: '/dev/sda; rm -rf /' })).toBeNull();
  });

  it('Windows: a folder on disk, with a warning that says so', () => {
    const plan = diskPlan('Windows has no RAM disk without extra drivers');
    expect(plan.kind).toBe('disk');
    expect(plan.warning).toMatch(/on disk, not in RAM .*durability is still off/);
  });

  it('sizes', () => {
    expect([sizeToBytes('512m'), sizeToBytes('2G'), sizeToBytes('100')]).toEqual([512 * 1024 ** 2, 2 * 1024 ** 3, 100]);
  });
});

describe('initdb and postgres arguments', () => {
  it('initdb: --nosync from the shared profile, user, auth, encoding, locale', () => {
    expect(initdbArgs({ bindir: '/b', user: 'app', locale: 'C' })).toEqual([
      '--nosync',
      '--username=app',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]);
  });

  it('the cache key changes with the initdb version and with any argument', () => {
    const args = initdbArgs({ bindir: '/b', user: 'app', locale: 'C' });
    const key = cacheKey('initdb (PostgreSQL) 15.18', args);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(cacheKey('initdb (PostgreSQL) 15.18\n', args)).toBe(key);
    expect(cacheKey('initdb (PostgreSQL) 15.19', args)).not.toBe(key);
    expect(cacheKey('initdb (PostgreSQL) 15.18', initdbArgs({ bindir: '/b', user: 'other', locale: 'C' }))).not.toBe(key);
  });

  it('extra initdb arguments go last and get their own cache entry; none or empty change nothing', () => {
    const plain = initdbArgs({ bindir: '/b', user: 'app', locale: 'C' });
    expect(initdbArgs({ bindir: '/b', user: 'app', locale: 'C', extraArgs: [] })).toEqual(plain);
    const extra = initdbArgs({ bindir: '/b', user: 'app', locale: 'C', extraArgs: ['--wal-segsize=1'] });
    expect(extra).toEqual([...plain, '--wal-segsize=1']);
    expect(cacheKey('initdb (PostgreSQL) 15.18', extra)).not.toBe(cacheKey('initdb (PostgreSQL) 15.18', plain));
  });

  it('postgres: TCP on publish-host, the shared durability settings, the socket in the data directory last', () => {
    const args = postgresArgs('/dev/shm/x/data', 5433, {
      settings: [{ name: 'work_mem', value: '8MB', why: '' }],
      publishHost: '127.0.0.1',
    });
    expect(args.slice(0, 6)).toEqual(['-D', '/dev/shm/x/data', '-p', '5433', '-c', 'listen_addresses=127.0.0.1']);
    expect(args).toContain('fsync=off');
    expect(args.slice(-6)).toEqual([
      '-c',
      'work_mem=8MB',
      '-c',
      'dynamic_shared_memory_type=mmap',
      '-c',
      'unix_socket_directories=/dev/shm/x/data',
    ]);
  });

  it('pg_hba.conf: peer on the socket (mapped), password over TCP, other hosts only when listening beyond loopback', () => {
    expect(hbaConf('127.0.0.1')).toContain('local all all peer map=pg_tmpfs');
    expect(hbaConf('127.0.0.1')).not.toMatch(/trust/);
    expect(hbaConf('127.0.0.1')).not.toContain('host all all all');
    expect(hbaConf('0.0.0.0')).toContain('host all all all scram-sha-256');
    expect(identConf(['root', 'postgres', 'root'], 'app')).toBe(
      '# Written by pg-tmpfs for this run.\npg_tmpfs "root" "app"\npg_tmpfs "postgres" "app"\n',
    );
  });
});
