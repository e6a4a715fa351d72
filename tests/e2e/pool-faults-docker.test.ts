/**
 * The pool (issue #37) in Docker mode: a pool the tmpfs cannot hold is refused leaving no
 * container, and take / give-back through the CLI (its keeper a host process of this lane). Native
 * mode's faults (a changed template, a killed keeper, bad input) are in pool-faults-native.test.ts;
 * what both share in tests/helpers/pool.ts.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, requireImages, TEST_IMAGES } from '../helpers/infra.js';
import { badInputLeftovers, cli, initFile, poolDatabases, until, withClient, work, type UpJson } from '../helpers/pool.js';

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('pool: bad input leaves nothing', () => {
  const leftovers = badInputLeftovers(['toobig']);

  it('Docker mode: a pool the tmpfs cannot hold is refused, naming tmpfs-size; no container is left', () => {
    requireImages();
    const r = cli(
      ['up', '--mode', 'docker', '--image', TEST_IMAGES[18], '--name', 'toobig', '--database', 'app', '--template'].concat([
        '--init',
        initFile,
        '--pool',
        '9',
        '--tmpfs-size',
        '64m',
      ]),
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pool: is 9: .* PGDATA's tmpfs has [\d.]+ MB free/);
    expect(r.stderr).toContain('tmpfs-size');
    expect(leftovers().added()).toEqual([]); // containers included (leftoverSnapshot)
  });
});

describe('pool: Docker mode', () => {
  let s: UpJson;
  // A diff, not "no containers at all": the engine is shared with whatever else runs on the machine.
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    requireImages();
    leftovers = leftoverSnapshot();
    const r = cli(
      ['up', '--mode', 'docker', '--image', TEST_IMAGES[18], '--name', 'docker', '--database', 'app', '--template'].concat([
        '--init',
        initFile,
        '--pool',
        '2',
        '--json',
      ]),
    );
    expect(r.status, r.stderr).toBe(0);
    s = JSON.parse(r.stdout) as UpJson;
  });
  afterAll(() => {
    cli(['down', '--name', 'docker']);
  });

  it('db take hands out a fresh copy of the template, db give-back returns it and the keeper drops it', async () => {
    expect(s.pool.size).toBe(2);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = cli(['db', 'take', '--name', 'docker', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const taken = JSON.parse(r.stdout) as { database: string; uri: string };
      const t = await withClient(taken.uri, taken.database, async (c) => (await c.query('SELECT id FROM t')).rows);
      expect(t).toEqual([{ id: 1 }]);
      expect(cli(['db', 'give-back', taken.database, '--name', 'docker']).status).toBe(0);
      names.push(taken.database);
    }
    expect(new Set(names).size).toBe(3);
    expect(await until(async () => (await poolDatabases(s.connectionUri)).every((n) => !names.includes(n)))).toBe(true);
    expect(cli(['down', '--name', 'docker']).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });
});
