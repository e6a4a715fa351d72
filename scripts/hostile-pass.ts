/**
 * A rerunnable hostile pass (issue #35): cases of odd input and odd environment against the CLI
 * and the action, each sorted into a class (passed, clear error, wrong result, unclear error,
 * left behind, security, hang). Prints one line per case and the counts per class; writes a JSON
 * report to --out. Starts servers and containers: run it through the e2e lock.
 *
 *   npx tsx scripts/hostile-pass.ts [--only REGEX] [--out report.json]
 */
import { rmSync, writeFileSync } from 'node:fs';
import { leftoverSnapshot } from '../tests/helpers/infra.js';
import { dbCases } from './hostile-pass/cases-db.js';
import { flagCases } from './hostile-pass/cases-flags.js';
import { miscCases } from './hostile-pass/cases-misc.js';
import { moreCases } from './hostile-pass/cases-more.js';
import { CLASSES, type Cls, type HCase, newCtx, type Verdict } from './hostile-pass/lib.js';

/** Deadline of one case, set-up and clean-up aside (ms). */
const CASE_DEADLINE_MS = 180_000;

const argv = process.argv.slice(2);
const opt = (flag: string) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};
const only = opt('--only');
const out = opt('--out');
const all: HCase[] = [...flagCases, ...dbCases, ...miscCases, ...moreCases];
const ids = new Set<string>();
for (const c of all) {
  if (ids.has(c.id)) throw new Error(`duplicate case id ${c.id}`);
  ids.add(c.id);
}
const chosen = all.filter((c) => !only || new RegExp(only).test(`${c.area}/${c.id}`));

interface Row extends Verdict {
  id: string;
  area: string;
  repro: string[];
  ms: number;
  leftovers: string[];
}

const rows: Row[] = [];
const t0 = performance.now();
for (const [n, hc] of chosen.entries()) {
  const c = newCtx(n);
  const snap = leftoverSnapshot();
  const start = performance.now();
  let v: Verdict;
  try {
    v = await Promise.race([
      hc.run(c),
      new Promise<Verdict>((done) =>
        setTimeout(() => done({ cls: 'hang', what: `no verdict in ${CASE_DEADLINE_MS / 1000}s` }), CASE_DEADLINE_MS).unref(),
      ),
    ]);
  } catch (e) {
    v = { cls: 'wrong result', what: `the case threw: ${(e as Error).message}` };
  }
  const ms = Math.round(performance.now() - start);
  for (const u of c.undo.reverse()) {
    try {
      await u();
    } catch {
      /* clean-up goes on */
    }
  }
  const leftovers = snap.added();
  if (leftovers.length && (v.cls === 'passed' || v.cls === 'clear error')) {
    v = { cls: 'left behind', what: `${v.what}; after down: ${leftovers.join(', ')}`, expected: 'nothing left after down' };
  }
  rmSync(c.dir, { recursive: true, force: true });
  const row: Row = { id: hc.id, area: hc.area, ...v, repro: c.log.filter((l) => !/ down --name /.test(l)), ms, leftovers };
  rows.push(row);
  console.log(
    `${v.cls.padEnd(13)} ${hc.area}/${hc.id} (${(ms / 1000).toFixed(1)}s): ${v.what.replace(/\s+/g, ' ').slice(0, 160)}`,
  );
}

const counts = Object.fromEntries(CLASSES.map((k) => [k, rows.filter((r) => r.cls === k).length])) as Record<Cls, number>;
const totalS = Math.round((performance.now() - t0) / 1000);
console.log(`\n${rows.length} cases in ${totalS}s: ${CLASSES.map((k) => `${counts[k]} ${k}`).join(', ')}`);
if (out)
  writeFileSync(
    out,
    `${JSON.stringify({ at: new Date().toISOString(), only: only ?? null, seconds: totalS, counts, rows }, null, 2)}\n`,
  );
process.exit(0);
