/**
 * The pieces of the warm start that need no server: facts kept by file identity, and phases.
 * They touch only a temporary folder. The cache entry and its copy are in warm-start.test.ts.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FACTS_FILE, factsIn } from '../../src/native/source/facts.js';
import { Phases } from '../../src/timing.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgt-warm-'));
  chmodSync(dir, 0o700);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('facts kept by file identity', () => {
  it('computes a fact once per program file and keeps it in facts.json', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    let runs = 0;
    const compute = () => {
      runs += 1;
      return `postgres (PostgreSQL) 15.${runs}`;
    };
    expect(factsIn(dir).get(program, '--version', compute)).toBe('postgres (PostgreSQL) 15.1');
    // A new process (a new store) reads the file instead of running the program.
    expect(factsIn(dir).get(program, '--version', compute)).toBe('postgres (PostgreSQL) 15.1');
    expect(runs).toBe(1);
    expect(statSync(join(dir, FACTS_FILE)).mode & 0o777).toBe(0o600);
  });

  it('asks again when the program file changes (an upgrade), and for another fact of it', () => {
    const program = join(dir, 'initdb');
    writeFileSync(program, 'v1');
    expect(factsIn(dir).get(program, '--version', () => 'old')).toBe('old');
    writeFileSync(program, 'version 2, longer');
    utimesSync(program, new Date(), new Date(Date.now() + 5000));
    expect(factsIn(dir).get(program, '--version', () => 'new')).toBe('new');
    expect(factsIn(dir).get(program, '--bindir', () => '/x')).toBe('/x');
  });

  it('keeps no unknown answer, and a missing program is computed every time', () => {
    const program = join(dir, 'pg_config');
    writeFileSync(program, '');
    expect(factsIn(dir).get(program, '--bindir', () => null)).toBeNull();
    expect(factsIn(dir).get(program, '--bindir', () => '/now')).toBe('/now');
    expect(factsIn(dir).get(join(dir, 'absent'), '--version', () => 'computed')).toBe('computed');
    expect(JSON.stringify(JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')))).not.toContain('absent');
  });

  it('does not believe or write facts in a folder others can write to', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    factsIn(dir).get(program, '--version', () => 'true answer');
    const planted = JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')) as Record<string, string>;
    for (const key of Object.keys(planted)) planted[key] = 'planted';
    writeFileSync(join(dir, FACTS_FILE), JSON.stringify(planted));
    chmodSync(dir, 0o777);
    expect(factsIn(dir).get(program, '--version', () => 'computed')).toBe('computed');
    chmodSync(dir, 0o700);
    expect(factsIn(dir).get(program, '--version', () => 'computed')).toBe('planted');
  });

  it('counts an unreadable facts file as empty and replaces it', () => {
    const program = join(dir, 'postgres');
    writeFileSync(program, 'v1');
    writeFileSync(join(dir, FACTS_FILE), '{not json');
    expect(factsIn(dir).get(program, '--version', () => 'fresh')).toBe('fresh');
    expect(factsIn(dir).get(program, '--version', () => 'again')).toBe('fresh');
  });
});

/** A small cluster-like entry: three databases, global/, pg_wal/ and a config file. */

describe('phases', () => {
  it('each end() closes the phase begun at the previous one; a repeated name adds up', () => {
    const p = new Phases(0);
    p.end('first');
    p.end('second');
    p.end('first');
    const ms = p.snapshot();
    expect(Object.keys(ms)).toEqual(['first', 'second']);
    expect(ms.first).toBeGreaterThan(0);
    expect(ms.second).toBeGreaterThanOrEqual(0);
  });
});
