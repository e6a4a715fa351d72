/**
 * The schema cache in Docker mode through the CLI, on both PGDATA layouts of the official image
 * (up to 17 and from 18): a miss saves the cluster after init (pg_basebackup in the container), a
 * hit restores it into the container's tmpfs PGDATA before the image's entrypoint runs (no
 * initdb, no init, this run's password), with --no-wait too; another image is another key; a
 * damaged entry is a miss with a warning. No anonymous volume, container or file is left.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, officialPgdata, queryValue, requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-schema-docker-'));
const project = join(work, 'project');
const cacheDir = join(work, 'cache');
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: cacheDir };
const names = new Set<string>();

interface UpJson {
  connectionUri: string;
  schemaCacheHit?: boolean;
  schemaCacheKey?: string;
  databases: Record<string, string>;
  templateDatabase?: string;
  dataDirectory: string;
  tmpfs: boolean;
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    cwd: project,
    env,
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A start with init, seed data, an extra database, an extension and a template. */
const SCHEMA = [
  '--database',
  'app',
  '--databases',
  'other',
  '--extensions',
  'pg_trgm',
  '--init',
  'db/*.sql',
  '--template',
  '--schema-cache',
];

function up(name: string, image: string, extra: string[] = []): { json: UpJson; stderr: string } {
  names.add(name);
  const r = cli(['up', '--mode', 'docker', '--image', image, '--name', name, '--json', ...SCHEMA, ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout) as UpJson, stderr: r.stderr };
}

function down(name: string): void {
  const r = cli(['down', '--name', name]);
  expect(r.status, r.stderr).toBe(0);
}

/** When init wrote the seed rows: the same after a hit, since init did not run. */
const SEEDED_AT = 'select min(at)::text as v from seed';

describe('schema cache, Docker mode (CLI)', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    requireImages();
    leftovers = leftoverSnapshot();
    mkdirSync(join(project, 'db'), { recursive: true });
    writeFileSync(
      join(project, 'db', '001_schema.sql'),
      'CREATE TABLE seed (id int PRIMARY KEY, name text, at timestamptz DEFAULT clock_timestamp());\n',
    );
    writeFileSync(
      join(project, 'db', '002_data.sql'),
      "INSERT INTO seed (id, name) SELECT g, 'row ' || g FROM generate_series(1, 500) g;\n",
    );
  });
  afterAll(() => {
    for (const name of names) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });

  const keys: string[] = [];
  for (const layout of ['layout17', 'layout18'] as const) {
    const image = TEST_IMAGES[layout];
    const major = image.split(':')[1] ?? '';
    it(`${image}: misses and saves, then hits into the tmpfs PGDATA (no init, new password), also with --no-wait`, async () => {
      const miss = up(`miss-${major}`, image, ['--password', 'first-secret']);
      expect(miss.json.schemaCacheHit).toBe(false);
      expect(miss.json.schemaCacheKey).toMatch(/^pg-tmpfs-schema-1-docker-[0-9a-f]{32}$/);
      expect(miss.stderr).toMatch(/schema cache miss: [\s\S]*Init SQL: 2 files in app[\s\S]*schema cache saved: /);
      const seededAt = await queryValue(miss.json.connectionUri, SEEDED_AT);
      down(`miss-${major}`);
      keys.push(miss.json.schemaCacheKey ?? '');

      const hit = up(`hit-${major}`, image, ['--password', 'second-secret']);
      expect([hit.json.schemaCacheHit, hit.json.schemaCacheKey]).toEqual([true, miss.json.schemaCacheKey]);
      expect(hit.stderr).not.toContain('Init SQL');
      expect(hit.stderr).toContain('<wait for the schema cache restore>');
      const uri = hit.json.connectionUri;
      expect(uri).toContain('second-secret');
      expect(await queryValue(uri, SEEDED_AT)).toBe(seededAt);
      expect(await queryValue(uri, 'select count(*) as v from seed')).toBe('500');
      expect(await queryValue(uri, "select count(*) as v from pg_extension where extname = 'pg_trgm'")).toBe('1');
      expect(await queryValue(uri, "select datistemplate as v from pg_database where datname = 'app'")).toBe('true');
      expect(await queryValue(hit.json.databases.other ?? '', 'select current_database() as v')).toBe('other');
      expect(await queryValue(uri, "select current_setting('fsync') as v")).toBe('off');
      expect([hit.json.dataDirectory, hit.json.tmpfs]).toEqual([officialPgdata(major), true]);
      await expect(queryValue(uri.replace('second-secret', 'first-secret'), 'select 1 as v')).rejects.toThrow(
        /password authentication failed/,
      );
      down(`hit-${major}`);

      names.add(`nowait-${major}`);
      const started = cli(['up', '--mode', 'docker', '--image', image, '--name', `nowait-${major}`, '--no-wait', ...SCHEMA]);
      expect(started.status, started.stderr).toBe(0);
      const waited = cli(['wait', '--name', `nowait-${major}`, '--json']);
      expect(waited.status, waited.stderr).toBe(0);
      const json = JSON.parse(waited.stdout) as UpJson;
      expect(json.schemaCacheHit).toBe(true);
      expect(await queryValue(json.connectionUri, SEEDED_AT)).toBe(seededAt);
      down(`nowait-${major}`);
    });
  }

  it('another image is another key', () => {
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('takes a damaged entry as a miss with a warning, runs init, and saves it anew; a changed init file misses', async () => {
    const image = TEST_IMAGES.layout18;
    const entry = join(cacheDir, 'schema', keys[1] ?? '');
    appendFileSync(join(entry, 'base.tar'), 'x');
    const damaged = up('damaged', image);
    expect(damaged.stderr).toMatch(
      /warning: schema cache entry .* not used \(base\.tar has (\d+) bytes, not (\d+)\): a miss, init runs/,
    );
    expect(damaged.stderr).toContain('Init SQL: 2 files in app');
    expect(damaged.json.schemaCacheHit).toBe(false);
    expect(await queryValue(damaged.json.connectionUri, 'select count(*) as v from seed')).toBe('500');
    down('damaged');
    expect(up('damaged-after', image).json.schemaCacheHit).toBe(true);
    down('damaged-after');

    appendFileSync(join(project, 'db', '002_data.sql'), "INSERT INTO seed (id, name) VALUES (1000, 'added');\n");
    const changed = up('changed', image);
    expect(changed.json.schemaCacheHit).toBe(false);
    expect(changed.json.schemaCacheKey).not.toBe(keys[1]);
    expect(await queryValue(changed.json.connectionUri, 'select count(*) as v from seed')).toBe('501');
    down('changed');
  });

  it('leaves nothing behind', () => {
    expect(leftovers.added()).toEqual([]);
  });
});
