/**
 * The third hostile sweep's schema-cache cases (issue #35) that both modes share, through the CLI
 * in-process (runCli), each in a case folder of its own (cache-dir and state folder inside it):
 * `up` and `down` in the case's folders, two identical starts (`twice`), a planted store entry,
 * and the rows that run alike in each mode (defineSchemaCacheSweepTests). Used by
 * tests/e2e/hostile-schema-cache-docker.test.ts and hostile-schema-cache-native.test.ts.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { storedKeys } from '../../src/schema-cache/store.js';
import { cli, NAME, newCase, type Case } from './hostile-rows.js';
import { only, type ModeArgs } from './hostile-sweep.js';
import { leftoverSnapshot, queryValue } from './infra.js';

/** What `up --json --schema-cache` prints, the fields these tests read. */
export interface UpJson {
  connectionUri: string;
  schemaCacheHit?: boolean;
  schemaCacheKey?: string;
}

/** The case's cache folder (`--cache-dir`): the initdb cache and the schema cache's store. */
export const cacheOf = (c: Case) => join(c.dir, 'cache');

/** `up --json --schema-cache` of database `app` in the case's folders; `json` when it succeeded. */
export async function up(c: Case, modeArgs: string[], extra: string[]): Promise<{ code: number; stderr: string; json: UpJson }> {
  const r = await cli(
    ['up', '--name', NAME, ...modeArgs, '--json', '--schema-cache', '--cache-dir', cacheOf(c), '--database', 'app', ...extra],
    { PG_TMPFS_STATE_DIR: c.state },
  );
  return { code: r.code, stderr: r.stderr, json: (r.code === 0 ? JSON.parse(r.stdout) : {}) as UpJson };
}

/** `down` of the case's instance, which must succeed. */
export async function down(c: Case): Promise<void> {
  const r = await cli(['down', '--name', NAME], { PG_TMPFS_STATE_DIR: c.state });
  expect(r.code, r.stderr).toBe(0);
}

/** Writes the case's init file `name` and returns its path. */
export function initFile(c: Case, text: string, name = 'init.sql'): string {
  const path = join(c.dir, name);
  writeFileSync(path, text);
  return path;
}

/** The connection URI with another password. */
function withPassword(uri: string, password: string): string {
  const u = new URL(uri);
  u.password = password;
  return u.toString();
}

