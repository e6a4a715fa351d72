/**
 * Second sweep (#26), the initdb cache (native mode): a warm start from an entry tampered with
 * after its fill (a file or a template database changed with its size kept, an entry or one of
 * its files owned by another user, a folder others can write) is a miss with a warning, runs a
 * fresh initdb, and leaves nothing behind.
 */
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { leftoverSnapshot } from '../helpers/infra.js';
import { cli, NAME, NOBODY } from '../helpers/hostile-rows.js';

describe('second sweep (#26): initdb cache', () => {
  /**
   * A warm native start from a cache entry that was tampered with after its fill: `up` must
   * still succeed, with a warning naming the entry and why it was not used, from a fresh initdb
   * (a miss), and leave nothing behind after `down`. The cache holds one entry (format 4) and
   * its manifest, filled by a first start.
   * @param tamper changes the entry (`entry` is its folder)
   * @returns the warning line, the server's `cluster_name`, and the cache folder's names after
   */
  async function tamperedWarmStart(
    tamper: (entry: string) => void,
  ): Promise<{ warning: string; clusterName: string; cacheNames: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-cache-'));
    const env = { PG_TMPFS_STATE_DIR: join(dir, 'state') };
    const cache = join(dir, 'cache');
    const up = ['up', '--name', NAME, '--mode', 'native', '--cache-dir', cache];
    const snap = leftoverSnapshot();
    try {
      const cold = await cli([...up, '--quiet'], env);
      expect(cold.code, cold.stderr).toBe(0);
      expect((await cli(['down', '--name', NAME], env)).code).toBe(0);
      const keys = readdirSync(cache).filter((n) => /^[0-9a-f]{32}$/.test(n));
      expect(keys).toHaveLength(1);
      const entry = join(cache, keys[0] ?? '');
      tamper(entry);

      const warm = await cli([...up, '--json'], env);
      expect(warm.code, warm.stderr).toBe(0);
      const info = JSON.parse(warm.stdout) as { connectionUri: string; cacheHit: boolean };
      expect(info.cacheHit).toBe(false);
      const warnings = warm.stderr.split('\n').filter((l) => l.startsWith('warning: initdb cache entry not used'));
      expect(warnings, warm.stderr).toHaveLength(1);
      expect(warnings[0]).toContain(entry);
      expect(warm.stderr).toMatch(/initdb cache miss: ran initdb --nosync/);
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: info.connectionUri });
      await client.connect();
      let clusterName: string;
      try {
        clusterName = (await client.query<{ cluster_name: string }>('SHOW cluster_name')).rows[0]?.cluster_name ?? '?';
      } finally {
        await client.end();
      }
      const down = await cli(['down', '--name', NAME], env);
      expect(down.code, down.stderr).toBe(0);
      expect(snap.added()).toEqual([]);
      // The fresh entry replaced the tampered one, ours alone: the next start is a hit.
      expect(statSync(entry).uid).toBe(process.geteuid?.());
      const again = await cli([...up, '--json'], env);
      expect(again.code, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { cacheHit: boolean }).cacheHit).toBe(true);
      expect(again.stderr).not.toMatch(/^warning: initdb cache/m);
      expect((await cli(['down', '--name', NAME], env)).code).toBe(0);
      return { warning: warnings[0] ?? '', clusterName, cacheNames: readdirSync(cache).sort() };
    } finally {
      await cli(['down', '--name', NAME], env);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Every folder and file of `entry` and its manifest go to `uid`. */
  function chownEntry(entry: string, uid: number): void {
    execFileSync('chown', ['-R', `${uid}:${uid}`, entry, `${entry}.manifest.json`]);
  }

  it('a file changed with its size kept (cluster_name planted in postgresql.conf) is a miss, not used', async () => {
    const r = await tamperedWarmStart((entry) => {
      const conf = join(entry, 'postgresql.conf');
      const text = readFileSync(conf, 'utf8');
      const planted = text.replace(/^# PostgreSQL configuration file$/m, (line) =>
        `cluster_name='planted' ${'#'.repeat(line.length)}`.slice(0, line.length),
      );
      expect(planted).not.toBe(text);
      expect(Buffer.byteLength(planted)).toBe(Buffer.byteLength(text));
      writeFileSync(conf, planted);
    });
    expect(r.warning).toMatch(/postgresql\.conf does not match the sha256 in its manifest/);
    expect(r.clusterName).toBe('');
    // Our own entry: dropped, nothing set aside.
    expect(r.cacheNames.filter((n) => n.includes('.untrusted-'))).toEqual([]);
  }, 120_000);

  it('a template database changed with its size kept (found after postgres was spawned) is a miss, not used', async () => {
    const r = await tamperedWarmStart((entry) => {
      // template1's largest relation file, one byte flipped in its middle.
      const db = join(entry, 'base', '1');
      const sizes = readdirSync(db)
        .filter((n) => /^\d+$/.test(n))
        .map((n) => ({ file: join(db, n), size: statSync(join(db, n)).size }))
        .sort((a, b) => b.size - a.size);
      const file = sizes[0]?.file ?? '';
      const bytes = readFileSync(file);
      const middle = bytes.length >> 1;
      bytes.writeUInt8((bytes.readUInt8(middle) ^ 0xff) & 0xff, middle);
      writeFileSync(file, bytes);
    });
    expect(r.warning).toMatch(/base\/1\/\d+ does not match the sha256 in its manifest/);
  }, 120_000);

  it('an entry owned by another user (nobody) is a miss, not used, and set aside, not removed', async () => {
    const r = await tamperedWarmStart((entry) => chownEntry(entry, NOBODY));
    expect(r.warning).toMatch(new RegExp(`its manifest belongs to uid ${NOBODY}, not to this user`));
    expect(r.warning).toMatch(/left as \S+\.untrusted-[0-9a-f]{8}, not removed/);
    expect(r.cacheNames.filter((n) => n.includes('.untrusted-'))).toHaveLength(1);
  }, 120_000);

  it('an entry with one file of another user (its manifest ours) is a miss, not used', async () => {
    const r = await tamperedWarmStart((entry) => chownSync(join(entry, 'PG_VERSION'), NOBODY, NOBODY));
    expect(r.warning).toMatch(new RegExp(`PG_VERSION belongs to uid ${NOBODY}, not to this user`));
    // Its folders are all ours: removed, nothing set aside.
    expect(r.cacheNames.filter((n) => n.includes('.untrusted-'))).toEqual([]);
  }, 120_000);

  it('an entry whose folder group and others can write is a miss, not used, and set aside', async () => {
    const r = await tamperedWarmStart((entry) => chmodSync(join(entry, 'global'), 0o777));
    expect(r.warning).toMatch(/global can be written by group or others \(mode 777\)/);
    expect(r.warning).toMatch(/left as \S+\.untrusted-[0-9a-f]{8}, not removed/);
  }, 120_000);
});
