/**
 * Background starts (issue #12) through the CLI in Docker mode: `up --no-wait` prints the
 * connection at once, `wait` prints it once it answers; `down` during the background start stops
 * it; a start that fails (an image that cannot be pulled) is reported by every `wait`, and `down`
 * forgets it. Each leaves nothing, not even its record. The tests both modes run are in
 * tests/helpers/background-cli.ts; native mode's are in background-cli-native.test.ts, the
 * action's in background-action-{docker,native}.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { snapshot, useBackgroundSetup } from '../helpers/background.js';
import { cli, downDuringStartTest, newState, noWaitTest, stateFiles } from '../helpers/background-cli.js';

useBackgroundSetup('docker');

describe('background start, the CLI', () => {
  noWaitTest('docker');
  downDuringStartTest('docker');

  it('a background start that fails: wait prints its log and error and exits 1; nothing is left', () => {
    const leftovers = snapshot();
    const state = newState();
    const up = cli(
      ['up', '--mode', 'docker', '--image', 'pg-tmpfs-test/no-such-image:1', '--no-wait', '--name', 'bgfail'],
      state,
    );
    expect(up.status, up.stderr).toBe(0);
    const wait = cli(['wait', '--name', 'bgfail'], state);
    expect(wait.status).toBe(1);
    expect(wait.stderr).toMatch(/Pulling pg-tmpfs-test\/no-such-image:1/);
    expect(wait.stderr).toMatch(
      /error: The background start of "bgfail" failed: Could not pull image "pg-tmpfs-test\/no-such-image:1"/,
    );
    // A second waiter gets the same failure, not "no instance" (#26); down forgets it.
    const again = cli(['wait', '--name', 'bgfail'], state);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /error: The background start of "bgfail" failed: Could not pull image "pg-tmpfs-test\/no-such-image:1"/,
    );
    expect(cli(['down', '--name', 'bgfail'], state).status).toBe(0);
    expect(stateFiles(state)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  });
});
