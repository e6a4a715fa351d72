import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exportLines, shellQuote } from '../../src/cli/shell.js';
import { connectionEnv, connectionUri } from '../../src/connection.js';

const c = { host: '127.0.0.1', port: 5433, user: 'al ice', password: "p@ss:w/rd?#%'", database: 'my db' };

describe('connectionUri', () => {
  it('percent-encodes user, password and database', () => {
    const uri = connectionUri(c);
    expect(uri).toBe("postgresql://al%20ice:p%40ss%3Aw%2Frd%3F%23%25'@127.0.0.1:5433/my%20db");
    const parsed = new URL(uri);
    expect(decodeURIComponent(parsed.password)).toBe(c.password);
    expect(decodeURIComponent(parsed.username)).toBe(c.user);
  });

  it('brackets IPv6 hosts', () => {
    expect(connectionUri({ ...c, host: '::1' })).toContain('@[::1]:5433/');
  });
});

describe('connectionEnv and exportLines', () => {
  it('gives DATABASE_URL and libpq variables', () => {
    expect(connectionEnv(c)).toMatchObject({
      PGHOST: '127.0.0.1',
      PGPORT: '5433',
      PGUSER: 'al ice',
      PGPASSWORD: c.password,
      PGDATABASE: 'my db',
    });
  });

  it('quotes values so a POSIX shell reads them back exactly', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const out = execFileSync('sh', ['-c', `${exportLines(c)}\nprintf '%s|%s' "$PGPASSWORD" "$DATABASE_URL"`], {
      encoding: 'utf8',
    });
    expect(out).toBe(`${c.password}|${connectionUri(c)}`);
  });
});
