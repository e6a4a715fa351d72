import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { DURABILITY_SETTINGS, effectiveSettings, INITDB_ARGS, parseSettings, settingsToArgs } from '../../src/profile.js';

describe('durability profile', () => {
  it('keeps the settings the benchmark shows help (docs/performance.md, table 5), on tmpfs and on disk', () => {
    expect(Object.fromEntries(DURABILITY_SETTINGS.map((s) => [s.name, s.value]))).toEqual({
      fsync: 'off',
      full_page_writes: 'off',
      jit: 'off',
    });
    expect(INITDB_ARGS).toEqual(['--nosync']);
  });

  it('does not raise shared_buffers (a large pool slows DROP TABLE and TRUNCATE)', () => {
    expect(DURABILITY_SETTINGS.map((s) => s.name)).not.toContain('shared_buffers');
  });
});

describe('parseSettings', () => {
  it('reads name=value lines, skipping blanks and comments, last value wins', () => {
    const parsed = parseSettings(
      'work_mem = 64MB\n\n# comment\nlog_statement=all\nwork_mem=32MB\r\npg_stat_statements.track=all',
    );
    expect(parsed.map((s) => [s.name, s.value])).toEqual([
      ['log_statement', 'all'],
      ['work_mem', '32MB'],
      ['pg_stat_statements.track', 'all'],
    ]);
  });

  it.each([
    ['fsync', /not name=value/],
    ['=on', /not name=value/],
    ['bad-name=1', /not a PostgreSQL setting name/],
    ['a b=1', /not a PostgreSQL setting name/],
    ['fsync=', /empty value/],
  ])('rejects %j', (line, message) => {
    expect(() => parseSettings(line)).toThrow(InputError);
    expect(() => parseSettings(line)).toThrow(message);
  });

  it('names the input in its error', () => {
    const error = (() => {
      try {
        parseSettings('nonsense');
      } catch (e) {
        return e as InputError;
      }
      return null;
    })();
    expect(error?.input).toBe('settings');
    expect(error?.message).toMatch(/^Input 'settings': line 1/);
  });
});

describe('effectiveSettings', () => {
  it('lets the user override a default and add new settings', () => {
    const merged = effectiveSettings(parseSettings('fsync=on\nmax_connections=300'));
    expect(merged.find((s) => s.name === 'fsync')?.value).toBe('on');
    expect(merged.find((s) => s.name === 'max_connections')?.value).toBe('300');
    expect(merged.filter((s) => s.name === 'fsync')).toHaveLength(1);
    expect(merged).toHaveLength(DURABILITY_SETTINGS.length + 1);
  });

  it('becomes -c arguments', () => {
    expect(settingsToArgs([{ name: 'fsync', value: 'off' }])).toEqual(['-c', 'fsync=off']);
  });
});
