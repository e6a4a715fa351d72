import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_ENV, run, runSync } from '../../src/proc.js';
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

describe('runSync() (probes in synchronous code: the same deadline and environment rules as run())', () => {
  it('returns the exit code and output, and never throws for a non-zero exit', () => {
    expect(runSync('sh', ['-c', 'echo out; echo err >&2; exit 3'], { timeoutMs: 10_000 })).toMatchObject({
      code: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
      leftovers: 0,
    });
  });

  it('strips RUN_ENV as run() does, unless baseEnv is given; env goes over it, unsetEnv removes', () => {
    const saved = process.env[RUN_ENV];
    process.env[RUN_ENV] = 'token-1';
    process.env.PG_TMPFS_SYNC_TEST = 'kept';
    try {
      const show = 'echo "${PG_TMPFS_RUN-unset} ${PG_TMPFS_SYNC_TEST-unset} ${EXTRA-unset}"';
      expect(runSync('sh', ['-c', show], { timeoutMs: 10_000 }).stdout).toBe('unset kept unset\n');
      expect(
        runSync('sh', ['-c', show], { timeoutMs: 10_000, env: { EXTRA: 'x' }, unsetEnv: ['PG_TMPFS_SYNC_TEST'] }).stdout,
      ).toBe('unset unset x\n');
      const base = { PATH: process.env.PATH ?? '', [RUN_ENV]: 'given' };
      expect(runSync('sh', ['-c', show], { timeoutMs: 10_000, baseEnv: base }).stdout).toBe('given unset unset\n');
    } finally {
      if (saved === undefined) delete process.env[RUN_ENV];
      else process.env[RUN_ENV] = saved;
      delete process.env.PG_TMPFS_SYNC_TEST;
    }
  });

  it('runs in cwd', () => {
    expect(runSync('pwd', [], { timeoutMs: 10_000, cwd: '/' }).stdout).toBe('/\n');
  });

  it('kills the program with SIGKILL at the deadline, whatever it does with SIGTERM', () => {
    const ignoresTerm = "process.on('SIGTERM', () => undefined); setInterval(() => undefined, 1000)";
    const r = runSync(process.execPath, ['-e', ignoresTerm], { timeoutMs: 500 });
    expect([r.code, r.timedOut]).toEqual([null, true]);
    expect(r.ms).toBeLessThan(5_000);
  });

  it('throws only when the program cannot be started', () => {
    expect(() => runSync('/nonexistent/pg-tmpfs-no-such-program', [], { timeoutMs: 10_000 })).toThrow(/ENOENT/);
  });
});
