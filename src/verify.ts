/**
 * Verification: checks that what was asked for is in effect on the running server, each setting
 * as it reports it in pg_settings and the filesystem type under its data directory as the kernel
 * reports it (verifyServer); the comparisons themselves are pure functions below.
 */
import type pg from 'pg';
import type { ConnectionInfo } from './connection.js';
import { InputError, SetupError } from './errors.js';
import { mountOf, parseMounts } from './mounts.js';
import type { Setting } from './profile.js';

/** A row of pg_settings (manual: "pg_settings"). */
export interface PgSettingRow {
  name: string;
  /** Current value in the setting's base unit, e.g. `2048` for shared_buffers=16MB. */
  setting: string;
  /** Base unit (`8kB`, `kB`, `MB`, `B`, `ms`, `s`, `min`) or null. */
  unit: string | null;
  /** `bool`, `integer`, `real`, `string` or `enum`. */
  vartype: string;
  /** When it can be changed: `user` and `superuser` settings can be SET in a session. */
  context?: string;
}

/** The outcome of comparing one requested setting with the server's value. */
export interface SettingCheck {
  name: string;
  requested: string;
  /** The server's value as pg_settings shows it (with its unit), or null when unknown. */
  actual: string | null;
  /** False when the value is not what was asked. */
  ok: boolean;
  /**
   * False for an extension setting (`prefix.name`) the server does not list: passed through, not
   * checked (ok is then true).
   */
  verified: boolean;
}

const MEMORY_UNITS: Record<string, number> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };
const TIME_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
const TRUE_WORDS = new Set(['on', 'true', 'yes', '1', 't', 'y']);
const FALSE_WORDS = new Set(['off', 'false', 'no', '0', 'f', 'n']);

/** Splits a base unit like `8kB` into its multiplier in bytes or ms; null when unitless. */
function baseUnitSize(unit: string | null): { size: number; table: Record<string, number> } | null {
  if (!unit) return null;
  const match = /^(\d*)\s*([A-Za-z]+)$/.exec(unit);
  if (!match) return null;
  const factor = match[1] ? Number(match[1]) : 1;
  const name = match[2] ?? '';
  if (name in MEMORY_UNITS) return { size: factor * (MEMORY_UNITS[name] ?? 1), table: MEMORY_UNITS };
  if (name in TIME_UNITS) return { size: factor * (TIME_UNITS[name] ?? 1), table: TIME_UNITS };
  return null;
}

/**
 * Normalises a requested value to the form pg_settings.setting uses for `row`, following the
 * manual's "Parameter Names and Values" rules (booleans' spellings, unit suffixes, enums case
 * insensitive). Returns null when the value cannot be read.
 */
export function normalizeRequested(value: string, row: PgSettingRow): string | null {
  const v = value.trim().replace(/^'(.*)'$/, '$1');
  switch (row.vartype) {
    case 'bool': {
      const lower = v.toLowerCase();
      if (TRUE_WORDS.has(lower)) return 'on';
      if (FALSE_WORDS.has(lower)) return 'off';
      return null;
    }
    case 'enum':
      return v.toLowerCase();
    case 'integer':
    case 'real': {
      const match = /^(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v);
      if (!match) return null;
      const number = Number(match[1]);
      const suffix = match[2] ?? '';
      if (suffix === '') return String(number);
      const base = baseUnitSize(row.unit);
      const multiplier = base?.table[suffix];
      if (!base || multiplier === undefined) return null;
      const inBase = (number * multiplier) / base.size;
      return String(row.vartype === 'integer' ? Math.round(inBase) : inBase);
    }
    default:
      return v;
  }
}

/**
 * Compares requested settings with pg_settings rows the way PostgreSQL reads them: names case
 * insensitively (`timezone` is pg_settings' `TimeZone`), values in the server's own form.
 * @param normalised for settings a session may SET, the row pg_settings showed after
 *   `set_config(name, requested value)`: the server's own normal form of the requested value
 *   (time zones, date styles, units); other settings are normalised by normalizeRequested
 * @returns one check per requested setting, in request order; an extension setting the server
 *   does not list is passed as not verified
 */
export function checkSettings(
  requested: readonly Setting[],
  rows: readonly PgSettingRow[],
  normalised: readonly PgSettingRow[] = [],
): SettingCheck[] {
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const normalByName = new Map(normalised.map((r) => [r.name.toLowerCase(), r]));
  return requested.map(({ name, value }) => {
    const row = byName.get(name.toLowerCase());
    if (!row) {
      const extension = name.includes('.');
      return { name, requested: value, actual: null, ok: extension, verified: false };
    }
    const actual = row.unit ? `${row.setting} (${row.unit})` : row.setting;
    const normal = normalByName.get(name.toLowerCase());
    const want = normal ? normal.setting : normalizeRequested(value, row);
    const fold = (v: string) => (row.vartype === 'enum' ? v.toLowerCase() : v);
    const ok =
      want !== null && (row.vartype === 'real' ? Number(want) === Number(row.setting) : fold(want) === fold(row.setting));
    return { name, requested: value, actual, ok, verified: true };
  });
}

/** SQL that reads the rows checkSettings needs; $1 is a text[] of lower-case setting names. */
export const SETTINGS_QUERY = 'SELECT name, setting, unit, vartype, context FROM pg_settings WHERE lower(name) = ANY($1::text[])';

/**
 * The server's own normal form of each requested value it lets a session SET: inside a
 * transaction that is rolled back, `set_config(name, value, true)` for each (a savepoint each, so
 * one refusal spoils nothing), then pg_settings as it then reads, for those the server took.
 */
