/**
 * The hardening issue's classes that need a real server and have no row elsewhere: settings
 * compared the way PostgreSQL reads them (timezone=UTC), a damaged initdb cache entry, the Unix
 * socket closed to other local users even in a folder they can reach, and the password kept out
 * of a server log that logs every statement. Native mode through the CLI (dist/cli.js); the
 * settings also in Docker mode.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hardening-'));
const env: NodeJS.ProcessEnv = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };
delete env.PGPASSWORD;
beforeAll(() => requireImages());
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface UpJson {
  port: number;
  socketDirectory: string;
  cacheHit: boolean;
  settings: Array<{ name: string; actual: string | null; ok: boolean; verified: boolean }>;
}

function up(args: string[]): UpJson {
  const r = cli(['up', '--json', '--quiet', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

describe.each([
  ['native', ['--mode', 'native', '--postgres-version', NATIVE_MAJOR]],
  ['docker', ['--image', TEST_IMAGES[18]]],
])('settings as PostgreSQL reads them, %s mode', (_mode, modeArgs) => {
  it('timezone=UTC, DateStyle in lower case and an extension setting start; each is reported as the server has it', () => {
    const leftovers = leftoverSnapshot();
    const server = up([
      ...modeArgs,
      '--name',
      'settings',
      '--setting',
      'timezone=UTC',
      '--setting',
      'datestyle=iso, dmy',
      '--setting',
      'pg_tmpfs_test.flag=on',
    ]);
    const byName = new Map(server.settings.map((s) => [s.name, s]));
    expect(byName.get('timezone')).toMatchObject({ actual: 'UTC', ok: true, verified: true });
    expect(byName.get('datestyle')).toMatchObject({ actual: 'ISO, DMY', ok: true, verified: true });
    expect(byName.get('pg_tmpfs_test.flag')).toMatchObject({ ok: true, verified: false });
    expect(cli(['down', '--name', 'settings']).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });
});

describe('native mode', () => {
  const native = ['--mode', 'native', '--postgres-version', NATIVE_MAJOR];

  it('a damaged initdb cache entry is dropped and filled again, with a warning', () => {
    const cache = join(work, 'cache');
    const first = up([...native, '--name', 'cache', '--cache-dir', cache]);
    expect(first.cacheHit).toBe(false);
    expect(cli(['down', '--name', 'cache']).status).toBe(0);
    const entry = join(cache, readdirSync(cache).find((n) => /^[0-9a-f]{32}$/.test(n)) ?? '');
    // A catalog file cut short, as a full disk or a killed copy would leave it.
    truncateSync(join(entry, 'global', 'pg_control'), 100);
    const r = cli(['up', '--json', ...native, '--name', 'cache', '--cache-dir', cache]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: initdb cache entry not used \(.*global\/pg_control has 100 bytes, not 8192\): ran initdb again/,
    );
    expect((JSON.parse(r.stdout) as UpJson).cacheHit).toBe(false);
    expect(cli(['down', '--name', 'cache']).status).toBe(0);
  });

  it('with log_statement=all the server log never shows the password (it is sent as a SCRAM verifier)', () => {
    const password = 'Pg-tmpfs-secret-4711';
    const server = up([...native, '--name', 'log', '--password', password, '--setting', 'log_statement=all']);
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
    up([...native, '--name', 'killed']);
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
