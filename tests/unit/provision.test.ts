/**
 * Pure logic of issue #13: the new inputs' parsing, where an init file failed, psql meta-commands,
 * statement splitting, the clone strategy, generated names, and the CLI's flags for the inputs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputError, parse } from '../helpers/inputs.js';
import { cloneDatabase, cloneStrategy, freshName } from '../../src/databases.js';
import { databaseNames, DEFAULTS, listItems, listLines } from '../../src/inputs.js';
import { backgroundDeadline } from '../../src/background.js';
import {
  checkNotPsql,
  initFileError,
  initText,
  lineAndColumn,
  metaCommands,
  NO_TRANSACTION_MARKER,
  resolveInitFiles,
  splitStatements,
  wantsProvisioning,
} from '../../src/provision.js';
import { program } from '../../src/cli/program.js';

describe('inputs of issue #13', () => {
  it('defaults ask for nothing after start', () => {
    const c = parse({});
    expect([c.init, c.initCommand, c.databases, c.template, c.extensions, c.initTimeoutMs]).toEqual([
      [],
      '',
      [],
      false,
      [],
      600_000,
    ]);
    expect(wantsProvisioning(c)).toBe(false);
    expect(c.workDir).toBe(process.cwd());
  });

  it('reads lists one per line or comma-separated, dropping blanks, comments and repeats', () => {
    expect(listItems('pg_trgm, vector\n\n# a comment\n  uuid-ossp  \nvector')).toEqual([
      'pg_trgm',
      'vector',
      'uuid-ossp',
      'vector',
    ]);
    expect(listLines('  db/a b.sql \n\n# note\ndb/*.sql')).toEqual(['db/a b.sql', 'db/*.sql']);
    const c = parse({ extensions: 'pg_trgm,vector\nvector', databases: 'one\ntwo, one', database: 'app' });
    expect(c.extensions).toEqual(['pg_trgm', 'vector']);
    expect(c.databases).toEqual(['one', 'two']);
    expect(wantsProvisioning(c)).toBe(true);
  });

  it('splits databases on commas and line breaks only; a name holding whitespace is refused (issue #26)', () => {
    expect(databaseNames(' a ,b\r\n\n# c d\n\tc\t,, d')).toEqual(['a', 'b', 'c', 'd']);
    expect(parse({ databases: 'one,two\nthree' }).databases).toEqual(['one', 'two', 'three']);
    for (const raw of ['my db', 'a,b c', 'x\ty', 'a\u00a0b']) {
      const e = inputError(() => parse({ databases: raw }));
      expect(e.input, raw).toBe('databases');
      expect(e.problem).toMatch(/holds whitespace: names are separated by commas or line breaks/);
      expect(e.fix).toMatch(/Separate several databases with commas/);
    }
  });

  it('refuses what cannot work, naming the input', () => {
    expect(inputError(() => parse({ databases: 'postgres' })).input).toBe('databases');
    expect(inputError(() => parse({ database: 'app', databases: 'app' })).problem).toMatch(/the database input/);
    expect(inputError(() => parse({ databases: 'x'.repeat(64) })).input).toBe('databases');
    expect(inputError(() => parse({ extensions: 'pg_trgm; DROP' })).input).toBe('extensions');
    expect(inputError(() => parse({ template: 'yes' })).input).toBe('template');
    expect(inputError(() => parse({ template: 'true' })).fix).toMatch(/database: app/);
    expect(inputError(() => parse({ 'init-timeout': '0' })).input).toBe('init-timeout');
    expect(parse({ template: 'true', database: 'app' }).template).toBe(true);
  });

  it('the CLI has a flag for every action input', () => {
    const up = program().commands.find((c) => c.name() === 'up')!;
    const flags = up.options.map((o) => o.long?.slice(2));
    // container-name and export-env are the CLI's own (from --name; export lines on stdout).
    const cliOwn = ['container-name', 'export-env', 'wait'];
    for (const input of Object.keys(DEFAULTS).filter((i) => !cliOwn.includes(i))) expect(flags, input).toContain(input);
    expect(flags).toContain('no-wait');
  });
});

describe('init files', () => {
  it('resolves paths and globs in order, sorted within a glob, each file once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-init-unit-'));
    for (const f of ['002_b.sql', '001_a.sql', 'seed.sql']) writeFileSync(join(dir, f), 'SELECT 1;');
    const files = await resolveInitFiles({ init: ['0*.sql', 'seed.sql', '001_a.sql'], workDir: dir });
    expect(files).toEqual([join(dir, '001_a.sql'), join(dir, '002_b.sql'), join(dir, 'seed.sql')]);
    await expect(resolveInitFiles({ init: ['nothing/*.sql'], workDir: dir })).rejects.toMatchObject({ input: 'init' });
    await expect(resolveInitFiles({ init: ['.'], workDir: dir })).rejects.toMatchObject({ input: 'init' });
  });

  it('turns a character offset into line and column, counting code points as the server does', () => {
    expect(lineAndColumn('SELECT 1;\nSELECT x;', 17)).toEqual({ line: 2, column: 8 });
    expect(lineAndColumn('-- 🐘\nSELECT x;', 12)).toEqual({ line: 2, column: 8 });
  });

  it('finds psql meta-commands by line', () => {
    expect(metaCommands('CREATE TABLE t (x int);\n  \\copy t from x.csv\n\\i other.sql')).toEqual([
      { line: 2, command: '\\copy' },
      { line: 3, command: '\\i' },
    ]);
    expect(metaCommands("SELECT E'\\n';")).toEqual([]);
  });

  it('splits statements like the server (dollar quotes, comments), pointing past leading comments', async () => {
    const text =
      'CREATE TABLE a (x int);\n-- a note\nCREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\nINSERT INTO a VALUES (1);';
    const s = await splitStatements(text);
    expect(s.map((x) => x.line)).toEqual([1, 3, 4]);
    expect(text.slice(s[1]!.offset).startsWith('CREATE FUNCTION')).toBe(true);
  });

  it('refuses what needs psql: meta-commands and COPY FROM stdin with inline data', () => {
    expect(() => checkNotPsql('a.sql', 'SELECT 1;\n\\set x 1')).toThrow(/a\.sql:2: \\set is a psql meta-command/);
    expect(() => checkNotPsql('dump.sql', 'SET x = 1;\nCOPY public.t (a) FROM stdin;\n1\n\\.\n')).toThrow(
      /dump\.sql:2: COPY … FROM stdin/,
    );
    expect(() => checkNotPsql('d.sql', 'CREATE TABLE t (a int);\nCOPY t FROM stdin;\n')).toThrow(/d\.sql:2: COPY … FROM stdin/);
    expect(() => checkNotPsql('ok.sql', "COPY t FROM '/srv/t.csv';")).not.toThrow();
  });

  it('gives each statement its start (comments included) and its first line of code', async () => {
    const s = await splitStatements('-- pg-tmpfs: no-transaction\nVACUUM;\n/* x */ SELECT 1;');
    expect(s.map((x) => [x.start, x.offset, x.line])).toEqual([
      [0, 28, 2],
      [36, 44, 3],
    ]);
  });

  it('gives a background start with init files or an init command their budget', () => {
    const base = { waitTimeoutMs: 60_000, initTimeoutMs: 600_000 };
    expect(backgroundDeadline({ ...base, init: [], initCommand: '' }, 0)).toBe(backgroundDeadline({ waitTimeoutMs: 60_000 }, 0));
    expect(backgroundDeadline({ ...base, init: ['a.sql'], initCommand: '' }, 0) - backgroundDeadline(base, 0)).toBe(1_200_000);
  });

  it('knows the no-transaction marker', () => {
    expect(NO_TRANSACTION_MARKER.test('-- pg-tmpfs: no-transaction\nVACUUM;')).toBe(true);
    expect(NO_TRANSACTION_MARKER.test('VACUUM; -- no-transaction')).toBe(false);
  });

  it('reports file:line:column with the server message, detail and the line quoted', () => {
    const text = 'SELECT 1;\nSELECT nope FROM t;';
    const e = initFileError(
      'db/x.sql',
      text,
      { message: 'column "nope" does not exist', code: '42703', severity: 'ERROR', hint: 'Check it.' },
      17,
    );
    expect(e.input).toBe('init');
    expect(e.problem).toBe('db/x.sql:2:8: ERROR: column "nope" does not exist (SQLSTATE 42703); HINT: Check it');
    expect(e.location).toEqual({ file: 'db/x.sql', line: 2, column: 8 });
    expect(e.detail).toBe('2 | SELECT nope FROM t;\n           ^');
    expect(e.detailTitle).toBe('db/x.sql');
    const unknown = initFileError('db/x.sql', text, { message: 'boom' }, null);
    expect(unknown.problem).toBe('db/x.sql: ERROR: boom');
    expect(unknown.location).toBeUndefined();
  });
});

