import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exportLines, shellQuote } from '../../src/cli/shell.js';
import { connectionEnv, connectionUri, secretForms } from '../../src/connection.js';
import { inputError, parse } from '../helpers/inputs.js';

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

describe('secretForms (#26: encoded passwords were shown unmasked)', () => {
  const password = 'p@ss w/rd!*\'()~é+%"\\';
  const forms = secretForms(password);

  it('holds the password and every form the outputs carry', () => {
    expect(forms[0]).toBe(password);
    const env = connectionEnv({ ...c, password });
    // The password's part of each URI (between user: and @): connection-uri, DATABASE_URL, databases.
    const inUri = /^postgresql:\/\/[^:]*:([^@]*)@/.exec(env.DATABASE_URL ?? '')?.[1] ?? '';
    expect(forms).toContain(inUri);
    expect(forms).toContain(env.PGPASSWORD ?? '');
    expect(forms).toContain(JSON.stringify(password).slice(1, -1));
  });

  it("holds Python's quote_plus, quote and urlencode forms (computed by python3)", () => {
    const python = execFileSync(
      'python3',
      [
        '-c',
        'import sys, urllib.parse as u; p = sys.argv[1]; print(u.quote_plus(p)); print(u.quote(p)); print(u.quote(p, safe="")); print(u.urlencode({"p": p})[2:])',
        password,
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    expect(python).toHaveLength(4);
    for (const form of python) expect(forms).toContain(form);
  });

  it('holds the HTML form encoding (URLSearchParams) and lower-case hex', () => {
    expect(forms).toContain(new URLSearchParams({ p: password }).toString().slice(2));
    expect(forms).toContain(encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  });

  it('has no duplicates, and a plain password is one form', () => {
    expect(new Set(forms).size).toBe(forms.length);
    expect(secretForms('plainPassword123')).toEqual(['plainPassword123']);
  });
});

describe('a line break cannot reach DATABASE_URL as %0A (#26)', () => {
  it.each(['a\nb', 'a\r\nb', 'a\rb'])('password %j is refused naming password', (password) => {
    const error = inputError(() => parse({ password }));
    expect(error.input).toBe('password');
    expect(error.problem).toMatch(/line break/);
  });

  it('a password spelling %0A stays literal: the URI encodes its percent sign', () => {
    const config = parse({ password: 'a%0Ab' });
    const uri = connectionEnv({ ...c, password: config.password }).DATABASE_URL;
    expect(uri).toContain(':a%250Ab@');
    expect(uri).not.toMatch(/%0A|%0D/i);
  });
});
