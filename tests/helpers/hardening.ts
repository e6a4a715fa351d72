/**
 * What the hardening files share (tests/e2e/hardening-native.test.ts and hardening-docker.test.ts):
 * the built CLI (dist/cli.js) with a state folder of the file's own and no PGPASSWORD, `up --json`,
 * and the settings row defined per mode.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, ROOT, TEST_IMAGES } from './infra.js';

/** The file's scratch folder (its state folder, a cache): removed by the file's afterAll. */
export const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hardening-'));
const env: NodeJS.ProcessEnv = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };
delete env.PGPASSWORD;

export function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface UpJson {
  port: number;
  socketDirectory: string;
  cacheHit: boolean;
  settings: Array<{ name: string; actual: string | null; ok: boolean; verified: boolean }>;
}

export function up(args: string[]): UpJson {
  const r = cli(['up', '--json', '--quiet', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

/** Native mode's arguments: the installed binaries of NATIVE_MAJOR. */
export const NATIVE = ['--mode', 'native', '--postgres-version', NATIVE_MAJOR];

/** Settings compared the way PostgreSQL reads them, in `mode`. */
export function defineSettingsTests(mode: 'native' | 'docker'): void {
  const modeArgs = mode === 'native' ? NATIVE : ['--image', TEST_IMAGES[18]];
  describe(`settings as PostgreSQL reads them, ${mode} mode`, () => {
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
}
