// Bundles src/ into dist/ (committed: runners execute dist/, not src/).
// `--check` builds into a temporary folder and fails when dist/ differs from it.
import { build } from 'esbuild';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const check = process.argv.includes('--check');
const outdir = check ? mkdtempSync(join(tmpdir(), 'pg-tmpfs-dist-')) : 'dist';

await build({
  entryPoints: { main: 'src/main.ts', post: 'src/post.ts', cli: 'src/cli.ts' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outdir,
  legalComments: 'none',
  logLevel: 'warning',
  // pg optionally requires pg-native; we never use it.
  external: ['pg-native'],
  // CommonJS dependencies bundled into ESM still call require() for node built-ins.
  banner: {
    js: "import { createRequire as __pgTmpfsCreateRequire } from 'node:module'; const require = __pgTmpfsCreateRequire(import.meta.url);",
  },
});

if (check) {
  const stale = [];
  const built = readdirSync(outdir);
  for (const name of built) {
    const committed = join('dist', name);
    if (!existsSync(committed) || readFileSync(committed, 'utf8') !== readFileSync(join(outdir, name), 'utf8')) {
      stale.push(name);
    }
  }
  for (const name of existsSync('dist') ? readdirSync('dist') : []) {
    if (!built.includes(name)) stale.push(`${name} (not built from src/)`);
  }
  rmSync(outdir, { recursive: true, force: true });
  if (stale.length > 0) {
    console.error(`dist/ is stale: ${stale.join(', ')}. Run \`npm run build\` and commit dist/.`);
    process.exit(1);
  }
  console.log('dist/ matches src/');
}
