/**
 * Background starts (issue #12) of the action in native mode, with real processes and PostgreSQL
 * on the host:
 * - through act: the main step with `wait: false`, a step standing for dependency installation,
 *   the wait sub-action, then queries; the time the job spent blocked on PostgreSQL is printed;
 * - the action's processes (dist/main.js, dist/wait.js, dist/post.js, as the runner starts them):
 *   a post step that comes while the background start runs waits for it and removes everything;
 *   a failing init gives every wait step the same error, and without a wait step the post step
 *   fails the job (#26); a wait step with nothing started says what to do.
 * The tests both modes run are in tests/helpers/background-action.ts; Docker mode's are in
 * background-action-docker.test.ts, the CLI's in background-cli-{docker,native}.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE_MAJOR } from '../helpers/infra.js';
import { cacheDir, MAIN, POST, WAIT, snapshot, step, useBackgroundSetup, work } from '../helpers/background.js';
import { actTest, cancelTest } from '../helpers/background-action.js';

useBackgroundSetup('native');

describe('background start through act', () => {
  actTest('native');
});

describe('background start, the action in processes', () => {
  cancelTest('native');

  it('native, a failing init (#26): two wait steps give the same error; without a wait step the post step fails the job', async () => {
    const leftovers = snapshot();
    const sql = join(work, 'broken-init.sql');
    writeFileSync(sql, 'create table t (id int);\nselect no_such_function();\n');
    const inputs = {
      mode: 'native',
      'postgres-version': NATIVE_MAJOR,
      'cache-dir': cacheDir,
      wait: 'false',
      port: '0',
      init: sql,
    };
    // An annotation on the failing line of the file (::error title=…,file=…,line=2,…::).
    const initError = /::error [^\n]*line=2[^\n]*::Input 'init': [^\n]*no_such_function\(\) does not exist/;

    const main = await step(MAIN, inputs);
    expect(main.code, main.log).toBe(0);
    for (let n = 0; n < 2; n++) {
      const wait = await step(WAIT, {}, {}, { PG_TMPFS_BACKGROUND: main.env.PG_TMPFS_BACKGROUND ?? '' });
      expect(wait.code, wait.log).toBe(1);
      expect(wait.log).toMatch(initError);
    }
    const post = await step(POST, {}, main.state);
    expect(post.code, post.log).toBe(0);
    expect(post.log).not.toContain('::error::');

    const alone = await step(MAIN, inputs);
    expect(alone.code, alone.log).toBe(0);
    const failing = await step(POST, {}, alone.state);
    expect(failing.code, failing.log).toBe(1);
    expect(failing.log).toContain("The background start's log (no wait step showed it):");
    expect(failing.log).toMatch(
      /::error::The background start of PostgreSQL \(wait: false\) did not give the job its database, and no wait step read it: Input 'init': [^\n]*no_such_function\(\) does not exist[^\n]*\. Add a step `uses: <this action>\/wait@<same ref>` after the main step/,
    );
    expect(leftovers.added()).toEqual([]);
  });

  // Starts no server: it could go in either lane's file.
  it('a wait step with nothing started says what to do', async () => {
    const wait = await step(WAIT, {});
    expect(wait.code).toBe(1);
    expect(wait.log).toMatch(
      /::error::There is no background start of PostgreSQL to wait for in this job\. Run the main action with 'wait: false'/,
    );
  });
});
