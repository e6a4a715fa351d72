/**
 * The schema cache in native mode through the CLI: a miss saves the cluster after init, a hit
 * restores it (no initdb, no init, new password), --no-wait too; changing what shapes the schema
 * gives a miss; a damaged or foreign entry is a miss with a warning; several starts at once;
 * the store's bound; a server that cannot be copied (wal_level=minimal, a tablespace outside the
 * data directory, UNLOGGED tables) still starts, and one without WAL senders is copied. Nothing
 * is left behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsUser } from '../../src/native/run/postgres.js';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, ROOT } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-schema-'));
const project = join(work, 'project');
const cacheDir = join(work, 'cache');
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: cacheDir };
const names = new Set<string>();

interface UpJson {
  connectionUri: string;
  port: number;
  schemaCacheHit?: boolean;
  schemaCacheKey?: string;
  databases: Record<string, string>;
  templateDatabase?: string;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], extraEnv: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    cwd: project,
    env: { ...env, ...extraEnv },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The flags of a start with init, seed data, an extra database, an extension and a template. */
const SCHEMA = [
  '--database',
  'app',
  '--databases',
  'other',
  '--extensions',
  'pg_trgm',
  '--init',
  'db/*.sql',
  '--schema-cache-files',
  'schema.lock',
  '--template',
  '--schema-cache',
];

function upArgs(name: string, extra: string[]): string[] {
  names.add(name);
  return ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', name, '--json', ...extra];
}

function up(name: string, extra: string[], extraEnv: Record<string, string> = {}): { json: UpJson; stderr: string } {
  const r = cli(upArgs(name, extra), extraEnv);
  expect(r.status, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout) as UpJson, stderr: r.stderr };
}

function down(name: string): void {
  const r = cli(['down', '--name', name]);
  expect(r.status, r.stderr).toBe(0);
}

/** When the init's seed row was written (now() at init): the same after a hit, since init did not run. */
const SEEDED_AT = 'select min(at)::text as v from seed';

function writeProject(): void {
  mkdirSync(join(project, 'db'), { recursive: true });
  writeFileSync(
    join(project, 'db', '001_schema.sql'),
    'CREATE TABLE seed (id int PRIMARY KEY, name text, at timestamptz DEFAULT clock_timestamp());\n',
  );
  writeFileSync(
    join(project, 'db', '002_data.sql'),
    "INSERT INTO seed (id, name) SELECT g, 'row ' || g FROM generate_series(1, 500) g;\n",
  );
  writeFileSync(join(project, 'schema.lock'), 'v1\n');
}

