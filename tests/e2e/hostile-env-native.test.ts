/**
 * The caller's environment, hostile (issue #35, items 4, 5 and 7), native mode, through the built
 * CLI (`node dist/cli.js`, the variables in its environment only):
 * - the server gets a clean environment: no PGPASSWORD in /proc/<postmaster>/environ, no
 *   PGCLIENTENCODING or PGDATESTYLE as the server's defaults;
 * - the project's own connections (readiness, verification, init files) ignore PGOPTIONS,
 *   PGSSLMODE and the rest; the init command sees none of libpq's session variables but the
 *   connection's;
 * - each run's server has its own TZ as time zone, whichever run filled the cache.
 * Every start is taken down, and nothing is left behind (leftoverSnapshot). Docker mode's row is in
 * hostile-env-docker.test.ts; what both share in tests/helpers/hostile-env.ts.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseDir, defineSessionEnvTests, down, endCasesAfterEach, NATIVE, newCase, up } from '../helpers/hostile-env.js';
import { queryValue } from '../helpers/infra.js';

endCasesAfterEach();

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
  defineSessionEnvTests('native');

  it("native: the init command gets the connection's PG* variables and none of the caller's other libpq ones", async () => {
    newCase();
    const out = join(caseDir(), 'seen');
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
    rmSync(join(caseDir(), 'cache'), { recursive: true, force: true });
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
