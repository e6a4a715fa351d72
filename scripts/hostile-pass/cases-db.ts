/** Hostile pass, `db` subcommands and connection URIs: odd names, escaping, lifecycle misuse. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Ctx,
  errorLines,
  gives,
  type HCase,
  query,
  refused,
  runProcess,
  up,
  upJson,
  upServes,
  type Verdict,
} from './lib.js';

/** Starts the case's instance (database app, template) and returns its URI, or a verdict when it fails. */
async function started(c: Ctx, argv: string[] = ['--database', 'app', '--template']): Promise<string | Verdict> {
  const r = await up(c, argv);
  const info = upJson(r);
  return info ? info.connectionUri : { cls: 'wrong result', what: `setup up failed: ${errorLines(r)}` };
}

/** `db create --db-name <n>`: passed when the printed URI connects to a database of exactly that name. */
function createNamed(id: string, dbName: string): HCase {
  return {
    id,
    area: 'db',
    run: async (c) => {
      const s = await started(c);
      if (typeof s !== 'string') return s;
      const r = await c.cli(['db', 'create', '--name', c.name, '--db-name', dbName, '--json']);
      const expected = `a database named ${JSON.stringify(dbName)} its URI reaches, or a refusal naming --db-name`;
      if (r.code !== 0) {
        const v = refused(r, '--db-name', expected);
        return v.cls === 'clear error' ? v : refused(r, dbName, expected);
      }
      const uri = (JSON.parse(r.stdout) as { uri: string }).uri;
      const got = await query(uri, 'select current_database()').catch((e: Error) => `error ${e.message}`);
      return got === dbName
        ? { cls: 'passed', what: 'created, URI reaches it' }
        : { cls: 'wrong result', what: `URI ${uri} reaches ${JSON.stringify(got)}`, expected };
    },
  };
}

/** A `db` command after a start, expected to be refused naming `input`. */
function dbRefuses(id: string, args: (c: Ctx) => string[], input: string, argv?: string[]): HCase {
  return {
    id,
    area: 'db',
    run: async (c) => {
      const s = await started(c, argv);
      if (typeof s !== 'string') return s;
      return refused(await c.cli(args(c)), input);
    },
  };
}

/** A start whose printed URI must reach the user `user` and database `db`. */
function uriReaches(id: string, argv: string[], user: string, db: string, env: Record<string, string> = {}): HCase {
  return upServes(id, 'uri', argv, gives(`select current_user || '/' || current_database()`, `${user}/${db}`), {
    env,
    input: argv[0],
  });
}

