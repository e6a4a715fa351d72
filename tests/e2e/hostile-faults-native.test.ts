/**
 * Faults of the machine and hostile state in native mode through the CLI, in-process (runCli):
 * every row must fail with exit code 1, name the input at fault (`error: --INPUT: problem. fix`)
 * or the key phrase of the setup error, and leave nothing behind: no run folder, mount, postgres
 * process, shared memory segment or postgres port (leftoverSnapshot), and no instance record in
 * the case's own state folder (PG_TMPFS_STATE_DIR, a fresh temp folder per case). Docker mode's
 * rows are in hostile-faults-docker.test.ts.
 */
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { busyPort, cleanupCase, cli, NAME, NOBODY, plantRecord, runRow, type Case, type Row } from '../helpers/hostile-rows.js';

afterEach(cleanupCase);

/** A read-only tmpfs on `<dir>/ro` (even root cannot make a folder there). */
function readOnlyMount(c: Case): void {
  const dir = join(c.dir, 'ro');
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
  c.undo.push(() => {
    execFileSync('umount', [dir]);
  });
}

describe('hostile CLI input and faults fail with the input named and leave nothing', () => {
  describe('native mode on this machine', () => {
    it.each<Row>([
      { title: 'cache-dir that is a file', argv: ['--cache-dir', '/etc/passwd'], input: '--cache-dir' },
      { title: 'cache-dir below a file', argv: ['--cache-dir', '/etc/passwd/x'], input: '--cache-dir' },
      // Node's recursive mkdir used to loop forever here.
      { title: 'cache-dir under /proc', argv: ['--cache-dir', '/proc/nope/x'], input: '--cache-dir' },
      {
        title: 'port in use',
        argv: ['--port', '{busyPort}'],
        setup: busyPort,
        input: '--port',
      },
      {
        title: 'locale initdb refuses (fresh cache-dir)',
        argv: ['--cache-dir', '{dir}/cache', '--locale', 'xx_YY.UTF-8'],
        input: '--locale',
      },
      {
        title: 'setting the server does not know',
        argv: ['--setting', 'no_such_setting=1'],
        input: '--settings',
      },
      { title: 'setting value the server refuses', argv: ['--setting', 'work_mem=lots'], input: '--settings' },
      { title: 'tmpfs-size too small for the cluster', argv: ['--tmpfs-size', '20m'], input: '--tmpfs-size' },
      { title: 'publish-host not an address of this machine', argv: ['--publish-host', '10.99.99.99'], input: '--publish-host' },
      {
        // binaries: installed, so no npm build is fetched in its place.
        title: 'postgres-version not installed',
        argv: ['--binaries', 'installed', '--postgres-version', '16'],
        input: 'No installed PostgreSQL 16 server binaries',
      },
      {
        title: 'an instance of that name already running',
        argv: [],
        setup: async (c) => {
          const r = await cli(['up', '--mode', 'native', '--name', NAME, '--quiet'], { PG_TMPFS_STATE_DIR: c.state });
          expect(r.code, r.stderr).toBe(0);
        },
        input: '--name',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']), 30_000);

    // As root every folder is writable, except on a read-only filesystem.
    it.each<Row>([
      {
        title: 'cache-dir on a read-only filesystem',
        argv: ['--cache-dir', '{dir}/ro/cache'],
        setup: readOnlyMount,
        input: '--cache-dir',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']));
  });

  describe('state folder and records', () => {
    it.each<Row>([
      {
        title: 'state folder writable by others',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'open');
          mkdirSync(c.state);
          chmodSync(c.state, 0o777);
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder owned by another user',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'theirs');
          mkdirSync(c.state, { mode: 0o700 });
          chownSync(c.state, NOBODY, NOBODY);
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder that is a file',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'file');
          writeFileSync(c.state, '');
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder below a file',
        argv: [],
        setup: (c) => {
          writeFileSync(join(c.dir, 'file'), '');
          c.state = join(c.dir, 'file', 'state');
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      { title: 'record that is not JSON', argv: [], setup: plantRecord('{bad'), input: '--name', downRemovesRecord: true },
      {
        title: 'record that is JSON but no instance record',
        argv: [],
        setup: plantRecord('{"name":"x"}'),
        input: '--name',
        downRemovesRecord: true,
      },
      {
        title: 'record owned by another user',
        argv: [],
        setup: plantRecord('{}', NOBODY),
        input: '--name',
        downRemovesRecord: true,
      },
      { title: 'record that is a folder', argv: [], setup: plantRecord(null), input: '--name', downRemovesRecord: true },
      {
        title: 'record of a start still under way (its process, pid 1, runs)',
        argv: [],
        setup: plantRecord(
          JSON.stringify({
            name: NAME,
            state: 'starting',
            ownerPid: 1,
            startedAt: new Date().toISOString(),
            handle: null,
            server: null,
          }),
        ),
        input: '--name',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']), 30_000);
  });
});
