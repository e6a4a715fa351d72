/**
 * Second sweep (#26), native mode: init commands that leave processes running or break the
 * connection the outputs give, the database input, --databases, db create / db drop on one
 * instance, and start-time server errors (a preload library, no free port). Each fails naming its
 * input or works, and leaves nothing behind. Docker mode's rows are in hostile-sweep-docker.test.ts,
 * the initdb cache in hostile-cache-native.test.ts.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot } from '../helpers/infra.js';
import { cli, runRow } from '../helpers/hostile-rows.js';
import { initCommandBlocks, only, startErrorBlocks } from '../helpers/hostile-sweep.js';

describe('second sweep (#26): init-command, the check after init, database', () => {
  initCommandBlocks(only('native'));
});

describe('second sweep (#26): databases, db create / db drop', () => {
  it.each(only('native'))('--databases "my db" is refused naming --databases ($mode mode), not read as two', ({ args }) =>
    runRow({ title: 'databases with a space', argv: ['--databases', 'my db'], input: '--databases' }, args),
  );

  describe('on one native instance (its postmaster killed last)', () => {
    const DB_NAME = 'hostile-db';
    let dir = '';
    let env: Record<string, string> = {};
    let leftovers: { added: () => string[] } | null = null;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-db-'));
      env = { PG_TMPFS_STATE_DIR: join(dir, 'state') };
      leftovers = leftoverSnapshot();
      // An init file that makes a template of its own (as a schema's test setup may).
      writeFileSync(join(dir, 'tpl.sql'), 'ALTER DATABASE tpl IS_TEMPLATE true;\n');
      const up = await cli(
        [
          'up',
          '--mode',
          'native',
          '--name',
          DB_NAME,
          '--quiet',
          '--database',
          'app',
          '--databases',
          'tpl',
          '--init',
          join(dir, 'tpl.sql'),
        ],
        env,
      );
      expect(up.code, up.stderr).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await cli(['down', '--name', DB_NAME], env);
      rmSync(dir, { recursive: true, force: true });
    });

    it('db drop of a template database made by init drops it', async () => {
      const drop = await cli(['db', 'drop', '--name', DB_NAME, '--json', 'tpl'], env);
      expect(drop.code, drop.stderr).toBe(0);
      expect(JSON.parse(drop.stdout)).toEqual({ database: 'tpl', dropped: true });
      const again = await cli(['db', 'drop', '--name', DB_NAME, '--json', 'tpl'], env);
      expect(JSON.parse(again.stdout)).toEqual({ database: 'tpl', dropped: false });
    });

    it('20 parallel db create of one --db-name: one made it, every other says the name exists, naming --db-name', async () => {
      // The race is won in a different place each time: five rounds of 20.
      for (let round = 0; round < 5; round++) {
        const name = `same_${round}`;
        const runs = await Promise.all(
          Array.from({ length: 20 }, () =>
            cli(['db', 'create', '--name', DB_NAME, '--from', 'template1', '--db-name', name], env),
          ),
        );
        expect(runs.filter((r) => r.code === 0)).toHaveLength(1);
        for (const r of runs.filter((x) => x.code !== 0)) {
          expect(r.code).toBe(1);
          expect(r.stderr).toBe(
            `error: --db-name: database ${name} already exists. Give another name, or leave it out for a fresh one\n`,
          );
        }
      }
    }, 60_000);

    it('db create --from longer than 63 bytes is refused naming --from', async () => {
      const r = await cli(['db', 'create', '--name', DB_NAME, '--from', 'x'.repeat(65)], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: --from: "x{65}" is empty, longer than 63 bytes or holds a NUL/m);
    });

    it('db create after the postmaster died says the instance is dead and how to restart it; down removes it', async () => {
      const status = await cli(['status'], env);
      const [row] = JSON.parse(status.stdout) as Array<{ server: { pid: number } }>;
      process.kill(row!.server.pid, 'SIGKILL');
      for (let i = 0; i < 500 && existsSync(`/proc/${row!.server.pid}`); i++) await sleep(10);
      for (const argv of [
        ['db', 'create'],
        ['db', 'drop', 'x'],
      ]) {
        const r = await cli([...argv, '--name', DB_NAME], env);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^error: --name: instance "${DB_NAME}" is dead: its PostgreSQL \\(postgres pid ${row!.server.pid} in [^)]+\\) no longer runs \\(.*\\)\\. ` +
              `Restart it: pg-tmpfs down --name ${DB_NAME}, then pg-tmpfs up --name ${DB_NAME} with the flags it was started with\\n$`,
          ),
        );
      }
      const down = await cli(['down', '--name', DB_NAME], env);
      expect(down.code, down.stderr).toBe(0);
      expect(leftovers?.added()).toEqual([]);
    });
  });
});

describe('second sweep (#26): registry, component and start-time server errors', () => {
  startErrorBlocks(only('native'));
});
