/**
 * The schema cache key: the same inputs give the same key, and changing any one thing that
 * shapes the cluster gives another (the stale-template bug is a key that missed one).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/inputs.js';
import {
  noManifest,
  readSchemaInputs,
  schemaCacheKey,
  type SchemaInputs,
  type ServerIdentity,
} from '../../src/schema-cache/key.js';
import { inputError, parse } from '../helpers/inputs.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-key-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const docker: ServerIdentity = { mode: 'docker', imageId: 'sha256:aaa', platform: 'linux/amd64', initdbArgs: ['--nosync'] };
const native: ServerIdentity = {
  mode: 'native',
  version: 'postgres (PostgreSQL) 15.18',
  bindir: '/usr/lib/postgresql/15/bin',
  arch: 'x64',
  initdbArgs: ['--nosync', '--username=postgres', '--locale=C'],
  extensionControls: { pg_trgm: 'abc' },
};
const base: SchemaInputs = {
  user: 'postgres',
  database: 'app',
  databases: ['other'],
  extensions: ['pg_trgm'],
  template: false,
  init: [{ path: 'db/001.sql', sha256: '1'.repeat(64) }],
  initCommand: '',
  files: [{ path: 'package-lock.json', sha256: '2'.repeat(64) }],
  extra: '',
  settings: ['fsync=off', 'full_page_writes=off'],
};

describe('schema cache key', () => {
  it('is the same for the same inputs, and names its format and mode in letters, digits and dashes', () => {
    const a = schemaCacheKey(base, docker).key;
    expect(schemaCacheKey({ ...base }, { ...docker }).key).toBe(a);
    expect(a).toMatch(/^pg-tmpfs-schema-1-docker-[0-9a-f]{32}$/);
    expect(schemaCacheKey(base, native).key).toMatch(/^pg-tmpfs-schema-1-native-[0-9a-f]{32}$/);
  });

  const changes: Array<[string, SchemaInputs, ServerIdentity]> = [
    ['image ID', base, { ...docker, imageId: 'sha256:bbb' }],
    [
      'image platform (one index ID on every platform: the containerd image store)',
      base,
      { ...docker, platform: 'linux/arm64/v8' },
    ],
    ['initdb arguments (locale)', base, { ...docker, initdbArgs: ['--nosync', '--locale=de_DE.UTF-8'] }],
    ['superuser', { ...base, user: 'admin' }, docker],
    ['database', { ...base, database: 'app2' }, docker],
    ['databases', { ...base, databases: ['other', 'third'] }, docker],
    ['extensions', { ...base, extensions: ['pg_trgm', 'hstore'] }, docker],
    ['template', { ...base, template: true }, docker],
    ['an init file', { ...base, init: [{ path: 'db/001.sql', sha256: '3'.repeat(64) }] }, docker],
    [
      'init file order',
      {
        ...base,
        init: [
          { path: 'b.sql', sha256: '1'.repeat(64) },
          { path: 'a.sql', sha256: '2'.repeat(64) },
        ],
      },
      docker,
    ],
    ['init-command', { ...base, initCommand: 'npm run migrate' }, docker],
    ['a schema-cache-files file', { ...base, files: [{ path: 'package-lock.json', sha256: '4'.repeat(64) }] }, docker],
    ['a schema-cache-files path', { ...base, files: [{ path: 'yarn.lock', sha256: '2'.repeat(64) }] }, docker],
    ['schema-cache-key', { ...base, extra: 'v2' }, docker],
    ['a setting (search_path)', { ...base, settings: [...base.settings, 'search_path=app'] }, docker],
  ];
  it.each(changes)('changes with %s', (_what, inputs, server) => {
    expect(schemaCacheKey(inputs, server).key).not.toBe(schemaCacheKey(base, docker).key);
  });

  const nativeChanges: Array<[string, ServerIdentity]> = [
    ['server version', { ...native, version: 'postgres (PostgreSQL) 15.19' }],
    ['binaries folder', { ...native, bindir: '/opt/pg/15/bin' }],
    ['an extension control file', { ...native, extensionControls: { pg_trgm: 'abd' } }],
    ['an extension package installed', { ...native, extensionControls: { pg_trgm: 'abc', postgis: 'def' } }],
    ['processor architecture', { ...native, arch: 'arm64' }],
  ];
  it.each(nativeChanges)('changes with the native %s', (_what, server) => {
    expect(schemaCacheKey(base, server).key).not.toBe(schemaCacheKey(base, native).key);
  });

  it('asks pg_basebackup for no manifest only where the flag exists (13 and later)', () => {
    expect(noManifest('15.18 (Debian 15.18-0+deb12u1)')).toEqual(['--no-manifest']);
    expect(noManifest('13.0')).toEqual(['--no-manifest']);
    expect(noManifest('12.22')).toEqual([]);
    expect(noManifest('9.6.24')).toEqual([]);
  });

  it('does not change with the password', () => {
    const a = parse({ 'schema-cache': 'true', password: 'one' });
    const b = parse({ 'schema-cache': 'true', password: 'two' });
    return Promise.all([readSchemaInputs(a, []), readSchemaInputs(b, [])]).then(([x, y]) =>
      expect(schemaCacheKey(x, docker).key).toBe(schemaCacheKey(y, docker).key),
    );
  });

  it('reads schema-cache-files: contents and paths, sorted, relative to the working folder', async () => {
    mkdirSync(join(work, 'db'), { recursive: true });
    writeFileSync(join(work, 'db', 'b.sql'), 'B');
    writeFileSync(join(work, 'db', 'a.sql'), 'A');
    const config: Config = { ...parse({ 'schema-cache': 'true', 'schema-cache-files': 'db/*.sql' }), workDir: work };
    const first = await readSchemaInputs(config, []);
    expect(first.files.map((f) => f.path)).toEqual(['db/a.sql', 'db/b.sql']);
    writeFileSync(join(work, 'db', 'b.sql'), 'B2');
    const second = await readSchemaInputs(config, []);
    expect(schemaCacheKey(second, docker).key).not.toBe(schemaCacheKey(first, docker).key);
  });

  it('reads a folder in schema-cache-files as every file below it', async () => {
    mkdirSync(join(work, 'migrate', 'sub'), { recursive: true });
    writeFileSync(join(work, 'migrate', '1.rb'), 'one');
    writeFileSync(join(work, 'migrate', 'sub', '2.rb'), 'two');
    const config: Config = { ...parse({ 'schema-cache': 'true', 'schema-cache-files': 'migrate' }), workDir: work };
    const first = await readSchemaInputs(config, []);
    expect(first.files.map((f) => f.path)).toEqual(['migrate/1.rb', 'migrate/sub/2.rb']);
    writeFileSync(join(work, 'migrate', 'sub', '3.rb'), 'three');
    const second = await readSchemaInputs(config, []);
    expect(schemaCacheKey(second, docker).key).not.toBe(schemaCacheKey(first, docker).key);
    mkdirSync(join(work, 'empty'));
    const error = await readSchemaInputs({ ...config, schemaCacheFiles: ['empty'] }, []).catch((e: unknown) => e);
    expect(error).toMatchObject({ input: 'schema-cache-files' });
  });

  it('refuses schema-cache-files that match nothing, naming the input', async () => {
    const config: Config = { ...parse({ 'schema-cache': 'true', 'schema-cache-files': 'nope/*.rb' }), workDir: work };
    const error = await readSchemaInputs(config, []).catch((e: unknown) => e);
    expect(error).toMatchObject({ input: 'schema-cache-files' });
  });

  it('refuses init-command without schema-cache-files, naming both inputs', () => {
    const error = inputError(() => parse({ 'schema-cache': 'true', 'init-command': 'rails db:prepare' }));
    expect(error.input).toBe('schema-cache-files');
    expect(error.problem).toContain('init-command');
    expect(parse({ 'init-command': 'rails db:prepare' }).schemaCache).toBe(false);
    expect(parse({ 'schema-cache': 'true', 'init-command': 'x', 'schema-cache-files': 'db/**' }).schemaCacheFiles).toEqual([
      'db/**',
    ]);
  });

  it('refuses a schema-cache-key with a line break, and a schema-cache that is not a boolean', () => {
    expect(inputError(() => parse({ 'schema-cache-key': 'a\u0000b' })).input).toBe('schema-cache-key');
    expect(inputError(() => parse({ 'schema-cache': 'yes' })).input).toBe('schema-cache');
  });
});
