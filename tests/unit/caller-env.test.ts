/**
 * The caller's environment kept out of what the project starts and connects with (issue #35,
 * items 4, 5 and 7): native mode's PostgreSQL programs get serverEnv, the project's own
 * node-postgres clients ignore the caller's libpq variables, and a run's TZ becomes its server's
 * time zone (zoneSettings). Pure: nothing is started or connected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serverEnv, zoneSettings } from '../../src/native/source/server-env.js';
import { newClient, withoutLibpqEnv } from '../../src/readiness.js';

/** The caller's variables a hostile shell may hold (every one of them must stay out). */
const HOSTILE: Record<string, string> = {
  PGPASSWORD: 'caller-secret',
  PGCLIENTENCODING: 'LATIN1',
  PGOPTIONS: '-c search_path=s2,public',
  PGSSLMODE: 'require',
  PGAPPNAME: 'caller-app',
  PGBINARY: 'true',
  PGREPLICATION: 'database',
  PGSSLNEGOTIATION: 'direct',
  PGCONNECT_TIMEOUT: '1',
  PGDATESTYLE: 'SQL, DMY',
  PGPORT: '1',
  TZ: 'Pacific/Kiritimati',
  LANG: 'de_DE.UTF-8',
  LC_MESSAGES: 'de_DE.UTF-8',
  HOME: '/home/caller',
  PG_TMPFS_RUN: 'token',
};

describe('serverEnv: what native mode gives PostgreSQL programs', () => {
  it('keeps PATH and the loader paths, and nothing else of the caller', () => {
    const env = serverEnv({ ...HOSTILE, PATH: '/usr/bin:/bin', LD_LIBRARY_PATH: '/opt/pg/lib' }, 'linux');
    expect(env).toEqual({ PATH: '/usr/bin:/bin', LD_LIBRARY_PATH: '/opt/pg/lib' });
  });

  it('on Windows also what a process needs to start, names compared without case', () => {
    const env = serverEnv({ ...HOSTILE, Path: 'C:\\pg\\bin', SystemRoot: 'C:\\Windows', TEMP: 'C:\\t' }, 'win32');
    expect(env).toEqual({ Path: 'C:\\pg\\bin', SystemRoot: 'C:\\Windows', TEMP: 'C:\\t' });
  });
});

describe("zoneSettings: this run's TZ on the server's command line", () => {
  it('sets timezone and log_timezone to an accepted TZ', () => {
    expect(zoneSettings('America/Adak', () => true).map((s) => `${s.name}=${s.value}`)).toEqual([
      'timezone=America/Adak',
      'log_timezone=America/Adak',
    ]);
  });

  it('sets nothing without TZ, for an empty one, or one the server refuses (initdb then takes the system zone)', () => {
    const asked: string[] = [];
    const check = (z: string) => (asked.push(z), false);
    expect(zoneSettings(undefined, check)).toEqual([]);
    expect(zoneSettings('', check)).toEqual([]);
    expect(zoneSettings('No/Such_Zone', check)).toEqual([]);
    expect(asked).toEqual(['No/Such_Zone']);
  });
});

describe("the project's own connections ignore the caller's libpq variables", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('newClient takes no PGOPTIONS, PGSSLMODE, PGAPPNAME, PGCLIENTENCODING, PGBINARY or PGREPLICATION', async () => {
    Object.assign(process.env, HOSTILE);
    const client = await newClient(
      { host: '127.0.0.1', port: 5432, user: 'postgres', password: 'pw', database: 'app' },
      { connectTimeoutMs: 1000, queryTimeoutMs: 1000 },
    );
    const p = (client as unknown as { connectionParameters: Record<string, unknown> }).connectionParameters;
    expect(p.options).toBeUndefined();
    expect(p.ssl).toBe(false);
    expect(p.application_name).toBeUndefined();
    expect(p.client_encoding).toBe('UTF8');
    expect(p.binary).toBe(false);
    expect(p.replication).toBeUndefined();
    expect(p.sslnegotiation).toBeUndefined();
    expect(p.port).toBe(5432);
    expect(p.password).toBe('pw');
    // The caller's variables are back as they were.
    expect(process.env.PGOPTIONS).toBe(HOSTILE.PGOPTIONS);
    expect(process.env.PGPASSWORD).toBe(HOSTILE.PGPASSWORD);
  });

  it('withoutLibpqEnv puts the variables back even when its function throws', () => {
    process.env.PGSSLMODE = 'require';
    expect(() =>
      withoutLibpqEnv(() => {
        expect(process.env.PGSSLMODE).toBeUndefined();
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(process.env.PGSSLMODE).toBe('require');
  });
});