describe('per-test databases', () => {
  it('uses FILE_COPY on tmpfs where STRATEGY exists, else the default', () => {
    expect(cloneStrategy(180001, true)).toBe('FILE_COPY');
    expect(cloneStrategy(150000, true)).toBe('FILE_COPY');
    expect(cloneStrategy(140010, true)).toBe('default');
    expect(cloneStrategy(180001, false)).toBe('default');
  });

  it('makes fresh names within 63 bytes, from safe characters', () => {
    const a = freshName('app');
    expect(a).toMatch(/^app_[0-9a-f]{12}$/);
    expect(freshName('app')).not.toBe(a);
    expect(freshName('my-app "x"')).toMatch(/^my_app__x__[0-9a-f]{12}$/);
    expect(Buffer.byteLength(freshName('x'.repeat(80)))).toBe(63);
  });
});

describe('hostile init files and names (issue #26)', () => {
  it('a UTF-8 byte order mark is dropped, as psql does', () => {
    expect(initText('a.sql', Buffer.from('\uFEFFCREATE TABLE a ();', 'utf8'))).toBe('CREATE TABLE a ();');
  });
  it('a NUL byte or invalid UTF-8 says the file is not text, naming init', () => {
    const nul = inputError(() => initText('bin.sql', Buffer.from([0x43, 0x52, 0x00, 0x01])));
    expect(nul).toMatchObject({ input: 'init' });
    expect(nul.problem).toBe('bin.sql is not a text file (a NUL byte at offset 2)');
    const latin1 = inputError(() => initText('l1.sql', Buffer.from([0x27, 0xe9, 0x27])));
    expect(latin1.problem).toBe('l1.sql is not valid UTF-8');
  });
  it('db create --from longer than 63 bytes is refused before connecting (the server would copy its truncation)', async () => {
    const connection = { host: '127.0.0.1', port: 1, user: 'u', password: 'p', database: 'd' };
    await expect(cloneDatabase(connection, { template: 'x'.repeat(65), tmpfs: true, timeoutMs: 1000 })).rejects.toMatchObject({
      input: 'from',
      problem: expect.stringContaining('longer than 63 bytes') as unknown as string,
    });
  });
});
