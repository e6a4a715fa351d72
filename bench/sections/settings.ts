/**
 * Section 5: every setting of the durability profile must earn its place on the storage where it
 * is used. On tmpfs and on disk in turn, the same test-suite workloads (1 and 4 clients) on:
 * a stock server (PostgreSQL's defaults), the profile as shipped, the profile with each of its
 * settings put back to PostgreSQL's default, and the profile plus each candidate that users,
 * peers or the manual ("Non-Durable Settings", "Write Ahead Log") apply for speed. Servers of one
 * storage are compared with each other, interleaved. PostgreSQL 18's data checksums and
 * io_method are section 7's.
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { PG_DEFAULTS, startServers, stopServers, withClient, type ServerSpec } from '../lib/pgserver.js';
import { createdbWorkloads, prepareAll, serverMajor, WORKLOADS } from '../lib/workloads.js';
import { settingsStorages } from '../lib/quick.js';
import { DURABILITY_SETTINGS, type Setting } from '../../src/profile.js';

/** Settings that only make sense together (wal_level=minimal requires max_wal_senders=0). */
const TOGETHER: Record<string, string[]> = { wal_level: ['wal_level', 'max_wal_senders'] };
const FOLLOWERS = new Set(Object.values(TOGETHER).flatMap((names) => names.slice(1)));

/** A candidate for the profile: settings and/or initdb arguments added to it. */
export interface Candidate {
  /** Case-id part, e.g. `autovacuum-off`. */
  key: string;
  /** Settings added to the profile. */
  settings: Setting[];
  /** initdb arguments added to the project's (a cluster of its own). */
  initdbArgs?: string[];
  /** A read-only setting the server must then report (initdb-time settings), checked after start. */
  expect?: { name: string; value: string };
  /** Oldest PostgreSQL major that knows it. */
  since: number;
}

const candidate = (name: string, value: string, why: string): Setting => ({ name, value, why });

/**
 * What users, peers and the manual apply for a faster test database, beyond the profile.
 * (shared_buffers has section 3.)
 */
export const CANDIDATES: readonly Candidate[] = [
  {
    key: 'synchronous-commit-off',
    settings: [candidate('synchronous_commit', 'off', 'manual, Non-Durable Settings: COMMIT does not wait for the WAL flush')],
    since: 9,
  },
  {
    key: 'wal-level-minimal',
    settings: [
      candidate('wal_level', 'minimal', 'least WAL: relations created or truncated in a transaction skip it'),
      candidate('max_wal_senders', '0', 'required by wal_level=minimal'),
    ],
    since: 10,
  },
  {
    key: 'autovacuum-off',
    settings: [candidate('autovacuum', 'off', 'no autovacuum workers competing with the tests for CPU')],
    since: 9,
  },
  {
    key: 'checkpoints-raised',
    settings: [
      candidate('checkpoint_timeout', '1d', 'manual, Non-Durable Settings: fewer checkpoints'),
      candidate('max_wal_size', '10GB', 'manual, Non-Durable Settings: fewer checkpoints'),
    ],
    since: 9,
  },
  {
    key: 'wal-buffers-16MB',
    settings: [candidate('wal_buffers', '16MB', 'default -1: 1/32 of shared_buffers (4MB at 128MB), at most 16MB')],
    since: 9,
  },
  {
    key: 'wal-init-zero-off',
    settings: [
      candidate('wal_init_zero', 'off', 'new WAL segments are not zero-filled first (wasted work on tmpfs)'),
      candidate('wal_recycle', 'off', 'old WAL segments are removed, not renamed for reuse'),
    ],
    since: 12,
  },
  {
    key: 'wal-segsize-1',
    settings: [],
    initdbArgs: ['--wal-segsize=1'],
    expect: { name: 'wal_segment_size', value: '1MB' },
    since: 11,
  },
];

