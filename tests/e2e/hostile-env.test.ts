/**
 * The caller's environment, hostile (issue #35, items 4, 5 and 7), through the built CLI
 * (`node dist/cli.js`, the variables in its environment only):
 * - native mode's server gets a clean environment: no PGPASSWORD in /proc/<postmaster>/environ,
 *   no PGCLIENTENCODING or PGDATESTYLE as the server's defaults;
 * - the project's own connections (readiness, verification, init files) ignore PGOPTIONS,
 *   PGSSLMODE and the rest, in both modes; the init command sees none of libpq's session
 *   variables but the connection's;
 * - each native run's server has its own TZ as time zone, whichever run filled the cache.
 * Every start is taken down, and nothing is left behind (leftoverSnapshot).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

interface UpJson {
  connectionUri: string;
  dataDirectory: string;
  cacheHit: boolean;
}

/** The test process's environment without what the rows set (TZ and libpq's variables). */
const BASE = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^PG|^TZ$/.test(k))) as Record<string, string>;

let work = '';
let names: string[] = [];
let leftovers: ReturnType<typeof leftoverSnapshot>;

/** Runs the CLI with `env` over BASE and this case's state and cache folders. */
function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...BASE, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache'), ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `up --json` under `name` with `env`; the start must succeed. */
function up(name: string, args: string[], env: Record<string, string> = {}): UpJson {
  names.push(name);
  const r = cli(['up', '--name', name, '--json', '--wait-timeout', '20', ...args], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

function down(name: string): void {
  const r = cli(['down', '--name', name]);
  expect(r.status, r.stderr).toBe(0);
  names = names.filter((n) => n !== name);
}

const NATIVE = ['--mode', 'native', '--postgres-version', NATIVE_MAJOR];
const DOCKER = ['--mode', 'docker', '--image', TEST_IMAGES[18]];

/** The caller's libpq variables that shaped the project's connections before (issue #35, item 5). */
const SESSION_ENV = { PGOPTIONS: '-c search_path=s2,public -c jit=on', PGSSLMODE: 'require', PGAPPNAME: 'caller' };

beforeAll(() => {
  if (process.env.CI === 'true') requireImages();
});

afterEach(() => {
  for (const name of [...names]) down(name);
  rmSync(work, { recursive: true, force: true });
  expect(leftovers.added()).toEqual([]);
});

/** A fresh case folder (state, cache, init file), and the leftover snapshot taken. */
function newCase(): void {
  work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-env-'));
  names = [];
  leftovers = leftoverSnapshot();
  writeFileSync(join(work, 'init.sql'), 'CREATE SCHEMA s2;\nCREATE TABLE t (x int);\n');
}

describe('native mode: the server starts with a clean environment', () => {
  it('PGPASSWORD is not in the postmaster environ; PGCLIENTENCODING and PGDATESTYLE are not its defaults', async () => {
    newCase();
    const secret = 'caller-secret-3f9a';
    const s = up('env', NATIVE, { PGPASSWORD: secret, PGCLIENTENCODING: 'LATIN1', PGDATESTYLE: 'SQL, DMY' });
    const pid = readFileSync(join(s.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '';
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(environ.filter((e) => /^(PG|TZ=|LANG=|LC_|HOME=)/.test(e) || e.includes(secret))).toEqual([]);
    // The password was the caller's PGPASSWORD (the CLI's password source), and it works.
    expect(s.connectionUri).toContain(secret);
    expect(await queryValue(s.connectionUri, "select current_setting('client_encoding') as v")).toBe('UTF8');
    expect(await queryValue(s.connectionUri, "select current_setting('DateStyle') as v")).toBe('ISO, MDY');
  });
});

describe("the project's own connections ignore the caller's PGOPTIONS, PGSSLMODE, PGAPPNAME", () => {
  /** One variable at a time (each failed a start, or shaped it, on its own), then all of them. */
  const ROWS: Array<[string, Record<string, string>]> = [
    ['PGOPTIONS search_path', { PGOPTIONS: '-c search_path=s2,public' }],
    ['PGOPTIONS jit=on', { PGOPTIONS: '-c jit=on' }],
    ['PGSSLMODE=require', { PGSSLMODE: 'require' }],
    ['all of them', SESSION_ENV],
  ];
  for (const [mode, args] of [
    ['native', NATIVE],
    ['docker', DOCKER],
  ] as const) {
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

  it("native: the init command gets the connection's PG* variables and none of the caller's other libpq ones", async () => {
    newCase();
    const out = join(work, 'seen');
    const sql = "select current_setting('TimeZone') || ' ' || current_setting('DateStyle')";
    const command = `env | grep '^PG[A-Z]' | cut -d= -f1 | sort > '${out}'; psql -XAt -c "${sql}" >> '${out}'`;
    const s = up('cmd', [...NATIVE, '--init-command', command], {
      PGTZ: 'Asia/Tokyo',
      PGDATESTYLE: 'SQL, DMY',
      PGCLIENTENCODING: 'LATIN1',
      PGTARGETSESSIONATTRS: 'read-only',
      PGCONNECT_TIMEOUT: '1',
    });
    const zone = await queryValue(s.connectionUri, "select current_setting('TimeZone') as v");
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual([
      'PGDATABASE',
      'PGHOST',
      'PGPASSWORD',
      'PGPORT',
      'PGUSER',
      `${zone} ISO, MDY`,
    ]);
  });
});

describe("native mode: each run's server has its own TZ, whichever run filled the initdb cache", () => {
  /** SHOW timezone and log_timezone of a native start with `env`, then down. */
  async function zones(name: string, env: Record<string, string>): Promise<{ hit: boolean; zone: string }> {
    const s = up(name, NATIVE, env);
    const zone = await queryValue(
      s.connectionUri,
      "select current_setting('TimeZone') || ' ' || current_setting('log_timezone') as v",
    );
    down(name);
    return { hit: s.cacheHit, zone };
  }

  it('TZ=Pacific/Kiritimati fills, then TZ=America/Adak, no TZ and a TZ PostgreSQL refuses each get their own', async () => {
    newCase();
    // What a run without TZ gets from a cache it fills itself: the system's zone.
    const system = await zones('system', {});
    rmSync(join(work, 'cache'), { recursive: true, force: true });
    expect(await zones('kiritimati', { TZ: 'Pacific/Kiritimati' })).toEqual({
      hit: false,
      zone: 'Pacific/Kiritimati Pacific/Kiritimati',
    });
    expect(await zones('adak', { TZ: 'America/Adak' })).toEqual({ hit: true, zone: 'America/Adak America/Adak' });
    expect(await zones('plain', {})).toEqual({ hit: true, zone: system.zone });
    expect(await zones('refused', { TZ: 'No/Such_Zone' })).toEqual({ hit: true, zone: system.zone });
  });

  it('a timezone setting wins over TZ', async () => {
    newCase();
    const s = up('setting', [...NATIVE, '--setting', 'TimeZone=Asia/Kolkata'], { TZ: 'America/Adak' });
    expect(await queryValue(s.connectionUri, "select current_setting('TimeZone') as v")).toBe('Asia/Kolkata');
  });
});
