/**
 * A folder kept across runs and checked before each use, independent of clusters (e.g. PostgreSQL
 * binaries extracted from a package: about 1 000 files, 60 MB): sealFolder records every folder,
 * file (size, sha256, fingerprint) and symbolic link (its target, not followed); folderProblem
 * compares the folder with that record at the cost of one lstat per file while fingerprints match,
 * hashing only files whose fingerprint differs (file-seal.ts says why that is enough). Folders and
 * files must be this user's and not writable by group or others (trustProblem), as in the cache.
 * Links are this module's alone: cluster manifests have none.
 *
 * The check is of paths, not of descriptors: what runs the programs afterwards opens them again
 * by name, so it shows the folder as it was sealed at the moment of the check, not later. Only
 * this user (or root) can change it in between: that is what the ownership checks make sure of.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { manifestShape, type Manifest } from './manifest.js';
import { FINGERPRINTS, fileProblem, fingerprintOf, readProblem, sealClock, sealFiles, trustProblem } from './file-seal.js';

/** A sealed folder: a manifest (folders, files) and its symbolic links, relative path → target as readlink gives it. */
export interface FolderManifest extends Manifest {
  links: Record<string, string>;
  /**
   * Each subfolder's fingerprint when it was sealed (fingerprintOf: a folder's mtime and ctime move
   * when a name in it is made, removed or renamed), for the folders last changed before the seal's
   * clock; folderProblem reads a folder whose fingerprint is unchanged without listing it. Absent
   * from manifests made before it (every folder listed then).
   */
  folders?: Record<string, string>;
}

/** Whether `to` (a path relative to a folder) names the folder or something in it: not absolute, no `..` past it. */
function isWithin(to: string): boolean {
  return !isAbsolute(to) && to !== '..' && !to.startsWith(`..${sep}`);
}

/**
 * Whether a link at `path` (relative to the folder) pointing to `target` stays inside the folder,
 * by the target's text: not absolute, no `..` past the folder's root from the link's own folder.
 */
function staysInside(path: string, target: string): boolean {
  return !isAbsolute(target) && isWithin(join(dirname(path), target));
}

/**
 * Seals `dir`: every folder, file and symbolic link below it, each file read on a trusted
 * descriptor for its size, sha256 and fingerprint (sealFiles), each link's target read, not
 * followed. Call it once what wrote the folder has exited. JSON.stringify the result to keep it.
 * Costs reading and hashing every file (sha256 at about 1.5 GB/s here), and up to 50 ms more when
 * files were written in the last few ms (sealFiles waits for the clock to pass them).
 * @param dir a folder of this user's (its ctime is read after a chmod to its own mode: sealClock)
 * @returns the manifest, paths relative to `dir`, each folder after its parent
 * @throws Error naming the path when a folder or file is another user's or writable by group or
 *   others, when something is neither a folder, a file nor a link (a FIFO, a socket: `is not a
 *   file`), or when a link leads out of the folder (an absolute target, `..` past its root, or
 *   through another link: what it points to would not be sealed); filesystem errors as they come
 */
export function sealFolder(dir: string): FolderManifest {
  const root = realpathSync.native(dir);
  // Folders last changed before this clock get a fingerprint (as sealFiles does for files).
  const since = sealClock(dir);
  const folders: Record<string, string> = {};
  const dirs: string[] = [];
  const paths: string[] = [];
  const links: Record<string, string> = {};
  const walk = (at: string): void => {
    const problem = trustProblem(lstatSync(at), 'folder');
    if (problem) throw new Error(`${at} ${problem}`);
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const rel = relative(dir, path);
      const s = lstatSync(path);
      if (s.isDirectory()) {
        dirs.push(rel);
        const folder = lstatSync(path, { bigint: true });
        if (FINGERPRINTS && folder.ctimeNs < since) folders[rel] = fingerprintOf(folder);
        walk(path);
      } else if (s.isSymbolicLink()) {
        const target = readlinkSync(path);
        // By its text, and where it leads now through other links (a dangling link: its text only).
        const leads = resolved(path);
        if (!staysInside(rel, target) || (leads !== null && !isWithin(relative(root, leads)))) {
          throw new Error(`${path} points outside ${dir} (${target})`);
        }
        links[rel] = target;
      } else {
        const untrusted = trustProblem(s, 'file');
        if (untrusted) throw new Error(`${path} ${untrusted}`);
        paths.push(rel);
      }
    }
  };
  walk(dir);
  return { dirs, ...sealFiles(dir, paths), links, folders };
}

