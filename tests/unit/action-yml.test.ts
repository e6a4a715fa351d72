import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/inputs.js';
import { outputsOf } from '../../src/outputs.js';
import type { Started } from '../../src/server.js';
import { ROOT } from '../helpers/infra.js';

interface ActionYml {
  inputs: Record<string, { description: string; default: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post: string };
  branding: { icon: string; color: string };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

describe('action.yml', () => {
  it('declares every input the code reads, with the same defaults and a description', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.keys(DEFAULTS).sort());
    for (const [name, value] of Object.entries(DEFAULTS)) {
      expect(String(action.inputs[name]?.default), name).toBe(value);
      expect(action.inputs[name]?.description.length, name).toBeGreaterThan(10);
    }
  });

  it('declares exactly the outputs the code sets', () => {
    const started: Started = {
      mode: 'docker',
      connection: { host: 'h', port: 1, user: 'u', password: 'p', database: 'd' },
      containerId: '',
      source: '',
      serverVersion: '',
      dataDirectory: '',
      filesystem: '',
      tmpfs: true,
      settings: [],
      startupMs: 0,
      pullMs: 0,
      socketDirectory: '',
      cacheHit: null,
    };
    expect(Object.keys(action.outputs).sort()).toEqual(Object.keys(outputsOf(started)).sort());
  });

  it('runs on node24 with a post step, from the committed bundle', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/main.js', post: 'dist/post.js' });
    expect(action.branding.icon).toBeTruthy();
  });
});
