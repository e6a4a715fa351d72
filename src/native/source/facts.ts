/**
 * Facts about installed programs that only change when the program file does (`postgres
 * --version`, `initdb --version`, `pg_config --bindir`), kept in `<cache-dir>/facts.json` so a
 * warm start runs none of them: each costs a process start (10–30 ms; Debian's pg_config is a
 * Perl script).
 *
 * A fact is keyed by the command and the identity of the program file (device, inode, size,
 * modification time in ms): an upgraded or replaced binary gets a new key and is asked again.
 * The file holds data only (strings), is written to a temporary name and renamed, and anything
 * unreadable in it counts as absent. It lives in the cache folder, which must be private
 * (prepareCacheDir), so no other user can plant a fact.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkPrivateDir } from '../../fsutil.js';

/** File name of the facts inside the cache folder. */
export const FACTS_FILE = 'facts.json';

/** At most this many facts are kept (older ones go first): a bound on the file's size. */
const MAX_FACTS = 64;

/**
 * A store of facts: `get` answers from the file when it knows the program file's identity, else
 * runs `compute` and keeps a non-null answer.
 */
export interface Facts {
  /**
   * @param program absolute path of the program the fact is about (its identity is the key)
   * @param what which fact, e.g. `--version`
   * @param compute finds the fact (runs the program); null = unknown, not kept
   * @returns the fact, or null when the program is missing or compute returned null
   */
  get(program: string, what: string, compute: () => string | null): string | null;
}

/** The identity of a file: `dev:ino:size:mtimeMs`, or null when it cannot be read. */
function fileIdentity(path: string): string | null {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/** Facts that are never kept (no cache folder). */
export const noFacts: Facts = { get: (_program, _what, compute) => compute() };

/**
 * Facts kept in `<cacheDir>/facts.json`. Reading or writing problems are ignored (the fact is
 * computed again): the cache is an optimisation, never a reason to fail.
 */
export function factsIn(cacheDir: string): Facts {
  const file = join(cacheDir, FACTS_FILE);
  let loaded: Record<string, string> | null = null;
  let writable = true;
  const load = (): Record<string, string> => {
    if (loaded) return loaded;
    try {
      // Only a folder of this user's that no one else can write holds facts worth believing.
      checkPrivateDir(cacheDir);
    } catch {
      writable = false;
      loaded = {};
      return loaded;
    }
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      loaded = {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') loaded[k] = v;
      }
    } catch {
      loaded = {};
    }
    return loaded;
  };
  return {
    get(program, what, compute) {
      const identity = fileIdentity(program);
      if (identity === null) return compute();
      const key = JSON.stringify([program, identity, what]);
      const known = load()[key];
      if (known !== undefined) return known;
      const value = compute();
      if (value === null) return null;
      const all = { ...load(), [key]: value };
      const keys = Object.keys(all);
      for (const old of keys.slice(0, Math.max(0, keys.length - MAX_FACTS))) delete all[old];
      loaded = all;
      if (!writable) return value;
      const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
        renameSync(tmp, file);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // Not there to remove (force ignores only ENOENT; a path below a file is ENOTDIR).
        }
      }
      return value;
    },
  };
}
