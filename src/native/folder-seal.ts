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
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { addedProblem, foldersProblem, manifestShape, type Manifest } from './cache-manifest.js';
import { fileProblem, readProblem, sealFiles, trustProblem } from './file-seal.js';

/** A sealed folder: a manifest (folders, files) and its symbolic links, relative path → target as readlink gives it. */
export interface FolderManifest extends Manifest {
  links: Record<string, string>;
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
  return { dirs, ...sealFiles(dir, paths), links };
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
  const structure = structureProblem(dir, manifest);
  if (structure) return structure;
  for (const [path, want] of Object.entries(manifest.files)) {
    const problem = fileProblem(join(dir, path), want);
    if (problem) return `${path} ${problem}`;
  }
  return null;
}

/**
 * The code of the worker that looks at a sealed folder for folderProblemBeside. Given the folder,
 * its subfolders and files (relative paths, checked by shapeProblem first) and every path the
 * manifest knows (workerData), it posts back each folder's lstat, the first name in a folder the
 * manifest does not know (`added`), and each file's lstat: null when missing, else its kind,
 * owner, mode, size and fingerprint (file-seal.ts fingerprintOf's form). Node's own modules only:
 * it runs from this string (eval), so the bundle needs no file of its own for it.
 */
const FOLDER_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { lstatSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { root, dirs, files } = workerData;
const known = new Set(workerData.known);
const look = (path) => {
  const s = lstatSync(join(root, path), { bigint: true, throwIfNoEntry: false });
  if (!s) return null;
  const kind = s.isFile() ? 'file' : s.isDirectory() ? 'folder' : s.isSymbolicLink() ? 'link' : 'other';
  return { kind, uid: Number(s.uid), mode: Number(s.mode), size: Number(s.size), fingerprint: s.ino + ':' + s.mtimeNs + ':' + s.ctimeNs };
};
let added = null;
let unreadable = null;
const folders = dirs.map((dir) => {
  const s = look(dir);
  if (s && s.kind === 'folder' && added === null && unreadable === null) {
    try {
      const name = readdirSync(join(root, dir)).find((n) => !known.has(dir ? join(dir, n) : n));
      if (name !== undefined) added = dir ? join(dir, name) : name;
    } catch (error) {
      unreadable = (dir || 'its folder') + ' cannot be read (' + (error.code || String(error)) + ')';
    }
  }
  return s;
});
parentPort.postMessage({ folders, added, unreadable, files: files.map(look) });`;

/** What the worker reports of one folder or file (FOLDER_WORKER). */
interface WorkerStat {
  kind: 'file' | 'folder' | 'link' | 'other';
  uid: number;
  mode: number;
  size: number;
  fingerprint: string;
}

/** The worker's whole report (FOLDER_WORKER). */
interface WorkerReport {
  folders: Array<WorkerStat | null>;
  added: string | null;
  /** A folder readdir refused, as a problem: `lib cannot be read (EACCES)`. */
  unreadable: string | null;
  files: Array<WorkerStat | null>;
}

/** How long folderProblemBeside waits for its worker before checking here instead: 30 000 ms. */
const WORKER_TIMEOUT_MS = 30_000;

/**
 * folderProblem with its lstats and readdirs (one per folder and file: about 1 000 for a server
 * build, 10–25 ms) taken by a worker thread, on another core, while this thread goes on (native
 * mode: copying the cluster); the manifest's shape and the links are checked here at once. What
 * the worker reports is judged here by folderProblem's rules; a file not as sealed by its lstat
 * (owner, mode, size, fingerprint) is checked again as folderProblem checks it (hashed when its
 * fingerprint differs). If the worker cannot run or does not answer within WORKER_TIMEOUT_MS,
 * the whole check runs here (folderProblem).
 * @returns a promise of what folderProblem returns (a first difference may be another one)
 */
export function folderProblemBeside(dir: string, manifest: FolderManifest): Promise<string | null> {
  const shape = shapeProblem(manifest);
  if (shape) return Promise.resolve(shape);
  const links = linksProblem(dir, manifest);
  if (links) return Promise.resolve(links);
  const dirs = ['', ...manifest.dirs];
  const files = Object.entries(manifest.files);
  const judge = (report: WorkerReport): string | null => {
    for (const [i, d] of dirs.entries()) {
      const got = report.folders[i];
      const problem = got ? trustProblem(statsLike(got), 'folder') : 'is missing';
      if (problem) return `${d || 'its folder'} ${problem}`;
    }
    if (report.unreadable !== null) return report.unreadable;
    if (report.added !== null) return `${report.added} was added`;
    for (const [i, [path, want]] of files.entries()) {
      const got = report.files[i];
      const same =
        got &&
        trustProblem(statsLike(got), 'file') === null &&
        got.size === want.size &&
        want.fingerprint !== undefined &&
        got.fingerprint === want.fingerprint &&
        process.platform !== 'win32';
      if (same) continue;
      const problem = fileProblem(join(dir, path), want);
      if (problem) return `${path} ${problem}`;
    }
    return null;
  };
  const workerData = {
    root: dir,
    dirs,
    files: files.map(([path]) => path),
    known: [...manifest.dirs, ...files.map(([path]) => path), ...Object.keys(manifest.links)],
  };
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(FOLDER_WORKER, { eval: true, workerData });
    } catch {
      resolve(folderProblem(dir, manifest));
      return;
    }
    let settled = false;
    const finish = (report: WorkerReport | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(report ? judge(report) : folderProblem(dir, manifest));
    };
    const timer = setTimeout(() => {
      finish(null);
      void worker.terminate();
    }, WORKER_TIMEOUT_MS);
    worker.once('message', (report: WorkerReport) => finish(report));
    worker.once('error', () => finish(null));
    worker.once('exit', () => finish(null));
  });
}

/** The parts of an lstat trustProblem reads, from what the worker reported. */
function statsLike(got: WorkerStat): Stats {
  return {
    isFile: () => got.kind === 'file',
    isDirectory: () => got.kind === 'folder',
    isSymbolicLink: () => got.kind === 'link',
    uid: got.uid,
    mode: got.mode,
  } as Stats;
}

/** What folderProblem checks before the files: the manifest's shape, the folders, nothing added, the links. */
function structureProblem(dir: string, manifest: FolderManifest): string | null {
  const shape = shapeProblem(manifest);
  if (shape) return shape;
  const known = new Set([...manifest.dirs, ...Object.keys(manifest.files), ...Object.keys(manifest.links)]);
  const folders = foldersProblem(dir, manifest.dirs);
  if (folders) return folders;
  try {
    const added = addedProblem(dir, manifest.dirs, known);
    if (added) return added;
  } catch (error) {
    return `a file or folder in it ${readProblem(error)}`;
  }
  return linksProblem(dir, manifest);
}

/** Whether every link of `manifest` is in `dir`, a link, with its target (one lstat and readlink each). */
function linksProblem(dir: string, manifest: FolderManifest): string | null {
  try {
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
  return null;
}
