/**
 * Second sweep (#26), init files, native mode: long files, psql-looking valid SQL, links, what
 * cannot run in a transaction, init-timeout, tmpfs-size; each `up` fails naming its input or works,
 * and leaves nothing behind. The Docker row is in hostile-sweep-docker.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { inserts, only, overfillRows, ROWS, upFails, upWorks, withFiles } from '../helpers/hostile-sweep.js';

describe('second sweep (#26): init files', () => {
  it('a no-transaction file of 20 000 INSERT lines runs within a small init-timeout (the split is linear)', async () => {
    const text = `-- pg-tmpfs: no-transaction\nCREATE TABLE t (id int PRIMARY KEY, v text);\n${inserts(0, ROWS)}\n`;
    const count = await upWorks(
      ['--init', '{dir}/nt.sql', '--init-timeout', '60'],
      withFiles({ 'nt.sql': text }),
      'SELECT count(*) FROM t',
    );
    expect(count).toBe(String(ROWS));
  }, 90_000);

  it('a plain 20 000-line file whose last INSERT violates a key names that line', async () => {
    const text = `CREATE TABLE t (id int PRIMARY KEY, v text);\n${inserts(0, ROWS)}\nINSERT INTO t VALUES (5, 'again');\n`;
    await upFails(
      ['--init', '{dir}/dup.sql', '--init-timeout', '60'],
      withFiles({ 'dup.sql': text }),
      '--init',
      new RegExp(`dup\\.sql:${ROWS + 2}:1: ERROR: duplicate key value violates unique constraint "t_pkey"`),
    );
  }, 90_000);

  it.each([
    ['a line starting \\d in a string literal', "CREATE TABLE t (v text);\nINSERT INTO t VALUES ('first\n\\d second');\n"],
    [
      'a line starting \\x in a plpgsql body',
      "CREATE TABLE t (v text);\nCREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN '\n\\x';\nEND $$;\nINSERT INTO t SELECT f();\n",
    ],
    [
      'COPY … FROM stdin in a comment',
      "CREATE TABLE t (v text);\n/* the old load:\nCOPY t FROM stdin;\n*/\nINSERT INTO t VALUES ('x');\n",
    ],
  ])(
    'valid SQL runs: %s is no psql syntax',
    async (_, text) => {
      expect(await upWorks(['--init', '{dir}/ok.sql'], withFiles({ 'ok.sql': text }), 'SELECT count(*) FROM t')).toBe('1');
    },
    60_000,
  );

  it('a symbolic link to a file, to its folder, and a link loop run the file once', async () => {
    const files = {
      'db/001_a.sql': 'CREATE TABLE a (x int);\nINSERT INTO a VALUES (1);\n',
      'db/002_link.sql': '-> 001_a.sql',
      'db/loop': '-> ../db',
      alias: '-> db',
    };
    const argv = ['--init', '{dir}/db/*.sql', '--init', '{dir}/alias/*.sql', '--init', '{dir}/db/**/*.sql'];
    expect(await upWorks(argv, withFiles(files), 'SELECT count(*) FROM a')).toBe('1');
  }, 60_000);

  it.each([
    ['CREATE DATABASE', 'CREATE TABLE t (x int);\nCREATE DATABASE other;\n', 2],
    ['VACUUM', 'CREATE TABLE t (x int);\n\nVACUUM t;\n', 3],
    ['CREATE INDEX CONCURRENTLY', 'CREATE TABLE t (x int);\nCREATE INDEX CONCURRENTLY t_x ON t (x);\n', 2],
  ])(
    '%s in a plain file names the no-transaction marker line to add',
    async (_, text, line) => {
      await upFails(
        ['--init', '{dir}/plain.sql'],
        withFiles({ 'plain.sql': text }),
        '--init',
        new RegExp(
          `plain\\.sql:${line}:1: ERROR: .*cannot run inside a transaction block.*Add the line "-- pg-tmpfs: no-transaction" to `,
        ),
      );
    },
    60_000,
  );

  it('SET statement_timeout = 0 does not lift init-timeout: the error names init-timeout and the statement', async () => {
    await upFails(
      ['--init', '{dir}/slow.sql', '--init-timeout', '2'],
      withFiles({ 'slow.sql': 'SET statement_timeout = 0;\nSELECT pg_sleep(120);\n' }),
      '--init-timeout',
      /slow\.sql:2:1: the init files ran past init-timeout \(2 s/,
    );
  }, 60_000);

  overfillRows(only('native'));
});
