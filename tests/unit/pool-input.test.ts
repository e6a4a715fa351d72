/** The `pool` input (issue #37): parsePool on its own and through parseInputs. */
import { describe, expect, it } from 'vitest';
import { inputError, parse } from '../helpers/inputs.js';
import { MAX_POOL, parsePool } from '../../src/pool-input.js';

describe('parsePool', () => {
  it.each<[string, boolean, number]>([
    ['', false, 0],
    ['', true, 0],
    ['  ', false, 0],
    ['0', false, 0],
    ['0', true, 0],
    ['00', false, 0],
    ['1', true, 1],
    [' 8 ', true, 8],
    [String(MAX_POOL), true, MAX_POOL],
  ])('reads %j (template %s) as %d', (value, template, size) => {
    expect(parsePool(value, template)).toBe(size);
  });

  it.each(['-1', '1.5', '1e3', '0x10', 'eight', '+4', String(MAX_POOL + 1), '99999999999999999999', '4 4', 'NaN'])(
    'refuses %j, naming pool and the range',
    (value) => {
      const error = inputError(() => parsePool(value, true));
      expect(error.input).toBe('pool');
      expect(error.problem).toContain(`from 0 to ${MAX_POOL}`);
      expect(error.problem).toContain(JSON.stringify(value));
      expect(error.fix).toMatch(/0: no pool/);
    },
  );

  it('refuses a pool without the template, naming both inputs', () => {
    const error = inputError(() => parsePool('4', false));
    expect(error.input).toBe('pool');
    expect(error.problem).toMatch(/is 4, and the template input is false/);
    expect(error.fix).toMatch(/template: true/);
    expect(error.message).toMatch(/^Input 'pool': .*template/);
  });

  it('checks the number before the template (a bad number is named as such even without template)', () => {
    expect(inputError(() => parsePool('lots', false)).problem).toMatch(/not a whole number/);
  });
});

describe('parseInputs with pool', () => {
  it('is off by default', () => {
    expect(parse({}).pool).toBe(0);
    expect(parse({ database: 'app', template: 'true' }).pool).toBe(0);
  });

  it('takes a pool with template and a database of its own', () => {
    const c = parse({ database: 'app', template: 'true', pool: '6' });
    expect([c.template, c.pool]).toEqual([true, 6]);
  });

  it('accepts 0 and empty without template', () => {
    expect(parse({ pool: '0' }).pool).toBe(0);
    expect(parse({ pool: '' }).pool).toBe(0);
  });

  it('refuses a pool without template, naming pool and template', () => {
    const error = inputError(() => parse({ database: 'app', pool: '2' }));
    expect(error.input).toBe('pool');
    expect(error.message).toContain("'pool'");
    expect(error.message).toContain('template');
  });

  it('refuses a bad pool number with template', () => {
    const error = inputError(() => parse({ database: 'app', template: 'true', pool: '-3' }));
    expect([error.input, error.problem]).toEqual(['pool', `"-3" is not a whole number from 0 to ${MAX_POOL}`]);
  });

  it('names template first when the template itself cannot be (database postgres)', () => {
    const error = inputError(() => parse({ template: 'true', pool: '2' }));
    expect(error.input).toBe('template');
  });

  it('refuses a pool on a known major before 15 before anything starts (issue #43), not with an image given', () => {
    const error = inputError(() => parse({ database: 'app', template: 'true', pool: '2', 'postgres-version': '14' }));
    expect([error.input, error.problem]).toEqual(['pool', 'needs PostgreSQL 15 or later, and postgres-version is 14']);
    expect(error.fix).toBe('Give postgres-version 15 or later, or leave pool at 0');
    expect(parse({ database: 'app', template: 'true', pool: '2', 'postgres-version': '15' }).pool).toBe(2);
    const image = parse({ database: 'app', template: 'true', pool: '2', 'postgres-version': '14', image: 'my/pg:17' });
    expect([image.pool, image.image]).toEqual([2, 'my/pg:17']);
  });
});
