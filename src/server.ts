/**
 * What both modes share once a server runs: the Started record and the check that what was asked
 * for is in effect.
 */
import type pg from 'pg';
import type { ConnectionInfo } from './connection.js';
import { SetupError } from './errors.js';
import type { Setting } from './settings.js';
import { checkSettings, isRamFilesystem, SETTINGS_QUERY, type PgSettingRow, type SettingCheck } from './verify.js';

/** A running, verified server. */
export interface Started {
  mode: 'docker' | 'native';
  connection: ConnectionInfo;
  /** Docker container ID (docker mode) or '' (native mode). */
  containerId: string;
  /** Image reference run (docker mode) or the bin directory used (native mode). */
  source: string;
  /** `server_version` as reported by the server. */
  serverVersion: string;
  /** `data_directory` as reported by the server. */
  dataDirectory: string;
  /** Filesystem type under the data directory, as measured (e.g. `tmpfs`, `overlay`). */
  filesystem: string;
  /** True when the measured filesystem is RAM-backed. */
  tmpfs: boolean;
  /** Each requested setting as the server reports it. */
  settings: SettingCheck[];
  /** ms from process start to the first answered query. */
  startupMs: number;
  /** ms spent pulling the image (0 when it was present). */
  pullMs: number;
  /** Unix socket directory (native mode; '' in docker mode). */
  socketDirectory: string;
  /** Whether the initdb cache had the cluster (native mode; null in docker mode). */
  cacheHit: boolean | null;
}

/** How many server log lines to show when something fails. */
export const LOG_TAIL_LINES = 50;

/**
 * Reads back settings and the data directory's filesystem, and fails when they are not as asked.
 * @param measureFilesystem returns the filesystem type (e.g. `tmpfs`) holding the server's data directory
 * @throws SetupError listing each setting that did not take, or when PGDATA is not on tmpfs
 */
export async function verifyServer(
  client: pg.Client,
  requested: readonly Setting[],
  measureFilesystem: (dataDirectory: string) => Promise<string>,
  expectTmpfs: boolean,
): Promise<{ settings: SettingCheck[]; dataDirectory: string; filesystem: string }> {
  const rows = (await client.query<PgSettingRow>(SETTINGS_QUERY, [requested.map((s) => s.name)])).rows;
  const settings = checkSettings(requested, rows);
  const dataDirectory = (await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0]?.d ?? '';
  const filesystem = await measureFilesystem(dataDirectory);
  const bad = settings.filter((s) => !s.ok);
  if (bad.length > 0) {
    throw new SetupError(
      `Settings not in effect: ${bad.map((s) => `${s.name} asked ${s.requested}, server has ${s.actual ?? '(unknown setting)'}`).join('; ')}`,
      "Check the 'settings' input: names as in pg_settings and values the server accepts",
    );
  }
  if (expectTmpfs && !isRamFilesystem(filesystem)) {
    throw new SetupError(
      `The data directory ${dataDirectory} is on ${filesystem}, not tmpfs`,
      "The image's server does not use the PGDATA it declares; set PGDATA in the image or report this image",
    );
  }
  return { settings, dataDirectory, filesystem };
}
