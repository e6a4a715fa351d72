/**
 * The kill loop of one e2e file (tests/e2e/kill-loop-native.test.ts, kill-loop-docker.test.ts):
 * the scenarios of one mode of tests/helpers/kill-loop-plan.ts, four seeded tries each, in the
 * lane of that mode (vitest.config.ts), so the two halves run at the same time. Environment:
 * PG_TMPFS_KILL_SEED (replay), PG_TMPFS_KILL_FIRST and PG_TMPFS_KILL_TRIES (which tries),
 * PG_TMPFS_KILL_ONLY (scenarios whose id holds this text).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { engine29Host, requireImages } from './infra.js';
import { killLoop } from './kill-loop.js';
import { loopContext, newSeed, removeLoopContext, SCENARIOS, type LoopContext, type Scenario } from './kill-loop-plan.js';
import { npmClient, requireNpmPackages, startNpmRegistry, type NpmClient, type NpmRegistry } from './npm-packages.js';

/** What a kill-loop file's other tests (the keeper and backend kills) share with its loop. */
export interface KillLoopFile {
  /** The seed of this run (printed). */
  seed: number;
  /** The loop's folders and init files, made in beforeAll. */
  context: () => LoopContext;
}

/**
 * Declares the file's beforeAll (test images, the npm registry when a scenario fetches from npm,
 * the second engine when one runs there), afterAll, and the loop's test over the scenarios of
 * `mode`. Not under CI, scenarios whose infrastructure the setup did not make are left out.
 */
export function killLoopFile(mode: Scenario['mode']): KillLoopFile {
  const seed = process.env.PG_TMPFS_KILL_SEED ? Number(process.env.PG_TMPFS_KILL_SEED) : newSeed();
  const only = process.env.PG_TMPFS_KILL_ONLY ?? '';
  const ofMode = SCENARIOS.filter((s) => s.mode === mode && s.id.includes(only));
  const tries = Number(process.env.PG_TMPFS_KILL_TRIES ?? 4 * ofMode.length);
  const first = Number(process.env.PG_TMPFS_KILL_FIRST ?? 0);
  let ctx: LoopContext;
  let registry: NpmRegistry | undefined;
  let client: NpmClient | undefined;
  let scenarios: readonly Scenario[] = ofMode;

  beforeAll(async () => {
    requireImages();
    if (scenarios.some((s) => s.binaries)) {
      const packages = await requireNpmPackages();
      if (packages) {
        registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) });
        client = npmClient(registry);
      } else scenarios = scenarios.filter((s) => !s.binaries);
    }
    // The second engine (Docker 29): required under CI (engine29Host throws), else its tries go.
    if (scenarios.some((s) => s.engine) && !engine29Host()) scenarios = scenarios.filter((s) => !s.engine);
    ctx = loopContext(mkdtempSync(join(tmpdir(), 'kill-loop-')), client?.env);
  });

  afterAll(async () => {
    if (ctx) removeLoopContext(ctx);
    client?.cleanup();
    await registry?.close();
  });

  // A try takes 2-10 s here (a cancel waits up to 10 s, a stuck orphan up to 20 s): 30 s each, and 5
  // minutes for the calibration, bound the whole loop.
  it(
    `${mode}: ${tries} kills at random moments leave nothing that down, up or the post step cannot remove`,
    { timeout: 300_000 + tries * 30_000 },
    async () => {
      console.log(`kill loop (${mode}): seed ${seed}, tries ${first}..${first + tries - 1}`);
      const lines: string[] = [];
      const report = await killLoop(ctx, { seed, tries, first, scenarios, log: (l) => (lines.push(l), console.log(l)) });
      expect(report.results).toHaveLength(tries);
      // Every scenario ran, and most tries landed during the start rather than after it.
      expect(new Set(report.results.map((r) => r.plan.scenario.id)).size).toBe(Math.min(tries, scenarios.length));
      const leaks = report.leaking.map(
        (r) => `try ${r.plan.n} (${r.plan.scenario.id}, ${r.plan.signal} at ${r.killedAtMs} ms): ${r.leaks.join('; ')}`,
      );
      expect(
        leaks,
        `seed ${seed}; replay one try: PG_TMPFS_KILL_SEED=${seed} PG_TMPFS_KILL_FIRST=<n> PG_TMPFS_KILL_TRIES=1`,
      ).toEqual([]);
    },
  );
  return { seed, context: () => ctx };
}
