/**
 * Pure parts of the orphan cleanup (src/orphans.ts): which signal ends which process a killed
 * run left working in its folder. The cleanup itself runs against real processes in
 * tests/e2e/interrupt-gaps-native.test.ts (gap D) and tests/e2e/kill-loop-native.test.ts (and -docker).
 */
import { describe, expect, it } from 'vitest';
import { endSignal, serverTree, type FolderProcess } from '../../src/orphans.js';

const proc = (pid: number, ppid: number, ...argv: string[]): FolderProcess => ({ pid, ppid, pgid: pid, argv });

describe('endSignal', () => {
  const initdb = proc(10, 1, '/usr/lib/postgresql/15/bin/initdb', '-D', '/dev/shm/x/initdb.tmp-1-ab');
  const shell = proc(11, 10, '/bin/sh', '-c', '"postgres" --boot -X 1048576');
  const boot = proc(12, 11, '/usr/lib/postgresql/15/bin/postgres', '--boot', '-X', '1048576', '-F');
  const single = proc(13, 10, '/usr/lib/postgresql/15/bin/postgres', '--single', '-F', '-O', 'template1');
  const postmaster = proc(20, 1, '/usr/lib/postgresql/15/bin/postgres', '-D', '/dev/shm/x/data', '-p', '5432');
  const checkpointer = proc(21, 20, 'postgres: checkpointer ');
  const all = [initdb, shell, boot, single, postmaster, checkpointer];

  it('initdb gets SIGTERM (it ends its postgres cleanly, then removes its folder)', () => {
    expect(endSignal(initdb, all)).toBe('SIGTERM');
  });
  it("initdb's bootstrap and single-user postgres get nothing (SIGTERM would leave their shared memory)", () => {
    expect(endSignal(boot, all)).toBeNull();
    expect(endSignal(single, all)).toBeNull();
  });
  it('a postmaster gets SIGQUIT (immediate shutdown); its children and shells get nothing', () => {
    expect(endSignal(postmaster, all)).toBe('SIGQUIT');
    expect(endSignal(checkpointer, all)).toBeNull();
    expect(endSignal(shell, all)).toBeNull();
  });
  it('an orphaned bootstrap postgres (initdb gone) is still left to end on its input', () => {
    expect(endSignal(boot, [boot])).toBeNull();
  });
});

describe('serverTree', () => {
  it('keeps initdb, postgres and their descendants; leaves a shell and a client someone opened in the folder', () => {
    const found: FolderProcess[] = [
      proc(10, 1, '/usr/lib/postgresql/15/bin/initdb', '-D', '/dev/shm/x/initdb.tmp-1-ab'),
      proc(11, 10, '/bin/sh', '-c', '"postgres" --single'),
      proc(12, 11, '/usr/lib/postgresql/15/bin/postgres', '--single'),
      proc(20, 1, '/usr/lib/postgresql/15/bin/postgres', '-D', '/dev/shm/x/data'),
      proc(21, 20, 'postgres: checkpointer '),
      proc(30, 2, '-bash'),
      proc(31, 30, 'psql', '-h', '/dev/shm/x/data'),
    ];
    expect(serverTree(found).map((p) => p.pid)).toEqual([10, 11, 12, 20, 21]);
  });
});
