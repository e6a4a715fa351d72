/**
 * Signals held between the CLI's instance record and the start's own handler (src/interrupt.ts
 * holdSignals): a signal in that gap used to end `up` by its default action, leaving the record
 * (seen once in the interrupt test, "docker: SIGINT 150 ms after spawn"). Each case runs in a
 * real node process of its own that signals itself.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/infra.js';

const MODULE = join(ROOT, 'src', 'interrupt.ts');

/** Runs `body` as an ES module with `m` the interrupt module (through tsx); stdout lines and exit code. */
function run(body: string): { lines: string[]; code: number | null } {
  const script = `const m = await import(${JSON.stringify(MODULE)});\n${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { lines: r.stdout.split('\n').filter(Boolean), code: r.status };
}

describe('holdSignals', () => {
  it('a signal held before cleanupOnInterrupt: the process lives on; then cleanup runs, fn does not, exit 130', () => {
    const r = run(`
      m.holdSignals();
      process.kill(process.pid, 'SIGINT');
      await new Promise((r) => setTimeout(r, 50));
      console.log('alive');
      await m.cleanupOnInterrupt(async () => console.log('fn ran'), async (s) => console.log('cleanup ' + s));
      console.log('not reached');
    `);
    expect(r).toEqual({ lines: ['alive', 'cleanup SIGINT'], code: 130 });
  });

  it('SIGTERM held: exit 143', () => {
    const r = run(`
      m.holdSignals();
      process.kill(process.pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 50));
      await m.cleanupOnInterrupt(async () => console.log('fn ran'), async (s) => console.log('cleanup ' + s));
    `);
    expect(r).toEqual({ lines: ['cleanup SIGTERM'], code: 143 });
  });

  it('releaseSignals hands back the held signal once, and stops holding', () => {
    const r = run(`
      m.holdSignals();
      process.kill(process.pid, 'SIGHUP');
      await new Promise((r) => setTimeout(r, 50));
      console.log('released ' + m.releaseSignals());
      console.log('again ' + m.releaseSignals());
      console.log('exit code ' + m.signalExitCode('SIGHUP'));
      process.kill(process.pid, 'SIGINT');
      await new Promise((r) => setTimeout(r, 1000));
      console.log('not reached');
    `);
    // No handler after the release: SIGINT's default action ends the process (status null).
    expect(r).toEqual({ lines: ['released SIGHUP', 'again null', 'exit code 129'], code: null });
  });

  it('nothing held: fn runs and its value is returned, the handlers removed', () => {
    const r = run(`
      m.holdSignals();
      const v = await m.cleanupOnInterrupt(async () => 'value', async () => console.log('cleanup'));
      console.log('returned ' + v + ' listeners ' + process.listenerCount('SIGINT'));
    `);
    expect(r).toEqual({ lines: ['returned value listeners 0'], code: 0 });
  });
});
