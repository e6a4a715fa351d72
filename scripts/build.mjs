// Bundles src/ into dist/ (committed: runners execute dist/, not src/).
//
//   dist/{main,post,wait,cli}.js              tiny loaders: turn on source maps (cli.js: only with PG_TMPFS_DEBUG), then import the bundle
//   dist/lib/{main,post,wait}.js             the action's entry bundles (esbuild, ESM, code splitting)
//   dist/lib/chunk-<name>.js                 the code they share (@actions/core, the core) and what they
//                                            import lazily (pg, tinyglobby, dbgate-query-splitter), once
//   dist/lib/cli.js, dist/lib/cli-chunk-<name>.js
//                                            the CLI: a build of its own, minified (functions and classes keep
//                                            their `name`), since it is the npm package and its size counts
//   dist/lib/*.js.map                        source maps (mappings only), so stack traces name src/ files
//
// Two builds: the action's, readable (a reviewer reads the dist/ a workflow runs, and its stack
// traces name its functions), and the CLI's, minified (the packed package is kept under 200 KB,
// tests/e2e/npm-package.test.ts). The CLI shares no chunk with the action, so what they both use
// is in dist/ twice; only the CLI's files are in the package.
// Node parses a module's source map only when source maps were on before it loaded; the loader
// turns them on (process.setSourceMapsEnabled) and then imports the bundle.
// Chunks get stable names (see stableChunkNames), so a change to one module rewrites only the
// files that hold it, not every file that imports a renamed chunk.
// `--check` builds in memory, with the same output paths, and fails when dist/ differs from it.
// The build also keeps package.json `files` to what the CLI runs (the npm package's contents).
import { build } from 'esbuild';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const check = process.argv.includes('--check');
const outdir = 'dist';

/** Entry name → source; each gets dist/<name>.js (loader) and dist/lib/<name>.js (bundle). */
const ENTRIES = { main: 'src/action/main.ts', post: 'src/action/post.ts', wait: 'src/action/wait.ts', cli: 'src/cli/main.ts' };

/**
 * The two builds: entries, the prefix of their chunks' names, and esbuild options of their own.
 * The CLI is minified whole (syntax, whitespace and local names); `keepNames` keeps each
 * function's and class's `name` (commander's errors take theirs from `this.constructor.name`),
 * and the CLI prints an error's message, not its stack (src/cli/output.ts formatError); its
 * source maps are in dist/ (not in the package) for PG_TMPFS_DEBUG. The packed CLI, measured
 * with `npm pack --dry-run --json` on 2026-11-29: 252 925 bytes readable, 209 137 with syntax and
 * whitespace minified, 192 753 minified whole with keepNames (tests/e2e/npm-package.test.ts
 * holds it to 200 000).
 */
const BUILDS = [
  { entries: ['main', 'post', 'wait'], chunk: 'chunk-', options: {} },
  { entries: ['cli'], chunk: 'cli-chunk-', options: { minify: true, keepNames: true } },
];

/** One esbuild run of `entries` into dist/lib, chunks named `<chunk>[hash]` (renamed after). */
function bundle(entries, chunk, options) {
  return build({
    write: false,
    entryPoints: Object.fromEntries(entries.map((e) => [e, ENTRIES[e]])),
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outdir: join(outdir, 'lib'),
    chunkNames: `${chunk}[hash]`,
    metafile: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    // pg optionally requires pg-native; we never use it.
    external: ['pg-native'],
    // CommonJS dependencies bundled into ESM still call require() for node built-ins.
    banner: {
      js: "import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);",
    },
    ...options,
  });
}

/**
 * Stable names for the chunks of one build, whose names are `<chunk>` and a content hash: a chunk
 * loaded by a dynamic import is named after the module it loads (`chunk-pg.js`, or its file name
 * below the package: `chunk-splitQuery.js`), a shared chunk after the entries and
 * lazy chunks that load it (`chunk-main-post-wait.js`), or `chunk-common.js` when all of them
 * do; the CLI's are `cli-chunk-…`. esbuild makes one chunk per such set, so the names are unique;
 * the build fails if not.
 * Returns old dist-relative name → new one (chunks only).
 */
