import { describe, expect, it } from 'vitest';
import {
  brokenByInit,
  checkSettings,
  filesystemTypeOf,
  isRamFilesystem,
  normalizeRequested,
  type PgSettingRow,
} from '../../src/verify.js';

const row = (name: string, setting: string, vartype: string, unit: string | null = null): PgSettingRow => ({
  name,
  setting,
  unit,
  vartype,
});

describe('normalizeRequested', () => {
  it('reads booleans in every spelling the manual allows', () => {
    for (const v of ['off', 'OFF', 'false', 'no', '0']) expect(normalizeRequested(v, row('fsync', 'off', 'bool'))).toBe('off');
    for (const v of ['on', 'true', 'yes', '1']) expect(normalizeRequested(v, row('fsync', 'off', 'bool'))).toBe('on');
    expect(normalizeRequested('maybe', row('fsync', 'off', 'bool'))).toBeNull();
  });

  it('converts memory and time units to the base unit', () => {
    expect(normalizeRequested('16MB', row('shared_buffers', '2048', 'integer', '8kB'))).toBe('2048');
    expect(normalizeRequested('1GB', row('shared_buffers', '2048', 'integer', '8kB'))).toBe('131072');
    expect(normalizeRequested('64MB', row('work_mem', '4096', 'integer', 'kB'))).toBe('65536');
    expect(normalizeRequested('1min', row('checkpoint_timeout', '300', 'integer', 's'))).toBe('60');
    expect(normalizeRequested('300', row('checkpoint_timeout', '300', 'integer', 's'))).toBe('300');
    expect(normalizeRequested('10parsecs', row('work_mem', '4096', 'integer', 'kB'))).toBeNull();
  });

  it('compares enums case-insensitively and strings exactly', () => {
    expect(normalizeRequested('Minimal', row('wal_level', 'minimal', 'enum'))).toBe('minimal');
    expect(normalizeRequested("'UTC'", row('timezone', 'UTC', 'string'))).toBe('UTC');
  });
});

describe('checkSettings', () => {
  it('marks each requested setting ok or not, and unknown names as not', () => {
    const checks = checkSettings(
      [
        { name: 'fsync', value: 'off', why: '' },
        { name: 'shared_buffers', value: '16MB', why: '' },
        { name: 'wal_level', value: 'minimal', why: '' },
        { name: 'no_such', value: '1', why: '' },
      ],
      [row('fsync', 'on', 'bool'), row('shared_buffers', '2048', 'integer', '8kB'), row('wal_level', 'replica', 'enum')],
    );
    expect(checks.map((c) => [c.name, c.ok, c.actual])).toEqual([
      ['fsync', false, 'on'],
      ['shared_buffers', true, '2048 (8kB)'],
      ['wal_level', false, 'replica'],
      ['no_such', false, null],
    ]);
  });
});

describe('checkSettings: the way PostgreSQL reads names and values', () => {
  it('finds names case-insensitively (timezone is pg_settings TimeZone) and takes the server own form of the value', () => {
    const [check] = checkSettings(
      [{ name: 'timezone', value: 'utc', why: '' }],
      [row('TimeZone', 'UTC', 'string')],
      [row('TimeZone', 'UTC', 'string')],
    );
    expect(check).toEqual({ name: 'timezone', requested: 'utc', actual: 'UTC', ok: true, verified: true });
  });

  it('a value the server normalises to something else than it runs with is not ok', () => {
    const [check] = checkSettings(
      [{ name: 'DateStyle', value: 'iso, dmy', why: '' }],
      [row('DateStyle', 'ISO, MDY', 'string')],
      [row('DateStyle', 'ISO, DMY', 'string')],
    );
    expect([check?.ok, check?.actual]).toEqual([false, 'ISO, MDY']);
  });

  it('passes extension settings the server does not list as not verified, and fails unknown plain names', () => {
    const checks = checkSettings(
      [
        { name: 'auto_explain.log_min_duration', value: '0', why: '' },
        { name: 'no_such', value: '1', why: '' },
      ],
      [],
    );
    expect(checks.map((c) => [c.name, c.ok, c.verified])).toEqual([
      ['auto_explain.log_min_duration', true, false],
      ['no_such', false, false],
    ]);
  });
});

describe('filesystemTypeOf', () => {
  const mounts = [
    'overlay / overlay rw,relatime 0 0',
    'tmpfs /dev/shm tmpfs rw 0 0',
    '/dev/vda /var/lib/postgresql ext4 rw 0 0',
    'tmpfs /var/lib/postgresql/18/docker tmpfs rw,size=1048576k 0 0',
    'tmpfs /with\\040space tmpfs rw 0 0',
  ].join('\n');

  it('picks the longest mount point that holds the path', () => {
    expect(filesystemTypeOf('/var/lib/postgresql/18/docker', mounts)).toBe('tmpfs');
    expect(filesystemTypeOf('/var/lib/postgresql/18/dockerx', mounts)).toBe('ext4');
    expect(filesystemTypeOf('/var/lib/postgresql/data', mounts)).toBe('ext4');
    expect(filesystemTypeOf('/etc', mounts)).toBe('overlay');
    expect(filesystemTypeOf('/with space/pg', mounts)).toBe('tmpfs');
    expect(filesystemTypeOf('/x', '')).toBeNull();
  });

  it('counts tmpfs and ramfs as RAM', () => {
    expect([isRamFilesystem('tmpfs'), isRamFilesystem('ramfs'), isRamFilesystem('overlay'), isRamFilesystem(null)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('brokenByInit (#26: init that broke the connection passed)', () => {
  const c = { host: '127.0.0.1', port: 5433, user: 'postgres', password: 'pw', database: 'app' };
  it.each<['init' | 'init-command', object, RegExp, RegExp]>([
    [
      'init',
      { code: '28P01', message: 'password authentication failed for user "postgres"' },
      /user "postgres" can no longer log in/,
      /password inputs/,
    ],
    ['init', { code: '28000', message: 'role "postgres" does not exist' }, /can no longer log in/, /Leave that user/],
    [
      'init-command',
      { code: '3D000', message: 'database "app" does not exist' },
      /database "app" \(the database input\) no longer exists/,
      /databases input/,
    ],
    [
      'init-command',
      { code: '55000', message: 'database "app" is not currently accepting connections' },
      /refuses connections/,
      /Leave that database/,
    ],
    [
      'init-command',
      { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5433' },
      /no longer answers at 127.0.0.1:5433/,
      /Leave the server running/,
    ],
    [
      'init-command',
      { code: '57P03', message: 'the database system is shutting down' },
      /no longer answers/,
      /Leave the server running/,
    ],
    ['init-command', new Error('Connection terminated unexpectedly'), /no longer answers/, /Leave the server running/],
    [
      'init',
      { code: '42501', message: 'permission denied' },
      /the connection the outputs give fails: permission denied \(42501\)/,
      /as the outputs give them/,
    ],
  ])('%s, %j', (input, error, problem, fix) => {
    const e = brokenByInit(input, c, error);
    expect(e.input).toBe(input);
    expect(e.problem).toMatch(input === 'init' ? /^after the init files ran, / : /^after the init command ran, /);
    expect(e.problem).toMatch(problem);
    expect(e.fix).toMatch(fix);
    expect(e.fix).toMatch(/the server was removed/);
  });
});
