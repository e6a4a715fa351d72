/** Hostile pass: init files, extensions, databases, locale, the caller's environment, lifecycle, the action, Docker. */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Ctx,
  DOCKER,
  errorLines,
  gives,
  type HCase,
  query,
  refused,
  ROOT,
  runProcess,
  up,
  upJson,
  upRefuses,
  upServes,
} from './lib.js';

const serves = gives('select 1', '1');
const file = (name: string, text: string | Buffer) => (c: Ctx) => writeFileSync(join(c.dir, name), text);
const initServes = (id: string, text: string | Buffer, sql: string, want: string, input = 'a.sql') =>
  upServes(id, 'init', ['--database', 'app', '--init', '{dir}/a.sql'], gives(sql, want), { setup: file('a.sql', text), input });
const initRefuses = (id: string, text: string | Buffer, input = 'a.sql') =>
  upRefuses(id, 'init', ['--database', 'app', '--init', '{dir}/a.sql'], input, { setup: file('a.sql', text) });

/** The cases of this file. */
export const miscCases: HCase[] = [
  upRefuses('init-glob-matches-nothing', 'init', ['--init', '{dir}/none/*.sql'], '--init'),
  upRefuses('init-directory', 'init', ['--init', '{dir}'], '--init'),
  initRefuses('init-binary-file', Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 0x80, 10])),
  initServes('init-utf8-bom', '\ufeffcreate table t(x int); insert into t values (1);', 'select count(*) from t', '1'),
  initServes(
    'init-crlf',
    'create table t(x int);\r\ninsert into t values (1);\r\ninsert into t values (2);\r\n',
    'select count(*) from t',
    '2',
  ),
  initServes('init-copy-from-stdin', 'create table t(x int);\ncopy t from stdin;\n1\n2\n\\.\n', 'select count(*) from t', '2'),
  initRefuses('init-psql-meta-command', '\\set x 1\ncreate table t(x int);\n'),
  initServes(
    'init-large-10mb',
    `${'-- pad\n'.repeat(1_500_000)}create table t(x int);`,
    `select count(*) from pg_class where relname='t'`,
    '1',
  ),
  initServes(
    'init-explicit-begin-commit',
    'begin; create table t(x int); commit;',
    `select count(*) from pg_class where relname='t'`,
    '1',
  ),
  initRefuses('init-create-database', 'create database other;'),
  initRefuses('init-vacuum', 'create table t(x int); vacuum t;'),
  initServes(
    'init-dollar-quoted-semicolons',
    `create function f() returns text language plpgsql as $$ begin return 'a;b'; end $$;`,
    'select f()',
    'a;b',
  ),
  upServes('init-glob-order', 'init', ['--database', 'app', '--init', '{dir}/*.sql'], gives('select count(*) from t', '1'), {
    setup: (c) => (file('1.sql', 'create table t(x int);')(c), file('2.sql', 'insert into t values (1);')(c)),
  }),
  upRefuses('init-command-exit-3', 'init', ['--init-command', 'exit 3'], 'init-command'),
  upServes(
    'init-command-sees-database-url',
    'init',
    ['--database', 'app', '--init-command', 'psql "$DATABASE_URL" -c "create table fromcmd()"'],
    gives(`select count(*) from pg_class where relname='fromcmd'`, '1'),
  ),
  upRefuses('ext-unknown', 'ext', ['--extensions', 'no_such_ext'], 'no_such_ext'),
  upServes(
    'ext-duplicate',
    'ext',
    ['--extensions', 'pg_trgm,pg_trgm'],
    gives(`select count(*) from pg_extension where extname='pg_trgm'`, '1'),
    { input: 'pg_trgm' },
  ),
  upServes(
    'ext-capitals',
    'ext',
    ['--extensions', 'PG_TRGM'],
    gives(`select count(*) from pg_extension where extname='pg_trgm'`, '1'),
    { input: 'PG_TRGM' },
  ),
  upServes(
    'ext-empty-items',
    'ext',
    ['--extensions', 'pg_trgm,,'],
    gives(`select count(*) from pg_extension where extname='pg_trgm'`, '1'),
    { input: '--extensions' },
  ),
  upServes(
    'ext-space-after-comma',
    'ext',
    ['--extensions', 'pg_trgm, hstore'],
    gives(`select count(*) from pg_extension where extname in ('pg_trgm','hstore')`, '2'),
    { input: '--extensions' },
  ),
  upServes('ext-plpgsql-already-there', 'ext', ['--extensions', 'plpgsql'], serves),
  upServes(
    'databases-duplicate',
    'dbs',
    ['--databases', 'a,a'],
    gives(`select count(*) from pg_database where datname='a'`, '1'),
    { input: '--databases' },
  ),
  upServes(
    'databases-same-as-database',
    'dbs',
    ['--database', 'app', '--databases', 'app'],
    gives(`select count(*) from pg_database where datname='app'`, '1'),
    { input: 'app' },
  ),
  upServes(
    'databases-differ-by-case',
    'dbs',
    ['--databases', 'A,a'],
    gives(`select count(*) from pg_database where datname in ('A','a')`, '2'),
    { input: '--databases' },
  ),
  upServes(
    'locale-c-utf8',
    'locale',
    ['--locale', 'C.UTF-8'],
    gives('select datcollate from pg_database where datname=current_database()', 'C.UTF-8'),
    { input: '--locale' },
  ),
  upServes('locale-not-generated', 'locale', ['--locale', 'xx_XX.UTF-8', '--cache-dir', '{dir}/cache'], serves, {
    input: '--locale',
  }),
  upServes('locale-posix', 'locale', ['--locale', 'POSIX'], serves, { input: '--locale' }),
  upServes('env-home-unset', 'env', [], serves, { env: { HOME: undefined } }),
  upServes('env-tmpdir-is-file', 'env', [], serves, { env: { TMPDIR: '/etc/hostname' }, input: 'TMPDIR' }),
  upServes('env-tmpdir-read-only', 'env', [], serves, { env: { TMPDIR: '/proc' }, input: 'TMPDIR' }),
  upServes('env-lc-all-unknown', 'env', [], serves, { env: { LC_ALL: 'xx_XX.UTF-8', LANG: 'xx_XX.UTF-8' } }),
  upServes('env-state-dir-symlink', 'env', [], serves, {
    setup: (c) => (mkdirSync(join(c.dir, 'real'), { mode: 0o700 }), symlinkSync(join(c.dir, 'real'), c.state)),
    input: 'PG_TMPFS_STATE_DIR',
  }),
  upServes('env-state-dir-relative', 'env', [], serves, {
    env: { PG_TMPFS_STATE_DIR: 'rel-state' },
    input: 'PG_TMPFS_STATE_DIR',
    setup: (c) => void c.undo.unshift(() => rmSync(join(ROOT, 'rel-state'), { recursive: true, force: true })),
  }),
  upRefuses('env-path-without-docker', 'env', [], 'docker', { mode: DOCKER, env: { PATH: '/nonexistent' } }),
  {
    id: 'status-empty-state',
    area: 'life',
    run: async (c) => {
      const r = await c.cli(['status']);
      return r.code === 0 && r.stdout.trim() === '[]'
        ? { cls: 'passed', what: '[]' }
        : { cls: 'wrong result', what: `exit ${r.code}: ${r.stdout}${r.stderr}`.slice(0, 200), expected: 'exit 0, []' };
    },
  },
  {
    id: 'down-unknown-name',
    area: 'life',
    run: async (c) => {
      const r = await c.cli(['down', '--name', 'hp-never']);
      return r.code === 0 ? { cls: 'passed', what: r.stderr.trim().slice(0, 120) } : refused(r, 'hp-never');
    },
  },
  {
    id: 'down-twice',
    area: 'life',
    run: async (c) => {
      await up(c, []);
      const a = await c.cli(['down', '--name', c.name]);
      const b = await c.cli(['down', '--name', c.name]);
      return a.code === 0 && b.code === 0
        ? { cls: 'passed', what: 'both exit 0' }
        : { cls: 'wrong result', what: `exits ${a.code},${b.code}: ${errorLines(b)}`, expected: 'both exit 0' };
    },
  },
  {
    id: 'wait-without-up',
    area: 'life',
    run: async (c) => refused(await c.cli(['wait', '--name', 'hp-never', '--timeout', '3'], {}, 20_000), 'hp-never'),
  },
  {
    id: 'wait-after-plain-up',
    area: 'life',
    run: async (c) => {
      const u = await up(c, []);
      const w = await c.cli(['wait', '--name', c.name, '--json', '--timeout', '5'], {}, 20_000);
      const a = upJson(u)?.connectionUri;
      const b = upJson(w)?.connectionUri;
      return a && a === b
        ? { cls: 'passed', what: 'same connection' }
        : {
            cls: 'wrong result',
            what: `up ${a}, wait exit ${w.code} ${b ?? errorLines(w)}`,
            expected: 'wait prints the same connection',
          };
    },
  },
  {
    id: 'no-wait-then-down-at-once',
    area: 'life',
    run: async (c) => {
      await up(c, ['--no-wait']);
      const d = await c.cli(['down', '--name', c.name]);
      const s = await c.cli(['status']);
      return d.code === 0 && s.stdout.trim() === '[]'
        ? { cls: 'passed', what: 'down at once, status []' }
        : {
            cls: 'wrong result',
            what: `down ${d.code}: ${errorLines(d)}; status ${s.stdout.slice(0, 120)}`,
            expected: 'down exit 0, nothing left',
          };
    },
  },
  {
    id: 'two-ups-racing-one-name',
    area: 'life',
    run: async (c) => {
      c.undo.push(async () => void (await c.cli(['down', '--name', c.name])));
      const args = ['up', '--name', c.name, '--mode', 'native', '--postgres-version', '15', '--json', '--quiet'];
      const [a, b] = await Promise.all([c.cli(args), c.cli(args)]);
      const ok = [a, b].filter((r) => r.code === 0).length;
      const loser = [a, b].find((r) => r.code !== 0);
      if (ok !== 1 || !loser)
        return { cls: 'wrong result', what: `${ok} of 2 served`, expected: 'one serves, one refused naming the instance' };
      const v = refused(loser, c.name);
      if (v.cls !== 'clear error') return v;
      const uri = upJson(a.code === 0 ? a : b)!.connectionUri;
      return (await query(uri, 'select 1')) === '1' ? v : { cls: 'wrong result', what: 'the winner does not answer' };
    },
  },
  {
    id: 'action-inputs-with-whitespace',
    area: 'action',
    run: async (c) => {
      const runnerTemp = join(c.dir, 'rt');
      mkdirSync(runnerTemp);
      const files = Object.fromEntries(
        ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY'].map((k) => [k, join(c.dir, k)]),
      );
      for (const f of Object.values(files)) writeFileSync(f, '');
      const env = {
        ...files,
        RUNNER_TEMP: runnerTemp,
        PG_TMPFS_STATE_DIR: c.state,
        INPUT_MODE: ' native ',
        'INPUT_POSTGRES-VERSION': '15\n',
        INPUT_DATABASE: ' app ',
        INPUT_EXTENSIONS: 'pg_trgm\nhstore\n',
      };
      const main = await runProcess(process.execPath, [join(ROOT, 'dist/main.js')], env, 120_000);
      c.log.push(main.repro);
      const state = Object.fromEntries(
        [...readFileSync(files.GITHUB_STATE!, 'utf8').matchAll(/^(\w+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((m) => [
          `STATE_${m[1]}`,
          m[3],
        ]),
      );
      c.undo.push(
        async () => void (await runProcess(process.execPath, [join(ROOT, 'dist/post.js')], { ...env, ...state }, 120_000)),
      );
      const out = readFileSync(files.GITHUB_OUTPUT!, 'utf8');
      const uri = /connection-uri<<(\S+)\n(.*)\n/.exec(out)?.[2];
      if (main.code !== 0 || !uri)
        return {
          cls: 'unclear error',
          what: `main exit ${main.code}: ${main.stdout
            .split('\n')
            .filter((l) => l.startsWith('::error'))
            .join(' ')
            .slice(0, 200)}`,
          expected: 'trimmed inputs, or an error naming the input',
        };
      const got = await query(
        uri,
        `select current_database() || ',' || (select count(*) from pg_extension where extname in ('pg_trgm','hstore'))`,
      );
      return got === 'app,2'
        ? { cls: 'passed', what: 'inputs trimmed' }
        : { cls: 'wrong result', what: `got ${got}`, expected: 'app,2' };
    },
  },
  upServes(
    'docker-uri-special-user-password',
    'docker',
    ['--user', 'a b', '--password', 'p@:/?#'],
    gives('select current_user', 'a b'),
    { mode: DOCKER, input: '--user' },
  ),
  upServes(
    'docker-setting-quoted-list',
    'docker',
    ['--setting', `search_path='my schema', public`],
    gives('show search_path', '"my schema", public'),
    { mode: DOCKER, input: '--setting' },
  ),
  upServes('docker-tmpfs-size-fraction', 'docker', ['--tmpfs-size', '1.5g'], serves, { mode: DOCKER, input: '--tmpfs-size' }),
  upServes('docker-locale-given', 'docker', ['--locale', 'de_DE.UTF-8'], serves, { mode: DOCKER, input: '--locale' }),
  upServes('docker-database-unicode', 'docker', ['--database', 'ünï'], gives('select current_database()', 'ünï'), {
    mode: DOCKER,
    input: '--database',
  }),
  upServes(
    'docker-init-bom-crlf',
    'docker',
    ['--database', 'app', '--init', '{dir}/a.sql'],
    gives('select count(*) from t', '1'),
    { mode: DOCKER, setup: file('a.sql', '\ufeffcreate table t(x int);\r\ninsert into t values (1);\r\n'), input: 'a.sql' },
  ),
  upRefuses('docker-shm-size-negative-unit', 'docker', ['--shm-size', '-5m'], '--shm-size', { mode: DOCKER }),
];
