/**
 * The hardening issue's classes that need a real server and have no row elsewhere, native mode
 * through the CLI (dist/cli.js): settings compared the way PostgreSQL reads them (timezone=UTC), a
 * damaged initdb cache entry, the shared memory a killed postmaster leaves, and the password kept
 * out of a server log that logs every statement. The settings row in Docker mode is in
 * hardening-docker.test.ts; what both share in tests/helpers/hardening.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, defineSettingsTests, NATIVE, up, work, type UpJson } from '../helpers/hardening.js';
import { leftoverSnapshot } from '../helpers/infra.js';

afterAll(() => rmSync(work, { recursive: true, force: true }));

defineSettingsTests('native');

describe('native mode', () => {
  it('a damaged initdb cache entry is dropped and filled again, with a warning', () => {
    const cache = join(work, 'cache');
    const first = up([...NATIVE, '--name', 'cache', '--cache-dir', cache]);
    expect(first.cacheHit).toBe(false);
    expect(cli(['down', '--name', 'cache']).status).toBe(0);
    const entry = join(cache, readdirSync(cache).find((n) => /^[0-9a-f]{32}$/.test(n)) ?? '');
    // A catalog file cut short, as a full disk or a killed copy would leave it.
    truncateSync(join(entry, 'global', 'pg_control'), 100);
    const r = cli(['up', '--json', ...NATIVE, '--name', 'cache', '--cache-dir', cache]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: initdb cache entry not used \(.*global\/pg_control has 100 bytes, not 8192\): ran initdb again/,
    );
    expect((JSON.parse(r.stdout) as UpJson).cacheHit).toBe(false);
    expect(cli(['down', '--name', 'cache']).status).toBe(0);
  });

  it('with log_statement=all the server log never shows the password (it is sent as a SCRAM verifier)', () => {
    const password = 'Pg-tmpfs-secret-4711';
    const server = up([...NATIVE, '--name', 'log', '--password', password, '--setting', 'log_statement=all']);
    const log = readFileSync(join(server.socketDirectory, '..', 'server.log'), 'utf8');
    expect(log).toMatch(/statement: ALTER ROLE "postgres" PASSWORD 'SCRAM-SHA-256\$4096:/);
    expect(log).not.toContain(password);
    // The password works over TCP.
    const r = spawnSync('psql', [`postgresql://postgres:${password}@127.0.0.1:${server.port}/postgres`, '-XAtc', 'select 1'], {
      encoding: 'utf8',
    });
    expect(r.stdout.trim(), r.stderr).toBe('1');
    expect(cli(['down', '--name', 'log']).status).toBe(0);
  });

  it('the shared memory a postmaster killed with SIGKILL leaves is removed by down', () => {
    const before = execFileSync('ipcs', ['-m'], { encoding: 'utf8' });
    const leftovers = leftoverSnapshot();
    up([...NATIVE, '--name', 'killed']);
    const status = JSON.parse(cli(['status']).stdout) as Array<{ name: string; server: { pid: number } }>;
    const pid = status.find((s) => s.name === 'killed')?.server.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    expect(cli(['down', '--name', 'killed']).status).toBe(0);
    const after = execFileSync('ipcs', ['-m'], { encoding: 'utf8' });
    const segments = (t: string) => t.split('\n').filter((l) => /^0x/.test(l)).length;
    expect(segments(after)).toBe(segments(before));
    expect(leftovers.added()).toEqual([]);
  });
});
