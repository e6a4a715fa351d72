/**
 * The schema cache's key: a hash of everything that decides the initialized cluster, so that a
 * saved cluster is never served for another schema (the stale-template bug of template tools).
 * docs/schema-cache.md has the table of what is in it; tests/unit/schema-cache-key.test.ts shows
 * that changing any one part changes the key.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InitFile } from '../init-files.js';
import { resolveFiles, shownPath } from '../init-files.js';
import type { Config } from '../inputs.js';
import { effectiveSettings } from '../profile.js';

/**
 * Layout of a schema-cache entry and of this key; part of the key, so an entry of another
 * layout is never read.
 */
const SCHEMA_CACHE_FORMAT = 1;

/** What the server is, as far as it shapes a cluster: the image ID, or the binaries' version and folder. */
export type ServerIdentity =
  | {
      mode: 'docker';
      /** `docker image inspect` .Id (sha256:…), never the tag: a tag moves. */
      imageId: string;
      /** `Os/Architecture[/Variant]`: the containerd image store's ID of a multi-platform image is its index's, the same on every platform. */
      platform: string;
      /** initdb arguments the image's entrypoint gets (POSTGRES_INITDB_ARGS), and the superuser. */
      initdbArgs: readonly string[];
    }
  | {
      mode: 'native';
      /** `postgres --version` as printed, e.g. `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)`. */
      version: string;
      /** Folder of the server binaries. */
      bindir: string;
      /** The processor architecture (`process.arch`): the same version prints alike on x64 and arm64. */
      arch: string;
      /** initdb arguments (locale, encoding, superuser …). */
      initdbArgs: readonly string[];
      /** Each requested extension's control file (path → sha256), '' for one not found: an upgraded extension package changes it. */
      extensionControls: Readonly<Record<string, string>>;
    };

/** A file of the key: its name (relative to the working folder when inside it) and the sha256 of its bytes. */
interface KeyFile {
  path: string;
  sha256: string;
}

/** The contents that shape the schema, read before anything starts (they do not depend on the server). */
export interface SchemaInputs {
  /** The superuser (initdb --username; POSTGRES_USER). */
  user: string;
  database: string;
  databases: readonly string[];
  extensions: readonly string[];
  template: boolean;
  /** The init files in order, with their text's sha256. */
  init: readonly KeyFile[];
  /** The init command as written. */
  initCommand: string;
  /** Every schema-cache-files match, sorted by path. */
  files: readonly KeyFile[];
  /** The schema-cache-key input. */
  extra: string;
  /**
   * The settings the server runs init with (the durability profile and the settings input, as
   * `name=value`): search_path, timezone, default_table_access_method and the like change what
   * init writes.
   */
  settings: readonly string[];
}

/** Everything the key hashes; what `up --json` and the job summary can show. */
export interface KeyParts extends SchemaInputs {
  format: number;
  server: ServerIdentity;
}

/** sha256 of bytes or text, 64 hex digits. */
function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Reads what shapes the schema, before anything starts: the init files' texts (already loaded)
 * and every schema-cache-files match (read as bytes).
 * @throws InputError (schema-cache-files) when an entry matches no readable file
 */
export async function readSchemaInputs(config: Config, initFiles: readonly InitFile[]): Promise<SchemaInputs> {
  const matched = await resolveFiles(config.schemaCacheFiles, config.workDir, 'schema-cache-files');
  const files = [...new Set(matched)]
    .map((file) => ({ path: shownPath(config.workDir, file), sha256: sha256(readFileSync(file)) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    user: config.user,
    database: config.database,
    databases: [...config.databases],
    extensions: [...config.extensions],
    template: config.template,
    init: initFiles.map((f) => ({ path: f.label, sha256: sha256(f.text) })),
    initCommand: config.initCommand,
    files,
    extra: config.schemaCacheKey,
    settings: effectiveSettings(config.settings).map((x) => `${x.name}=${x.value}`),
  };
}

/**
 * The key: `pg-tmpfs-schema-<format>-<mode>-<32 hex digits of sha256 over the parts as JSON>`.
 * Letters, digits and dashes only: it names a folder, and actions/cache takes it as is.
 */
export function schemaCacheKey(inputs: SchemaInputs, server: ServerIdentity): { key: string; parts: KeyParts } {
  const parts: KeyParts = { format: SCHEMA_CACHE_FORMAT, server, ...inputs };
  const hash = sha256(JSON.stringify(parts)).slice(0, 32);
  return { key: `pg-tmpfs-schema-${SCHEMA_CACHE_FORMAT}-${server.mode}-${hash}`, parts };
}

/**
 * pg_basebackup's `--no-manifest`, which exists from PostgreSQL 13 (manual: pg_basebackup); older
 * servers write no backup manifest anyway.
 * @param serverVersion `server_version` as the server reports it, e.g. `15.18 (Debian 15.18-0+deb12u1)`
 */
export function noManifest(serverVersion: string): string[] {
  const major = Number.parseInt(serverVersion, 10);
  return Number.isNaN(major) || major >= 13 ? ['--no-manifest'] : [];
}