/** Where a link leads, every link on the way followed; null when it dangles. */
function resolved(path: string): string | null {
  try {
    return realpathSync.native(path); // the kernel's resolution: realpathSync folds `a/..` before following `a`
  } catch {
    return null;
  }
}

/** Why `manifest` is not a FolderManifest (manifestShape, and links inside the folder), or null. */
function shapeProblem(manifest: FolderManifest): string | null {
  const shape = manifestShape(manifest);
  if (typeof shape === 'string') return `its manifest ${shape}`;
  const links = (manifest as Partial<FolderManifest>).links;
  if (!links || typeof links !== 'object' || Array.isArray(links)) return 'its manifest lists no links';
  for (const [path, target] of Object.entries(links)) {
    if (typeof target !== 'string' || path === '' || isAbsolute(path) || path.split(/[\\/]/).includes('..')) {
      return `its manifest names a link outside its folder`;
    }
    if (!staysInside(path, target)) return `its manifest gives ${path} a target outside its folder`;
  }
  const folders = (manifest as Partial<FolderManifest>).folders;
  if (folders !== undefined && (!folders || typeof folders !== 'object' || Array.isArray(folders))) {
    return 'its manifest gives no fingerprints of its folders';
  }
  if (folders && !Object.values(folders).every((f) => typeof f === 'string')) return 'its manifest gives a folder no fingerprint';
  return null;
}

/**
 * Whether `dir` is as sealFolder sealed it: the same folders (each this user's, not writable by
 * group or others), nothing added, every link with its target, every file this user's, not
 * writable by group or others, of its size, and unchanged by its fingerprint (one lstat) or else
 * by its sha256 (read and hashed). Cheap enough for every start: a readdir per folder and an
 * lstat per file and link while nothing changed.
 * @param manifest what sealFolder returned (JSON.parse of it is checked here: paths inside the folder)
 * @returns null when the folder is as sealed, else the first difference, e.g. `bin/postgres does
 *   not match the sha256 in its manifest`, `lib/libpq.so.5 points to libpq.so.5.16, not
 *   libpq.so.5.17`, `lib/evil.so was added`
 */
export function folderProblem(dir: string, manifest: FolderManifest): string | null {
  const shape = shapeProblem(manifest);
  if (shape) return shape;
  const known = new Set([...manifest.dirs, ...Object.keys(manifest.files), ...Object.keys(manifest.links)]);
  try {
    // Each folder: this user's alone; listed, unless its fingerprint says no name in it changed.
    for (const d of ['', ...manifest.dirs]) {
      const s = lstatSync(d ? join(dir, d) : dir, { bigint: true, throwIfNoEntry: false });
      const problem = s ? trustProblem(s, 'folder') : 'is missing';
      if (problem) return `${d || 'its folder'} ${problem}`;
      if (s && d && FINGERPRINTS && manifest.folders?.[d] === fingerprintOf(s)) continue;
      const name = readdirSync(d ? join(dir, d) : dir).find((n) => !known.has(d ? join(d, n) : n));
      if (name !== undefined) return `${d ? join(d, name) : name} was added`;
    }
    for (const [path, target] of Object.entries(manifest.links)) {
      const s = lstatSync(join(dir, path), { throwIfNoEntry: false });
      if (!s) return `${path} is missing`;
      if (!s.isSymbolicLink()) return `${path} is not a symbolic link`;
      const now = readlinkSync(join(dir, path));
      if (now !== target) return `${path} points to ${now}, not ${target}`;
    }
  } catch (error) {
    return `a file or folder in it ${readProblem(error)}`;
  }
  for (const [path, want] of Object.entries(manifest.files)) {
    const problem = fileProblem(join(dir, path), want);
    if (problem) return `${path} ${problem}`;
  }
  return null;
}
