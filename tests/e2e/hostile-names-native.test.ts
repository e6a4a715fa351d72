/**
 * Issue #35 (third hostile sweep), native mode, through the CLI in-process (runCli): settings
 * another input or the project owns, refused before anything starts; settings the server refuses
 * together; a full state folder; `down` on a record that names a folder pg-tmpfs did not make;
 * database names over 63 bytes in `db` commands; many parallel `db create` on a small
 * max_connections. Every row fails with the input named and leaves nothing
 * (tests/helpers/hostile-rows.ts). Docker mode's rows are in hostile-names-docker.test.ts; what
 * both share in tests/helpers/hostile-names.ts.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot } from '../helpers/infra.js';
import { defineRefusedBeforeStartTests, defineRefusedTogetherTests, SHORT } from '../helpers/hostile-names.js';
import { cleanupCase, cli, NAME, newCase, plantRecord, stateEntries } from '../helpers/hostile-rows.js';

afterEach(cleanupCase);

defineRefusedBeforeStartTests('native');
defineRefusedTogetherTests('native');

describe('#35: a full state folder names the record and PG_TMPFS_STATE_DIR', () => {
  it('a state folder on a 4 KiB tmpfs: the record is made, its first rewrite fails; nothing is left', async () => {
    const c = newCase();
    mkdirSync(c.state);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k,mode=0700', 'tmpfs', c.state]);
    c.undo.push(() => {
      execFileSync('umount', [c.state]);
    });
    const snap = leftoverSnapshot();
    const r = await cli(['up', '--name', NAME, '--mode', 'native', ...SHORT], { PG_TMPFS_STATE_DIR: c.state });
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error: Cannot write the instance record ${c.state}/${NAME}\\.json: the state folder ${c.state} is full \\(ENOSPC.*\\)\\. .*PG_TMPFS_STATE_DIR`,
        ),
      ),
    ]);
    expect(snap.added()).toEqual([]);
    expect(stateEntries(c.state)).toEqual({});
  }, 60_000);
});

describe('#35 item 11: down removes only run folders pg-tmpfs made', () => {
  const token = 'abcd1234';
  /** A record of instance NAME whose native run folder is `runDir`. */
  const record = (runDir: string) =>
    JSON.stringify({
      name: NAME,
      state: 'running',
      ownerPid: 1,
      startedAt: new Date().toISOString(),
      handle: { mode: 'native', pid: 0, runDir, token, ram: null, bindir: '' },
      server: null,
    });
  const planted: string[] = [];
  afterAll(() => {
    for (const dir of planted) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a folder elsewhere, its name ending in the token, no marker', (dir: string) => join(dir, `project-${token}`), false],
    [
      'a pg-tmpfs-* folder in the temp folder without the marker',
      () => join(tmpdir(), `pg-tmpfs-planted-${process.pid}-${token}`),
      false,
    ],
    ['a pg-tmpfs-* folder elsewhere holding the marker', (dir: string) => join(dir, `pg-tmpfs-x-${token}`), true],
  ])('%s: the folder and its file stay, a warning names it, the record goes', async (_title, where, marker) => {
    const c = newCase();
    const runDir = where(c.dir);
    planted.push(runDir);
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'keep.txt'), 'mine');
    if (marker) writeFileSync(join(runDir, '.pg-tmpfs-run'), token);
    plantRecord(record(runDir))(c);
    const snap = leftoverSnapshot();
    const down = await cli(['down', '--name', NAME], { PG_TMPFS_STATE_DIR: c.state });
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toContain(`warning: Not touching ${runDir}, which the record names as its run folder`);
    expect(readFileSync(join(runDir, 'keep.txt'), 'utf8')).toBe('mine');
    expect(stateEntries(c.state)).toEqual({});
    expect(snap.added()).toEqual([]);
  });
});

describe('#35: db commands on names over 63 bytes, and 40 parallel db create on max_connections=8', () => {
  const T63 = 't'.repeat(63);
  const INSTANCE = 'hostile-names-db';
  let dir = '';
  let env: Record<string, string> = {};
  let leftovers: { added: () => string[] } | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-names-'));
    chmodSync(dir, 0o700);
    env = { PG_TMPFS_STATE_DIR: join(dir, 'state') };
    leftovers = leftoverSnapshot();
    const up = await cli(
      [
        'up',
        '--mode',
        'native',
        '--name',
        INSTANCE,
        '--quiet',
        '--database',
        T63,
        '--template',
        '--setting',
        'max_connections=8',
      ],
      env,
    );
    expect(up.code, up.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    const down = await cli(['down', '--name', INSTANCE], env);
    rmSync(dir, { recursive: true, force: true });
    expect(down.code, down.stderr).toBe(0);
    expect(leftovers?.added()).toEqual([]);
  });

  it.each([`${T63}x`, `${'a'.repeat(63)}b`, `é${'t'.repeat(62)}`])(
    'db drop %s is refused naming the database argument; the template survives',
    async (name) => {
      const drop = await cli(['db', 'drop', '--name', INSTANCE, name], env);
      expect(drop.code).toBe(1);
      expect(drop.stderr).toMatch(/^error: --database: ".*" is longer than 63 bytes \(\d+ in UTF-8\)/m);
      const made = await cli(['db', 'create', '--name', INSTANCE, '--json'], env);
      expect(made.code, made.stderr).toBe(0);
      expect((JSON.parse(made.stdout) as { template: string }).template).toBe(T63);
    },
  );

  it('40 parallel db create on max_connections=8 all succeed (each waits for a free connection)', async () => {
    const runs = await Promise.all(Array.from({ length: 40 }, () => cli(['db', 'create', '--name', INSTANCE, '--json'], env)));
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    const names = new Set(runs.map((r) => (JSON.parse(r.stdout) as { database: string }).database));
    expect(names.size).toBe(40);
  }, 120_000);
});
