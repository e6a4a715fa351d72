/**
 * The GitLab component (templates/postgres.yml) and src/ agree by test: one case table of the
 * `databases`, `extensions`, `database` and `template` inputs (input → the parsed list, or refused)
 * runs against the TypeScript (parseInputs, src/rules.ts) and against the component's shell
 * functions, extracted from its before_script and run by sh and bash as a job image would.
 *
 * Not in the table: a NUL (no environment variable can carry it to the shell), and non-ASCII
 * whitespace at the very start or end of a value (the runner's getInput trims the whole value
 * with JavaScript's trim before src/ sees it; the shell trims ASCII whitespace only).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { InputError } from '../../src/errors.js';
import type { Config, InputName } from '../../src/inputs.js';
import { parseInputs } from '../../src/parse-inputs.js';
import { BUILT_IN_DATABASES, EXTENSION_ALIASES, TEMPLATE_DATABASES } from '../../src/rules.js';
import { ROOT } from '../helpers/infra.js';

/** What an input row gives: the parsed list (in order, each once), or 'refused'. */
type Want = string[] | 'refused';

interface Row {
  input: 'databases' | 'extensions' | 'database' | 'template';
  /** The input's value (for template: 'true'). */
  raw: string;
  /** The database input beside it (default: app). */
  database?: string;
  want: Want;
}

const LONG = 'a'.repeat(63);
const TOO_LONG = 'a'.repeat(64);

/** The one case table. */
const ROWS: Row[] = [
  // databases: commas and line breaks separate; ASCII whitespace around a name is dropped.
  { input: 'databases', raw: '', want: [] },
  { input: 'databases', raw: 'app_b', want: ['app_b'] },
  { input: 'databases', raw: 'one, two ,three,', want: ['one', 'two', 'three'] },
  { input: 'databases', raw: ' a ,b\r\n\n# c d\n\tc\t,, d', want: ['a', 'b', 'c', 'd'] },
  { input: 'databases', raw: 'x.y\napp-c\nx.y', want: ['x.y', 'app-c'] },
  { input: 'databases', raw: '  # only a comment\n', want: [] },
  { input: 'databases', raw: '\va\f,b\v', want: ['a', 'b'] },
  { input: 'databases', raw: LONG, want: [LONG] },
  { input: 'databases', raw: TOO_LONG, want: 'refused' },
  { input: 'databases', raw: 'my db', want: 'refused' },
  { input: 'databases', raw: 'one, two three', want: 'refused' },
  { input: 'databases', raw: 'a\tb', want: 'refused' },
  { input: 'databases', raw: 'a\vb', want: 'refused' },
  { input: 'databases', raw: 'a\u00a0b', want: 'refused' },
  { input: 'databases', raw: 'a,#x', want: 'refused' },
  { input: 'databases', raw: '-db', want: 'refused' },
  { input: 'databases', raw: '.db', want: 'refused' },
  { input: 'databases', raw: 'a$b', want: 'refused' },
  { input: 'databases', raw: "x'y", want: 'refused' },
  { input: 'databases', raw: 'a/b', want: 'refused' },
  { input: 'databases', raw: 'a;b', want: 'refused' },
  { input: 'databases', raw: 'café', want: 'refused' },
  { input: 'databases', raw: 'postgres', want: 'refused' },
  { input: 'databases', raw: 'template0', want: 'refused' },
  { input: 'databases', raw: 'x,template1', want: 'refused' },
  { input: 'databases', raw: 'Template1', want: ['Template1'] },
  { input: 'databases', raw: 'app', want: 'refused' },
  { input: 'databases', raw: 'app', database: 'main', want: ['app'] },
  // extensions: commas and ASCII whitespace separate.
  { input: 'extensions', raw: '', want: [] },
  { input: 'extensions', raw: 'pg_trgm', want: ['pg_trgm'] },
  { input: 'extensions', raw: 'pg_trgm, uuid-ossp', want: ['pg_trgm', 'uuid-ossp'] },
  { input: 'extensions', raw: 'vector postgis\tcitext', want: ['vector', 'postgis', 'citext'] },
  { input: 'extensions', raw: 'pg_trgm\n\n# geo\npostgis,\n  citext\npg_trgm\r\n', want: ['pg_trgm', 'postgis', 'citext'] },
  { input: 'extensions', raw: 'a\vb\fc', want: ['a', 'b', 'c'] },
  { input: 'extensions', raw: LONG, want: [LONG] },
  { input: 'extensions', raw: TOO_LONG, want: 'refused' },
  { input: 'extensions', raw: 'x # comment', want: 'refused' },
  { input: 'extensions', raw: '-x', want: 'refused' },
  { input: 'extensions', raw: '.x', want: 'refused' },
  { input: 'extensions', raw: 'pg_trgm;drop', want: 'refused' },
  { input: 'extensions', raw: '"vector"', want: 'refused' },
  { input: 'extensions', raw: '$EXT', want: 'refused' },
  { input: 'extensions', raw: 'a/b', want: 'refused' },
  { input: 'extensions', raw: 'a\u00a0b', want: 'refused' },
  { input: 'extensions', raw: 'ext_ü', want: 'refused' },
  // database: not a built-in template (template0 accepts no connections).
  { input: 'database', raw: 'app', want: ['app'] },
  { input: 'database', raw: 'postgres', want: ['postgres'] },
  { input: 'database', raw: 'template0', want: 'refused' },
  { input: 'database', raw: 'template1', want: 'refused' },
  { input: 'database', raw: 'Template0', want: ['Template0'] },
  { input: 'database', raw: 'template2', want: ['template2'] },
  // template: needs a database of the tests' own.
  { input: 'template', raw: 'true', database: 'app', want: ['app'] },
  { input: 'template', raw: 'true', database: 'postgres', want: 'refused' },
];

