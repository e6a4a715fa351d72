/**
 * Section 5: the durability profile one setting at a time, on tmpfs: the profile as the action
 * applies it, and the profile with one setting put back to PostgreSQL's default. Shows which
 * setting buys what once the data directory is in RAM (and which buys nothing measurable).
 */
import { compare, type Row } from '../lib/compare.js';
import type { Context } from '../lib/context.js';
import { PG_DEFAULTS, startServers, stopServers, type ServerSpec } from '../lib/pgserver.js';
import { createdbWorkloads, prepare, serverMajor, WORKLOADS } from '../lib/workloads.js';
import { DURABILITY_SETTINGS } from '../../src/profile.js';

/** Settings that only make sense together (wal_level=minimal requires max_wal_senders=0). */
const TOGETHER: Record<string, string[]> = { wal_level: ['wal_level', 'max_wal_senders'] };
const FOLLOWERS = new Set(Object.values(TOGETHER).flatMap((names) => names.slice(1)));

/** The profile, then the profile with each setting (group) restored to PostgreSQL's default. */
export function settingSpecs(): ServerSpec[] {
  const specs: ServerSpec[] = [{ key: 'profile', label: 'profile (all off)', storage: 'tmpfs', settings: [] }];
  for (const s of DURABILITY_SETTINGS) {
    if (FOLLOWERS.has(s.name)) continue;
    const names = TOGETHER[s.name] ?? [s.name];
    const restored = PG_DEFAULTS.filter((d) => names.includes(d.name));
    specs.push({
      key: `default-${s.name}`,
      label: restored.map((d) => `${d.name}=${d.value}`).join(' + '),
      storage: 'tmpfs',
      settings: restored,
    });
  }
  return specs;
}

export async function runSettings(ctx: Context): Promise<void> {
  const specs = settingSpecs();
  ctx.log(`settings: starting ${specs.length} servers`);
  const servers = await startServers(ctx, specs);
  try {
    const major = await serverMajor(servers[0] as (typeof servers)[number]);
    const rows: Row[] = [
      { workload: WORKLOADS.truncate, clients: 1, metric: 'tps' },
      ...createdbWorkloads(major).map((workload) => ({ workload, clients: 1, metric: 'tps' as const })),
      { workload: WORKLOADS.tpcb, clients: 1, metric: 'tps' },
      { workload: WORKLOADS.jitReport, clients: 1, metric: 'latency_ms' },
    ];
    for (const s of servers)
      await prepare(
        s,
        rows.map((r) => r.workload),
        1,
        ctx.options.scale,
      );
    await compare(ctx, 'settings', servers, rows);
  } finally {
    await stopServers(servers);
  }
}
