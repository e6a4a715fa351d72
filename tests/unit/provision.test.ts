/**
 * Pure logic of issue #13: the new inputs' parsing, where an init file failed, psql meta-commands,
 * statement splitting, the clone strategy, generated names, and the CLI's flags for the inputs.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inputError, parse } from '../helpers/inputs.js';
import { cloneDatabase, cloneStrategy, freshName } from '../../src/databases.js';
import { DEFAULTS } from '../../src/inputs.js';
import { databaseNames, listItems, listLines } from '../../src/rules.js';
import { backgroundDeadline } from '../../src/background.js';
import { checkNotPsql, initText, metaCommands, resolveInitFiles, splitStatements } from '../../src/init-files.js';
import { initFileError, lineAndColumn } from '../../src/init-errors.js';
import { NO_TRANSACTION_MARKER } from '../../src/init-run.js';
import { wantsProvisioning } from '../../src/provision.js';
import { scanSql, TextIndex } from '../../src/init-sql.js';
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

/** Scratch folders of the init file tests, removed at the end. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('init files', () => {
  it('resolves paths and globs in order, sorted within a glob, each file once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-init-unit-'));
    made.push(dir);
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

  it('finds psql meta-commands by line', async () => {
    expect(await metaCommands('CREATE TABLE t (x int);\n  \\copy t from x.csv\n\\i other.sql')).toEqual([
      { line: 2, command: '\\copy' },
      { line: 3, command: '\\i' },
    ]);
    expect(await metaCommands("SELECT E'\\n';")).toEqual([]);
  });

  it('splits statements like the server (dollar quotes, comments), pointing past leading comments', async () => {
    const text =
      'CREATE TABLE a (x int);\n-- a note\nCREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\nINSERT INTO a VALUES (1);';
    const s = await splitStatements(text);
    expect(s.map((x) => x.line)).toEqual([1, 3, 4]);
    expect(text.slice(s[1]!.offset).startsWith('CREATE FUNCTION')).toBe(true);
  });

  it('refuses what needs psql: meta-commands and COPY FROM stdin with inline data', async () => {
    await expect(checkNotPsql('a.sql', 'SELECT 1;\n\\set x 1')).rejects.toThrow(/a\.sql:2: \\set is a psql meta-command/);
    await expect(checkNotPsql('dump.sql', 'SET x = 1;\nCOPY public.t (a) FROM stdin;\n1\n\\.\n')).rejects.toThrow(
      /dump\.sql:2: COPY … FROM stdin/,
    );
    await expect(checkNotPsql('d.sql', 'CREATE TABLE t (a int);\nCOPY t FROM stdin;\n')).rejects.toThrow(
      /d\.sql:2: COPY … FROM stdin/,
    );
    await expect(checkNotPsql('ok.sql', "COPY t FROM '/srv/t.csv';")).resolves.toBeUndefined();
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

describe('init files, second sweep (#26)', () => {
  it('splits a 20 000-statement file, each statement at its own line (linear: no re-reading before each statement)', async () => {
    const lines = ['-- pg-tmpfs: no-transaction', 'CREATE TABLE t (id int PRIMARY KEY, v text);'];
    for (let i = 0; i < 20_000; i++) lines.push(`INSERT INTO t VALUES (${i}, 'value ${i} 🐘');`);
    const text = lines.join('\n');
    const s = await splitStatements(text);
    expect(s).toHaveLength(20_001);
    expect(s[20_000]).toMatchObject({ line: 20_002, text: "INSERT INTO t VALUES (19999, 'value 19999 🐘')" });
    // Offsets count code points (the elephant is one), as the server's error positions do.
    expect(Array.from(text).slice(s[20_000]!.offset).join('').startsWith('INSERT INTO t VALUES (19999,')).toBe(true);
    expect(lineAndColumn(text, s[20_000]!.offset + 22)).toEqual({ line: 20_002, column: 23 });
  });

  it('a $ inside an identifier starts no dollar quote (price$usd$ is one name)', async () => {
    const two = await splitStatements('CREATE TABLE price$usd$ (id int);\nCREATE INDEX CONCURRENTLY i ON price$usd$ (id);\n');
    expect(two.map((s) => s.text)).toEqual([
      'CREATE TABLE price$usd$ (id int)',
      'CREATE INDEX CONCURRENTLY i ON price$usd$ (id)',
    ]);
    const scanned = await scanSql('SELECT 1 AS a$x$;\n\\i evil.sql\nSELECT 2 AS b$x$;\n');
    expect(scanned.meta.map((m) => m.line)).toEqual([2]);
    // A real dollar quote still hides what it holds.
    expect((await scanSql('SELECT $x$\n\\i no.sql\n$x$;\n')).meta).toEqual([]);
  });

  it('maps UTF-16 offsets, code points and lines both ways', () => {
    const index = new TextIndex('a🐘b\n🐘🐘c\n');
    expect([0, 1, 3, 4, 5, 7, 9, 10].map((u) => index.codePoint(u))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((p) => index.unit(p))).toEqual([0, 1, 3, 4, 5, 7, 9, 10]);
    expect(index.lineColumn(9)).toEqual({ line: 2, column: 3 });
    expect(index.lineText(2)).toBe('🐘🐘c');
  });

  it('a backslash in a string, a dollar-quoted body, a comment or an E string is SQL, not a psql meta-command', async () => {
    const valid = [
      "INSERT INTO t VALUES ('first line\n\\d second line');",
      'CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $$\nBEGIN\n\\x\nRETURN 1;\nEND $$;',
      'CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$\n\\d\n$body$;',
      '-- COPY t FROM stdin;\nSELECT 1;',
      '/* an old load:\nCOPY t FROM stdin;\n\\.\n*/ SELECT 1;',
      '/* nested /* comment */\n\\d still inside */ SELECT 1;',
      "SELECT E'it\\'s\n\\d';",
      'SELECT "odd\n\\d name" FROM t;',
      "COPY (SELECT 'FROM stdin') TO STDOUT;",
    ];
    for (const text of valid) {
      expect(await metaCommands(text), text).toEqual([]);
      await expect(checkNotPsql('ok.sql', text), text).resolves.toBeUndefined();
    }
    // Outside them, anywhere on a line, it is psql's.
    expect(await metaCommands("SELECT 'a';\nSELECT 1 \\gset\n$$x$$; \\i b.sql")).toEqual([
      { line: 2, command: '\\gset' },
      { line: 3, command: '\\i' },
    ]);
    await expect(checkNotPsql('e.sql', "SELECT E'it\\'s';\n\\d t")).rejects.toThrow(/e\.sql:2: \\d is a psql meta-command/);
    await expect(checkNotPsql('c.sql', '/* note */ COPY t /* x */ FROM STDIN;')).rejects.toThrow(/c\.sql:1: COPY … FROM stdin/);
  });

  it('splits at E strings with escaped quotes and nested comments as the server does', async () => {
    const s = await splitStatements("SELECT E'a\\';b';\n/* x /* ; */ ; */ SELECT 2;\n-- only a comment;\n");
    expect(s.map((x) => [x.line, x.text])).toEqual([
      [1, "SELECT E'a\\';b'"],
      [2, '/* x /* ; */ ; */ SELECT 2'],
    ]);
  });

  it('a symbolic link to a file or a folder, or a link loop, runs each file once (by real path)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-init-unit-'));
    made.push(dir);
    mkdirSync(join(dir, 'db'));
    writeFileSync(join(dir, 'db', '001_a.sql'), 'CREATE TABLE a ();');
    writeFileSync(join(dir, 'db', '003_b.sql'), 'CREATE TABLE b ();');
    symlinkSync('001_a.sql', join(dir, 'db', '002_link.sql'));
    symlinkSync('../db', join(dir, 'db', 'loop'));
    symlinkSync('db', join(dir, 'alias'));
    const once = [join(dir, 'db', '001_a.sql'), join(dir, 'db', '003_b.sql')];
    expect(await resolveInitFiles({ init: ['db/*.sql'], workDir: dir })).toEqual(once);
    expect(await resolveInitFiles({ init: ['db/**/*.sql'], workDir: dir })).toEqual(once);
    expect(await resolveInitFiles({ init: ['db/*.sql', 'alias/*.sql', 'alias/002_link.sql'], workDir: dir })).toEqual(once);
    expect(await resolveInitFiles({ init: ['**/*.sql'], workDir: dir })).toHaveLength(2);
  });

  it('a statement that cannot run in a transaction names the no-transaction marker line to add', () => {
    const text = 'CREATE TABLE t (x int);\nVACUUM t;';
    const error = { message: 'VACUUM cannot run inside a transaction block', code: '25001', severity: 'ERROR' };
    const e = initFileError('db/v.sql', text, error, 24);
    expect(e.input).toBe('init');
    expect(e.problem).toBe('db/v.sql:2:1: ERROR: VACUUM cannot run inside a transaction block (SQLSTATE 25001)');
    expect(e.fix).toMatch(/^Add the line "-- pg-tmpfs: no-transaction" to db\/v\.sql/);
    // With the marker already there (an explicit BEGIN around it), the SQL is at fault.
    expect(initFileError('db/v.sql', text, error, 24, { marker: true }).fix).toMatch(/^Fix the SQL/);
  });

  it('a full data directory names tmpfs-size and its fix', () => {
    const error = { message: 'could not extend file "base/5/16384": No space left on device', code: '53100', severity: 'ERROR' };
    const e = initFileError('db/big.sql', 'INSERT INTO t SELECT 1;', error, 0, { tmpfsSize: '64m' });
    expect(e.input).toBe('tmpfs-size');
    expect(e.problem).toMatch(
      /^db\/big\.sql:1:1: ERROR: could not extend file .* \(SQLSTATE 53100\); .*full \(tmpfs-size 64m\)$/,
    );
    expect(e.fix).toMatch(/^Raise tmpfs-size above 64m/);
    expect(e.location).toEqual({ file: 'db/big.sql', line: 1, column: 1 });
  });
});
