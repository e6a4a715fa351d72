/**
 * Docker mode's failure paths through the CLI, on the real engine: a server that exits, a daemon
 * that does not answer, no docker command. Each fails clearly and leaves nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-cli-'));
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...env, ...extraEnv },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI, docker mode', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    requireImages();
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    cli(['down', '--name', 'ok']);
    rmSync(work, { recursive: true, force: true });
  });

  it('prints export lines that connect, for the 18+ layout image', async () => {
    const r = cli(['up', '--image', TEST_IMAGES.layout18, '--name', 'ok', '--user', 'dev', '--password', 'pw with spaces']);
    expect(r.status, r.stderr).toBe(0);
    const uri = /^export DATABASE_URL='(.*)'$/m.exec(r.stdout)?.[1] ?? '';
    const client = new pg.Client({ connectionString: uri });
    await client.connect();
    const row = (await client.query<{ u: string; f: string }>("select current_user as u, current_setting('fsync') as f")).rows[0];
    await client.end();
    expect(row).toEqual({ u: 'dev', f: 'off' });
    expect(cli(['down', '--name', 'ok']).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });

  it('a server that exits fails fast with its log, and the container is removed', () => {
    const r = cli([
      'up',
      '--image',
      TEST_IMAGES.layout17,
      '--name',
      'dies',
      '--setting',
      'no_such_setting=1',
      '--wait-timeout',
      '120',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: --settings: the server does not know the setting "no_such_setting"/);
    expect(r.stderr).toMatch(/unrecognized configuration parameter "no_such_setting"/);
    expect(leftovers.added()).toEqual([]);
  });

  it('a daemon that does not answer is a clear error before anything starts', () => {
    const r = cli(['up', '--mode', 'docker', '--image', TEST_IMAGES.layout17, '--name', 'nodaemon'], {
      DOCKER_HOST: `unix://${join(work, 'no-daemon.sock')}`,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/The Docker daemon did not answer.*Start Docker/);
    expect(leftovers.added()).toEqual([]);
  });

  it('no docker command is a clear error naming the fix', () => {
    const r = cli(['up', '--mode', 'docker', '--name', 'nodocker'], { PATH: '/nonexistent' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/The docker command was not found.*Install Docker/);
    expect(leftovers.added()).toEqual([]);
  });
});
