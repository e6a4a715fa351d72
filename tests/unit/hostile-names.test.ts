/**
 * Issue #35's pure rules: database names as the server stores them, the settings the project
 * owns, how much Docker mode can pass, which run folders a record may make `down` touch, and the
 * server log lines that name settings.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropDatabase } from '../../src/databases.js';
import { checkDockerSettings, DOCKER_SETTINGS_MAX_BYTES } from '../../src/docker/run-plan.js';
import { InputError } from '../../src/errors.js';
import { parseSettings } from '../../src/profile.js';
import { NotReadyError, notReadyError } from '../../src/readiness.js';
import { databaseNameProblem, storedName } from '../../src/rules.js';
import { RUN_MARKER, runFolderName, runFolderProblem } from '../../src/native/run-folder.js';

const T63 = 't'.repeat(63);

describe('database names as PostgreSQL stores them', () => {
  it.each([
    [`${T63}x`, T63],
    [T63, T63],
    ['app', 'app'],
    // 62 ASCII bytes and a 2-byte character: the character does not fit, and is not cut.
    [`${'a'.repeat(62)}é`, 'a'.repeat(62)],
    [`${'a'.repeat(61)}é`, `${'a'.repeat(61)}é`],
    [`${'a'.repeat(61)}😀`, 'a'.repeat(61)],
  ])('storedName(%j) is %j', (name, stored) => {
    expect(storedName(name)).toBe(stored);
  });

  it.each([
    ['', 'is empty'],
    ['a\0b', 'holds a NUL'],
    [`${T63}x`, "is longer than 63 bytes (64 in UTF-8), PostgreSQL's limit for names"],
    [`é${'x'.repeat(62)}`, "is longer than 63 bytes (64 in UTF-8), PostgreSQL's limit for names"],
  ])('databaseNameProblem(%j) is %j', (name, problem) => {
    expect(databaseNameProblem(name)).toBe(problem);
  });

  it('a name of 63 bytes is fine', () => {
    expect(databaseNameProblem(T63)).toBeNull();
  });

  // Port 1 on 127.0.0.1: nothing listens, so a refusal that came after connecting would be ECONNREFUSED.
  const nowhere = { host: '127.0.0.1', port: 1, user: 'postgres', password: 'x', database: 'postgres' };

  it.each([`${T63}x`, `${'a'.repeat(63)}b`, `é${'x'.repeat(62)}`])(
    'db drop of a name over 63 bytes (%j) is refused naming the database argument, before connecting',
    async (name) => {
      const error = await dropDatabase(nowhere, name, { protect: [T63], timeoutMs: 1000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).input).toBe('database');
      expect((error as InputError).problem).toMatch(/longer than 63 bytes/);
    },
  );
});

describe('settings the project or another input owns (#35)', () => {
  it.each([
    ['port=5999', "input 'port' sets it"],
    ['PORT=5999', "input 'port' sets it"],
    ['listen_addresses=*', "input 'publish-host' sets it"],
    ['unix_socket_directories=/tmp', 'pg-tmpfs sets it for every run'],
    ['data_directory=/tmp', 'pg-tmpfs sets it for every run'],
    ['hba_file=/tmp/trust.conf', 'pg-tmpfs sets it for every run'],
    ['ident_file=/tmp/ident.conf', 'pg-tmpfs sets it for every run'],
    ['config_file=/tmp/postgresql.conf', 'pg-tmpfs sets it for every run'],
  ])('%s is refused naming settings: %s', (line, owner) => {
    const error = (() => {
      try {
        parseSettings(line);
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe('settings');
    expect((error as InputError).problem).toContain(owner);
  });

  it('settings with such a name inside (port_x, a.port) and properties of Object are not refused', () => {
    expect(parseSettings('max_connections=8\nconstructor=1\nmy.port=2').map((s) => s.name)).toEqual([
      'max_connections',
      'constructor',
      'my.port',
    ]);
  });
});

describe('Docker mode: settings too long to pass (#35)', () => {
  it('a 100 KB search_path is refused naming settings, the setting and the limit', () => {
    const settings = parseSettings(`work_mem=8MB\nsearch_path=${'s,'.repeat(50_000)}public`);
    expect(() => checkDockerSettings(settings)).toThrow(
      expect.objectContaining({
        input: 'settings',
        problem: expect.stringMatching(/search_path alone 100018\), and Docker mode passes at most 30000/) as unknown,
      }) as unknown as Error,
    );
  });

  it('settings up to the limit pass', () => {
    const value = 'x'.repeat(DOCKER_SETTINGS_MAX_BYTES - 'search_path='.length);
    expect(() => checkDockerSettings(parseSettings(`search_path=${value}`))).not.toThrow();
  });
});

describe('which run folders a record may make down touch (#35 item 11)', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A folder `name` in `parent`, holding `files`. */
  function folder(parent: string, name: string, files: Record<string, string>): string {
    const dir = join(parent, name);
    mkdirSync(dir);
    made.push(dir);
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    return dir;
  }
  // The folders are made under a RUNNER_TEMP of the test's own, never in /dev/shm: the native
  // e2e lane, which runs at the same time (scripts/test-lanes.mjs), counts every
  // /dev/shm/pg-tmpfs-* folder as a leftover. /dev/shm itself is checked with a folder that is gone.
  const runnerTemp = mkdtempSync(join(tmpdir(), 'pg-tmpfs-unit-rt-'));
  afterAll(() => rmSync(runnerTemp, { recursive: true, force: true }));
  const env = { RUNNER_TEMP: runnerTemp };
  const token = 'abcd1234';

  it('names: pg-tmpfs- in front of a container name that lacks it', () => {
    expect(runFolderName('pg-tmpfs-cli-x-123456', token)).toBe(`pg-tmpfs-cli-x-123456-${token}`);
    expect(runFolderName('mydb', token)).toBe(`pg-tmpfs-mydb-${token}`);
  });

  it('ours: named pg-tmpfs-*-<token> in /dev/shm, RUNNER_TEMP or the temp folder with the marker; empty; or gone', () => {
    expect(runFolderProblem(folder(runnerTemp, `pg-tmpfs-u-${token}`, { [RUN_MARKER]: token, f: '' }), token, env)).toBeNull();
    expect(runFolderProblem(folder(tmpdir(), `pg-tmpfs-u-${token}`, {}), token, env)).toBeNull();
    expect(runFolderProblem(join(tmpdir(), `pg-tmpfs-gone-${token}`), token, env)).toBeNull();
    expect(runFolderProblem(`/dev/shm/pg-tmpfs-gone-${token}`, token, env)).toBeNull();
  });

  it('not ours: elsewhere, misnamed, without the marker, a wrong marker, a link, a relative path', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'pg-tmpfs-unit-'));
    made.push(elsewhere);
    const cases: Array<[string, string, RegExp]> = [
      [folder(elsewhere, `pg-tmpfs-u-${token}`, { [RUN_MARKER]: token }), token, /not in \/dev\/shm/],
      [folder(elsewhere, `project-${token}`, { 'keep.txt': 'x' }), token, /its name is not/],
      [folder(runnerTemp, `pg-tmpfs-v-${token}`, { 'keep.txt': 'x' }), token, /holds no \.pg-tmpfs-run marker/],
      [folder(runnerTemp, `pg-tmpfs-w-${token}`, { [RUN_MARKER]: 'other' }), token, /marker does not hold the token/],
      [`${tmpdir()}/pg-tmpfs-u-${token}/../pg-tmpfs-x-${token}`, token, /not an absolute path/],
      [`pg-tmpfs-u-${token}`, token, /not an absolute path/],
      ['/dev/shm/pg-tmpfs-u-', '', /token is not a token/],
    ];
    const link = join(runnerTemp, `pg-tmpfs-link-${token}`);
    symlinkSync(elsewhere, link);
    made.push(link);
    cases.push([link, token, /not a folder/]);
    for (const [dir, t, problem] of cases) expect(runFolderProblem(dir, t, env), dir).toMatch(problem);
  });
});

describe('server logs that name a setting (#35)', () => {
  const died = new NotReadyError('the server stopped before answering a query (3 attempts)', 'ECONNREFUSED', true);
  it.each([
    'postgres: superuser_reserved_connections (3) must be less than max_connections (1)',
    'postgres: superuser_reserved_connections (3) plus reserved_connections (0) must be less than max_connections (1)',
    'postgres: "superuser_reserved_connections" (3) plus "reserved_connections" (0) must be less than "max_connections" (1)',
    '2026-11-26 FATAL:  WAL streaming (max_wal_senders > 0) requires wal_level "replica" or "logical"',
  ])('%s names settings and the setting', (line) => {
    const error = notReadyError(died, `LOG:  starting\n${line}\n`);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe('settings');
    expect((error as InputError).problem).toContain(line.replace(/^.*?("?superuser|WAL)/, '$1'));
  });
});
