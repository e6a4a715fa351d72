/**
 * Fills across PID namespaces (issue #43, wrong result 4): a fill made in another namespace (a
 * container or runner sharing the cache folder) whose PID this one cannot see is live while its
 * heartbeat is fresh; one of this namespace whose process is gone is stale at once.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleFills } from '../../src/store/removal.js';
import { FOREIGN_STALE_MS, fillIsLive, fillSuffix, heartbeat, PID_NS_HEX } from '../../src/store/fill-name.js';

const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-fill-name-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Above pid_max's default: no such process here. */
const DEAD = 2 ** 22 + 4321;
/** A namespace that is not this one. */
const OTHER_NS = PID_NS_HEX === 'f0000001' ? 'f0000002' : 'f0000001';

describe('fill names and their liveness', () => {
  it('this process names its namespace (Linux) in every fill', () => {
    expect(PID_NS_HEX).toMatch(/^[0-9a-f]{8}$/);
    expect(fillSuffix()).toMatch(new RegExp(`^\\.tmp-${process.pid}-${PID_NS_HEX}[0-9a-f]{8}$`));
  });

  it('removeStaleFills leaves another namespace’s fresh fill, removes it once its heartbeat is old, and ours at once', async () => {
    const foreign = join(dir, `k1.tmp-${DEAD}-${OTHER_NS}0badcafe`);
    const foreignManifest = join(dir, `k1.tmp-${DEAD}-${OTHER_NS}0badcafe.manifest.json`);
    const ours = join(dir, `k2.tmp-${DEAD}-${PID_NS_HEX}deadbeef`);
    const oldFormat = join(dir, `k3.tmp-${DEAD}-abcd1234`);
    for (const d of [foreign, ours, oldFormat]) mkdirSync(join(d, 'base'), { recursive: true, mode: 0o700 });
    writeFileSync(foreignManifest, '{}', { mode: 0o600 });
    expect((await removeStaleFills(dir)).removed).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([
      `k1.tmp-${DEAD}-${OTHER_NS}0badcafe`,
      `k1.tmp-${DEAD}-${OTHER_NS}0badcafe.manifest.json`,
    ]);
    const old = new Date(Date.now() - FOREIGN_STALE_MS - 1_000);
    for (const p of [foreign, foreignManifest]) utimesSync(p, old, old);
    expect((await removeStaleFills(dir)).removed).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a heartbeat keeps a foreign fill live; this process’s own fills are live', async () => {
    const foreign = join(dir, `k4.tmp-${DEAD}-${OTHER_NS}00000001`);
    mkdirSync(foreign);
    const old = new Date(Date.now() - FOREIGN_STALE_MS - 1_000);
    utimesSync(foreign, old, old);
    expect(fillIsLive(foreign, DEAD, `${OTHER_NS}00000001`)).toBe(false);
    const stop = heartbeat([foreign], 20);
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect(fillIsLive(foreign, DEAD, `${OTHER_NS}00000001`)).toBe(true);
    } finally {
      stop();
    }
    expect(fillIsLive(join(dir, 'x'), process.pid, `${PID_NS_HEX}00000000`)).toBe(true);
    rmSync(foreign, { recursive: true });
  });
});
