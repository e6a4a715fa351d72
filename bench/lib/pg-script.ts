/**
 * Scripts in pgbench's syntax run by the benchmark's own client (node-postgres), as far as
 * section 9's scripts use that syntax: commands one round trip each, `\gset` into variables,
 * `:name` substituted.
 */
import type pg from 'pg';

/** One command of a script: its SQL, and whether the columns of its one row become variables (`\gset`). */
export interface Command {
  sql: string;
  gset: boolean;
}

/**
 * Parses a script in pgbench's syntax, as far as the section's scripts use it: `--` comment
 * lines; SQL commands that end with `;` at the end of a line, or with `\gset` (no `;`).
 * @throws Error when the text ends inside a command
 */
export function parseScript(text: string): Command[] {
  const out: Command[] = [];
  let lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!lines.length && (line.trim() === '' || line.trimStart().startsWith('--'))) continue;
    if (line.endsWith('\\gset')) {
      out.push({ sql: [...lines, line.slice(0, -'\\gset'.length).trimEnd()].join('\n'), gset: true });
      lines = [];
    } else if (line.endsWith(';')) {
      out.push({ sql: [...lines, line.slice(0, -1)].join('\n'), gset: false });
      lines = [];
    } else {
      lines.push(line);
    }
  }
  if (lines.some((l) => l.trim())) throw new Error(`script ends inside a command: ${lines.join(' ')}`);
  return out;
}

/**
 * Replaces each `:name` with the value of variable `name` (`::type` casts are left alone). Values
 * are whole numbers only (ids a `\gset` stored), so they go into the SQL text as pgbench puts them.
 * @throws Error for a variable that is not set
 */
export function substitute(sql: string, vars: ReadonlyMap<string, string>): string {
  return sql.replace(/(?<!:):([a-z_][a-z0-9_]*)/gi, (_, name: string) => {
    const value = vars.get(name);
    if (value === undefined) throw new Error(`script variable :${name} is not set`);
    return value;
  });
}

/**
 * Runs commands one by one on `client` (one round trip each, simple query protocol, as pgbench's
 * default), storing the columns of each `\gset` command's row in `vars`.
 * @throws Error when a command fails, or a `\gset` command does not return exactly one row of whole numbers
 */
export async function runScript(
  client: pg.Client,
  commands: readonly Command[],
  vars = new Map<string, string>(),
): Promise<void> {
  for (const command of commands) {
    const r = await client.query<Record<string, unknown>>(substitute(command.sql, vars));
    if (!command.gset) continue;
    const row = r.rows[0];
    if (r.rows.length !== 1 || !row) throw new Error(`\\gset needs one row, got ${r.rows.length}: ${command.sql}`);
    for (const [name, value] of Object.entries(row)) {
      if (!/^-?\d+$/.test(String(value))) throw new Error(`\\gset: ${name} = ${String(value)} is not a whole number`);
      vars.set(name, String(value));
    }
  }
}
