/**
 * An initdb cache entry's manifest (`<key>.manifest.json`): the entry's folders and each file's
 * size, sha256 and fingerprint (file-seal.ts says why a fingerprint that matches stands for the
 * sha256), and the checks of an entry before it is copied (checkEntry) or after a fill lost a race
 * (entryProblem). The schema cache's store keeps its entries' manifests the same way.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileProblem, readProblem, sealFiles, trustProblem, withFile, type FileEntry } from './file-seal.js';

// What the schema cache's Docker entries and cache removal take from here, as before file-seal.ts.
export { readProblem, sha256, trustProblem, withFile, type FileEntry } from './file-seal.js';

/** Suffix of the file beside an entry that lists its folders and files with their sizes and hashes. */
export const MANIFEST_SUFFIX = '.manifest.json';

/** What an entry holds: its folders (relative, each after its parent) and files (relative path → size and hash). */
export interface Manifest {
  dirs: string[];
  files: Record<string, FileEntry>;
  /**
   * When its files were sealed (listFiles): the filesystem's clock in ns (sealClock, decimal) as
   * the last of them were read; files changed since have no fingerprint. Absent from manifests
   * made otherwise (Docker schema-cache entries) and from those of CACHE_FORMAT 3, which had no
   * fingerprints (removeOldFormats tells them apart by it).
   */
  sealedNs?: string;
}

/** Largest manifest read: 16 MiB (a cluster's is about 100 KB). */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/**
 * Every folder and file below `dir` (a fill, this user's), each file read to record its size,
 * sha256 and fingerprint (sealFiles).
 * @throws Error when something below is neither a file nor a folder (a symbolic link: ELOOP), or
 *   a file trustProblem objects to (TrustError: another owner, writable by others)
 */
