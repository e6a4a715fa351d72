/**
 * The durability profile: the one definition of what "durability off" means in this project.
 * The action (Docker and native modes), the CLI and the GitLab/Woodpecker templates all use it
 * (templates are checked against it by tests/unit/templates-gitlab.test.ts).
 *
 * Source: PostgreSQL manual, "Non-Durable Settings" (runtime-config / non-durability.html),
 * and the measurements in docs/performance.md.
 */
import { InputError } from './errors.js';

/** One server setting passed to `postgres` as `-c name=value`. */
export interface Setting {
  /** GUC name as in pg_settings.name, e.g. `fsync`. */
  name: string;
  /** Value as PostgreSQL accepts it on the command line, e.g. `off`, `16MB`. */
  value: string;
  /** Why it is in the profile (shown in docs and the job summary). */
  why: string;
}

/**
 * The durability profile: only the settings that make a test suite faster on tmpfs and on disk
 * alike (docs/performance.md, table 5, also names the settings measured and left out, and why).
 * Every one is safe for a throwaway test database and none changes query results.
 */
export const DURABILITY_SETTINGS: readonly Setting[] = Object.freeze([
  {
    name: 'fsync',
    value: 'off',
    why: 'no fsync() of data or WAL files (manual: Non-Durable Settings); CREATE DATABASE … FILE_COPY and checkpoints still call it (docs/performance.md, table 5)',
  },
  {
    name: 'full_page_writes',
    value: 'off',
    why: 'no full page images in WAL after each checkpoint (manual: Non-Durable Settings): less WAL for write-heavy tests (table 5, tpcb-like)',
  },
  {
    name: 'jit',
    value: 'off',
    why: 'near-empty test tables have bad row estimates that make JIT compile for nothing (table 5, report query)',
  },
]);

/**
 * Arguments for initdb: `--nosync` skips the fsync of every file initdb writes (manual: initdb).
 * Docker mode passes them through the official image's POSTGRES_INITDB_ARGS.
 */
export const INITDB_ARGS: readonly string[] = Object.freeze(['--nosync']);

/** A GUC name: `name` or `extension.name` (letters, digits, underscores). */
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * Settings another input or the project itself sets, by lower-case name (PostgreSQL's names are
 * case-insensitive): who owns each, and the fix. Given in `settings`, each made the start fail
 * late or unclearly (the server on another port waited out wait-timeout; another data directory
 * or pg_hba.conf is not the run's own), so they are refused up front.
 */
export const OWNED_SETTINGS: ReadonlyMap<string, { owner: string; fix: string }> = new Map([
  ['port', { owner: "input 'port' sets it", fix: 'Remove it from settings and give the port input (--port) instead' }],
  [
    'listen_addresses',
    {
      owner: "input 'publish-host' sets it",
      fix: 'Remove it from settings and give the publish-host input (--publish-host), e.g. 0.0.0.0 for every interface',
    },
  ],
  ...['unix_socket_directories', 'data_directory', 'hba_file', 'ident_file', 'config_file'].map(
    (name) =>
      [
        name,
        {
          owner: "pg-tmpfs sets it for every run (the run's own data directory, socket folder, pg_hba.conf and pg_ident.conf)",
          fix: 'Remove it from settings',
        },
      ] as const,
  ),
  // Directives of a configuration file, not settings: on Windows the settings are lines of the
  // run's configuration file (src/native/run/windows.ts), where `include = 'x'` would read another file.
  ...['include', 'include_dir', 'include_if_exists'].map(
    (name) =>
      [
        name,
        {
          owner: 'it is a directive of configuration files (it reads another file), not a setting',
          fix: 'Remove it from settings and give the settings themselves',
        },
      ] as const,
  ),
]);

/**
 * Parses the `settings` input: one `name=value` per line; blank lines and lines starting with
 * `#` are ignored; whitespace around name and value is trimmed.
 * @returns the settings in input order (a repeated name keeps the last value)
 * @throws InputError (input `settings`) for a line without `=`, a bad name, an empty value, or a
 *   setting another input or the project owns (port, listen_addresses, unix_socket_directories,
 *   data_directory, hba_file, ident_file, config_file) or a configuration file's directive (include,
 *   include_dir, include_if_exists)
 */
export function parseSettings(text: string, input = 'settings'): Setting[] {
  const byName = new Map<string, Setting>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) {
      throw new InputError(
        input,
        `line ${index + 1} "${line}" is not name=value`,
        'Write one setting per line, e.g. "work_mem=64MB".',
      );
    }
    const name = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!SETTING_NAME.test(name)) {
      throw new InputError(
        input,
        `"${name}" is not a PostgreSQL setting name`,
        'Use the name as in pg_settings, e.g. "shared_buffers".',
      );
    }
    const owned = OWNED_SETTINGS.get(name.toLowerCase());
    if (owned) throw new InputError(input, `setting "${name}" cannot be given here: ${owned.owner}`, owned.fix);
    if (value === '') {
      throw new InputError(input, `setting "${name}" has an empty value`, 'Give a value after "=", e.g. "work_mem=64MB".');
    }
    if (/[\0\r\n]/.test(value)) {
      throw new InputError(input, `setting "${name}" holds a NUL or a line break`, 'Give the value on one line.');
    }
    byName.delete(name);
    byName.set(name, { name, value, why: 'from the settings input' });
  }
  return [...byName.values()];
}

/**
 * The settings a server is started with: the durability profile, overridden and extended by the
 * user's settings (a user value replaces the profile's value for the same name).
 */
export function effectiveSettings(overrides: readonly Setting[]): Setting[] {
  const merged = new Map<string, Setting>(DURABILITY_SETTINGS.map((s) => [s.name, s]));
  for (const s of overrides) merged.set(s.name, s);
  return [...merged.values()];
}

/** `postgres` arguments for settings: `['-c', 'fsync=off', ...]`. */
export function settingsToArgs(settings: ReadonlyArray<Pick<Setting, 'name' | 'value'>>): string[] {
  return settings.flatMap((s) => ['-c', `${s.name}=${s.value}`]);
}