/** Column label of a candidate: `+ name=value, ...` and `+ initdb ...`. */
function candidateLabel(c: Candidate): string {
  const parts = [...c.settings.map((s) => `${s.name}=${s.value}`), ...(c.initdbArgs ?? []).map((a) => `initdb ${a}`)];
  return `+ ${parts.join(', ')}`;
}

/** Whether every setting of a candidate is already in the profile with that value. */
function inProfile(c: Candidate): boolean {
  return (
    !c.initdbArgs?.length && c.settings.every((s) => DURABILITY_SETTINGS.some((p) => p.name === s.name && p.value === s.value))
  );
}

/**
 * The servers of one storage: PostgreSQL's defaults, the profile as shipped, the profile with each
 * setting (group) restored to PostgreSQL's default, and the profile plus each candidate this
 * major knows that the profile does not already hold.
 */
export function settingSpecs(storage: ServerSpec['storage'], major: number): ServerSpec[] {
  const specs: ServerSpec[] = [
    { key: `${storage}-defaults`, label: 'PostgreSQL defaults', storage, settings: PG_DEFAULTS },
    { key: `${storage}-profile`, label: 'profile as shipped', storage, settings: [] },
  ];
  for (const s of DURABILITY_SETTINGS) {
    if (FOLLOWERS.has(s.name)) continue;
    const names = TOGETHER[s.name] ?? [s.name];
    const restored = PG_DEFAULTS.filter((d) => names.includes(d.name));
    specs.push({
      key: `${storage}-default-${s.name}`,
      label: restored.map((d) => `${d.name}=${d.value}`).join(' + '),
      storage,
      settings: restored,
    });
  }
  for (const c of CANDIDATES) {
    if (c.since > major || inProfile(c)) continue;
    specs.push({
      key: `${storage}-${c.key}`,
      label: candidateLabel(c),
      storage,
      settings: c.settings,
      ...(c.initdbArgs ? { initdbArgs: c.initdbArgs } : {}),
    });
  }
  return specs;
}

/** Rows: every test-suite workload with each client count, and the JIT report's latency. */
function settingRows(ctx: Context, major: number): Row[] {
  const workloads = [
    WORKLOADS.rollback,
    WORKLOADS.truncate,
    WORKLOADS.createDropTable,
    ...createdbWorkloads(major),
    WORKLOADS.tpcb,
  ];
  return [
    ...workloads.flatMap((workload) => ctx.options.clients.map((clients) => ({ workload, clients, metric: 'tps' as const }))),
    { workload: WORKLOADS.jitReport, clients: 1, metric: 'latency_ms' },
  ];
}

export async function runSettings(ctx: Context): Promise<void> {
  const rows = settingRows(ctx, ctx.major);
  for (const storage of settingsStorages(ctx)) {
    const specs = settingSpecs(storage, ctx.major);
    ctx.log(`settings (${storage}): starting ${specs.length} servers`);
    const servers = await startServers(ctx, specs);
    try {
      const major = await serverMajor(servers[0] as (typeof servers)[number]);
      if (major !== ctx.major) throw new Error(`server major ${major}, expected ${ctx.major}`);
      for (const s of servers) {
        const expect = CANDIDATES.find((c) => s.spec.key === `${storage}-${c.key}`)?.expect;
        if (!expect) continue;
        const actual = await withClient(s, async (c) => {
          const r = await c.query<{ v: string }>('SELECT current_setting($1) AS v', [expect.name]);
          return r.rows[0]?.v;
        });
        if (actual !== expect.value) throw new Error(`${s.spec.label}: ${expect.name} is ${actual}, not ${expect.value}`);
      }
      ctx.log(`settings (${storage}): preparing fixtures, template database, pgbench and JIT tables`);
      await prepareAll(
        servers,
        rows.map((r) => r.workload),
        Math.max(...rows.map((r) => r.clients)),
        ctx.options.scale,
      );
      await compare(ctx, 'settings', servers, rows, storage);
    } finally {
      await stopServers(servers);
    }
  }
}
