/**
 * Docker mode's failure paths through the CLI, on the real engine: a server that exits, a daemon
 * that does not answer, no docker command. Each fails clearly and leaves nothing behind. And where
 * the tmpfs goes for each image layout: PGDATA on tmpfs, and no anonymous volume for a VOLUME
 * that holds PGDATA (issue #11).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, officialPgdata, requireImages, ROOT, TEST_IMAGES, TEST_MAJORS } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-docker-cli-'));
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state') };
// Every describe block's state goes here: removed after the last one.
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

/** Images derived from the test images, each setting PGDATA or its VOLUMEs another way (`docker build`, offline). */
const DERIVED: Record<string, { dockerfile: string; pgdata: string; volumesLeft: string[] }> = {
  'PGDATA below the VOLUME': {
    dockerfile: `FROM ${TEST_IMAGES[17]}\nENV PGDATA=/var/lib/postgresql/data/pgdata\n`,
    pgdata: '/var/lib/postgresql/data/pgdata',
    volumesLeft: [],
  },
  'nested VOLUMEs holding PGDATA': {
    dockerfile: `FROM ${TEST_IMAGES[17]}\nVOLUME /var/lib/postgresql\n`,
    pgdata: '/var/lib/postgresql/data',
    volumesLeft: [],
  },
  // A VOLUME that does not hold PGDATA keeps Docker's volume (it carries the image's files there).
  'PGDATA outside every VOLUME': {
    dockerfile: `FROM ${TEST_IMAGES[18]}\nENV PGDATA=/pgdata\n`,
    pgdata: '/pgdata',
    volumesLeft: ['/var/lib/postgresql'],
  },
};
const derivedTag = (title: string) => `pg-tmpfs-test/derived:${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

describe('CLI, docker mode: the tmpfs for each image layout', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    requireImages();
    for (const [title, d] of Object.entries(DERIVED)) {
      const r = spawnSync('docker', ['build', '--quiet', '--tag', derivedTag(title), '-'], {
        input: d.dockerfile,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`docker build ${derivedTag(title)}: ${r.stderr}`);
    }
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    cli(['down', '--name', 'layout']);
    spawnSync('docker', ['image', 'rm', ...Object.keys(DERIVED).map(derivedTag)]);
  });

  const rows = [
    ...TEST_MAJORS.map((m) => ({
      title: `PostgreSQL ${m}`,
      image: TEST_IMAGES[m],
      pgdata: officialPgdata(m),
      volumesLeft: [] as string[],
    })),
    ...Object.entries(DERIVED).map(([title, d]) => ({
      title,
      image: derivedTag(title),
      pgdata: d.pgdata,
      volumesLeft: d.volumesLeft,
    })),
  ];
  it.each(rows)('$title: PGDATA on tmpfs, no anonymous volume for a VOLUME that holds it', ({ image, pgdata, volumesLeft }) => {
    const r = cli(['up', '--json', '--mode', 'docker', '--image', image, '--name', 'layout']);
    expect(r.status, r.stderr).toBe(0);
    const up = JSON.parse(r.stdout) as { containerId: string; dataDirectory: string; filesystem: string; tmpfs: boolean };
    expect({ dataDirectory: up.dataDirectory, filesystem: up.filesystem, tmpfs: up.tmpfs }).toEqual({
      dataDirectory: pgdata,
      filesystem: 'tmpfs',
      tmpfs: true,
    });
    const mounts = JSON.parse(
      spawnSync('docker', ['container', 'inspect', '--format', '{{json .Mounts}}', up.containerId], { encoding: 'utf8' }).stdout,
    ) as Array<{ Type: string; Name?: string; Destination: string }>;
    const volumes = mounts.filter((m) => m.Type === 'volume');
    expect(volumes.map((m) => m.Destination)).toEqual(volumesLeft);
    expect(cli(['down', '--name', 'layout']).status).toBe(0);
    const all = spawnSync('docker', ['volume', 'ls', '--quiet'], { encoding: 'utf8' }).stdout.split('\n');
    expect(volumes.filter((v) => all.includes(v.Name ?? ''))).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});