export function listFiles(dir: string): Manifest {
  const dirs: string[] = [];
  const paths: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (lstatSync(path).isDirectory()) {
        dirs.push(relative(dir, path));
        walk(path);
      } else {
        paths.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return { dirs, ...sealFiles(dir, paths) };
}

/**
 * Reads an entry's manifest: a file owned by this user that others cannot write (trustProblem),
 * read without following a symbolic link, in this format, every path inside the entry.
 * @returns the manifest, or why it cannot be used (a predicate of `its manifest`, e.g. `is missing`)
 */
export function loadManifest(entry: string): Manifest | string {
  let m: unknown;
  try {
    m = withFile(`${entry}${MANIFEST_SUFFIX}`, (bytes) => JSON.parse(bytes.toString('utf8')) as unknown, MAX_MANIFEST_BYTES);
  } catch (error) {
    return error instanceof SyntaxError ? 'is not JSON' : readProblem(error);
  }
  return manifestShape(m);
}

/** A fingerprint as fingerprintOf writes it. */
const FINGERPRINT = /^\d{1,20}:-?\d{1,25}:-?\d{1,25}$/;

/**
 * Checks that parsed JSON is a manifest of this format: folders and files inside their entry
 * (relative, no `..`), each file with a size and sha256 and, optionally, a fingerprint.
 * @returns the manifest (its folders, files and sealedNs), or why it is not one, e.g. `gives no
 *   size and sha256 for PG_VERSION`
 */
export function manifestShape(json: unknown): Manifest | string {
  const m = json as Partial<Manifest> | null;
  if (!m || !Array.isArray(m.dirs) || !m.files || typeof m.files !== 'object' || Array.isArray(m.files)) {
    return 'is not a manifest of this format';
  }
  if (!m.dirs.every((d) => typeof d === 'string' && isInside(d))) return 'names a folder outside its entry';
  for (const [f, e] of Object.entries(m.files)) {
    if (!isInside(f)) return 'names a file outside its entry';
    const { size, sha256: hash, fingerprint } = (e ?? {}) as Partial<FileEntry>;
    if (!Number.isSafeInteger(size) || (size as number) < 0 || typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      return `gives no size and sha256 for ${f}`;
    }
    if (fingerprint !== undefined && (typeof fingerprint !== 'string' || !FINGERPRINT.test(fingerprint))) {
      return `gives no fingerprint of this format for ${f}`;
    }
  }
  if (m.sealedNs !== undefined && (typeof m.sealedNs !== 'string' || !/^-?\d{1,25}$/.test(m.sealedNs))) {
    return 'gives no time of this format for its seal';
  }
  return {
    dirs: m.dirs,
    files: m.files as Record<string, FileEntry>,
    ...(m.sealedNs === undefined ? {} : { sealedNs: m.sealedNs }),
  };
}

/**
 * Reads an entry's manifest (loadManifest).
 * @returns null when it is missing, cannot be trusted, or is not a manifest of this format
 */
export function readManifest(entry: string): Manifest | null {
  const m = loadManifest(entry);
  return typeof m === 'string' ? null : m;
}

/** Whether a manifest path stays inside its entry (relative, no `..`). */
function isInside(path: string): boolean {
  return path !== '' && !isAbsolute(path) && !path.split(/[\\/]/).includes('..');
}

/**
 * Why the folders `dirs` of `root` (and root itself) cannot be copied from: one is missing, not a
 * folder (a symbolic link), another user's, or writable by others (trustProblem). One lstat each.
 * @returns null when all are trusted, else e.g. `base/5 belongs to uid 65534, not to this user (uid 0)`
 */
export function foldersProblem(root: string, dirs: readonly string[]): string | null {
  for (const dir of ['', ...dirs]) {
    const s = lstatSync(dir ? join(root, dir) : root, { throwIfNoEntry: false });
    const problem = s ? trustProblem(s, 'folder') : 'is missing';
    if (problem) return `${dir || 'its folder'} ${problem}`;
  }
  return null;
}

/**
 * Whether the entry `entry` may be copied, checked before anything is: its manifest
 * (loadManifest), and the entry folder and every folder the manifest lists are real folders of
 * this user that group and others cannot write. Files are checked as they are copied
 * (copyCluster: owner, mode, size, and fingerprint or sha256). Costs reading the manifest and
 * one lstat per folder.
 * @returns null when there is nothing at the key (neither folder nor manifest); else the
 *   manifest, or why the entry cannot be used, e.g. `its manifest belongs to uid 65534, …`
 */
export function checkEntry(entry: string): { manifest: Manifest } | { problem: string } | null {
  // No folder is a miss, whatever the manifest: a fill places its manifest first and its folder
  // right after (ensureCluster), and a start that looks in between must not drop it.
  if (!lstatSync(entry, { throwIfNoEntry: false })) return null;
  const m = loadManifest(entry);
  if (typeof m === 'string') return { problem: `its manifest ${m}` };
  const problem = foldersProblem(entry, m.dirs);
  return problem ? { problem } : { manifest: m };
}

/**
 * What is in the folders `dirs` of `root` (and root itself) that `known` does not name (paths
 * relative to root): one readdir per folder.
 * @returns null when nothing was added, else e.g. `base/5/99999 was added`
 * @throws Error when a folder cannot be read (ENOENT, ENOTDIR)
 */
function addedProblem(root: string, dirs: readonly string[], known: ReadonlySet<string>): string | null {
  for (const dir of ['', ...dirs]) {
    const added = readdirSync(join(root, dir)).find((name) => !known.has(dir ? join(dir, name) : name));
    if (added !== undefined) return `${dir ? join(dir, added) : added} was added`;
  }
  return null;
}

/**
 * Why a cache entry cannot be used, walking all of it: what checkEntry finds, a folder or file
 * added, a file missing, another user's, writable by others, or differing from the manifest by
 * its size, or by its sha256 where its fingerprint differs (fileProblem: a truncated catalog
 * file, a removed PG_VERSION, an edited postgresql.conf). Starts do not call it (checkEntry and
 * copyCluster check as they copy), only a fill that lost a race does.
 * @returns null when the entry matches its manifest
 */
export function entryProblem(entry: string): string | null {
  const checked = checkEntry(entry);
  if (!checked) return 'it is not there';
  if ('problem' in checked) return checked.problem;
  const { dirs, files } = checked.manifest;
  try {
    const added = addedProblem(entry, dirs, new Set([...dirs, ...Object.keys(files)]));
    if (added) return added;
  } catch (error) {
    return `a folder in it ${readProblem(error)}`;
  }
  for (const [path, want] of Object.entries(files)) {
    const problem = fileProblem(join(entry, path), want);
    if (problem) return `${path} ${problem}`;
  }
  return null;
}

/** A cache entry that cannot be used (found while copying it): changed, damaged, or not this user's alone. */
export class DamagedEntryError extends Error {
  constructor(
    /** The entry. */
    readonly entry: string,
    /** What is wrong, e.g. `global/pg_control has 100 bytes, not 8192`. */
    readonly problem: string,
  ) {
    super(`${entry}: ${problem}`);
    this.name = 'DamagedEntryError';
  }
}
