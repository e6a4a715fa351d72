/**
 * Pure parts of the hardening: errors that name the input at fault, the SCRAM verifier, folder
 * checks, initdb's cause line, the CLI's password sources, what Docker mode cannot carry.
 */
import { mkdtempSync, chmodSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPassword } from '../../src/cli/up.js';
import { checkDockerInputs } from '../../src/docker/input-errors.js';
import { InputError, SetupError } from '../../src/errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../../src/fsutil.js';
import { parseInputs } from '../../src/parse-inputs.js';
import { initdbCause } from '../../src/native/cluster/initdb-cache.js';
import { listenWarnings } from '../../src/native/run/listen.js';
import { defaultPasswordWarnings } from '../../src/connection.js';
import { preparePassword, scramVerifier } from '../../src/scram.js';
import { NotReadyError, notReadyError } from '../../src/readiness.js';

const scratch = mkdtempSync(join(tmpdir(), 'pg-tmpfs-unit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('notReadyError: the input the server log names', () => {
  const timedOut = new NotReadyError('no query answered within 5000 ms (9 attempts)', 'connect ECONNREFUSED 127.0.0.1:5', false);
  const died = new NotReadyError('the server stopped before answering a query (3 attempts)', 'connect ECONNREFUSED', true);
  const cases: Array<[string, string]> = [
    ['FATAL:  unrecognized configuration parameter "no_such"', 'settings'],
    ['FATAL:  invalid value for parameter "work_mem": "lots"', 'settings'],
    ['FATAL:  -5 is outside the valid range for parameter "max_connections" (1 .. 262143)', 'settings'],
    ['initdb: error: invalid locale name "xx_YY"', 'locale'],
    ['FATAL:  could not resize shared memory segment "/PostgreSQL.1" to 8388608 bytes: No space left on device', 'shm-size'],
    ['PANIC:  could not write to file "pg_wal/xlogtemp.42": No space left on device', 'tmpfs-size'],
    ['FATAL:  could not access file "nosuchlib": No such file or directory', 'settings'],
    ['FATAL:  could not load library "/usr/lib/postgresql/17/lib/x.so": undefined symbol: y', 'settings'],
  ];
  it.each(cases)('%s → %s', (log, input) => {
    const error = notReadyError(died, `LOG:  starting\n${log}\nLOG:  database system is shut down`);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe(input);
    expect((error as InputError).detail).toContain(log);
  });

  it('reports the real last error, and suggests wait-timeout only while the server was still starting', () => {
    const slow = notReadyError(timedOut, 'LOG:  database system is ready');
    expect(slow).toBeInstanceOf(SetupError);
    expect(slow.message).toContain('last error: connect ECONNREFUSED 127.0.0.1:5');
    expect(slow.message).toContain("raise input 'wait-timeout'");
    const other = notReadyError(new NotReadyError('no query answered', 'database "x" does not exist', false), '');
    expect(other.message).not.toContain('wait-timeout');
    const password = notReadyError(
      new NotReadyError('no query answered', 'password authentication failed for user "postgres"', false),
      '',
    );
    expect(password.message).toMatch(/rejected the password.*'password'/);
  });

  it('names the library of shared_preload_libraries that did not load, with the log line (#26)', () => {
    const error = notReadyError(died, 'FATAL:  could not access file "nosuchlib": No such file or directory');
    expect(error.message).toBe(
      'Input \'settings\': the library "nosuchlib" of shared_preload_libraries could not be loaded: could not access file "nosuchlib": No such file or directory. Remove it from shared_preload_libraries (or session_preload_libraries, local_preload_libraries), or use an image or installation that has it (its extension package)',
    );
  });

  it('no local port to connect from (EADDRNOTAVAIL) names port (#26)', () => {
    const error = notReadyError(
      new NotReadyError(
        'no connection could be opened (1 attempts)',
        'connect EADDRNOTAVAIL 127.0.0.1:5432 - Local (0.0.0.0:0)',
        false,
      ),
      '',
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe('port');
    expect(error.message).toContain('widen net.ipv4.ip_local_port_range');
  });
});

describe('scramVerifier', () => {
  it('has the form PostgreSQL stores, and varies with the salt', () => {
    const v = scramVerifier('secret', Buffer.alloc(16, 1));
    expect(v).toMatch(/^SCRAM-SHA-256\$4096:AQEBAQEBAQEBAQEBAQEBAQ==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
    expect(scramVerifier('secret', Buffer.alloc(16, 2))).not.toBe(v);
    expect(scramVerifier('secret', Buffer.alloc(16, 1))).toBe(v);
  });

  it('prepares passwords as PostgreSQL does: ASCII as is, other text through SASLprep', () => {
    expect(preparePassword('a\nb c')).toBe('a\nb c');
    expect(preparePassword('ｐａｓｓ')).toBe('pass');
    expect(preparePassword('I\u00ADX')).toBe('IX');
  });
});

describe('folders', () => {
  it('makeDirs makes missing parents and refuses files, paths below files and /proc', () => {
    const deep = join(scratch, 'a', 'b', 'c');
    makeDirs(deep);
    expect(() => makeDirs(deep)).not.toThrow();
    writeFileSync(join(scratch, 'file'), 'x');
    expect(() => makeDirs(join(scratch, 'file'))).toThrow(/is a file, not a folder/);
    expect(() => makeDirs(join(scratch, 'file', 'below'))).toThrow(FolderError);
    expect(() => makeDirs('/proc/pg-tmpfs-nope/x')).toThrow(/cannot be made/);
  });

  it('checkPrivateDir refuses a folder others can write', () => {
    const dir = join(scratch, 'state');
    makeDirs(dir, 0o700);
    expect(() => checkPrivateDir(dir)).not.toThrow();
    chmodSync(dir, 0o777);
    expect(() => checkPrivateDir(dir)).toThrow(/can be written by others \(mode 777\)/);
  });
});

describe('initdbCause', () => {
  it('keeps the FATAL line that explains the failure, not just the last lines', () => {
    const out = [
      'performing post-bootstrap initialization ... 2026-11-21 UTC [1] FATAL:  role "ab" does not exist at character 72',
      '2026-11-21 UTC [1] STATEMENT:  ',
      '\tUPDATE pg_class SET relacl = ...',
      '\t',
      'child process exited with exit code 1',
      'initdb: removing data directory "/tmp/qt/d"',
    ].join('\n');
    expect(initdbCause(out)).toContain('FATAL:  role "ab" does not exist');
    expect(initdbCause(out)).toContain('initdb: removing data directory');
  });
});

describe('the CLI password', () => {
  const file = join(scratch, 'pw');
  it('comes from --password, else --password-file (first line), else $PGPASSWORD, else the default', () => {
    writeFileSync(file, 'from-file\nsecond line\n');
    expect(cliPassword({ password: 'flag', passwordFile: file }, { PGPASSWORD: 'env' })).toBe('flag');
    expect(cliPassword({ passwordFile: file }, { PGPASSWORD: 'env' })).toBe('from-file');
    expect(cliPassword({}, { PGPASSWORD: 'env' })).toBe('env');
    expect(cliPassword({}, {})).toBe('');
  });

  // #35's own hostile pass: an empty first line served the default password; a FIFO hung.
  it('refuses a --password-file whose first line is empty, or that is not a regular file, naming it', () => {
    const empty = join(scratch, 'pw-empty');
    for (const text of ['', '\nsecond line\n']) {
      writeFileSync(empty, text);
      expect(() => cliPassword({ passwordFile: empty }, { PGPASSWORD: 'env' })).toThrow(/first line of .* is empty/);
    }
    expect(() => cliPassword({ passwordFile: scratch }, {})).toThrow(
      expect.objectContaining({ input: 'password-file', problem: `${scratch} is not a regular file` }) as unknown as Error,
    );
  });

  it('names --password-file when the file cannot be read', () => {
    expect(() => cliPassword({ passwordFile: join(scratch, 'missing') }, {})).toThrow(
      expect.objectContaining({ input: 'password-file' }) as unknown as Error,
    );
  });
});

describe('what a mode cannot carry', () => {
  const config = (given: Record<string, string>) => parseInputs((n) => given[n] ?? '');
  it('Docker mode refuses a password with a line break, up front', () => {
    expect(() => checkDockerInputs(config({ password: 'a\nb' }))).toThrow(
      expect.objectContaining({ input: 'password' }) as unknown as Error,
    );
    expect(() => checkDockerInputs(config({ password: 'a b' }))).not.toThrow();
  });

  it('a password with a line break is refused in every mode, before anything starts (issue #26)', () => {
    for (const mode of ['native', 'docker', 'auto']) {
      for (const password of ['first\nsecond', 'a\r\nb', 'trailing\n']) {
        expect(() => config({ mode, password })).toThrow(expect.objectContaining({ input: 'password' }) as unknown as Error);
      }
    }
  });

  it('a user name with a double quote is refused in every mode (initdb cannot create it)', () => {
    expect(() => config({ user: 'a"b' })).toThrow(expect.objectContaining({ input: 'user' }) as unknown as Error);
  });

  // #35's own hostile pass: a line break waited out wait-timeout; pg_* and public failed in initdb.
  it('a user name PostgreSQL reserves, or with a control character, is refused up front', () => {
    for (const user of ['a\nb', 'tab\there', 'pg_admin', 'pg_', 'public', 'none']) {
      expect(() => config({ user }), user).toThrow(expect.objectContaining({ input: 'user' }) as unknown as Error);
    }
    for (const user of ['PG_admin', 'Public', 'app', 'pgadmin']) expect(config({ user }).user).toBe(user);
  });

  it('warns when publish-host opens the server beyond loopback (listen_addresses cannot be set: #35)', () => {
    const base = config({ password: 's3cret' });
    expect(listenWarnings(base)).toEqual([]);
    expect(() => config({ settings: 'listen_addresses=*' })).toThrow(/setting "listen_addresses" cannot be given here/);
    expect(listenWarnings({ ...base, publishHost: '0.0.0.0' })[0]).toMatch(/publish-host' is 0.0.0.0/);
  });

  // #26: with the default password any local user connects as superuser (COPY ... TO PROGRAM).
  describe('the default password is named wherever others can reach the port', () => {
    const hosted = { RUNNER_ENVIRONMENT: 'github-hosted' };
    it.each([
      [
        'laptop or other CI, loopback',
        'postgres',
        '127.0.0.1',
        {},
        /any user of this machine can connect to 127.0.0.1 as superuser/,
      ],
      [
        'self-hosted runner',
        'postgres',
        '127.0.0.1',
        { RUNNER_ENVIRONMENT: 'self-hosted' },
        /On a machine you share, set input 'password'/,
      ],
      [
        'GitHub-hosted runner, all interfaces',
        'postgres',
        '0.0.0.0',
        hosted,
        /published on 0.0.0.0: anyone who reaches it connects/,
      ],
    ])('%s: warned', (_title, password, host, env, expected) => {
      const warnings = defaultPasswordWarnings(password, host, env);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(expected);
      expect(warnings[0]).toMatch(/^Input 'password' is the default \("postgres"\)/);
    });
    it.each([
      ['GitHub-hosted runner, loopback', 'postgres', '127.0.0.1', hosted],
      ['a password of your own, all interfaces', 'x9', '0.0.0.0', {}],
      ['a password of your own, loopback', 'x9', '::1', {}],
    ])('%s: no warning', (_title, password, host, env) => {
      expect(defaultPasswordWarnings(password, host, env)).toEqual([]);
    });
    it('listenWarnings carries it in native mode', () => {
      expect(listenWarnings(config({})).join('\n')).toMatch(/Input 'password' is the default/);
    });
  });
});