async function normalisedRows(
  client: pg.Client,
  requested: readonly Setting[],
  rows: readonly PgSettingRow[],
): Promise<PgSettingRow[]> {
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const settable = requested.filter((s) => {
    const context = byName.get(s.name.toLowerCase())?.context;
    return context === 'user' || context === 'superuser';
  });
  if (settable.length === 0) return [];
  const taken: string[] = [];
  await client.query('BEGIN');
  try {
    for (const s of settable) {
      await client.query('SAVEPOINT pg_tmpfs_verify');
      try {
        await client.query('SELECT set_config($1, $2, true)', [byName.get(s.name.toLowerCase())?.name ?? s.name, s.value]);
        await client.query('RELEASE SAVEPOINT pg_tmpfs_verify');
        taken.push(s.name.toLowerCase());
      } catch {
        await client.query('ROLLBACK TO SAVEPOINT pg_tmpfs_verify');
      }
    }
    return taken.length ? (await client.query<PgSettingRow>(SETTINGS_QUERY, [taken])).rows : [];
  } finally {
    await client.query('ROLLBACK');
  }
}

/**
 * Finds the filesystem type that holds `path`, from the text of /proc/mounts (or
 * /proc/self/mounts): the entry with the longest mount point that is `path` or a parent of it.
 * Mount points in /proc/mounts escape a space, tab, newline or backslash (mounts.ts parseMounts).
 * @returns e.g. `tmpfs`, `overlay`, `ext4`; null when no entry matches
 */
export function filesystemTypeOf(path: string, procMounts: string): string | null {
  return mountOf(path, parseMounts(procMounts))?.type ?? null;
}

/** Filesystem types that live in RAM. */
export function isRamFilesystem(type: string | null): boolean {
  return type === 'tmpfs' || type === 'ramfs';
}

/**
 * Reads back settings and the data directory's filesystem, and fails when they are not as asked.
 * @param client a connected client (not ended here)
 * @param measureFilesystem returns the filesystem type (e.g. `tmpfs`) holding the server's data directory
 * @param expectTmpfs fail unless that filesystem is RAM-backed
 * @throws SetupError listing each setting that did not take, or when PGDATA is not on tmpfs
 */
export async function verifyServer(
  client: pg.Client,
  requested: readonly Setting[],
  measureFilesystem: (dataDirectory: string) => Promise<string>,
  expectTmpfs: boolean,
): Promise<{ settings: SettingCheck[]; dataDirectory: string; filesystem: string }> {
  const rows = (await client.query<PgSettingRow>(SETTINGS_QUERY, [requested.map((s) => s.name.toLowerCase())])).rows;
  const settings = checkSettings(requested, rows, await normalisedRows(client, requested, rows));
  const dataDirectory = (await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0]?.d ?? '';
  const filesystem = await measureFilesystem(dataDirectory);
  const bad = settings.filter((s) => !s.ok);
  if (bad.length > 0) {
    throw new SetupError(
      `Settings not in effect: ${bad.map((s) => `${s.name} asked ${s.requested}, server has ${s.actual ?? '(unknown setting)'}`).join('; ')}`,
      "Check the 'settings' input: names as in pg_settings and values the server accepts",
    );
  }
  if (expectTmpfs && !isRamFilesystem(filesystem) && filesystem !== 'ramdisk') {
    throw new SetupError(
      `The data directory ${dataDirectory} is on ${filesystem}, not tmpfs`,
      "The image's server does not use the PGDATA it declares; set PGDATA in the image or report this image",
    );
  }
  return { settings, dataDirectory, filesystem };
}

/**
 * Why the connection the outputs give fails after `input` ran (an init file, or the init command,
 * broke what the tests will connect with), from the error node-postgres gave: the password or
 * role changed (SQLSTATE 28P01, 28000), the database gone (3D000) or refusing connections
 * (55000), the server stopped or restarting (a refused or reset connection, 57P01-57P03).
 * @param error what connecting (and a first query) threw
 * @returns the error naming `input`, what broke and the fix
 */
export function brokenByInit(input: 'init' | 'init-command', c: ConnectionInfo, error: unknown): InputError {
  const e = error as { code?: string; message?: string };
  const message = `${e.message ?? String(error)}${e.code ? ` (${e.code})` : ''}`;
  const after = input === 'init' ? 'after the init files ran' : 'after the init command ran';
  const removed = '(the server was removed)';
  if (e.code === '28P01' || e.code === '28000') {
    return new InputError(
      input,
      `${after}, user "${c.user}" can no longer log in with the password the outputs give: ${message}`,
      `Leave that user and its password as they are (set them with the user and password inputs) ${removed}`,
    );
  }
  if (e.code === '3D000' || e.code === '55000') {
    return new InputError(
      input,
      `${after}, database "${c.database}" (the database input) ${e.code === '3D000' ? 'no longer exists' : 'refuses connections'}: ${message}`,
      `Leave that database in place: the tests connect to it (create others with the databases input) ${removed}`,
    );
  }
  const stopped =
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03'].includes(e.code ?? '') ||
    /Connection terminated|timeout/i.test(e.message ?? '');
  return new InputError(
    input,
    stopped
      ? `${after}, the server no longer answers at ${c.host}:${c.port}: ${message}; it was stopped or is restarting`
      : `${after}, the connection the outputs give fails: ${message}`,
    stopped
      ? `Leave the server running (pg-tmpfs stops it at the end; restart it from init only with the same settings, and wait for it) ${removed}`
      : `Leave the server, its user, password and database as the outputs give them ${removed}`,
  );
}
