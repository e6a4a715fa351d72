/**
 * Schema once, a fresh database per test (issue #13), the CLI in native mode: `up` with init
 * files, an init command, extensions, databases and `--template`, then `db create` by 4 parallel
 * workers and `db drop` (tests/helpers/init.ts); each init file in a clean session; a failing SQL
 * file, a psql meta-command, a failing command, a missing extension and a no-transaction file fail
 * with nothing left. The same template test in Docker mode is in init-docker.test.ts; the action
 * through act, which starts both modes in one job, in init.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE_MAJOR } from '../helpers/infra.js';
import { FIXTURES, templateTest, useInitCli } from '../helpers/init.js';

describe('init, template and per-test databases', () => {
  const file = useInitCli(['tmpl-native', 'bad']);
  const { work, cli } = file;

  templateTest('native', file);

  it('CLI: each init file starts a clean session (a search_path pg_dump clears does not reach the next file)', () => {
    const dir = mkdtempSync(join(work, 'session-'));
    writeFileSync(
      join(dir, '1_dump.sql'),
      "SELECT pg_catalog.set_config('search_path', '', false);\nCREATE TABLE public.a (x int);\n",
    );
    writeFileSync(join(dir, '2_seed.sql'), 'CREATE TABLE b (x int);\nINSERT INTO a VALUES (1);\n');
    const r = cli([
      'up',
      '--mode',
      'native',
      '--postgres-version',
      NATIVE_MAJOR,
      '--name',
      'bad',
      '--init',
      `${dir}/*.sql`,
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(cli(['down', '--name', 'bad']).status).toBe(0);
  });

  it('CLI: a failing SQL file, a psql meta-command, a failing command and a missing extension fail with nothing left', async () => {
    const base = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'bad', '--quiet'];
    const sql = cli([...base, '--init', `${FIXTURES}/migrations/001_schema.sql`, '--init', `${FIXTURES}/bad/broken.sql`]);
    expect(sql.status).toBe(1);
    expect(sql.stderr).toMatch(
      /--- tests\/fixtures\/init\/bad\/broken\.sql ---\n3 \| SELECT id FROM fine WHERE nonexistent_column = 1;\n\s+\^\n---\nerror: --init: tests\/fixtures\/init\/bad\/broken\.sql:3:\d+: ERROR: column "nonexistent_column" does not exist \(SQLSTATE 42703\)/,
    );
    const meta = mkdtempSync(join(work, 'meta-'));
    spawnSync('sh', ['-c', `printf 'CREATE TABLE t (x int);\\n\\\\copy t from data.csv\\n' > ${meta}/load.sql`]);
    const copy = cli([...base, '--init', `${meta}/load.sql`]);
    expect(copy.status).toBe(1);
    expect(copy.stderr).toMatch(/error: --init: \S+load\.sql:2: \\copy is a psql meta-command/);
    const cmd = cli([...base, '--init-command', 'echo "migration 7 failed" >&2; exit 3']);
    expect(cmd.status).toBe(1);
    expect(cmd.stderr).toMatch(/error: --init-command: exited with code 3: migration 7 failed/);
    const ext = cli([...base, '--extensions', 'pgvector']);
    expect(ext.status).toBe(1);
    expect(ext.stderr).toMatch(/error: --extensions: "pgvector" is not available in the PostgreSQL binaries in \S+/);
    // A no-transaction file: the column counts from the statement's own start in the file.
    writeFileSync(join(meta, 'nt.sql'), '-- pg-tmpfs: no-transaction\nCREATE TABLE nt (id int);\nSELECT nope FROM nt;\n');
    const nt = cli([...base, '--init', `${meta}/nt.sql`]);
    expect(nt.status).toBe(1);
    expect(nt.stderr).toMatch(/error: --init: \S+nt\.sql:3:8: ERROR: column "nope" does not exist/);
    const status = JSON.parse(cli(['status']).stdout) as unknown[];
    expect(status).toEqual([]);
    expect(file.added()).toEqual([]);
  });
});
