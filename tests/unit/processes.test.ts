/**
 * What src/processes.ts reads of one process from /proc (argvOf, environHas, cwdOf, mappedFiles,
 * openFiles) and its one walk of /proc (findProcesses), against real child processes (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argvOf, cwdOf, environHas, findProcesses, mappedFiles, openFiles } from '../../src/processes.js';

const linux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-processes-'));
const outFile = join(dir, 'out.log');
let child: ChildProcess;
/** A node program that runs until killed. */
const IDLE = 'setInterval(() => undefined, 1000)';

beforeAll(async () => {
  const fd = openSync(outFile, 'a');
  child = spawn(process.execPath, ['-e', IDLE, '', 'x y'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PG_TMPFS_PROCESSES_TEST: 'a=b' },
    stdio: ['ignore', fd, 'ignore'],
  });
  closeSync(fd);
  // Until exec has replaced the forked node: its command line is the child's.
  for (let i = 0; i < 200 && !argvOf(child.pid ?? 0).includes('x y'); i++) await sleep(10);
});

afterAll(() => {
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(linux)('one process as /proc shows it', () => {
  it('argvOf: the command line, an empty argument and spaces kept', () => {
    expect(argvOf(child.pid ?? 0)).toEqual([process.execPath, '-e', IDLE, '', 'x y']);
    expect(() => argvOf(2 ** 22 + 1)).toThrow(/ENOENT/);
  });

  it('environHas: a whole NAME=value entry of the environment it started with', () => {
    const pid = child.pid ?? 0;
    expect(environHas(pid, 'PG_TMPFS_PROCESSES_TEST=a=b')).toBe(true);
    expect(environHas(pid, 'PG_TMPFS_PROCESSES_TEST=a')).toBe(false);
    expect(environHas(pid, 'PG_TMPFS_PROCESSES_TEST')).toBe(false);
  });

  it('cwdOf: the resolved working directory', () => {
    expect(cwdOf(child.pid ?? 0)).toBe(realpathSync(dir));
  });

  it('openFiles: where its descriptors point; mappedFiles: the files in its memory', () => {
    expect(openFiles(child.pid ?? 0)).toContain(realpathSync(outFile));
    const mapped = mappedFiles(process.pid);
    expect(mapped).toContain(realpathSync(process.execPath));
    expect(new Set(mapped).size).toBe(mapped.length);
    expect(mapped.every((f) => f.startsWith('/') && !f.endsWith(' (deleted)'))).toBe(true);
    expect(mappedFiles(2 ** 22 + 1)).toEqual([]);
  });

  it('findProcesses: the processes a predicate selects, with their command lines; a predicate that throws skips', () => {
    const found = findProcesses((pid) => environHas(pid, 'PG_TMPFS_PROCESSES_TEST=a=b'));
    expect(found).toEqual([
      expect.objectContaining({ pid: child.pid, ppid: process.pid, argv: [process.execPath, '-e', IDLE, 'x y'] }),
    ]);
    expect(found.some((p) => p.pid === process.pid)).toBe(false);
    expect(
      findProcesses(() => {
        throw new Error('unreadable');
      }),
    ).toEqual([]);
  });
});
