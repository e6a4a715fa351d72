/** Hostile pass, flags and settings: odd forms of numbers, repeated flags, settings text. */
import { gives, type HCase, query, upRefuses, upServes } from './lib.js';

const serves = gives('select 1', '1');
const port = (want: number) => async (uri: string) =>
  new URL(uri).port === String(want) ? null : `port ${new URL(uri).port}, not ${want}`;

/** The cases of this file. */
export const flagCases: HCase[] = [
  upServes('port-hex', 'flags', ['--port', '0x1F91'], port(8081), { input: '--port' }),
  upServes('port-leading-space', 'flags', ['--port', ' 0'], serves, { input: '--port' }),
  upServes('port-empty', 'flags', ['--port', ''], serves, { input: '--port' }),
  upServes('port-repeated-last-wins', 'flags', ['--port', '1', '--port', '0'], serves, { expected: 'the later --port 0 wins' }),
  upServes('port-equals-form', 'flags', ['--port=0'], serves),
  upServes('port-exponent', 'flags', ['--port', '8.082e3'], port(8082), { input: '--port' }),
  upRefuses('tmpfs-size-negative', 'flags', ['--tmpfs-size', '-1g'], '--tmpfs-size'),
  upRefuses('tmpfs-size-hex', 'flags', ['--tmpfs-size', '0x100m'], '--tmpfs-size'),
  upServes('tmpfs-size-fraction', 'flags', ['--tmpfs-size', '1.5g'], serves, { input: '--tmpfs-size' }),
  upServes('tmpfs-size-capital-unit', 'flags', ['--tmpfs-size', '1G'], serves, { input: '--tmpfs-size' }),
  upServes('wait-timeout-with-unit', 'flags', ['--wait-timeout', '30s'], serves, { input: '--wait-timeout' }),
  upServes('wait-timeout-fraction', 'flags', ['--wait-timeout', '30.5'], serves, { input: '--wait-timeout' }),
  upServes('wait-timeout-hex', 'flags', ['--wait-timeout', '0x1e'], serves, { input: '--wait-timeout' }),
  upRefuses('init-timeout-zero', 'flags', ['--init-timeout', '0'], '--init-timeout'),
  upRefuses('init-timeout-negative', 'flags', ['--init-timeout', '-1'], '--init-timeout'),
  upRefuses('init-timeout-word', 'flags', ['--init-timeout', 'ten'], '--init-timeout'),
  upRefuses('shm-size-zero', 'flags', ['--shm-size', '0'], '--shm-size'),
  upRefuses('flag-typo', 'flags', ['--databse', 'app'], '--databse'),
  upRefuses('positional-extra', 'flags', ['extra'], 'too many arguments'),
  upServes('name-unicode', 'flags', [], serves, { input: '--name' }),
  upServes('user-empty', 'flags', ['--user', ''], gives('select current_user', 'postgres'), {
    input: '--user',
    expected: 'the default user, or a refusal naming --user',
  }),
  upServes('database-empty', 'flags', ['--database', ''], gives('select current_database()', 'postgres'), {
    input: '--database',
  }),
  upServes('database-63-bytes', 'flags', ['--database', 'd'.repeat(63)], gives('select current_database()', 'd'.repeat(63))),
  upServes('password-empty', 'flags', ['--password', ''], serves, { input: '--password' }),
  upServes('mode-with-space', 'flags', ['--mode', ' native'], serves, { input: '--mode' }),
  upServes('version-trailing-space', 'flags', ['--postgres-version', '15 '], gives('show server_version_num', '150018'), {
    input: '--postgres-version',
  }),
  upServes('version-v-prefix', 'flags', ['--postgres-version', 'v15'], serves, { input: '--postgres-version' }),
  upServes('json-twice', 'flags', ['--json'], serves),
  upServes(
    'settings-crlf',
    'settings',
    ['--settings', 'work_mem=8MB\r\nmaintenance_work_mem=70MB\r\n'],
    async (uri) => {
      const got = `${await query(uri, 'show work_mem')},${await query(uri, 'show maintenance_work_mem')}`;
      return got === '8MB,70MB' ? null : `work_mem,maintenance_work_mem = ${got}`;
    },
    { input: '--settings' },
  ),
  upServes('setting-units', 'settings', ['--setting', 'work_mem=64MB'], gives('show work_mem', '64MB')),
  upServes(
    'setting-quoted-list',
    'settings',
    ['--setting', `search_path='my schema', public`],
    gives('show search_path', '"my schema", public'),
    { input: '--setting' },
  ),
  upServes('setting-bool-yes', 'settings', ['--setting', 'log_connections=yes'], gives('show log_connections', 'on'), {
    input: '--setting',
  }),
  upServes('setting-dotted-without-library', 'settings', ['--setting', 'auto_explain.log_min_duration=0'], serves, {
    input: 'auto_explain',
  }),
  upServes(
    'setting-repeated-last-wins',
    'settings',
    ['--setting', 'work_mem=8MB', '--setting', 'work_mem=16MB'],
    gives('show work_mem', '16MB'),
    { input: 'work_mem' },
  ),
  upServes('setting-name-capitals', 'settings', ['--setting', 'WORK_MEM=9MB'], gives('show work_mem', '9MB'), {
    input: 'WORK_MEM',
  }),
  upServes('setting-spaces-around-equals', 'settings', ['--settings', 'work_mem = 10MB'], gives('show work_mem', '10MB'), {
    input: '--settings',
  }),
  upServes('settings-comment-line', 'settings', ['--settings', '# tuned\nwork_mem=11MB'], gives('show work_mem', '11MB'), {
    input: '--settings',
  }),
  upServes('setting-value-with-hash', 'settings', ['--setting', 'myapp.tag=a#b'], gives('show myapp.tag', 'a#b'), {
    input: '--setting',
  }),
  upRefuses('setting-name-100-chars', 'settings', ['--setting', `${'x'.repeat(100)}=1`], '--setting'),
  upServes('setting-unicode-value', 'settings', ['--setting', 'myapp.label=ünïcödé'], gives('show myapp.label', 'ünïcödé'), {
    input: '--setting',
  }),
];
// name-unicode needs its own name: the runner's name is ascii.
flagCases[19] = {
  id: 'name-unicode',
  area: 'flags',
  run: async (c) => {
    c.undo.push(async () => void (await c.cli(['down', '--name', 'ünï'])));
    const r = await c.cli(['up', '--name', 'ünï', '--mode', 'native', '--postgres-version', '15', '--json', '--quiet']);
    if (r.code === 0) return { cls: 'passed', what: 'served' };
    return r.stderr.includes('--name')
      ? { cls: 'clear error', what: r.stderr.trim().slice(0, 200) }
      : { cls: 'unclear error', what: r.stderr.slice(0, 200), expected: 'serves or names --name' };
  },
};
