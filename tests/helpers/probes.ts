/**
 * Fake systems for planning tests (native mode on Linux, macOS, Windows; the npm builds): what
 * a lookup would find, with nothing run.
 */
import type { Probe } from '../../src/native/source/installed.js';

/**
 * A fake system: `files` are the paths that exist; majors come from the bindir's name, versions
 * (`postgres --version`) from `versions` (bindir → `16.4`).
 */
export function probe(
  platform: NodeJS.Platform,
  files: string[],
  env: NodeJS.ProcessEnv = {},
  pgConfig: string | null = null,
  versions: Record<string, string> = {},
): Probe {
  const set = new Set(files);
  return {
    platform,
    env,
    exists: (p) => set.has(p),
    list: (dir) => [
      ...new Set(
        files
          .filter((f) => f.startsWith(`${dir}/`) || f.startsWith(`${dir}\\`))
          .map((f) => f.slice(dir.length + 1).split(/[\\/]/)[0] ?? ''),
      ),
    ],
    pgConfigBindir: () => pgConfig,
    majorOf: (bindir) => {
      const m = /(?:postgresql@|PostgreSQL[\\/]|postgresql\/)(\d+)/.exec(bindir) ?? /pg(\d+)/.exec(bindir);
      return m ? Number(m[1]) : null;
    },
    versionOf: (bindir) => versions[bindir] ?? null,
  };
}