/** The cases of this file. */
export const dbCases: HCase[] = [
  createNamed('db-name-double-quote', 'a"b'),
  createNamed('db-name-space', 'a b'),
  createNamed('db-name-unicode', 'ünïcödé'),
  createNamed('db-name-reserved-word', 'select'),
  createNamed('db-name-percent-encoded', 'a%2Fb'),
  createNamed('db-name-slash', 'a/b'),
  createNamed('db-name-query-chars', 'a?b#c'),
  createNamed('db-name-capitals', 'MyDb'),
  createNamed('db-name-single-quote', `it's`),
  {
    id: 'db-names-differ-by-case',
    area: 'db',
    run: async (c) => {
      const s = await started(c);
      if (typeof s !== 'string') return s;
      const a = await c.cli(['db', 'create', '--name', c.name, '--db-name', 'Case', '--json']);
      const b = await c.cli(['db', 'create', '--name', c.name, '--db-name', 'case', '--json']);
      if (a.code !== 0 || b.code !== 0) return refused(a.code !== 0 ? a : b, 'case', 'two databases Case and case');
      const ua = (JSON.parse(a.stdout) as { uri: string }).uri;
      const ub = (JSON.parse(b.stdout) as { uri: string }).uri;
      const got = `${await query(ua, 'select current_database()')},${await query(ub, 'select current_database()')}`;
      return got === 'Case,case'
        ? { cls: 'passed', what: 'two databases' }
        : { cls: 'wrong result', what: `URIs reach ${got}`, expected: 'Case,case' };
    },
  },
  dbRefuses('db-create-twice', (c) => ['db', 'create', '--name', c.name, '--db-name', 'app'], 'app'),
  dbRefuses('db-create-from-missing', (c) => ['db', 'create', '--name', c.name, '--from', 'nope'], 'nope'),
  dbRefuses('db-drop-template1', (c) => ['db', 'drop', '--name', c.name, 'template1'], 'template1'),
  dbRefuses('db-drop-postgres', (c) => ['db', 'drop', '--name', c.name, 'postgres'], 'postgres'),
  dbRefuses('db-create-empty-name', (c) => ['db', 'create', '--name', c.name, '--db-name', ''], '--db-name'),
  {
    id: 'db-drop-missing',
    area: 'db',
    run: async (c) => {
      const s = await started(c);
      if (typeof s !== 'string') return s;
      const r = await c.cli(['db', 'drop', '--name', c.name, 'nope']);
      // Idempotent (exit 0, saying so) is a design choice, as `down` of an unknown name is.
      return r.code === 0 && r.stderr.includes('nope')
        ? { cls: 'passed', what: `exit 0: ${r.stderr.trim()}` }
        : refused(r, 'nope', 'exit 0 saying so, or a refusal naming nope');
    },
  },
  {
    id: 'db-create-no-instance',
    area: 'db',
    run: async (c) => refused(await c.cli(['db', 'create', '--name', 'hp-nosuch']), 'hp-nosuch'),
  },
  {
    id: 'db-drop-instance-database',
    area: 'db',
    run: async (c) => {
      const s = await started(c);
      if (typeof s !== 'string') return s;
      const r = await c.cli(['db', 'drop', '--name', c.name, 'app']);
      if (r.code !== 0) return refused(r, 'app');
      const again = await c.cli(['db', 'create', '--name', c.name]);
      return again.code === 0
        ? { cls: 'passed', what: 'dropped; db create still works' }
        : {
            cls: 'wrong result',
            what: `dropped the template --database app; next db create: ${errorLines(again)}`,
            expected: 'refuse to drop the instance template, or keep db create working',
          };
    },
  },
  uriReaches('uri-password-reserved-chars', ['--password', 'p@ss:w/rd?#%[]'], 'postgres', 'postgres'),
  uriReaches('uri-user-unicode', ['--user', 'ünï'], 'ünï', 'postgres'),
  uriReaches('uri-user-space', ['--user', 'a b'], 'a b', 'postgres'),
  uriReaches('uri-user-capitals', ['--user', 'Admin'], 'Admin', 'postgres'),
  uriReaches('uri-database-query-chars', ['--database', 'my db?x=1#y'], 'postgres', 'my db?x=1#y'),
  uriReaches('uri-database-capitals', ['--database', 'MyApp'], 'postgres', 'MyApp'),
  uriReaches('uri-user-at-sign', ['--user', 'me@corp'], 'me@corp', 'postgres'),
  uriReaches('uri-pgpassword-special', [], 'postgres', 'postgres', { PGPASSWORD: `a b%'"$` }),
  {
    id: 'export-lines-shell-safe',
    area: 'uri',
    run: async (c) => {
      const pw = `x'$(touch ${join(c.dir, 'pwned')})\`id\`"\\`;
      c.undo.push(async () => void (await c.cli(['down', '--name', c.name])));
      const r = await c.cli([
        'up',
        '--name',
        c.name,
        '--mode',
        'native',
        '--postgres-version',
        '15',
        '--quiet',
        '--password',
        pw,
      ]);
      if (r.code !== 0) return refused(r, '--password', 'serves; eval of its lines sets PGPASSWORD exactly');
      writeFileSync(join(c.dir, 'out.sh'), r.stdout);
      const sh = await runProcess('sh', ['-c', `eval "$(cat '${join(c.dir, 'out.sh')}')"; printf %s "$PGPASSWORD"`], {}, 10_000);
      let pwned = false;
      try {
        readFileSync(join(c.dir, 'pwned'));
        pwned = true;
      } catch {
        /* not made: good */
      }
      if (pwned) return { cls: 'security', what: 'eval of the export lines ran a command in the password' };
      return sh.stdout === pw
        ? { cls: 'passed', what: 'eval gives the exact password' }
        : { cls: 'wrong result', what: `eval gave ${JSON.stringify(sh.stdout)}`, expected: JSON.stringify(pw) };
    },
  },
];