function stableChunkNames(metafile, chunk) {
  const lib = (p) => relative(resolve(outdir), resolve(p));
  const outputs = Object.entries(metafile.outputs).filter(([p]) => p.endsWith('.js'));
  const imports = new Map(
    outputs.map(([p, o]) => [lib(p), o.imports.filter((i) => i.path.endsWith('.js')).map((i) => lib(i.path))]),
  );
  /** Entry-like outputs (the four entries and each dynamically imported module) → their short names. */
  const roots = new Map();
  for (const [p, o] of outputs) {
    const name = lib(p);
    if (!name.startsWith(`lib/${chunk}`)) roots.set(name, name.slice(4, -3));
    else if (o.entryPoint) {
      const m = o.entryPoint
        .replace(/\.[cm]?[jt]s$/, '')
        .replace(/^.*node_modules\//, '')
        .split('/');
      const rest = m.slice(m[0].startsWith('@') ? 2 : 1).filter((s) => !['lib', 'dist', 'esm', 'index'].includes(s));
      const pkg = m.slice(0, m[0].startsWith('@') ? 2 : 1);
      roots.set(name, (rest.length ? rest : pkg).join('-').replace(/[^A-Za-z0-9_-]/g, ''));
    }
  }
  const reachedBy = new Map();
  for (const [root, short] of roots) {
    const queue = [...(imports.get(root) ?? [])];
    const seen = new Set();
    while (queue.length) {
      const dep = queue.pop();
      if (seen.has(dep)) continue;
      seen.add(dep);
      if (!roots.has(dep)) reachedBy.set(dep, [...(reachedBy.get(dep) ?? []), short]);
      queue.push(...(imports.get(dep) ?? []));
    }
  }
  const renames = new Map();
  for (const [name, short] of roots) if (name.startsWith(`lib/${chunk}`)) renames.set(name, `lib/${chunk}${short}.js`);
  for (const [name, by] of reachedBy) {
    const set = [...new Set(by)].sort();
    renames.set(name, `lib/${chunk}${set.length === roots.size ? 'common' : set.join('-')}.js`);
  }
  const taken = [...renames.values()];
  const clash = taken.find((n, i) => taken.indexOf(n) !== i);
  if (clash) throw new Error(`two chunks would be named ${clash}: stableChunkNames needs a tie-breaker`);
  return renames;
}

/** Every output file: dist-relative path → contents, chunks renamed (imports and source-map links too). */
const built = new Map();
/** The CLI's files in dist/lib: every output of its build (one entry, so every chunk is reached from it). */
const cliLib = [];
for (const { entries, chunk, options } of BUILDS) {
  const result = await bundle(entries, chunk, options);
  const renames = stableChunkNames(result.metafile, chunk);
  const hashed = new RegExp(`(?<![A-Za-z0-9_-])${chunk}[A-Z0-9]{8}\\.js`, 'g');
  const rename = (text) => text.replace(hashed, (m) => renames.get(`lib/${m}`)?.slice(4) ?? m);
  for (const f of result.outputFiles) {
    const name = rename(relative(resolve(outdir), f.path));
    if (built.has(name)) throw new Error(`two builds write ${name}`);
    built.set(name, rename(f.text));
    if (entries.includes('cli') && name.endsWith('.js')) cliLib.push(name);
  }
}
for (const name of Object.keys(ENTRIES)) {
  const shebang = name === 'cli' ? '#!/usr/bin/env node\n' : '';
  // The CLI's start time counts (a warm `up` takes ~150 ms): reading its source maps costs
  // ~10 ms, so it turns them on only with PG_TMPFS_DEBUG set.
  const enable =
    name === 'cli'
      ? `if (process.env.PG_TMPFS_DEBUG) process.setSourceMapsEnabled(true);\n`
      : `process.setSourceMapsEnabled(true);\n`;
  built.set(
    `${name}.js`,
    `${shebang}// Generated by scripts/build.mjs from ${ENTRIES[name]}: source maps on${name === 'cli' ? ' (with PG_TMPFS_DEBUG)' : ''}, then the bundle.\n` +
      `${enable}await import('./lib/${name}.js');\n`,
  );
}

/** Every file below `dir`, as paths relative to it. */
function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/**
 * What the CLI runs: dist/cli.js, its bundle, and the chunks of its build (statically or
 * dynamically imported); the npm package ships these and nothing else (package.json `files`).
 */
const pkgFile = 'package.json';
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
const wantedFiles = ['cli.js', ...cliLib.sort()].map((f) => `${outdir}/${f}`);
const pkgStale = JSON.stringify(pkg.files) !== JSON.stringify(wantedFiles);

if (check) {
  const stale = [];
  if (pkgStale) stale.push(`package.json files (the CLI's files are ${wantedFiles.join(', ')})`);
  for (const [name, text] of built) {
    const committed = join(outdir, name);
    if (!existsSync(committed) || readFileSync(committed, 'utf8') !== text) stale.push(name);
  }
  for (const name of files(outdir)) {
    if (!built.has(name)) stale.push(`${name} (not built from src/)`);
  }
  if (stale.length > 0) {
    console.error(`dist/ is stale: ${stale.join(', ')}. Run \`npm run build\` and commit dist/.`);
    process.exit(1);
  }
  console.log('dist/ matches src/');
} else {
  rmSync(outdir, { recursive: true, force: true });
  for (const [name, text] of built) {
    const file = join(outdir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    if (text.startsWith('#!')) chmodSync(file, 0o755);
  }
  if (pkgStale) {
    pkg.files = wantedFiles;
    writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  }
}
