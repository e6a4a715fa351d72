/**
 * Native mode's Windows plan (src/native/run/windows.ts, server-config.ts), pure: the run's
 * configuration file instead of `-c` arguments, pg_ctl's arguments, paths CMD would change, no
 * socket and no peer line, the bootstrap password's file. tests/e2e/windows-wine.test.ts runs it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SetupError } from '../../src/errors.js';
import { bootstrapHbaConf, hbaConf, nativeSettings, runSettings } from '../../src/native/run/server-config.js';
import { parseSettings } from '../../src/profile.js';
import {
  BOOTSTRAP_FILE,
  checkCmdSafe,
  confLine,
  hasPeerSocket,
  newBootstrapSecret,
  pgCtlStartArgs,
  readBootstrapSecret,
  removeBusyFolder,
  runConf,
  waitForLauncher,
} from '../../src/native/run/windows.js';
import { processAlive } from '../../src/processes.js';
import { defaultCacheDir } from '../../src/store/cache-dir.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-windows-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the run configuration file (Windows: no -c options through CMD)', () => {
  it('quotes every value, doubling quotes and backslashes', () => {
    expect(confLine({ name: 'fsync', value: 'off' })).toBe("fsync = 'off'");
    expect(confLine({ name: 'search_path', value: "it's" })).toBe("search_path = 'it''s'");
    expect(confLine({ name: 'x.y', value: 'C:\\a\\b' })).toBe("x.y = 'C:\\\\a\\\\b'");
    expect(confLine({ name: 'application_name', value: '%PATH% & "x"' })).toBe(`application_name = '%PATH% & "x"'`);
  });

  it('refuses a line break in a value, a name that is not a setting, and a directive', () => {
    expect(() => confLine({ name: 'work_mem', value: '4MB\nfsync = on' })).toThrow(SetupError);
    expect(() => confLine({ name: "fsync = 'on'\n#", value: 'off' })).toThrow(SetupError);
    for (const name of ['include', 'Include_Dir', 'INCLUDE_IF_EXISTS'])
      expect(() => confLine({ name, value: 'x' })).toThrow(SetupError);
  });

  it('writes names in lower case, as initdb does (an earlier line is overridden only on an exact match)', () => {
    expect(confLine({ name: 'Shared_Buffers', value: '32MB' })).toBe("shared_buffers = '32MB'");
  });

  it('the settings input refuses the directives before anything starts, on every platform', () => {
    for (const name of ['include', 'include_dir', 'INCLUDE_IF_EXISTS'])
      expect(() => parseSettings(`${name}=/tmp/x.conf`)).toThrow(/is a directive of configuration files/);
  });

  it("includes the cluster's own file first, then the settings in order (later lines win)", () => {
    expect(
      runConf([
        { name: 'port', value: '5433' },
        { name: 'fsync', value: 'off' },
      ]).split('\n'),
    ).toEqual([
      expect.stringMatching(/^# Written by pg-tmpfs/) as string,
      "include 'data/postgresql.conf'",
      "port = '5433'",
      "fsync = 'off'",
      '',
    ]);
  });

  it('names the authentication files as PostgreSQL writes a Windows path (forward slashes)', () => {
    const settings = runSettings('C:\\t\\run\\data', 5433, { settings: [], publishHost: '127.0.0.1' }, 'win32');
    expect(settings.slice(0, 4)).toEqual([
      { name: 'port', value: '5433' },
      { name: 'listen_addresses', value: '127.0.0.1' },
      { name: 'hba_file', value: 'C:/t/run/data/pg_hba.conf' },
      { name: 'ident_file', value: 'C:/t/run/data/pg_ident.conf' },
    ]);
  });
});

describe('no socket and no peer authentication on Windows', () => {
  it('is Windows only', () => {
    expect([hasPeerSocket('win32'), hasPeerSocket('linux'), hasPeerSocket('darwin')]).toEqual([false, true, true]);
  });

  it('sets no socket folder and leaves dynamic_shared_memory_type to the server (windows)', () => {
    const names = (platform: NodeJS.Platform) =>
      nativeSettings('/r/data', { settings: [] }, platform).map((s) => `${s.name}=${s.value}`);
    expect(names('win32').filter((s) => /^(unix_socket|dynamic_shared)/.test(s))).toEqual(['unix_socket_directories=']);
    expect(names('linux').filter((s) => /^(unix_socket|dynamic_shared)/.test(s))).toEqual([
      'dynamic_shared_memory_type=mmap',
      'unix_socket_directories=/r/data',
    ]);
  });

  it('until the first connection, pg_hba.conf lets in this host only, whatever publish-host allows after', () => {
    expect(
      bootstrapHbaConf()
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    ).toEqual(['host all all samehost scram-sha-256']);
    expect(hbaConf('0.0.0.0', 'win32')).toContain('host all all all scram-sha-256');
  });

  it('pg_hba.conf has no local line on Windows, the same host lines', () => {
    const linux = hbaConf('127.0.0.1', 'linux').split('\n');
    const windows = hbaConf('127.0.0.1', 'win32').split('\n');
    expect(linux.filter((l) => l.startsWith('local'))).toEqual(['local all all peer map=pg_tmpfs']);
    expect(windows.filter((l) => l.startsWith('local'))).toEqual([]);
    expect(windows.filter((l) => l.startsWith('host'))).toEqual(linux.filter((l) => l.startsWith('host')));
  });
});

describe("pg_ctl's command line", () => {
  it('waits for the server, with the run configuration file as the one option', () => {
    expect(pgCtlStartArgs('R', 'R/data', 'R/server.log', 60)).toEqual([
      'start',
      '-w',
      '-t',
      '60',
      '-s',
      '-D',
      'R/data',
      '-l',
      'R/server.log',
      '-o',
      `-c "config_file=${join('R', 'postgresql.conf')}"`,
    ]);
  });

  it('refuses a path that CMD would change (%, ") before anything starts', () => {
    expect(() => checkCmdSafe('C:\\Users\\a b\\Temp\\x', 'The run folder')).not.toThrow();
    expect(() => checkCmdSafe('C:\\Users\\%USERNAME%\\x', 'The run folder')).toThrow(/The run folder .* holds "%"/);
    expect(() => checkCmdSafe('C:\\a"b', 'The server program')).toThrow(SetupError);
  });
});

describe('the bootstrap password', () => {
  it('is 64 hex digits, new each time', () => {
    const [a, b] = [newBootstrapSecret(), newBootstrapSecret()];
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });

  it('is read from the data directory; a missing or malformed file is a SetupError', () => {
    const dir = mkdtempSync(join(work, 'data-'));
    expect(() => readBootstrapSecret(dir)).toThrow(/has no bootstrap password/);
    writeFileSync(join(dir, BOOTSTRAP_FILE), 'not hex');
    expect(() => readBootstrapSecret(dir)).toThrow(/does not hold a bootstrap password/);
    const secret = newBootstrapSecret();
    writeFileSync(join(dir, BOOTSTRAP_FILE), `${secret}\n`);
    expect(readBootstrapSecret(dir)).toBe(secret);
  });
});

describe('the default cache folder', () => {
  it("is %LOCALAPPDATA%\\pg-tmpfs on Windows, where Windows keeps a user's caches; PG_TMPFS_CACHE_DIR first", () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\runneradmin\\AppData\\Local', XDG_CACHE_HOME: '/x' };
    const root = process.getuid?.() === 0;
    expect(defaultCacheDir(env, 'win32')).toBe(join(env.LOCALAPPDATA, 'pg-tmpfs'));
    expect(defaultCacheDir({ ...env, PG_TMPFS_CACHE_DIR: 'D:\\c' }, 'win32')).toBe('D:\\c');
    expect(defaultCacheDir(env, 'linux')).toBe(root ? '/var/cache/pg-tmpfs' : join('/x', 'pg-tmpfs'));
  });
});

describe("a stop after a killed start (Windows' pieces, run here on real processes)", () => {
  it('waits for the pg_ctl a killed start left until it ends, never killing it', async () => {
    const quick = spawn('sleep', ['0.3']);
    expect(await waitForLauncher(quick.pid ?? 0, 10_000)).toEqual([]);
    const slow = spawn('sleep', ['30']);
    try {
      expect(await waitForLauncher(slow.pid ?? 0, 200)).toEqual([expect.stringMatching(/still runs after 0\.2 s/) as string]);
      expect(processAlive(slow.pid ?? 0)).toBe(true);
    } finally {
      slow.kill('SIGKILL');
    }
  });

  it('removes a run folder, stopping a server first each try', async () => {
    const dir = mkdtempSync(join(work, 'run-'));
    writeFileSync(join(dir, 'server.log'), 'x');
    let stops = 0;
    expect(await removeBusyFolder(dir, async () => (stops++, ['a note']))).toEqual(['a note']);
    expect([existsSync(dir), stops]).toEqual([false, 1]);
  });
});
