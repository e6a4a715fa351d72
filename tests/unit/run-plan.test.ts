import { describe, expect, it } from 'vitest';
import { buildRunPlan, parseDockerPort, pgdataFromEnv } from '../../src/docker/run-plan.js';
import { parseInputs, type InputName } from '../../src/inputs.js';

const config = (given: Partial<Record<InputName, string>>) =>
  parseInputs((name) => ({ 'container-name': 'pg-test', ...given })[name] ?? '');

describe('buildRunPlan', () => {
  it('mounts a tmpfs on the PGDATA it is given, publishes on 127.0.0.1 and turns durability off', () => {
    const { args, env } = buildRunPlan(config({ 'tmpfs-size': '1g' }), '/var/lib/postgresql/18/docker');
    expect(args.slice(0, 4)).toEqual(['run', '--detach', '--name', 'pg-test']);
    expect(args[args.indexOf('--tmpfs') + 1]).toBe('/var/lib/postgresql/18/docker:rw,mode=0700,size=1g');
    expect(args[args.indexOf('--shm-size') + 1]).toBe('512m');
    expect(args[args.indexOf('--publish') + 1]).toBe('127.0.0.1:5432:5432');
    const image = args.indexOf('postgres:18');
    expect(image).toBeGreaterThan(0);
    expect(args.slice(image + 1)).toEqual([
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'wal_level=minimal',
      '-c',
      'max_wal_senders=0',
      '-c',
      'jit=off',
    ]);
    expect(env.POSTGRES_INITDB_ARGS).toBe('--nosync');
  });

  it('keeps credentials out of argv: -e NAME only, values in the docker process env', () => {
    const { args, env } = buildRunPlan(config({ password: 's3cret!', user: 'alice', database: 'app' }), '/d');
    expect(args.join(' ')).not.toContain('s3cret');
    expect(args.filter((a, i) => args[i - 1] === '--env')).toEqual([
      'POSTGRES_USER',
      'POSTGRES_PASSWORD',
      'POSTGRES_DB',
      'POSTGRES_INITDB_ARGS',
    ]);
    expect(env).toMatchObject({ POSTGRES_USER: 'alice', POSTGRES_PASSWORD: 's3cret!', POSTGRES_DB: 'app' });
  });

  it('lets Docker pick the port for port 0 and brackets IPv6 hosts', () => {
    expect(buildRunPlan(config({ port: '0' }), '/d').args).toContain('127.0.0.1::5432');
    expect(buildRunPlan(config({ 'publish-host': '::1', port: '6000' }), '/d').args).toContain('[::1]:6000:5432');
  });

  it('puts user settings after the defaults, overriding them', () => {
    const { args } = buildRunPlan(config({ settings: 'fsync=on\nwork_mem=64MB' }), '/d');
    expect(args).toContain('fsync=on');
    expect(args).not.toContain('fsync=off');
    expect(args.at(-1)).toBe('work_mem=64MB');
  });
});

describe('parseDockerPort', () => {
  it('reads the first host port', () => {
    expect(parseDockerPort('127.0.0.1:49153\n')).toBe(49153);
    expect(parseDockerPort('[::1]:5433\n0.0.0.0:5433\n')).toBe(5433);
    expect(() => parseDockerPort('')).toThrow(/no published port/);
  });
});

describe('pgdataFromEnv', () => {
  it('reads PGDATA from the image env for both layouts', () => {
    expect(pgdataFromEnv(['PATH=/bin', 'PGDATA=/var/lib/postgresql/data'])).toBe('/var/lib/postgresql/data');
    expect(pgdataFromEnv(['PGDATA=/var/lib/postgresql/18/docker'])).toBe('/var/lib/postgresql/18/docker');
    expect(pgdataFromEnv(['PATH=/bin'])).toBeNull();
    expect(pgdataFromEnv(null)).toBeNull();
  });
});
