/**
 * The schema cache's local store, beside the initdb cache: `<cache-dir>/schema/<key>/` with
 * `<key>.manifest.json` (every file's size and sha256, as the initdb cache keeps them:
 * store/manifest.ts). Private like that cache (a cluster planted by another user would run
 * their code as this one), filled under a temporary name and renamed into place whole, bounded in
 * size by removing the least recently used entries first. The action's @actions/cache restores
 * into and saves from this same folder (action/schema-cache.ts).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEntry, listFiles, MANIFEST_SUFFIX, type Manifest } from '../store/manifest.js';
import { cacheNames, dropEntry, removeStaleFills } from '../store/removal.js';
import { fillSuffix, heartbeat } from '../store/fill-name.js';
import { prepareCacheDir, placeEntry } from '../store/cache-dir.js';

/**
 * Largest total size of the store, in bytes (2 GiB): a cluster with a schema is tens of MB.
 * PG_TMPFS_SCHEMA_CACHE_MAX_BYTES sets another.
 */
const DEFAULT_STORE_MAX_BYTES = 2 * 1024 ** 3;

/** The store folder of a cache folder. */
export function storeDir(cacheDir: string): string {
  return join(cacheDir, 'schema');
}

/** An entry found whole and trusted: its folder and manifest. */
export interface StoreEntry {
  dir: string;
  manifest: Manifest;
}

/**
 * Looks up `key`. An entry that cannot be trusted (checkEntry: no manifest of this format,
 * another owner, writable by others) is dropped: a miss, and `dropped` says why for a warning.
 * Files are checked against the manifest as they are copied (copyCluster) or read.
 * @returns the entry (or null) and its folder, and what was dropped (null when nothing was there)
 * @throws InputError (cache-dir) when the store cannot be made or is not private
 */
export function lookup(cacheDir: string, key: string): { entry: StoreEntry | null; dropped: string | null; dir: string } {
  const store = storeDir(cacheDir);
  prepareCacheDir(cacheDir);
  prepareCacheDir(store);
  const dir = join(store, key);
  const found = checkEntry(dir);
  if (!found) return { entry: null, dropped: null, dir };
  if ('problem' in found) {
    const note = dropEntry(dir);
    return { entry: null, dropped: `${dir}: ${found.problem}${note ? `; ${note}` : ''}`, dir };
  }
  try {
    const now = new Date();
    utimesSync(`${dir}${MANIFEST_SUFFIX}`, now, now); // least recently used goes first (prune)
  } catch {
    // read-only store: no order kept
  }
  return { entry: { dir, manifest: found.manifest }, dropped: null, dir };
}

/**
 * Drops an entry found damaged while it was used.
 * @returns what could not be removed, for the warning; null when it is gone
 */
export function drop(entry: StoreEntry): string | null {
  return dropEntry(entry.dir);
}

/**
 * Saves an entry: `fill` writes into a new private folder, which gets its manifest and is renamed
 * into place. An entry another run placed first is kept (theirs is as good).
 * @param fill writes the entry's files into the folder it is given (which exists, mode 0700);
 *   it may return their manifest, made from the bytes it wrote (else the files are read for it)
 * @returns the entry's folder and its size in bytes, or null when another run's entry was there
 * @throws what fill throws, and filesystem errors; the temporary folder is removed then
 */
export async function save(
  cacheDir: string,
  key: string,
  fill: (dir: string) => Promise<Manifest | void>,
): Promise<{ dir: string; bytes: number } | null> {
  const store = storeDir(cacheDir);
  prepareCacheDir(cacheDir);
  prepareCacheDir(store);
  await removeStaleFills(store);
  const staging = join(store, `${key}${fillSuffix()}`);
  mkdirSync(staging, { mode: 0o700 });
  const stopBeat = heartbeat([staging]);
  try {
    const written = await fill(staging);
    chmodSync(staging, 0o700);
    const manifest = written ?? listFiles(staging);
    const text = JSON.stringify(manifest);
    writeFileSync(`${staging}${MANIFEST_SUFFIX}`, text, { mode: 0o600 });
    const dir = join(store, key);
    if (!placeEntry(staging, dir, text)) return null;
    return { dir, bytes: entryBytes(manifest) };
  } finally {
    stopBeat();
    rmSync(staging, { recursive: true, force: true });
    rmSync(`${staging}${MANIFEST_SUFFIX}`, { force: true });
  }
}

/** Bytes of an entry's files, as its manifest gives them. */
function entryBytes(manifest: Manifest): number {
  return Object.values(manifest.files).reduce((sum, f) => sum + f.size, 0);
}

/**
 * Keeps the store under `maxBytes`: removes whole entries, least recently used first (the
 * manifest's modification time, touched by each lookup), never `keep`.
 * @returns the keys removed
 */
export function prune(cacheDir: string, keep: string, maxBytes = storeMaxBytes()): string[] {
  const store = storeDir(cacheDir);
  const entries: Array<{ key: string; bytes: number; used: number }> = [];
  for (const name of cacheNames(store)) {
    if (!name.endsWith(MANIFEST_SUFFIX)) continue;
    const key = name.slice(0, -MANIFEST_SUFFIX.length);
    if (key.includes('.tmp-')) continue;
    const found = checkEntry(join(store, key));
    if (!found || 'problem' in found) continue;
    const used = lstatSync(join(store, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    entries.push({ key, bytes: entryBytes(found.manifest), used });
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const removed: string[] = [];
  for (const e of entries.sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    if (e.key === keep) continue;
    if (dropEntry(join(store, e.key)) === null) {
      total -= e.bytes;
      removed.push(e.key);
    }
  }
  return removed;
}

/** The store's bound: PG_TMPFS_SCHEMA_CACHE_MAX_BYTES when it is a whole number, else DEFAULT_STORE_MAX_BYTES. */
function storeMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.PG_TMPFS_SCHEMA_CACHE_MAX_BYTES;
  return v && /^\d{1,15}$/.test(v) ? Number(v) : DEFAULT_STORE_MAX_BYTES;
}

/** The keys in the store (entries with a manifest), for `status` and tests. */
export function storedKeys(cacheDir: string): string[] {
  try {
    return readdirSync(storeDir(cacheDir))
      .filter((n) => n.endsWith(MANIFEST_SUFFIX) && !n.includes('.tmp-'))
      .map((n) => n.slice(0, -MANIFEST_SUFFIX.length));
  } catch {
    return [];
  }
}
