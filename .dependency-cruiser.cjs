/**
 * What `npm run lint` checks about imports (docs/architecture.md, "Layers"), with type-only
 * imports counted (tsPreCompilationDeps): no cycle anywhere, each layer of src/ imports only the
 * layers below it, Docker and native mode never import each other, the schema cache and the pool
 * never import each other, the CLI never imports the action, and the tests, the test kit and the
 * benchmark keep to their side. tests/unit/lint.test.ts proves the rules fail on fixtures
 * (tests/fixtures/lint/), which the main run leaves out.
 */
// The layers fixture copies the layout of src/ under tests/fixtures/lint/layers/src/.
const SRC = '^(?:tests/fixtures/lint/layers/)?src/';

/** The layers of src/, top first (docs/architecture.md): each path regex, relative to SRC. */
const LAYERS = [
  ['entries', '(?:action/(?:main|post|wait)|cli/main)\\.ts$'],
  ['action or cli', '(?:action|cli)/'],
  ['start', '(?:start-guard|lifecycle|background)\\.ts$'],
  ['modes (docker, native)', '(?:docker|native)/'],
  ['mode-neutral (schema-cache, pool)', '(?:schema-cache|pool)/'],
  ['store', 'store/'],
  ['shared', '[^/]+$'],
];

const path = (re) => `${SRC}${re}`;
const layerRules = LAYERS.slice(1).map(([name, re], i) => ({
  name: `layer-${name}`,
  comment: `The ${name} layer imports only the layers below it (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path: path(re), pathNot: LAYERS.slice(0, i + 1).map(([, r]) => path(r)) },
  to: { path: LAYERS.slice(0, i + 1).map(([, r]) => path(r)) },
}));

/**
 * The rooms of native/, top first: the start and its stop; the schema cache's native half; the
 * cluster put in place; one server's run; the choice of a source; the npm builds; the installed
 * binaries and their facts; the floor (the run's user, RAM folder, run folder).
 */
const NATIVE_ROOMS = [
  ['start', 'native/(?:start|stop)\\.ts$'],
  ['schema-cache', 'native/schema-cache/'],
  ['cluster', 'native/cluster/'],
  ['run', 'native/run/'],
  ['choose', 'native/source/choose\\.ts$'],
  ['npm', 'native/source/npm/'],
  ['source', 'native/source/'],
  ['floor', 'native/[^/]+$'],
];
const roomRules = NATIVE_ROOMS.slice(1).map(([name, re], i) => ({
  name: `native-room-${name}`,
  comment: `native/'s ${name} room imports only the rooms below it (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path: path(re), pathNot: NATIVE_ROOMS.slice(0, i + 1).map(([, r]) => path(r)) },
  to: { path: NATIVE_ROOMS.slice(0, i + 1).map(([, r]) => path(r)) },
}));

const apart = (name, a, b) => [
  { name: `${name}-1`, severity: 'error', from: { path: path(a) }, to: { path: path(b) } },
  { name: `${name}-2`, severity: 'error', from: { path: path(b) }, to: { path: path(a) } },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, through value or type imports alike',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...roomRules,
    ...apart('modes-apart', 'docker/', 'native/'),
    ...apart('neutral-apart', 'schema-cache/', 'pool/'),
    ...apart('fronts-apart', 'action/', 'cli/'),
    {
      name: 'src-alone',
      comment: 'The product imports nothing of the tests, the test kit or the benchmark',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(?:tests|testkit|bench|scripts)/' },
    },
    {
      name: 'tests-not-bench',
      comment: 'Tests do not import the benchmark: what both use is in testkit/',
      severity: 'error',
      from: { path: '^(?:tests|testkit)/' },
      to: { path: '^bench/' },
    },
    {
      name: 'bench-not-tests',
      severity: 'error',
      from: { path: '^(?:bench|testkit)/' },
      to: { path: '^tests/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
