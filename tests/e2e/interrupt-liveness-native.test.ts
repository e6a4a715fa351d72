/**
 * Liveness and the state folder (issue #10), native mode: a postmaster killed under a running
 * instance makes `status` say dead, and `up` with the same name cleans it up and starts anew (gap
 * C: without shared memory left); two native `up` with one name at once: one wins, the other names
 * `--name` (the Docker row is in interrupt-cli-docker.test.ts); a state folder that cannot hold
 * records: `up` fails before anything starts, in either mode.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneNameCase } from '../helpers/interrupt-cases.js';
import {
  cli,
  dockerArgs,
  downQuietly,
  killPostmaster,
  nativeWarm,
  newStateDir,
  stateFiles,
  status,
  useInterruptSetup,
  work,
} from '../helpers/interrupt-cli.js';
import { scrub, snapshot } from '../helpers/interrupt.js';

useInterruptSetup({ warm: true, names: 'itrl' });

describe('liveness', () => {
  it('a postmaster killed with SIGKILL shows dead; up with the same name removes it and starts anew; down removes that', async () => {
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      const oldPid = await killPostmaster(state, 'live');
      const again = cli(['up', ...nativeWarm(), '--name', 'live', '--json'], state);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain('Instance "live" was left behind (its server is gone): removing it');
      const now = status(state);
      expect(now).toHaveLength(1);
      expect(now[0]).toMatchObject({ name: 'live', state: 'running', alive: true });
      expect(now[0]?.server?.pid).not.toBe(oldPid);
      const down = cli(['down', '--name', 'live'], state);
      expect(down.status, down.stderr).toBe(0);
      expect(stateFiles(state)).toEqual([]);
      // Everything but the killed postmaster's shared memory, which gap C below pins.
      expect(leftovers.added().filter((x) => !/^(shm|dsm) /.test(x))).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub('pg-tmpfs-cli-live-', leftovers.added());
    }
  });

  /*
   * GAP C: a postmaster that died by SIGKILL leaves its System V shared memory segment (key
   * and id on line 7 of its postmaster.pid; owner postgres, nattch 0) and its POSIX segments
   * (/dev/shm/PostgreSQL.<n>); neither `up` with the same name nor `down` removed them. (Fixed:
   * stopPostgres removes the segment postmaster.pid names once nothing is attached, and native
   * mode keeps dynamic shared memory in PGDATA: dynamic_shared_memory_type=mmap.)
   */
  it('gap C: after a postmaster was killed with SIGKILL, up and down leave no shared memory', async () => {
    const state = newStateDir();
    const leftovers = snapshot();
    try {
      await killPostmaster(state, 'live2');
      expect(cli(['up', ...nativeWarm(), '--name', 'live2'], state).status).toBe(0);
      expect(cli(['down', '--name', 'live2'], state).status).toBe(0);
      expect(leftovers.added()).toEqual([]);
    } finally {
      downQuietly(state);
      await scrub('pg-tmpfs-cli-live2-', leftovers.added());
    }
  });
});

describe('one name, one instance', () => {
  it.each([{ mode: 'native', args: nativeWarm }])(
    'two `up --name same` at once ($mode): one wins, the other names --name; down leaves nothing',
    oneNameCase,
  );
});

describe('a state folder that cannot hold records', () => {
  const cases: Array<{ what: string; prepare: () => { dir: string; undo?: () => void }; message: RegExp }> = [
    {
      what: 'a file',
      prepare: () => {
        const dir = join(work, 'state-file');
        writeFileSync(dir, '');
        return { dir };
      },
      message: /error: The state folder .*state-file cannot hold instance records: .* is a file, not a folder/,
    },
    {
      what: 'a path under a file',
      prepare: () => {
        writeFileSync(join(work, 'plain-file'), '');
        return { dir: join(work, 'plain-file', 'state') };
      },
      message: /error: The state folder .*plain-file\/state cannot hold instance records: .*ENOTDIR/,
    },
    {
      what: 'a folder others can write',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-open-'));
        chmodSync(dir, 0o777);
        return { dir };
      },
      message: /cannot hold instance records: .* can be written by others \(mode 777\)/,
    },
    {
      what: "another user's folder",
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-other-'));
        chownSync(dir, 65534, 65534);
        return { dir };
      },
      message: /cannot hold instance records: .* belongs to uid 65534/,
    },
    {
      what: 'a read-only file system',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-ro-'));
        const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,mode=0700,size=1m', 'tmpfs', dir], { encoding: 'utf8' });
        expect(m.status, m.stderr).toBe(0);
        return { dir, undo: () => spawnSync('umount', [dir]) };
      },
      message: /cannot hold instance records: .* is on a read-only file system \(EROFS\)/,
    },
    {
      what: 'a record that is a folder',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-recdir-'));
        mkdirSync(join(dir, 'bad.json'));
        return { dir };
      },
      message: /error: --name: the record of instance "bad" \(.*bad\.json\) cannot be read: EISDIR/,
    },
    {
      what: 'a record that is not JSON',
      prepare: () => {
        const dir = mkdtempSync(join(work, 'state-garbage-'));
        writeFileSync(join(dir, 'bad.json'), '{"name": "bad", "state": "runn', { mode: 0o600 });
        return { dir };
      },
      message: /error: --name: the record of instance "bad" \(.*\) cannot be read: it is not valid JSON/,
    },
  ];
  it.each(cases)('$what: up fails before anything starts', ({ prepare, message }) => {
    const { dir, undo } = prepare();
    const leftovers = snapshot();
    try {
      for (const args of [dockerArgs, nativeWarm()]) {
        const r = cli(['up', ...args, '--name', 'bad'], dir);
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toMatch(message);
        // Nothing was started: not even the engine or the binaries were looked at.
        expect(r.stderr).not.toMatch(/Docker engine|binaries:|docker run/);
        expect(leftovers.added()).toEqual([]);
      }
    } finally {
      undo?.();
    }
  });
});
