/**
 * The one launcher of detached children (src/launch.ts), with real node children: the job handed
 * over on stdin, the output to a log file, arguments after the flag, its own process group, and a
 * launch that fails killing the child.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { launchDetached, spawnDetached } from '../../src/launch.js';
import { processAlive, procStat } from '../../src/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-launch-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry that prints its arguments and the job it reads on stdin, then exits. */
const entry = join(dir, 'entry.mjs');
writeFileSync(
  entry,
  `const args = process.argv.slice(2);
let job = null;
if (!args.includes('--no-job')) {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  job = JSON.parse(text);
}
console.log(JSON.stringify({ args, job }));`,
);

/** Waits (up to 10 s) until `pid` has ended. */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 1000 && processAlive(pid); i++) await sleep(10);
  return !processAlive(pid);
}

describe('launchDetached', () => {
  it('hands the job over on stdin, appends the output to the descriptor, and runs the child in its own process group', async () => {
    const log = join(dir, 'a.log');
    const fd = openSync(log, 'a');
    let before = 0;
    const { pid } = await launchDetached({
      entry,
      flag: '--test-flag',
      args: ['x y'],
      job: { password: 's3cret' },
      output: fd,
      env: process.env,
      beforeJob: (p) => {
        before = p;
        expect(procStat(p)?.pgid).toBe(p);
      },
    });
    closeSync(fd);
    expect(before).toBe(pid);
    expect(await ended(pid)).toBe(true);
    const printed = JSON.parse(readFileSync(log, 'utf8')) as { args: string[]; job: unknown };
    expect(printed.args).toEqual(['--test-flag', 'x y']);
    expect(printed.job).toEqual({ password: 's3cret' });
  });

  it('kills the child and throws what beforeJob throws', async () => {
    let pid = 0;
    await expect(
      launchDetached({
        entry,
        flag: '--test-flag',
        job: {},
        output: 'stderr',
        env: process.env,
        beforeJob: (p) => {
          pid = p;
          throw new Error('no record');
        },
      }),
    ).rejects.toThrow('no record');
    expect(pid).toBeGreaterThan(0);
    expect(await ended(pid)).toBe(true);
  });
});

describe('spawnDetached', () => {
  it('starts the child without stdin when there is no job, its arguments after the flag', async () => {
    const log = join(dir, 'b.log');
    const fd = openSync(log, 'a');
    const child = spawnDetached({ entry, flag: '--test-flag', args: ['--no-job', '{"a":1}'], output: fd, env: process.env });
    closeSync(fd);
    expect(child.stdin).toBeNull();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect((JSON.parse(readFileSync(log, 'utf8')) as { args: string[] }).args).toEqual(['--test-flag', '--no-job', '{"a":1}']);
  });
});
