/**
 * The rules the action, the CLI and the GitLab component (templates/postgres.yml, in shell) share
 * for the inputs that name things in the cluster: how the `databases` and `extensions` lists split,
 * what a name in them may be, the databases every cluster has, and the extension names people write
 * for another. tests/unit/component-rules.test.ts runs one case table against these functions and
 * against the component's shell functions: a change here needs the same change there.
 *
 * A name in those lists is ASCII letters, digits, `_`, `.` and `-`, not starting with `.` or `-`,
 * at most 63 bytes: what the component can carry (its URIs are built unencoded, GitLab expands `$`
 * in variables, RE2 input regexes count characters, not bytes), and what a test database needs.
 */
import { InputError } from './errors.js';

/** PostgreSQL truncates identifiers at NAMEDATALEN-1 = 63 bytes (manual: "Identifiers and Key Words"). */
export const MAX_NAME_BYTES = 63;

/**
 * Why `name` cannot name a database in a statement: empty, longer than MAX_NAME_BYTES bytes in
 * UTF-8 (the server would truncate it to 63 bytes, which may be another database's name), or
 * holding a NUL (which no protocol message can carry).
 * @returns null when it can; else the problem, e.g. `is longer than 63 bytes (64)`
 */
export function databaseNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.includes('\0')) return 'holds a NUL';
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes (${bytes} in UTF-8), PostgreSQL's limit for names`;
  return null;
}

/**
 * A name as PostgreSQL stores it: clipped to MAX_NAME_BYTES bytes of UTF-8, never inside a
 * character (src/backend/parser/scansup.c truncate_identifier, with pg_mbcliplen).
 * @returns e.g. 63 × `t` for 63 × `t` followed by `x`
 */
export function storedName(name: string): string {
  let out = '';
  let bytes = 0;
  for (const ch of name) {
    bytes += Buffer.byteLength(ch);
    if (bytes > MAX_NAME_BYTES) break;
    out += ch;
  }
  return out;
}

/** Databases every cluster has (manual: "Template Databases"); `databases` cannot name them. */
export const BUILT_IN_DATABASES: readonly string[] = Object.freeze(['postgres', 'template0', 'template1']);

/** The built-in template databases: the `database` input cannot be one (template0 accepts no connections). */
export const TEMPLATE_DATABASES: readonly string[] = Object.freeze(['template0', 'template1']);

/** The extension names people write that PostgreSQL knows by another (pgvector installs `vector`). */
export const EXTENSION_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  pgvector: 'vector',
  postgis3: 'postgis',
  timescale: 'timescaledb',
});

/** A name of the `databases` and `extensions` lists (contrib has `uuid-ossp`); its length apart. */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Why `name` cannot be a name of the `databases` or `extensions` list.
 * @returns null when it can; else the problem, e.g. `"a b" is not a name (letters, digits, _ . -;
 *   not starting with . or -)`
 */
export function nameProblem(name: string): string | null {
  if (!NAME.test(name)) return `"${name}" is not a name (letters, digits, _ . -; not starting with . or -)`;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES)
    return `"${name}" is longer than ${MAX_NAME_BYTES} characters, PostgreSQL's limit for names`;
  return null;
}

/**
 * A comment line of a list input: `#` after nothing but ASCII whitespace (the shell's
 * `[[:space:]]` in the C locale).
 */
const COMMENT_LINE = /^[ \t\v\f\r]*#/;

/** The lines of a list input, comment lines dropped. */
function uncommentedLines(raw: string): string[] {
  return raw.split('\n').filter((line) => !COMMENT_LINE.test(line));
}

/**
 * The items of a list input (`extensions`): one per line, or separated by commas or ASCII
 * whitespace (the component's IFS); `#` starts a comment line. Other characters, whitespace or
 * not, stay in the item (and nameProblem then refuses it).
 */
export function listItems(raw: string): string[] {
  return uncommentedLines(raw)
    .flatMap((line) => line.split(/[ \t\v\f\r,]+/))
    .filter((item) => item !== '');
}

/**
 * The names of the `databases` input (and `--databases`): one per line or separated by commas;
 * ASCII whitespace around a name is dropped; `#` starts a comment line. A name never holds
 * whitespace: `my db` is refused rather than read as two databases or as one whose URI needs
 * quoting.
 * @throws InputError (databases) for a name holding whitespace
 */
export function databaseNames(raw: string): string[] {
  const names = uncommentedLines(raw)
    .flatMap((line) => line.split(','))
    .map((item) => item.replace(/^[ \t\v\f\r]+|[ \t\v\f\r]+$/g, ''))
    .filter((item) => item !== '');
  const spaced = names.find((name) => /\s/.test(name));
  if (spaced !== undefined) {
    throw new InputError(
      'databases',
      `"${spaced}" holds whitespace: names are separated by commas or line breaks, and a database name here cannot hold spaces`,
      'Separate several databases with commas (e.g. "a,b") and write each name without spaces',
    );
  }
  return names;
}

/** The lines of a multi-line input, trimmed; blank lines and `#` comment lines dropped (a path may hold spaces). */
export function listLines(raw: string): string[] {
  return raw
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
