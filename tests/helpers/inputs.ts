/** Helpers of the input-parsing unit tests. */
import { InputError } from '../../src/errors.js';
import type { Config, InputName } from '../../src/inputs.js';
import { parseInputs } from '../../src/parse-inputs.js';

/** parseInputs with the given inputs, the rest not given. */
export function parse(given: Partial<Record<InputName, string>>): Config {
  return parseInputs((name) => given[name] ?? '');
}

/**
 * The InputError `fn` throws.
 * @throws the error when it is another kind; Error when nothing is thrown
 */
export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no error thrown');
}