/** The TypeScript's answer for a row: parseInputs as the action and the CLI call it. */
function viaTypeScript(row: Row): Want {
  const given: Partial<Record<InputName, string>> = { database: row.database ?? 'app' };
  if (row.input === 'database') given.database = row.raw;
  else if (row.input === 'template') given.template = row.raw;
  else given[row.input] = row.raw;
  let config: Config;
  try {
    config = parseInputs((name) => given[name] ?? '');
  } catch (error) {
    if (error instanceof InputError && error.input === row.input) return 'refused';
    throw error;
  }
  if (row.input === 'databases') return config.databases;
  if (row.input === 'extensions') return config.extensions;
  return [config.database];
}

/** The component's before_script. */
function beforeScript(): string[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8'));
  if (!Array.isArray(docs)) throw new Error('templates/postgres.yml is empty');
  const jobs = docs[1]!.toJS() as Record<string, { before_script: string[] }>;
  return jobs['$[[ inputs.job-name ]]']!.before_script;
}

/** The definition of shell function `name` in `script`: one line, or up to its closing brace at its indentation. */
function shellFunction(script: string, name: string): string {
  const lines = script.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*${name}\\(\\) \\{`).test(l));
  if (start < 0) throw new Error(`the component defines no shell function ${name}`);
  const indent = /^\s*/.exec(lines[start]!)![0];
  if (/\}\s*$/.test(lines[start]!)) return lines[start]!;
  const end = lines.findIndex((l, i) => i > start && l === `${indent}}`);
  if (end < 0) throw new Error(`no end of shell function ${name}`);
  return lines.slice(start, end + 1).join('\n');
}

/** The shell functions the checks use, and the newline variable they split with. */
function componentRules(): string {
  const setup = beforeScript()[1]!;
  const nl = /^\s*pg_tmpfs_nl='\n'$/m.exec(setup);
  if (!nl) throw new Error('the component sets no pg_tmpfs_nl');
  const names = ['pg_tmpfs_fail', 'pg_tmpfs_has', 'pg_tmpfs_items', 'pg_tmpfs_names', 'pg_tmpfs_name', 'pg_tmpfs_builtin'];
  const more = ['pg_tmpfs_alias', 'pg_tmpfs_databases', 'pg_tmpfs_extensions', 'pg_tmpfs_template'];
  return [nl[0], ...[...names, ...more].map((n) => shellFunction(setup, n))].join('\n');
}

/**
 * The component's answer for a row: its shell functions run by `shell` with the row in the
 * variables the component sets (IFS a newline and no globbing, as the before_script calls them).
 */
function viaShell(shell: string, row: Row): Want {
  const database = row.input === 'database' ? row.raw : (row.database ?? 'app');
  if (row.input === 'database') {
    // The wait (before_script[0]) checks it first; a wait-timeout of 0 then ends the script.
    const r = spawnSync(shell, ['-c', beforeScript()[0]!], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PGDATABASE: database, PG_TMPFS_WAIT_TIMEOUT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    expect(r.status, r.stderr).toBe(1);
    if (/database input/.test(r.stderr)) return 'refused';
    expect(r.stderr).toMatch(/wait-timeout input/);
    return [database];
  }
  const call = {
    databases: 'pg_tmpfs_databases "$RAW" "$DB"; printf "%s" "$pg_tmpfs_dbs"',
    extensions: 'pg_tmpfs_extensions "$RAW"; printf "%s" "$pg_tmpfs_exts"',
    template: 'pg_tmpfs_template "$DB"; printf "%s\\n" "$DB"',
  }[row.input];
  const script = `${componentRules()}\nset -f\nIFS=$pg_tmpfs_nl\n${call}\n`;
  const r = spawnSync(shell, [...(shell === 'bash' ? ['--norc', '--noprofile'] : []), '-c', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, RAW: row.raw, DB: database },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
  if (r.status === 1 && r.stderr.startsWith(`pg-tmpfs: error: ${row.input} input: `)) return 'refused';
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('the GitLab component and src/ follow one rule (src/rules.ts)', () => {
  it.each(ROWS.map((row) => [row.input, JSON.stringify(row.raw), row.database ?? '', row]))(
    'the TypeScript: %s %s (database %s)',
    (_input, _raw, _database, row) => {
      expect(viaTypeScript(row)).toEqual(row.want);
    },
  );

  for (const shell of ['sh', 'bash']) {
    it(`${shell}: the component's shell functions give the same answer on every row`, () => {
      const differ = ROWS.map((row) => ({ row, got: viaShell(shell, row) })).filter(
        ({ row, got }) => JSON.stringify(got) !== JSON.stringify(row.want),
      );
      expect(differ).toEqual([]);
    });
  }

  it("the component's input regexes accept every value the rules accept", () => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8'));
    if (!Array.isArray(docs)) throw new Error('templates/postgres.yml is empty');
    const inputs = (docs[0]!.toJS() as { spec: { inputs: Record<string, { regex?: string }> } }).spec.inputs;
    for (const row of ROWS.filter((r) => r.want !== 'refused' && r.input !== 'template')) {
      const regex = new RegExp(inputs[row.input]!.regex!);
      // GitLab takes the value as written; ASCII whitespace other than spaces and tabs is refused there.
      if (/[\v\f\r]/.test(row.raw)) continue;
      expect(regex.test(row.raw), `${row.input} ${JSON.stringify(row.raw)}`).toBe(true);
    }
  });

  it('the shell knows the same built-in databases and extension aliases', () => {
    const setup = beforeScript()[1]!;
    const builtin = /pg_tmpfs_builtin\(\) \{ case \$1 in ([^)]*)\)/.exec(setup)?.[1];
    expect(builtin?.split(' | ')).toEqual([...BUILT_IN_DATABASES]);
    const aliases = shellFunction(setup, 'pg_tmpfs_alias');
    const arms = [...aliases.matchAll(/(\w+)\) echo (\w+) ;;/g)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(arms)).toEqual(EXTENSION_ALIASES);
    for (const shell of ['sh', 'bash']) {
      for (const name of [...Object.keys(EXTENSION_ALIASES), 'vector', 'pg_trgm']) {
        const r = spawnSync(shell, ['-c', `${aliases}\npg_tmpfs_alias "$1"`, 'sh', name], { encoding: 'utf8' });
        expect(r.stdout.trim(), `${shell} ${name}`).toBe(EXTENSION_ALIASES[name] ?? '');
      }
    }
    const wait = beforeScript()[0]!;
    expect(/case \$\{PGDATABASE:-\} in\n\s+([^)]*)\)/.exec(wait)?.[1]?.split(' | ')).toEqual([...TEMPLATE_DATABASES]);
  });
});
