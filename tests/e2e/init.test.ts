/**
 * Schema once, a fresh database per test (issue #13), the action through act: e2e.yml's init and
 * init-failures jobs. Each job starts both modes (a Docker-mode and a native-mode server in one
 * job), so this file runs in the solo lane: init files and globs, a no-transaction file,
 * init-command, extensions, databases, template, 4 workers cloning it; a failing SQL file, a
 * failing command, a missing extension, a missing file. Each leaves nothing behind. The CLI is in
 * init-native.test.ts and init-docker.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, requireImages, runAct, showLines, TEST_IMAGES } from '../helpers/infra.js';

describe('init, template and per-test databases', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });

  it('action through act: both modes load the schema, make a template, and 4 workers clone it', () => {
    requireImages();
    const r = runAct('.github/workflows/e2e.yml', [
      '-j',
      'init',
      '--var',
      `PG_TMPFS_INIT_IMAGE=${TEST_IMAGES[18]}`,
      '--var',
      `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`,
    ]);
    showLines(r.log, /e2e-check|clone-workers|Init SQL|template database|init-command saw|ms$/);
    expect(r.status, r.log.slice(-8000)).toBe(0);
    expect(r.log).toContain('e2e-check init: ok');
    expect(r.log.match(/clone-workers: ok \(20 clones of app by 4 workers\)/g)?.length).toBe(2);
    // The init command ran with PG* set, its output in the log; the groups name the files.
    expect(r.log).toContain('init-command saw app');
    expect(r.log).toMatch(/Init SQL: 3 files in app/);
    expect(r.log).toMatch(/tests\/fixtures\/init\/migrations\/002_indexes\.sql: \d+ ms/);
    expect(r.log).not.toContain('init p@ss');
    expect(leftovers.added()).toEqual([]);
  });

  it('action through act: a failing SQL file, command, extension and file each fail their step, leaving nothing', () => {
    requireImages();
    const r = runAct('.github/workflows/e2e.yml', [
      '-j',
      'init-failures',
      '--var',
      `PG_TMPFS_INIT_IMAGE=${TEST_IMAGES[18]}`,
      '--var',
      `PG_TMPFS_NATIVE_VERSION=${NATIVE_MAJOR}`,
    ]);
    showLines(r.log, /::error|e2e-check/);
    expect(r.status, r.log.slice(-8000)).toBe(0);
    expect(r.log).toContain('e2e-check init-failures: ok');
    // An annotation on the failing line of the file, with the server's message.
    expect(r.log).toMatch(
      /::error title=init%3A tests\/fixtures\/init\/bad\/broken\.sql,file=tests\/fixtures\/init\/bad\/broken\.sql,line=3,col=\d+::Input 'init': tests\/fixtures\/init\/bad\/broken\.sql:3:\d+: ERROR: column "nonexistent_column" does not exist/,
    );
    expect(r.log).toMatch(/Input 'init-command': exited with code 3: migration 7 failed/);
    expect(r.log).toContain('migrating postgres'); // the command's own output, in the log
    expect(r.log).toMatch(/Input 'extensions': "pgvector" is not available in image pg-tmpfs-test\/postgres:18/);
    expect(r.log).toMatch(/Input 'init': "db\/no-such-folder\/\*\.sql" matches no readable file/);
    expect(leftovers.added()).toEqual([]);
  });
});
