/**
 * What the caller's-environment files share (issue #35, items 4, 5 and 7:
 * tests/e2e/hostile-env-native.test.ts and hostile-env-docker.test.ts): the built CLI
 * (`node dist/cli.js`) run with the row's variables only, over the test process's environment
 * without TZ and libpq's, in a case folder (state, cache, init file) of its own; every start of a
 * case taken down after it, and nothing left behind (leftoverSnapshot). And the rows of "the
 * project's own connections ignore the caller's libpq variables", defined per mode.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, ROOT, TEST_IMAGES } from './infra.js';

export interface UpJson {
  connectionUri: string;
  dataDirectory: string;
  cacheHit: boolean;
}

/**
 * The test process's environment without what the rows set (TZ and libpq's variables), keeping
 * PG_TMPFS_TEST_LANE, which tells the lanes' checks whose processes these are (infra/lane.ts).
 */
const BASE = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^PG(?!_TMPFS_TEST_LANE$)|^TZ$/.test(k))) as Record<
  string,
  string
>;

let work = '';
let names: string[] = [];
let leftovers: ReturnType<typeof leftoverSnapshot> | undefined;

/** The case folder of the test running now (newCase). */
export const caseDir = (): string => work;

/** Runs the CLI with `env` over BASE and this case's state and cache folders. */
function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...BASE, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache'), ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `up --json` under `name` with `env`; the start must succeed. */
export function up(name: string, args: string[], env: Record<string, string> = {}): UpJson {
  names.push(name);
  const r = cli(['up', '--name', name, '--json', '--wait-timeout', '20', ...args], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

export function down(name: string): void {
  const r = cli(['down', '--name', name]);
  expect(r.status, r.stderr).toBe(0);
  names = names.filter((n) => n !== name);
}

export const NATIVE = ['--mode', 'native', '--postgres-version', NATIVE_MAJOR];
const DOCKER = ['--mode', 'docker', '--image', TEST_IMAGES[18]];

/** The caller's libpq variables that shaped the project's connections before (issue #35, item 5). */
const SESSION_ENV = { PGOPTIONS: '-c search_path=s2,public -c jit=on', PGSSLMODE: 'require', PGAPPNAME: 'caller' };

/** Registers the file's afterEach: every start of the case taken down, its folder removed, nothing left. */
export function endCasesAfterEach(): void {
  afterEach(() => {
    for (const name of [...names]) down(name);
    rmSync(work, { recursive: true, force: true });
    expect(leftovers?.added()).toEqual([]);
  });
}

/** A fresh case folder (state, cache, init file), and the leftover snapshot taken. */
export function newCase(): void {
  work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-env-'));
  names = [];
  leftovers = leftoverSnapshot();
  writeFileSync(join(work, 'init.sql'), 'CREATE SCHEMA s2;\nCREATE TABLE t (x int);\n');
}

/**
 * The rows of "the project's own connections ignore the caller's PGOPTIONS, PGSSLMODE,
 * PGAPPNAME" in `mode`: one variable at a time (each failed a start, or shaped it, on its own),
 * then all of them; Docker mode all of them only.
 */
export function defineSessionEnvTests(mode: 'native' | 'docker'): void {
  const ROWS: Array<[string, Record<string, string>]> = [
    ['PGOPTIONS search_path', { PGOPTIONS: '-c search_path=s2,public' }],
    ['PGOPTIONS jit=on', { PGOPTIONS: '-c jit=on' }],
    ['PGSSLMODE=require', { PGSSLMODE: 'require' }],
    ['all of them', SESSION_ENV],
  ];
  const args = mode === 'native' ? NATIVE : DOCKER;
  for (const [title, env] of ROWS) {
    if (mode === 'docker' && title !== 'all of them') continue;
    it(`${mode}, ${title}: the start succeeds, and the init file's table goes to public`, async () => {
      newCase();
      const s = up(`opts-${mode}`, [...args, '--init', join(work, 'init.sql')], env);
      const where = "select string_agg(table_schema, ',') as v from information_schema.tables where table_name = 't'";
      expect(await queryValue(s.connectionUri, where)).toBe('public');
      expect(await queryValue(s.connectionUri, "select current_setting('jit') as v")).toBe('off');
    });
  }
}
