/** Hostile pass, more adversarial cases: files that block, injected lines, reserved names, races with down. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Ctx, errorLines, gives, type HCase, query, refused, runProcess, up, upJson, upRefuses, upServes } from './lib.js';

const file = (name: string, text: string) => (c: Ctx) => writeFileSync(join(c.dir, name), text);
const fifo = (name: string) => (c: Ctx) => void execFileSync('mkfifo', [join(c.dir, name)]);

/** The cases of this file. */
export const moreCases: HCase[] = [
  upServes('password-file-crlf', 'secrets', ['--password-file', '{dir}/pw'], gives('select 1', '1'), {
    setup: file('pw', 'secret\r\n'),
    input: '--password-file',
  }),
  upRefuses('password-file-is-directory', 'secrets', ['--password-file', '{dir}'], '--password-file'),
  upRefuses('password-file-empty', 'secrets', ['--password-file', '{dir}/pw'], '--password-file', { setup: file('pw', '') }),
  upRefuses('password-file-fifo', 'secrets', ['--password-file', '{dir}/pw'], '--password-file', { setup: fifo('pw') }),
  upRefuses('init-file-fifo', 'init', ['--init', '{dir}/a.sql'], '--init', { setup: fifo('a.sql') }),
  upRefuses('init-dev-zero', 'init', ['--init', '/dev/zero'], '--init'),
  upServes(
    'init-same-file-twice',
    'init',
    ['--init', '{dir}/a.sql', '--init', '{dir}/a.sql'],
    gives('select count(*) from t', '1'),
    { setup: file('a.sql', 'create table t(x int); insert into t values (1);'), input: 'a.sql' },
  ),
  upServes('init-path-with-space-unicode', 'init', ['--init', '{dir}/my sché ma.sql'], gives('select count(*) from t', '0'), {
    setup: file('my sché ma.sql', 'create table t(x int);'),
    input: 'sché',
  }),
  upRefuses('init-timeout-exceeded', 'init', ['--init-timeout', '1', '--init', '{dir}/a.sql'], '--init-timeout', {
    setup: file('a.sql', 'select pg_sleep(5);'),
  }),
  upServes('init-command-reads-stdin', 'init', ['--init-command', 'cat >/dev/null; echo done'], gives('select 1', '1'), {
    input: '--init-command',
  }),
  upServes(
    'init-command-much-output',
    'init',
    ['--init-command', 'head -c 5000000 /dev/zero | tr "\\0" x; echo'],
    gives('select 1', '1'),
    { input: '--init-command' },
  ),
  upServes(
    'setting-newline-injection',
    'settings',
    ['--setting', 'application_name=x\nwork_mem=13MB'],
    async (uri) => {
      const wm = await query(uri, 'show work_mem');
      return wm === '13MB' ? 'a newline in one --setting value set a second setting (work_mem=13MB)' : null;
    },
    { input: '--setting', expected: 'refused, naming --setting (one setting per flag)' },
  ),
  upRefuses('setting-include', 'settings', ['--setting', 'include=/etc/hostname'], 'include'),
  upRefuses('setting-config-file', 'settings', ['--setting', 'config_file=/etc/hostname'], 'config_file'),
  upRefuses('user-reserved-public', 'names', ['--user', 'public'], '--user'),
  upRefuses('user-reserved-pg-prefix', 'names', ['--user', 'pg_admin'], '--user'),
  upRefuses('database-template-of-postgres', 'names', ['--database', 'postgres', '--template'], '--template'),
  upServes('databases-postgres', 'names', ['--databases', 'postgres'], gives('select 1', '1'), { input: '--databases' }),
  upServes(
    'extension-with-version',
    'ext',
    ['--extensions', 'pg_trgm=1.6'],
    gives(`select extversion from pg_extension where extname='pg_trgm'`, '1.6'),
    { input: 'pg_trgm' },
  ),
  upServes(
    'password-flag-vs-pgpassword',
    'secrets',
    ['--password', 'fromflag'],
    async (uri) => (new URL(uri).password === 'fromflag' ? null : `URI password ${new URL(uri).password}`),
    { env: { PGPASSWORD: 'fromenv' } },
  ),
  upServes('database-newline', 'names', ['--database', 'a\nb'], gives('select current_database()', 'a\nb'), {
    input: '--database',
  }),
  upRefuses('user-newline', 'names', ['--user', 'a\nb'], '--user'),
  upServes(
    'password-file-two-lines',
    'secrets',
    ['--password-file', '{dir}/pw'],
    async (uri) => (new URL(uri).password === 'first' ? null : `URI password ${new URL(uri).password}`),
    {
      setup: file('pw', 'first\nsecond\n'),
      input: '--password-file',
    },
  ),
  upServes(
    'setting-preload-real-library',
    'settings',
    ['--setting', 'shared_preload_libraries=auto_explain', '--setting', 'auto_explain.log_min_duration=0'],
    gives('show shared_preload_libraries', 'auto_explain'),
    { input: '--setting' },
  ),
  {
    id: 'wait-timeout-bad-values',
    area: 'life',
    run: async (c) => {
      await up(c, []);
      for (const t of ['0', '-1', 'abc']) {
        const v = refused(await c.cli(['wait', '--name', c.name, '--timeout', t], {}, 20_000), '--timeout');
        if (v.cls !== 'clear error') return { ...v, what: `--timeout ${t}: ${v.what}` };
      }
      return { cls: 'clear error', what: 'all three named --timeout' };
    },
  },
  {
    id: 'down-during-slow-init',
    area: 'life',
    run: async (c) => {
      writeFileSync(join(c.dir, 'a.sql'), 'select pg_sleep(4);');
      const starting = up(c, ['--init', join(c.dir, 'a.sql')]);
      await new Promise((r) => setTimeout(r, 1500));
      const d = await c.cli(['down', '--name', c.name]);
      const u = await starting;
      // down refusing while the start runs (naming it) is a clear error; the start then serves and the case's undo stops it.
      if (d.code !== 0)
        return u.code === 0
          ? refused(d, 'being started', 'down refuses naming the start, or stops it')
          : { cls: 'wrong result', what: `both failed: down ${errorLines(d)}; up ${errorLines(u)}` };
      const s = await c.cli(['status']);
      if (s.stdout.trim() !== '[]')
        return { cls: 'left behind', what: `down exit 0, yet status then: ${s.stdout.slice(0, 200)}`, expected: 'nothing' };
      if (u.code === 0)
        return {
          cls: 'wrong result',
          what: 'down exit 0, yet up then printed a connection',
          expected: 'up fails saying it was stopped',
        };
      return { cls: 'passed', what: `down stopped the start; up: ${errorLines(u)}` };
    },
  },
  {
    id: 'db-create-while-template-in-use',
    area: 'db',
    run: async (c) => {
      const u = upJson(await up(c, ['--database', 'app', '--template']));
      if (!u) return { cls: 'wrong result', what: 'setup up failed' };
      const hold = runProcess(
        'psql',
        ['-X', '-d', u.connectionUri.replace(/\/postgres$/, '/app'), '-c', 'select pg_sleep(6)'],
        {},
        20_000,
      );
      await new Promise((r) => setTimeout(r, 1000));
      const r = await c.cli(['db', 'create', '--name', c.name, '--json']);
      await hold;
      if (r.code === 0) return { cls: 'passed', what: 'created while a session used the template' };
      return refused(r, 'app', 'created, or an error naming the session on app');
    },
  },
  {
    id: 'db-create-before-no-wait-ready',
    area: 'db',
    run: async (c) => {
      await up(c, ['--no-wait', '--database', 'app', '--template']);
      const r = await c.cli(['db', 'create', '--name', c.name, '--json']);
      if (r.code === 0) {
        const got = await query((JSON.parse(r.stdout) as { uri: string }).uri, 'select 1');
        return got === '1' ? { cls: 'passed', what: 'waited, then created' } : { cls: 'wrong result', what: got };
      }
      return refused(r, 'wait', 'waits, or names pg-tmpfs wait');
    },
  },
];
