/**
 * What the after-start interrupt files share (tests/e2e/interrupt-after-start-native.test.ts and
 * interrupt-after-start-docker.test.ts): the action's main step from dist/ with GITHUB_OUTPUT made
 * a FIFO, so that the step blocks opening it until the test opens the other end and a SIGINT lands
 * in that window every time, and the test itself, defined per mode.
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, ROOT, TEST_IMAGES } from './infra.js';
import { jobFiles } from './runner-env.js';

const MAIN = join(ROOT, 'dist', 'main.js');
const POST = join(ROOT, 'dist', 'post.js');

/** The kernel function a process sleeps in (/proc/PID/wchan): `wait_for_partner` while it opens a FIFO no one reads. */
function wchan(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return '';
  }
}

/** The exit of `child` as a code: 128 + the signal's number when a signal ended it. */
function exitCode(child: ChildProcess): Promise<number> {
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))),
  );
}

/**
 * The test of the file: the main step in `mode`, SIGINT while it blocks opening GITHUB_OUTPUT; it
 * must still remove the server and exit 130, and the post step must find nothing.
 */
export function defineAfterStartTest(mode: 'native' | 'docker'): void {
  // The file's scratch folder: the job folders, the post step's output file.
  const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-after-start-'));
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });
  const inputs: Record<string, string> =
    mode === 'native' ? { mode: 'native', 'postgres-version': NATIVE_MAJOR } : { mode: 'docker', image: TEST_IMAGES[18] };
  describe('action main step: a signal after the start returned, while the outputs are written', () => {
    it(`${mode}: SIGINT then: the main step still removes the server and exits 130; the post step finds nothing`, async () => {
      if (mode === 'docker') requireImages();
      const job = jobFiles(mkdtempSync(join(work, 'job-')), { ...inputs, port: '0', 'container-name': `pg-tmpfs-after-${mode}` });
      const fifo = job.env.GITHUB_OUTPUT as string;
      rmSync(fifo);
      execFileSync('mkfifo', [fifo]);
      const leftovers = leftoverSnapshot();
      const child = spawn(process.execPath, [MAIN], { env: job.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
      const exited = exitCode(child);
      // The post step's environment, as the runner gives it: what the main step saved, a plain output file.
      const postEnv = () => ({ ...job.env, GITHUB_OUTPUT: join(work, 'post-output'), STATE_server: job.state().server ?? '' });
      let reader = -1;
      try {
        // Blocked opening GITHUB_OUTPUT: the server answered and checked, publish() began.
        const deadline = Date.now() + 120_000;
        while (wchan(child.pid ?? 0) !== 'wait_for_partner' && child.exitCode === null && Date.now() < deadline) await sleep(20);
        expect(wchan(child.pid ?? 0), out).toBe('wait_for_partner');
        expect(out).toMatch(/Answered a query after \d+ ms/);
        child.kill('SIGINT');
        // A reader that is also a writer never blocks, and lets every later open of the FIFO through.
        reader = openSync(fifo, 'r+');
        const code = await exited;
        expect(code, out).toBe(130);
        expect(out).toContain('Interrupted by SIGINT: removing what was started');
        expect(leftovers.added(), out).toEqual([]);
        const post = execFileSync(process.execPath, [POST], {
          env: postEnv(),
          encoding: 'utf8',
          timeout: 120_000,
        });
        expect(post).toMatch(/No PostgreSQL server to remove|Removed PostgreSQL|Stopped PostgreSQL/);
        expect(leftovers.added()).toEqual([]);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        if (reader >= 0) closeSync(reader);
        // What a failing run left (the post step removes what GITHUB_STATE names; idempotent).
        spawnSync(process.execPath, [POST], {
          env: postEnv(),
          timeout: 120_000,
        });
      }
    });
  });
}