describe('schema cache, native mode (CLI)', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
    writeProject();
  });
  afterAll(() => {
    for (const name of names) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });

  let firstKey = '';
  let seededAt = '';

  it('misses and saves, then hits: no init ran, the schema, data, databases, extension and template are there, the new password works', async () => {
    const miss = up('miss', [...SCHEMA, '--password', 'first-secret']);
    expect(miss.json.schemaCacheHit).toBe(false);
    expect(miss.json.schemaCacheKey).toMatch(/^pg-tmpfs-schema-1-native-[0-9a-f]{32}$/);
    expect(miss.stderr).toMatch(/schema cache miss: .*\n[\s\S]*Init SQL: 2 files in app[\s\S]*schema cache saved: /);
    firstKey = miss.json.schemaCacheKey ?? '';
    seededAt = await queryValue(miss.json.connectionUri, SEEDED_AT);
    down('miss');

    const hit = up('hit', [...SCHEMA, '--password', 'second-secret']);
    expect(hit.json.schemaCacheHit).toBe(true);
    expect(hit.json.schemaCacheKey).toBe(firstKey);
    expect(hit.stderr).toContain(`schema cache hit: ${firstKey}`);
    expect(hit.stderr).not.toContain('Init SQL');
    expect(hit.stderr).not.toContain('initdb cache');
    const uri = hit.json.connectionUri;
    expect(uri).toContain('second-secret');
    expect(await queryValue(uri, 'select count(*) as v from seed')).toBe('500');
    expect(await queryValue(uri, SEEDED_AT)).toBe(seededAt);
    expect(await queryValue(uri, "select count(*) as v from pg_extension where extname = 'pg_trgm'")).toBe('1');
    expect(await queryValue(uri, "select datistemplate as v from pg_database where datname = 'app'")).toBe('true');
    expect(Object.keys(hit.json.databases)).toEqual(['other']);
    expect(await queryValue(hit.json.databases.other ?? '', 'select current_database() as v')).toBe('other');
    expect(hit.json.templateDatabase).toBe('app');
    expect(await queryValue(uri, "select current_setting('fsync') as v")).toBe('off');
    await expect(queryValue(uri.replace('second-secret', 'first-secret'), 'select 1 as v')).rejects.toThrow(
      /password authentication failed/,
    );
    down('hit');
  });

  it("saves a base backup: its label and the WAL it needs, not the running postmaster's files", () => {
    const entry = join(cacheDir, 'schema', firstKey);
    const top = readdirSync(entry);
    expect(top.filter((n) => /^(postmaster\.|\.s\.PGSQL\.|backup_label$|tablespace_map$)/.test(n))).toEqual(['backup_label']);
    const label = readFileSync(join(entry, 'backup_label'), 'utf8');
    expect(label).toMatch(/^LABEL: pg-tmpfs schema cache$/m);
    const start = /^START WAL LOCATION: \S+ \(file ([0-9A-F]{24})\)$/m.exec(label)?.[1] ?? 'none';
    const wal = readdirSync(join(entry, 'pg_wal')).sort();
    expect(wal[0]).toBe(start);
    expect(wal.at(-1)).toBe('archive_status');
    expect(readdirSync(join(entry, 'pg_wal', 'archive_status'))).toEqual(wal.slice(0, -1).map((n) => `${n}.done`));
    const emptied = 'pg_dynshmem pg_notify pg_replslot pg_serial pg_snapshots pg_stat_tmp pg_subtrans'.split(' ');
    expect(emptied.map((d) => [d, readdirSync(join(entry, d))])).toEqual(emptied.map((d) => [d, []]));
    // Every file is sealed with its fingerprint: a hit copies it without hashing it again.
    const manifest = JSON.parse(readFileSync(`${entry}.manifest.json`, 'utf8')) as {
      files: Record<string, { fingerprint?: string }>;
    };
    const unsealed = Object.entries(manifest.files).filter(([, f]) => !/^\d+:\d+:\d+$/.test(f.fingerprint ?? ''));
    expect(unsealed.map(([path]) => path)).toEqual([]);
  });

  it('hits with --no-wait: wait reports the hit and the schema is there', async () => {
    const r = cli(upArgs('nowait', [...SCHEMA, '--no-wait']));
    expect(r.status, r.stderr).toBe(0);
    const waited = cli(['wait', '--name', 'nowait', '--json']);
    expect(waited.status, waited.stderr).toBe(0);
    const json = JSON.parse(waited.stdout) as UpJson;
    expect([json.schemaCacheHit, json.schemaCacheKey]).toEqual([true, firstKey]);
    expect(await queryValue(json.connectionUri, SEEDED_AT)).toBe(seededAt);
    down('nowait');
  });

  it('misses when an init file, a schema-cache-files file, the extensions or schema-cache-key change', () => {
    const keyOf = (name: string, extra: string[]): { key: string; hit: boolean } => {
      const { json } = up(name, extra);
      down(name);
      return { key: json.schemaCacheKey ?? '', hit: json.schemaCacheHit ?? true };
    };
    appendFileSync(join(project, 'db', '002_data.sql'), "INSERT INTO seed (id, name) VALUES (1000, 'added');\n");
    const changedInit = keyOf('init-changed', SCHEMA);
    writeFileSync(join(project, 'schema.lock'), 'v2\n');
    const changedFiles = keyOf('files-changed', SCHEMA);
    const changedExtensions = keyOf('ext-changed', [...SCHEMA, '--extensions', 'hstore']);
    const changedKey = keyOf('key-changed', [...SCHEMA, '--schema-cache-key', 'v2']);
    const all = [changedInit, changedFiles, changedExtensions, changedKey];
    expect(all.map((k) => k.hit)).toEqual([false, false, false, false]);
    expect(new Set([firstKey, ...all.map((k) => k.key)]).size).toBe(5);
    // Back to the first project: the first entry hits again.
    writeProject();
    expect(keyOf('back', SCHEMA)).toEqual({ key: firstKey, hit: true });
  });

  it('takes a damaged entry as a miss with a warning, runs init, and saves it anew', async () => {
    const entry = join(cacheDir, 'schema', firstKey);
    appendFileSync(join(entry, 'global', 'pg_control'), 'x');
    const { json, stderr } = up('damaged', SCHEMA);
    expect(stderr).toMatch(/warning: schema cache entry .* not used \(.*pg_control has .* bytes.*\): a miss, init runs/);
    expect(stderr).toContain('Init SQL: 2 files in app');
    expect(json.schemaCacheHit).toBe(false);
    expect(await queryValue(json.connectionUri, 'select count(*) as v from seed')).toBe('500');
    down('damaged');
    expect(up('damaged-after', SCHEMA).json.schemaCacheHit).toBe(true);
    down('damaged-after');
  });

  it('takes a foreign entry (not what its key says) as a miss with a warning', async () => {
    // Another key's cluster placed under this key, manifest and all: it copies cleanly, but
    // lacks the database `third` that these inputs ask for.
    const extra = [...SCHEMA, '--databases', 'third'];
    const { json: saved } = up('foreign-fill', extra);
    down('foreign-fill');
    const store = join(cacheDir, 'schema');
    const key = saved.schemaCacheKey ?? '';
    rmSync(join(store, key), { recursive: true });
    cpSync(join(store, firstKey), join(store, key), { recursive: true });
    cpSync(join(store, `${firstKey}.manifest.json`), join(store, `${key}.manifest.json`));
    const { json, stderr } = up('foreign', extra);
    expect(stderr).toMatch(/warning: schema cache entry .* not used \(database third is missing\): a miss, init runs/);
    expect(json.schemaCacheHit).toBe(false);
    expect(await queryValue(json.databases.third ?? '', 'select current_database() as v')).toBe('third');
    down('foreign');
  });

  it('starts several instances at once on one key, both misses and both hits', async () => {
    const extra = [...SCHEMA, '--schema-cache-key', 'parallel'];
    const start = (name: string) =>
      new Promise<Run>((resolve) => {
        const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...upArgs(name, extra)], { cwd: project, env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    for (const round of ['miss', 'hit']) {
      const runs = await Promise.all([start(`par-${round}-1`), start(`par-${round}-2`)]);
      for (const [i, r] of runs.entries()) {
        expect(r.status, r.stderr).toBe(0);
        const json = JSON.parse(r.stdout) as UpJson;
        expect(json.schemaCacheHit).toBe(round === 'hit');
        expect(await queryValue(json.connectionUri, 'select count(*) as v from seed')).toBe('500');
        down(`par-${round}-${i + 1}`);
      }
    }
  });

  it('keeps the store within its bound, least recently used first', () => {
    const bound = { PG_TMPFS_SCHEMA_CACHE_MAX_BYTES: String(120 * 1024 * 1024) };
    const before = readdirSync(join(cacheDir, 'schema')).filter((n) => n.endsWith('.manifest.json')).length;
    expect(before).toBeGreaterThan(2);
    const { json, stderr } = up('bounded', [...SCHEMA, '--schema-cache-key', 'bounded'], bound);
    down('bounded');
    expect(stderr).toMatch(/schema cache: removed \d+ least recently used entries/);
    const left = readdirSync(join(cacheDir, 'schema')).filter((n) => n.endsWith('.manifest.json'));
    expect(left).toContain(`${json.schemaCacheKey}.manifest.json`);
    expect(left.length).toBeLessThan(before + 1);
    expect(left.length).toBeLessThanOrEqual(2);
  });

  it('starts when the cluster cannot be copied (wal_level=minimal), naming the input', async () => {
    const minimal = ['wal_level=minimal', 'max_wal_senders=0'].flatMap((s) => ['--setting', s]);
    const { json, stderr } = up('minimal', [...SCHEMA, '--schema-cache-key', 'minimal', ...minimal]);
    expect(json.schemaCacheHit).toBe(false);
    expect(stderr).toMatch(
      /warning: schema cache not saved: Input 'settings': wal_level=minimal: the running cluster cannot be copied .*Remove wal_level=minimal from settings/,
    );
    expect(await queryValue(json.connectionUri, 'select count(*) as v from seed')).toBe('500');
    down('minimal');
    expect(readdirSync(join(cacheDir, 'schema')).filter((n) => n.startsWith(json.schemaCacheKey ?? '-'))).toEqual([]);
  });

  it('saves and hits with max_wal_senders=0 (the copy needs no replication connection)', async () => {
    const extra = [...SCHEMA, '--schema-cache-key', 'no-senders', '--setting', 'max_wal_senders=0'];
    const miss = up('no-senders', extra);
    expect(miss.stderr).toContain('schema cache saved: ');
    down('no-senders');
    const hit = up('no-senders-hit', extra);
    expect([hit.json.schemaCacheHit, hit.json.schemaCacheKey]).toEqual([true, miss.json.schemaCacheKey]);
    expect(await queryValue(hit.json.connectionUri, "select current_setting('max_wal_senders') as v")).toBe('0');
    expect(await queryValue(hit.json.connectionUri, 'select count(*) as v from seed')).toBe('500');
    down('no-senders-hit');
  });

  it('misses when a setting changes (search_path shapes where init puts its tables)', () => {
    const { json } = up('setting', [...SCHEMA, '--setting', 'search_path=public,pg_catalog']);
    down('setting');
    expect(json.schemaCacheHit).toBe(false);
    expect(json.schemaCacheKey).not.toBe(firstKey);
  });

  it('does not save a cluster with UNLOGGED tables (a copy holds them empty), saying which', async () => {
    writeFileSync(
      join(project, 'db', '003_unlogged.sql'),
      'CREATE UNLOGGED TABLE scratch (id int);\nINSERT INTO scratch VALUES (1);\n',
    );
    try {
      const { json, stderr } = up('unlogged', [...SCHEMA, '--schema-cache-key', 'unlogged']);
      expect(json.schemaCacheHit).toBe(false);
      expect(stderr).toMatch(/warning: schema cache not saved: the cluster has UNLOGGED relations \(app\.public\.scratch\)/);
      expect(await queryValue(json.connectionUri, 'select count(*) as v from scratch')).toBe('1');
      down('unlogged');
      expect(readdirSync(join(cacheDir, 'schema')).filter((n) => n === json.schemaCacheKey)).toEqual([]);
    } finally {
      rmSync(join(project, 'db', '003_unlogged.sql'));
    }
  });

  it('does not save a cluster with a tablespace outside its data directory, saying so', async () => {
    const location = mkdtempSync(join(tmpdir(), 'pg-tmpfs-tablespace-'));
    const runAs = runAsUser();
    if (runAs) chownSync(location, runAs.uid, runAs.gid);
    writeFileSync(
      join(project, 'db', '003_tablespace.sql'),
      `-- pg-tmpfs: no-transaction\nCREATE TABLESPACE outside LOCATION '${location}';\nCREATE TABLE far (id int) TABLESPACE outside;\n`,
    );
    try {
      const { json, stderr } = up('tablespace', [...SCHEMA, '--schema-cache-key', 'tablespace']);
      expect(json.schemaCacheHit).toBe(false);
      expect(stderr).toMatch(
        /warning: schema cache not saved: pg_tblspc\/\d+ in the data directory is a symbolic link \(a tablespace outside it\)/,
      );
      expect(await queryValue(json.connectionUri, 'select count(*) as v from far')).toBe('0');
      down('tablespace');
      expect(readdirSync(join(cacheDir, 'schema')).filter((n) => n.startsWith(json.schemaCacheKey ?? '-'))).toEqual([]);
    } finally {
      rmSync(join(project, 'db', '003_tablespace.sql'));
      rmSync(location, { recursive: true, force: true });
    }
  });

  it('refuses init-command without schema-cache-files before anything starts', () => {
    const r = cli(upArgs('refused', ['--schema-cache', '--init-command', 'true']));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: --schema-cache-files: is empty while init-command is set/);
  });

  it('leaves nothing behind', () => {
    expect(leftovers.added()).toEqual([]);
  });
});
