/**
 * The kinds of value an input holds (whole numbers, names, true/false, sizes), each checked with an
 * InputError that names the input and the fix: what parse-inputs.ts and provision-inputs.ts share.
 */
import { InputError } from './errors.js';
import { DEFAULTS, type InputName } from './inputs.js';
import { MAX_NAME_BYTES } from './rules.js';

const SIZE = /^[1-9]\d*[bkmg]?$/i;

/**
 * A whole number from `min` to `max` (digits only, no sign).
 * @throws InputError (input) with `fix` otherwise
 */
export function integer(input: InputName, raw: string, min: number, max: number, fix: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InputError(input, `"${raw}" is not a whole number from ${min} to ${max}`, fix);
  }
  return Number(raw);
}

/**
 * A name: not empty, at most MAX_NAME_BYTES bytes, no NUL.
 * @throws InputError (input) otherwise
 */
export function identifier(input: InputName, raw: string): string {
  if (raw === '') throw new InputError(input, 'is empty', `Give a name, or leave the input out for "${DEFAULTS[input]}".`);
  if (Buffer.byteLength(raw) > MAX_NAME_BYTES || raw.includes('\0')) {
    throw new InputError(input, `"${raw}" is longer than ${MAX_NAME_BYTES} bytes or holds a NUL`, 'Use a shorter name.');
  }
  return raw;
}

/**
 * `true` or `false`, in any case.
 * @throws InputError (input) otherwise
 */
export function boolean(input: InputName, raw: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new InputError(input, `"${raw}" is not true or false`, 'Write true or false.');
}

/**
 * A size in Docker's syntax: a number with an optional unit b, k, m or g (`512m`), lowercased.
 * @throws InputError (input) otherwise
 */
export function size(input: InputName, raw: string): string {
  if (!SIZE.test(raw)) {
    throw new InputError(
      input,
      `"${raw}" is not a size`,
      'Write a number with an optional unit b, k, m or g, e.g. "512m" or "2g".',
    );
  }
  return raw.toLowerCase();
}
