/**
 * Removing what the initdb cache holds: an entry that cannot be used, fills of killed runs, entries
 * of older formats. A tree another user could change is renamed aside, never walked for removal.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { endProcessesIn } from '../orphans.js';
import { loadManifest, MANIFEST_SUFFIX, trustProblem } from './manifest.js';
import { fillIsLive, fillSuffix } from './fill-name.js';

/** At most this many files and folders are walked below one path (a cluster has about 1 000). */
const MAX_WALK = 100_000;

/**
 * Why the tree at `path` must not be removed recursively: it, or a folder in it, belongs to
 * another user or can be written by others, so someone else could swap a folder for a symbolic
 * link while the removal walks it and send the removal elsewhere. Files may belong to anyone
 * (unlinking a name in a folder of ours follows nothing). Reads at most MAX_WALK entries.
 * @returns null when it may be removed (also when it is gone), else the reason
 */
function removalProblem(path: string): string | null {
  let seen = 0;
  const walk = (at: string): string | null => {
    const s = lstatSync(at, { throwIfNoEntry: false });
    if (!s || !s.isDirectory()) return null;
    const problem = trustProblem(s, 'folder');
    if (problem) return `${at} ${problem}`;
    for (const name of readdirSync(at)) {
      seen += 1;
      if (seen > MAX_WALK) return `${path} holds more than ${MAX_WALK} files and folders`;
      const inner = walk(join(at, name));
      if (inner) return inner;
    }
    return null;
  };
  try {
    return walk(path);
  } catch (error) {
    return `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/**
 * Removes a file or folder of the cache folder (an entry, its manifest, a fill of a killed run):
 * recursively when removalProblem finds nothing against it; otherwise it is renamed to
 * `<name>.untrusted-<hex>` (one rename within the private cache folder, which follows nothing)
 * and left for the user, as its removal could be turned against this user's own files.
 * @returns null when it is gone; else what happened, for a warning
 */
export function removeTree(path: string): string | null {
  const problem = removalProblem(path);
  try {
    if (!problem) {
      rmSync(path, { recursive: true, force: true });
      return null;
    }
    const aside = `${path.replace(/\.tmp-\d+-[0-9a-f]+$/, '')}.untrusted-${randomBytes(4).toString('hex')}`;
    renameSync(path, aside);
    return `left as ${aside}, not removed, because ${problem}: look at it and remove it yourself`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return `could not remove ${path} (${code ?? String(error)}): remove it yourself`;
  }
}

/** The names in the cache folder; [] when it cannot be read. */
export function cacheNames(cacheDir: string): string[] {
  try {
    return readdirSync(cacheDir);
  } catch {
    return [];
  }
}

/**
 * Removes the `<key>.tmp-<pid>-<hex>` folders and manifests of fills whose process is gone (a run
 * killed while it filled the cache; another PID namespace's once its heartbeat is old: fill-name.ts), after ending any program still working in one (an orphaned
 * initdb: orphans.ts). A fill of a live process is left alone; one another user could change is
 * set aside, not removed (removeTree).
 * @param names the cache folder's names (cacheNames), when already read
 * @returns how many were removed, and the problems met (a program that would not end: its
 *   folder is kept then); never throws
 */
export async function removeStaleFills(
  cacheDir: string,
  names = cacheNames(cacheDir),
): Promise<{ removed: number; problems: string[] }> {
  let removed = 0;
  const problems: string[] = [];
  for (const name of names) {
    // A fill's folder, its manifest, or the tool cache's `.complete` marker of one (npm-tool-cache.ts).
    const match = /\.tmp-(\d+)-([0-9a-f]+)(\.manifest\.json|\.complete|\.pwfile)?$/.exec(name);
    const path = join(cacheDir, name);
    if (!match || fillIsLive(path, Number(match[1]), match[2] as string)) continue;
    const left = match[3] ? [] : await endProcessesIn(path);
    if (left.length > 0) {
      problems.push(...left);
      continue;
    }
    const problem = removeTree(path);
    if (problem) problems.push(`A fill of a killed run in the cache folder ${cacheDir}: ${problem}`);
    else removed += 1;
  }
  return { removed, problems };
}

/**
 * Removes the entries an older CACHE_FORMAT filled (their manifests give no sha256: 2 and before;
 * or no time of their seal, and so no fingerprints: 3): their keys are never asked for again, so
 * nothing else would, and each holds a cluster (about 40 MB). Run on a miss only (a manifest read
 * per entry). Entries others could change are left (removeTree).
 * @param names the cache folder's names (cacheNames), when already read: the fills
 *   removeStaleFills removes are not entries, so its list serves both
 * @returns how many were removed
 */
export function removeOldFormats(cacheDir: string, names = cacheNames(cacheDir)): number {
  let removed = 0;
  for (const name of names) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    const entry = join(cacheDir, name);
    const m = loadManifest(entry);
    const old = typeof m === 'string' ? m.includes('no size and sha256') : m.sealedNs === undefined;
    if (!old) continue;
    if (removeTree(entry) === null) {
      rmSync(`${entry}${MANIFEST_SUFFIX}`, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * Removes an entry and its manifest: the entry is renamed aside first (so no other run copies it
 * while it goes), then removed, unless removeTree finds another user could change a folder in
 * it: then it is left under another name, for the user to look at.
 * @returns null when both are gone (or were never there); else what was left, for a warning
 */
export function dropEntry(entry: string): string | null {
  const notes: string[] = [];
  let folder = entry;
  if (removalProblem(entry) === null) {
    const aside = `${entry}${fillSuffix()}`;
    try {
      renameSync(entry, aside);
      folder = aside;
    } catch {
      // another run dropped it first, or it was never there
    }
  }
  for (const path of [folder, `${entry}${MANIFEST_SUFFIX}`]) {
    const note = removeTree(path);
    if (note) notes.push(note);
  }
  return notes.length > 0 ? notes.join('; ') : null;
}
