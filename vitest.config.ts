import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The e2e files in lanes (tests/helpers/infra/lane.ts). Real Docker and real PostgreSQL: each lane
 * runs one file at a time, and scripts/test-lanes.mjs (npm test) runs the Docker, the native and
 * the isolated lane at the same time, in vitest processes of their own (vitest 4.1 puts every
 * project that runs one file at a time into one sequential group, so one process never runs two of
 * them at once), then the solo lane with the machine to itself. A file goes in the lane of
 * everything it starts:
 * - Docker: servers only in containers (Docker mode, act job containers, gitlab-ci-local,
 *   woodpecker, native mode inside a container); nothing on the host but a keeper of a pool
 *   started by the CLI or through act (act on the host passes its environment, the lane too);
 * - native: servers only as host processes (and containers with no server of ours, or with a
 *   native-mode server inside: act job containers, `docker run` of a test image);
 * - either: files that start no server (workflow-lint, npm-registry), placed to balance the lanes;
 * - isolated (ISOLATED): files kept out of the others' sight, in namespaces of their own (with
 *   their own /dev/shm and TMPDIR; the benchmark's containers carry names the others pass over);
 * - solo: both modes in one test (init's act jobs).
 * A file named `*-docker.test.ts` or `*-native.test.ts` is in that lane without a list: split a
 * mixed file by mode under such names (it must then start only what its name says).
 */
const DOCKER_LANE = [
  'action-pool',
  'docker-cli',
  'engine29',
  'engine29-pull',
  'gitlab-catalog',
  'gitlab-runner',
  'gitlab-schema-cache',
  'gitlab-schema-cache-job',
  'gitlab-services',
  'hostile-validation',
  'kill-loop-docker',
  'native-majors',
  'registry',
  'schema-cache-docker',
  'schema-cache-postgres-only',
  'services-template',
  'woodpecker',
];
const NATIVE_LANE = [
  'action-npm',
  'examples',
  'examples-pool',
  'gitlab-before-script',
  'native-cli',
  'npm-binaries',
  'npm-faults',
  'npm-keep-faults',
  'npm-package',
  'npm-ram',
  'npm-registry',
  'platforms',
  'pool',
  'pool-holders',
  'pool-hostile',
  'release',
  'schema-cache-frameworks',
  'schema-cache-native',
  'workflow-lint',
];
/**
 * Files that run in namespaces of their own with a /dev/shm and TMPDIR of their own
 * (tests/helpers/infra/lane.ts), at the same time as the two lanes when scripts/test-lanes.mjs can
 * make them (root, `unshare`), else alone after the solo lane: the benchmark's smoke run (both
 * modes, its own names), Windows under Wine, and the native kill loop (a second native lane).
 */
const ISOLATED = ['bench', 'windows-wine', 'kill-loop-native'].map((n) => `tests/e2e/${n}.test.ts`);
/** The lane's files: those named, and every file whose name ends in `-docker` or `-native`. */
const files = (names: string[], suffix: string) => [
  ...names.map((n) => `tests/e2e/${n}.test.ts`),
  `tests/e2e/*-${suffix}.test.ts`,
];

/** An e2e project: one file at a time, PG_TMPFS_TEST_LANE for the leftover checks. */
function lane(name: string, env: string, include: string[], exclude: string[] = []) {
  return {
    test: {
      name,
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      env: { PG_TMPFS_TEST_LANE: env },
      fileParallelism: false,
      testTimeout: 600_000,
      hookTimeout: 600_000,
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      // The benchmark's own code (its reports, results, undo list): pure logic, fast like unit.
      { test: { name: 'bench', include: ['bench/tests/**/*.test.ts'] } },
      lane('e2e-docker', 'docker', files(DOCKER_LANE, 'docker'), ISOLATED),
      lane('e2e-native', 'native', files(NATIVE_LANE, 'native'), ISOLATED),
      lane('e2e-isolated', 'isolated', ISOLATED),
      lane(
        'e2e-solo',
        'all',
        ['tests/e2e/**/*.test.ts'],
        [...files(DOCKER_LANE, 'docker'), ...files(NATIVE_LANE, 'native'), ...ISOLATED],
      ),
    ],
  },
});
