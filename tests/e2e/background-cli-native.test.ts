/**
 * Background starts (issue #12) through the CLI in native mode: `up --no-wait` prints the
 * connection at once, `wait` prints it once it answers; `down` during the background start stops
 * it; SIGTERM to the background process during its init command makes every `wait` say a signal
 * stopped it (#26). Each leaves nothing, not even its record. The tests both modes run are in
 * tests/helpers/background-cli.ts; Docker mode's are in background-cli-docker.test.ts, the
 * action's in background-action-{docker,native}.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { NATIVE_MAJOR } from '../helpers/infra.js';
import { snapshot, useBackgroundSetup } from '../helpers/background.js';
import { cli, downDuringStartTest, newState, noWaitTest, stateFiles } from '../helpers/background-cli.js';

useBackgroundSetup('native');

describe('background start, the CLI', () => {
  noWaitTest('native');
  downDuringStartTest('native');

  it('native: SIGTERM to the background process during its init command; every wait says a signal stopped it (#26)', async () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(
      [
        'up',
        '--mode',
        'native',
        '--postgres-version',
        NATIVE_MAJOR,
        '--init-command',
        'sleep 60',
        '--no-wait',
        '--name',
        'bgterm',
        '--json',
      ],
      state,
    );
    expect(up.status, up.stderr).toBe(0);
    const { pid, log } = JSON.parse(up.stdout) as { pid: number; log: string };
    // The init command runs: the start is under way, its signal handlers set.
    const until = Date.now() + 60_000;
    while (Date.now() < until && !(existsSync(log) && readFileSync(log, 'utf8').includes('Init command: sleep 60')))
      await sleep(20);
    expect(readFileSync(log, 'utf8')).toContain('Init command: sleep 60');
    process.kill(pid, 'SIGTERM');
    for (let n = 0; n < 2; n++) {
      const wait = cli(['wait', '--name', 'bgterm'], state);
      expect(wait.status, wait.stderr).toBe(1);
      expect(wait.stderr).toMatch(
        /^error: The background start of "bgterm" failed: it was stopped by SIGTERM before it finished \(pg-tmpfs down sends SIGTERM; so may a CI job's cancellation\)\. Start it again: pg-tmpfs up --name bgterm --no-wait\. Fix what it names/m,
      );
    }
    expect(JSON.parse(cli(['status'], state).stdout)).toMatchObject([{ name: 'bgterm', state: 'failed', handle: null }]);
    expect(cli(['down', '--name', 'bgterm'], state).status).toBe(0);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});
