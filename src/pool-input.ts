/** The `pool` input (issue #37): how many ready copies of the template the keeper keeps. */
import { InputError } from './errors.js';

/** The largest pool accepted before the server is asked (max_connections and the tmpfs decide the rest: start.ts). */
export const MAX_POOL = 1000;

/**
 * Parses the `pool` input: a whole number from 0 (off, the default) to MAX_POOL; above 0 it needs
 * `template` true (the copies are of the template database).
 * @param value the input as given ('' for the default)
 * @param template the parsed `template` input
 * @throws InputError (pool) for anything else, naming `template` when that is what is missing
 */
export function parsePool(value: string, template: boolean): number {
  const text = value.trim();
  if (text === '') return 0;
  if (!/^\d+$/.test(text) || Number(text) > MAX_POOL) {
    throw new InputError(
      'pool',
      `"${value}" is not a whole number from 0 to ${MAX_POOL}`,
      'Give the number of ready copies, e.g. 8 (0: no pool)',
    );
  }
  const size = Number(text);
  if (size > 0 && !template) {
    throw new InputError(
      'pool',
      `is ${size}, and the template input is false: the pool hands out copies of the template database`,
      'Set template: true (pg-tmpfs up --template) with an init that loads your schema into database, or leave pool at 0',
    );
  }
  return size;
}