/** What connecting with `uri` gives: 'connected', or the error's message. */
async function tryConnect(uri: string): Promise<string> {
  const client = new pg.Client({ connectionString: uri });
  try {
    await client.connect();
    return 'connected';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Two identical starts, each checked by `check` (run 1, then 2) and stopped; then nothing is left behind. */
export async function twice(
  c: Case,
  modeArgs: string[],
  extra: string[],
  check: (r: { stderr: string; json: UpJson }, run: number) => Promise<void>,
): Promise<void> {
  const snap = leftoverSnapshot();
  for (const run of [1, 2]) {
    const r = await up(c, modeArgs, extra);
    expect(r.code, r.stderr).toBe(0);
    await check(r, run);
    await down(c);
  }
  expect(snap.added()).toEqual([]);
}

const NOT_SAVED = /^warning: schema cache not saved: /m;
export const NOT_USED = /^warning: schema cache entry .* not used/m;

/**
 * The sweep's rows that run alike in both modes, for `mode` only (each mode in its own file: the
 * Docker-mode and the native-mode files run in different lanes).
 */
export function defineSchemaCacheSweepTests(which: ModeArgs['mode']): void {
  describe.each(only(which))('schema cache, third sweep (#35), $mode mode', ({ mode, args }) => {
    it('ALTER SYSTEM in init is not saved (a hit would run with it, the miss did not): work_mem is 4MB on every run', async () => {
      const c = newCase();
      const init = initFile(c, "-- pg-tmpfs: no-transaction\nALTER SYSTEM SET work_mem = '77MB';\n");
      await twice(c, args, ['--init', init], async (r) => {
        expect(r.json.schemaCacheHit).toBe(false);
        expect(r.stderr).toMatch(/^warning: schema cache not saved: init set server settings with ALTER SYSTEM \(work_mem\)/m);
        expect(await queryValue(r.json.connectionUri, "select current_setting('work_mem') as v")).toBe('4MB');
      });
      expect(storedKeys(cacheOf(c))).toEqual([]);
    });

    it('ALTER SYSTEM SET hba_file to a trust file: no run accepts a wrong password', async () => {
      const c = newCase();
      const init = initFile(
        c,
        [
          '-- pg-tmpfs: no-transaction',
          "DO $$ BEGIN EXECUTE format('COPY (SELECT %L) TO %L', 'host all all all trust', current_setting('data_directory') || '/trust.conf'); END $$;",
          "ALTER SYSTEM SET hba_file = 'trust.conf';",
          '',
        ].join('\n'),
      );
      await twice(c, args, ['--init', init], async (r) => {
        expect(r.stderr).toMatch(/^warning: schema cache not saved: init set server settings with ALTER SYSTEM \(hba_file\)/m);
        expect(await tryConnect(withPassword(r.json.connectionUri, 'wrong'))).toMatch(/password authentication failed/);
      });
    });

    it('ALTER SYSTEM SET shared_preload_libraries to a missing library: every run starts, none restores it', async () => {
      const c = newCase();
      const init = initFile(c, "-- pg-tmpfs: no-transaction\nALTER SYSTEM SET shared_preload_libraries = 'no_such_lib';\n");
      await twice(c, args, ['--init', init], async (r) => {
        expect(r.json.schemaCacheHit).toBe(false);
        expect(r.stderr).toMatch(
          /^warning: schema cache not saved: init set server settings with ALTER SYSTEM \(shared_preload_libraries\)/m,
        );
        expect(r.stderr).not.toMatch(NOT_USED);
      });
    });

    it('postgresql.conf rewritten by init (COPY … TO config_file) is not saved, naming the setting', async () => {
      const c = newCase();
      const init = initFile(
        c,
        "DO $$ BEGIN EXECUTE format('COPY (SELECT %L) TO %L', 'shared_preload_libraries = ''no_such_lib''', current_setting('config_file')); END $$;\n",
      );
      await twice(c, args, ['--init', init], async (r) => {
        expect(r.json.schemaCacheHit).toBe(false);
        expect(r.stderr).toMatch(
          /^warning: schema cache not saved: init changed settings in the configuration files that this run's server has not applied \(shared_preload_libraries[,)]/m,
        );
        expect(r.stderr).not.toMatch(NOT_USED);
        // Each setting by its name: no row without one (a setting the file no longer holds).
        expect(r.stderr).not.toMatch(/(\(| {2})line /);
      });
    });

    it('an init that marks its own database a template (no template input) hits', async () => {
      const c = newCase();
      const init = initFile(c, 'CREATE TABLE t (id int);\nALTER DATABASE app IS_TEMPLATE true;\n');
      await twice(c, args, ['--init', init], async (r, run) => {
        expect(r.json.schemaCacheHit).toBe(run === 2);
        expect(r.stderr).not.toMatch(NOT_USED);
        expect(r.stderr).not.toMatch(NOT_SAVED);
        expect(
          await queryValue(r.json.connectionUri, "select datistemplate::text as v from pg_database where datname = 'app'"),
        ).toBe('true');
      });
    });

    it('an UNLOGGED table in a database with ALLOW_CONNECTIONS false is found: not saved, and the database refuses connections again', async () => {
      const c = newCase();
      const files = initFile(c, 'closed\n', 'schema.lock');
      const command = [
        "psql -X -q -v ON_ERROR_STOP=1 -d closed -c 'CREATE UNLOGGED TABLE scratch (id int)' -c 'INSERT INTO scratch VALUES (1)'",
        "psql -X -q -v ON_ERROR_STOP=1 -c 'ALTER DATABASE closed ALLOW_CONNECTIONS false'",
      ].join(' && ');
      const snap = leftoverSnapshot();
      const r = await up(c, args, ['--databases', 'closed', '--init-command', command, '--schema-cache-files', files]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /^warning: schema cache not saved: the cluster has UNLOGGED relations \(closed\.public\.scratch\)/m,
      );
      expect(
        await queryValue(r.json.connectionUri, "select datallowconn::text as v from pg_database where datname = 'closed'"),
      ).toBe('false');
      await down(c);
      expect(storedKeys(cacheOf(c))).toEqual([]);
      expect(snap.added()).toEqual([]);
    });

    it('an entry whose server does not start (planted: shared_preload_libraries in its postgresql.conf) is a warned miss naming init, dropped, not saved again', async () => {
      const c = newCase();
      const init = initFile(c, 'CREATE TABLE t (id int);\n');
      const snap = leftoverSnapshot();
      const first = await up(c, args, ['--init', init]);
      expect(first.code, first.stderr).toBe(0);
      await down(c);
      const key = first.json.schemaCacheKey ?? '';
      expect(storedKeys(cacheOf(c))).toEqual([key]);
      plantConfLine(join(cacheOf(c), 'schema', key), mode, "shared_preload_libraries = 'no_such_lib'\n");

      const second = await up(c, args, ['--init', init]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.json.schemaCacheHit).toBe(false);
      expect(second.stderr).toMatch(
        /^warning: schema cache entry \S+ not used \(the server did not start from the schema cache entry \(.*no_such_lib.*\); .*init changed what the server reads at start/m,
      );
      expect(second.stderr).toMatch(/^warning: schema cache not saved: a server did not start from the entry of /m);
      expect(await queryValue(second.json.connectionUri, 'select count(*) as v from t')).toBe('0');
      await down(c);
      expect(storedKeys(cacheOf(c))).toEqual([]);
      expect(snap.added()).toEqual([]);
    });
  });
}

/**
 * Appends `line` to the postgresql.conf of a store entry and writes its manifest anew (a planted
 * entry its manifest vouches for): native mode's file, or the one in Docker mode's base.tar (its
 * owner kept).
 */
function plantConfLine(entry: string, mode: string, line: string): void {
  const manifestPath = `${entry}.manifest.json`;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { files: Record<string, unknown> };
  const file = mode === 'native' ? 'postgresql.conf' : 'base.tar';
  if (mode === 'native') appendFileSync(join(entry, file), line);
  else {
    const tar = join(entry, file);
    const tmp = mkdtempSync(join(tmpdir(), 'pg-tmpfs-plant-'));
    try {
      const member = execFileSync('tar', ['-t', '-f', tar], { encoding: 'utf8' })
        .split('\n')
        .find((n) => /^(\.\/)?postgresql\.conf$/.test(n));
      expect(member).toBeDefined();
      execFileSync('tar', ['-x', '-f', tar, '-C', tmp, '--same-owner', member ?? '']);
      const owner = statSync(join(tmp, 'postgresql.conf'));
      appendFileSync(join(tmp, 'postgresql.conf'), line);
      execFileSync('tar', ['--delete', '-f', tar, member ?? '']);
      execFileSync('tar', [
        '-r',
        '-f',
        tar,
        '-C',
        tmp,
        `--owner=${owner.uid}`,
        `--group=${owner.gid}`,
        '--numeric-owner',
        'postgresql.conf',
      ]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const bytes = readFileSync(join(entry, file));
  manifest.files[file] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  writeFileSync(manifestPath, JSON.stringify(manifest));
}
