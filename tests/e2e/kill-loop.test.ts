/**
 * Kills at random moments (issue #21): four seeded tries per scenario of
 * tests/helpers/kill-loop.ts (CLI up and up --no-wait, the action's main and wait steps; native
 * cold and warm, Docker, a server build from npm fetched every try from a registry of the test's
 * own; Docker mode on the second engine, Docker 29; init files and an init command; SIGKILL, SIGTERM, SIGINT and the
 * runner's cancel), each followed by `down` (or `up` again, then `down`) or the post step, and
 * nothing may be left; and a pool's keeper, or a backend of its server (a crash restart), killed
 * while a client takes copies. The seed is printed; replay a failure with
 * `PG_TMPFS_KILL_SEED=S PG_TMPFS_KILL_FIRST=N PG_TMPFS_KILL_TRIES=1 npx vitest run tests/e2e/kill-loop.test.ts`,
 * or soak longer with `npm run soak:kills -- --tries 500`. It counts only what the loop's own
 * starts could leave (see snapshot), but it needs the machine to itself to be sure of that: the
 * e2e files run one at a time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { engine29Host, requireImages } from '../helpers/infra.js';
import { backendKillTry } from '../helpers/kill-backend.js';
import { keeperKillTry } from '../helpers/kill-keeper.js';
import { killLoop } from '../helpers/kill-loop.js';
import {
  loopContext,
  newSeed,
  removeLoopContext,
  SCENARIOS,
  type LoopContext,
  type Scenario,
} from '../helpers/kill-loop-plan.js';
import { npmClient, requireNpmPackages, startNpmRegistry, type NpmClient, type NpmRegistry } from '../helpers/npm-packages.js';

const seed = process.env.PG_TMPFS_KILL_SEED ? Number(process.env.PG_TMPFS_KILL_SEED) : newSeed();
/** PG_TMPFS_KILL_ONLY: only the scenarios whose id holds this text (e.g. `pool`). */
const only = process.env.PG_TMPFS_KILL_ONLY ?? '';
const tries = Number(process.env.PG_TMPFS_KILL_TRIES ?? 4 * SCENARIOS.filter((s) => s.id.includes(only)).length);
const first = Number(process.env.PG_TMPFS_KILL_FIRST ?? 0);
let ctx: LoopContext;
let registry: NpmRegistry | undefined;
let client: NpmClient | undefined;
/**
 * The scenarios: all of them, or (not under CI) those without npm when the setup did not fetch
 * the npm builds, and without Docker 29 when the second engine does not answer.
 */
let scenarios: readonly Scenario[] = SCENARIOS.filter((s) => s.id.includes(only));

beforeAll(async () => {
  requireImages();
  const packages = await requireNpmPackages();
  if (packages) {
    registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) });
    client = npmClient(registry);
  } else scenarios = scenarios.filter((s) => !s.binaries);
  // The second engine (Docker 29): required under CI (engine29Host throws), else its tries go.
  if (!engine29Host()) scenarios = scenarios.filter((s) => !s.engine);
  ctx = loopContext(mkdtempSync(join(tmpdir(), 'kill-loop-')), client?.env);
});

afterAll(async () => {
  removeLoopContext(ctx);
  client?.cleanup();
  await registry?.close();
});

// A try takes 2-10 s here (a cancel waits up to 10 s, a stuck orphan up to 20 s): 30 s each, and 5
// minutes for the calibration, bound the whole loop.
it(
  `${tries} kills at random moments leave nothing that down, up or the post step cannot remove`,
  { timeout: 300_000 + tries * 30_000 },
  async () => {
    console.log(`kill loop: seed ${seed}, tries ${first}..${first + tries - 1}`);
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

/** PG_TMPFS_KEEPER_TRIES: tries of the keeper kill (default 3). */
const keeperTries = Number(process.env.PG_TMPFS_KEEPER_TRIES ?? 3);

// Each try: up with a pool (~5 s), the takes, down; 60 s each bounds it.
it(
  `the pool's keeper killed at a random moment while a client takes copies (${keeperTries} tries): the next take says so, down leaves nothing`,
  { timeout: 60_000 * keeperTries },
  async () => {
    for (let n = 0; n < keeperTries; n++) {
      const r = await keeperKillTry(ctx, seed, n);
      console.log(
        `keeper kill ${n} [seed ${seed}]: SIGKILL at ${r.killedAtMs} ms after ${r.takenBefore} copies; next take: ${r.failure.slice(0, 160)}; ${r.leaks.length ? `LEFT ${r.leaks.join('; ')}` : 'nothing left'}`,
      );
      expect(r.leaks, `seed ${seed}, keeper try ${n}`).toEqual([]);
      expect(r.killedAtMs).toBeGreaterThanOrEqual(0);
      expect(r.failure).toMatch(/^pg-tmpfs pool: the keeper of the pool of app is not running, so no copy is made/);
    }
  },
);

/** PG_TMPFS_BACKEND_TRIES: tries of the backend kill (default 3). */
const backendTries = Number(process.env.PG_TMPFS_BACKEND_TRIES ?? 3);

// Each try: up with a pool (~3 s), the rounds, the crash restart (~1 s), down; 90 s each bounds it.
it(
  `a server process of a pool's server killed at a random moment (${backendTries} tries): the pool works again after the crash restart, down leaves nothing`,
  { timeout: 90_000 * backendTries },
  async () => {
    for (let n = 0; n < backendTries; n++) {
      const r = await backendKillTry(ctx, seed, n);
      console.log(
        `backend kill ${n} [seed ${seed}]: SIGKILL at ${r.killedAtMs} ms after ${r.roundsBefore} rounds; ${r.roundsAfter} rounds after; ${r.leaks.length ? `LEFT ${r.leaks.join('; ')}` : 'nothing left'}`,
      );
      expect(r.leaks, `seed ${seed}, backend try ${n}`).toEqual([]);
      expect(r.killedAtMs).toBeGreaterThanOrEqual(0);
      expect(r.roundsAfter).toBe(10);
    }
  },
);
