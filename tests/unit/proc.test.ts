import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/proc.js';
import { groupMembers, processAlive } from '../../src/processes.js';

/** PIDs of processes this file started that may outlive a failed test. */
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** The PID a command printed as its first line ($!). */
function firstPid(stdout: string): number {
  const pid = Number(stdout.split('\n')[0]);
  if (pid > 0) started.push(pid);
  return pid;
}

describe('run() with endGroupOnExit (#26: a background child held the init command until init-timeout)', () => {
  it('is done when the program exits, and ends what it left in its process group', async () => {
    const r = await run('sh', ['-c', 'sleep 301 & echo $!; echo forked'], { timeoutMs: 60_000, endGroupOnExit: true });
    const pid = firstPid(r.stdout);
    expect([r.code, r.timedOut, r.leftovers]).toEqual([0, false, 1]);
    expect(r.stdout).toMatch(/\nforked\n$/);
    expect(groupMembers(pid)).toEqual([]);
    expect(processAlive(pid)).toBe(false);
  });

  it('kills what ignores SIGTERM', async () => {
    const r = await run('sh', ['-c', "(trap '' TERM; exec sleep 302) & echo $!"], { timeoutMs: 60_000, endGroupOnExit: true });
    const pid = firstPid(r.stdout);
    expect([r.code, r.timedOut, r.leftovers]).toEqual([0, false, 1]);
    expect(processAlive(pid)).toBe(false);
  });

  it('counts nothing when the program leaves nothing', async () => {
    const r = await run('sh', ['-c', 'echo done'], { timeoutMs: 60_000, endGroupOnExit: true });
    expect([r.code, r.stdout, r.timedOut, r.leftovers]).toEqual([0, 'done\n', false, 0]);
  });
});

describe('run() deadline', () => {
  it('holds when the program exited first and a process in another session keeps its output open', async () => {
    const r = await run('sh', ['-c', 'setsid sleep 303 & echo $!'], { timeoutMs: 500 });
    firstPid(r.stdout);
    expect(r.timedOut).toBe(true);
    expect(r.code).toBe(0);
  });
});

describe('run() with outputFd (pg_ctl on Windows: CMD and the server inherit its output)', () => {
  it('is done when the program exits, though what it started holds the file; onSpawn names its PID', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-proc-'));
    try {
      const file = join(dir, 'out');
      const fd = openSync(file, 'a');
      let spawned = 0;
      const r = await run('sh', ['-c', 'setsid sleep 304 & echo $!; echo started'], {
        timeoutMs: 60_000,
        outputFd: fd,
        onSpawn: (pid) => (spawned = pid),
      });
      closeSync(fd);
      const pid = firstPid(readFileSync(file, 'utf8'));
      // Done at the program's exit: the child holding the file still runs, and the deadline never came.
      expect([r.code, r.timedOut, r.stdout, r.stderr]).toEqual([0, false, '', '']);
      expect(processAlive(pid)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(`${pid}\nstarted\n`);
      expect(spawned).toBeGreaterThan(0);
      expect(spawned).not.toBe(pid);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
