/**
 * Section 11's PGlite row (issue #36): SQLAlchemy's slice (bench/lib/real-suite.ts) against
 * PGlite through pglite-socket, a fresh PGlite process per run (bench/lib/pglite.ts). The suite
 * may fail tests there: the row is still measured, and its details carry the counts and the
 * first failures' reasons from the JUnit XML.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { Context } from './context.js';
import { commitLatencyMs } from './disk-model.js';
import { PGLITE_MAX_CONNECTIONS, pgliteDetails, spawnPglite } from './pglite.js';
import { withClient } from './pgserver.js';
import { ensureSuite, runSuite, SLICE, SUITE_DATABASE, SUITE_SETUP_SQL } from './real-suite.js';
import { measureVariants } from './timed.js';

/** One failed or erroring test from JUnit XML. */
export interface SuiteFailure {
  /** `classname::name`. */
  test: string;
  /** The first line of the failure's or error's message. */
  reason: string;
}

/**
 * The failed and erring tests of pytest's JUnit XML, in file order, each with the first line of
 * its message (else of its text), character references decoded; at most `limit`.
 * @throws Error when the XML holds no testsuite
 */
export function junitFailures(xml: string, limit = Infinity): SuiteFailure[] {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', textNodeName: 'text', htmlEntities: true }).parse(
    xml,
  ) as Record<string, unknown>;
  const root = (doc.testsuites ?? doc) as Record<string, unknown>;
  const suites = ([] as unknown[]).concat(root.testsuite ?? []) as Array<Record<string, unknown>>;
  if (!suites.length) throw new Error('JUnit XML without a testsuite');
  const out: SuiteFailure[] = [];
  for (const s of suites) {
    for (const t of ([] as unknown[]).concat(s.testcase ?? []) as Array<Record<string, unknown>>) {
      const bad = t.failure ?? t.error;
      if (bad === undefined) continue;
      const first = ([] as unknown[]).concat(bad)[0];
      const text =
        typeof first === 'string'
          ? first
          : String((first as Record<string, unknown>).message ?? (first as Record<string, unknown>).text ?? '');
      const reason = text.trim().split('\n')[0]?.trim() ?? '';
      out.push({ test: `${String(t.classname)}::${String(t.name)}`, reason });
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/** A reason and how many tests failed or erred for it. */
export interface ReasonCount {
  reason: string;
  count: number;
}

/**
 * The distinct reasons of `failures`, the most frequent first (ties: first met first), with
 * port numbers written `PORT` so one server's runs compare.
 */
export function reasonCounts(failures: readonly SuiteFailure[]): ReasonCount[] {
  const counts = new Map<string, number>();
  for (const f of failures) {
    const reason = f.reason.replace(/port \d+/g, 'port PORT');
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
}

/** Failures kept per run in the details. */
const FAILURES_KEPT = 5;

/** Deadline of one suite run on PGlite (the full slice takes minutes there). */
const SUITE_TIMEOUT_MS = 1_200_000;

/**
 * `real_suite/pglite-socket`: per repetition, a fresh PGlite with citext and hstore loaded (the
 * suite creates both), served by pglite-socket; the suite's schemas made; the commit probe; then
 * the slice with `--dburi …/test`. pglite-socket serves PGlite's one database whatever a client
 * asks for, so the suite runs in `postgres` (CREATE DATABASE test is tried, and what a connection to
 * `test` is served, and both kept).
 */
export async function runPgliteRealSuite(ctx: Context): Promise<void> {
  const suite = await ensureSuite(ctx.log);
  const files = ctx.options.quick ? SLICE.quick : SLICE.full;
  await measureVariants(ctx, 'real_suite', [
    {
      key: 'pglite-socket',
      label: 'PGlite via pglite-socket (in memory, one shared session)',
      async measure(rep) {
        const child = await spawnPglite(
          ctx,
          { socket: true, extensions: true, maxConnections: PGLITE_MAX_CONNECTIONS.suite },
          SUITE_TIMEOUT_MS + 600_000,
        );
        try {
          const created = await withClient({ socketDir: '', conn: child.conn }, (c) =>
            c.query(`CREATE DATABASE ${SUITE_DATABASE}`),
          ).then(
            () => 'succeeds',
            (e: unknown) => `fails: ${e instanceof Error ? e.message : String(e)}`,
          );
          const served = await withClient(
            { socketDir: '', conn: child.conn },
            (c) => c.query<{ d: string }>('SELECT current_database() AS d'),
            SUITE_DATABASE,
          ).then((r) => r.rows[0]?.d ?? '?');
          const createDatabase = `${created}; a connection asking for ${SUITE_DATABASE} is served database ${served}`;
          await withClient({ socketDir: '', conn: child.conn }, async (c) => {
            for (const sql of SUITE_SETUP_SQL) await c.query(sql);
          });
          const commitMs = await commitLatencyMs(child.conn);
          const junit = join(ctx.diskWork, `junit-pglite-${rep}.xml`);
          const r = await runSuite(suite, child.conn, files, junit, SUITE_TIMEOUT_MS);
          const all = junitFailures(readFileSync(junit, 'utf8'));
          const failures = all.slice(0, FAILURES_KEPT);
          const reasons = reasonCounts(all).slice(0, FAILURES_KEPT);
          return {
            seconds: r.seconds,
            details: {
              ...r.counts,
              commitMs,
              failures,
              reasons,
              createDatabase,
              maxConnections: PGLITE_MAX_CONNECTIONS.suite,
              ...pgliteDetails('real_suite'),
            },
          };
        } finally {
          await child.stop();
        }
      },
    },
  ]);
}
