/**
 * The inputs that shape the database after start (init files, init command, databases, template,
 * pool, extensions, init-timeout) and the schema cache's inputs: parseInputs (parse-inputs.ts)
 * spreads both into the Config.
 */
import { InputError } from './errors.js';
import { boolean, identifier, integer } from './input-values.js';
import type { Config, InputName } from './inputs.js';
import { parsePool } from './pool-input.js';
import { BUILT_IN_DATABASES, databaseNames, listItems, listLines, nameProblem } from './rules.js';

/**
 * The schema-cache inputs. An init command's output cannot be keyed from outside, so with
 * `init-command` the files that shape what it does must be named.
 * @throws InputError (schema-cache, schema-cache-files, schema-cache-key) naming the first bad one
 */
export function schemaCacheInputs(
  raw: (name: InputName) => string,
): Pick<Config, 'schemaCache' | 'schemaCacheFiles' | 'schemaCacheKey'> {
  const schemaCache = boolean('schema-cache', raw('schema-cache'));
  const schemaCacheFiles = listLines(raw('schema-cache-files'));
  const schemaCacheKey = raw('schema-cache-key');
  if (/[\0\r\n]/.test(schemaCacheKey)) {
    throw new InputError('schema-cache-key', 'holds a line break or a NUL', 'Give the key on one line, e.g. v2');
  }
  if (schemaCache && raw('init-command') !== '' && schemaCacheFiles.length === 0) {
    throw new InputError(
      'schema-cache-files',
      'is empty while init-command is set and schema-cache is true: the output of a command cannot be keyed from outside, so a cached schema could be stale',
      'List in schema-cache-files every file that shapes what init-command builds (migrations, schema files, lockfiles), or turn schema-cache off',
    );
  }
  return { schemaCache, schemaCacheFiles, schemaCacheKey };
}

/**
 * The inputs that shape the database after start: init, init-command, databases, template, pool,
 * extensions, init-timeout.
 * @throws InputError naming the first bad one
 */
export function provisionInputs(
  raw: (name: InputName) => string,
  database: string,
): Pick<Config, 'init' | 'initCommand' | 'databases' | 'template' | 'pool' | 'extensions' | 'initTimeoutMs' | 'workDir'> {
  const databases: string[] = [];
  for (const name of databaseNames(raw('databases'))) {
    identifier('databases', name);
    const problem = nameProblem(name);
    if (problem) throw new InputError('databases', problem, 'Give names of letters, digits, "_", "." and "-", e.g. app_test');
    if (name === database || BUILT_IN_DATABASES.includes(name)) {
      throw new InputError(
        'databases',
        `"${name}" is ${name === database ? 'the database input' : 'a database every cluster has'}`,
        'List only the extra databases to create',
      );
    }
    if (!databases.includes(name)) databases.push(name);
  }
  const extensions = [...new Set(listItems(raw('extensions')))];
  for (const name of extensions) {
    if (nameProblem(name) !== null) {
      throw new InputError(
        'extensions',
        `"${name}" is not an extension name`,
        'Give names as in pg_available_extensions, e.g. pg_trgm or vector',
      );
    }
  }
  const template = boolean('template', raw('template'));
  if (template && BUILT_IN_DATABASES.includes(database)) {
    throw new InputError(
      'template',
      `the database input is "${database}", which clients connect to first (or a built-in template), so it cannot be your template`,
      'Give your own database name as well, e.g. database: app',
    );
  }
  return {
    init: listLines(raw('init')),
    initCommand: raw('init-command'),
    databases,
    template,
    pool: parsePool(raw('pool'), template),
    extensions,
    initTimeoutMs: integer('init-timeout', raw('init-timeout'), 1, 86_400, 'Give whole seconds, e.g. 600.') * 1000,
    workDir: process.cwd(),
  };
}
