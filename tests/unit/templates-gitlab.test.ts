/**
 * The GitLab CI/CD component (templates/postgres.yml): parsed and checked against the one
 * definition of the durability settings (src/profile.ts) and GitLab's component layout rules. Its
 * wait, the GitLab Runner settings and the Woodpecker workflow are in templates-wait.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INITDB_ARGS } from '../../src/profile.js';
import { ROOT } from '../helpers/infra.js';
import { TEMPLATES, EXPECTED_ARGS, loadComponent, theJob, theService, inputRegex, filesUnder } from '../helpers/templates.js';

describe('GitLab CI/CD component layout', () => {
  it('has exactly one component, postgres, where the CI/CD catalog looks for components', () => {
    const files = filesUnder(TEMPLATES);
    // GitLab: templates/<name>.yml or templates/<name>/template.yml is a component.
    const components = files.filter((f) => /^[^/]+\.yml$/.test(f) || /^[^/]+\/template\.yml$/.test(f));
    expect(components).toEqual(['postgres.yml']);
    // glab's catalog publishing searches every .yml below templates/: no other file may be one.
    expect(files.filter((f) => f.endsWith('.yml'))).toEqual(['postgres.yml']);
    expect(files).toEqual(
      expect.arrayContaining([
        'gitlab-runner.toml',
        'woodpecker/README.md',
        'woodpecker/pipeline.yaml',
        'github/README.md',
        'github/services.yaml',
      ]),
    );
  });
});

describe('GitLab component spec:inputs', () => {
  it('declares the inputs users set, each with a description and a default', () => {
    const { inputs } = loadComponent();
    for (const name of [
      'job-name',
      'postgres-version',
      'image',
      'alias',
      'user',
      'password',
      'database',
      'settings',
      'pgdata',
      'privileged-tmpfs',
      'tmpfs-size',
      'shm-size',
      'wait-timeout',
      'extensions',
      'databases',
      'init',
      'template',
      'schema-cache',
      'schema-cache-files',
      'schema-cache-key',
    ]) {
      expect(inputs[name], `input ${name}`).toBeDefined();
      expect(inputs[name]!.description, `description of ${name}`).toMatch(/\w{3}/);
      expect(inputs[name]!.default, `default of ${name}`).not.toBeUndefined();
    }
    expect(inputs['job-name']!.default).toBe('.postgres');
    expect(inputs['postgres-version']!.default).toBe('18');
    expect(inputs['privileged-tmpfs']).toMatchObject({ type: 'boolean', default: false });
    expect(inputs['wait-timeout']).toMatchObject({ type: 'number', default: 60 });
    expect(inputs.template).toMatchObject({ type: 'boolean', default: false });
    for (const name of ['extensions', 'databases', 'init']) expect(inputs[name]!.default, name).toBe('');
    expect(inputs['schema-cache']).toMatchObject({ type: 'boolean', default: false });
    for (const name of ['schema-cache-files', 'schema-cache-key']) expect(inputs[name]!.default, name).toBe('');
    // No init-command: the job's own script runs right after the before_script, with the same variables.
    expect(inputs['init-command']).toBeUndefined();
  });

  it('gives every string input an RE2-safe regex that its default matches', () => {
    const { inputs } = loadComponent();
    const strings = Object.entries(inputs).filter(([, i]) => (i.type ?? 'string') === 'string');
    expect(strings.length).toBeGreaterThan(8);
    for (const [name, input] of strings) {
      expect(input.regex, `regex of ${name}`).toMatch(/^\^.*\$$/);
      // GitLab evaluates input regexes with RE2: no lookaround, no backreferences.
      expect(input.regex, `regex of ${name}`).not.toMatch(/\(\?[=!<]|\\[1-9]/);
      expect(inputRegex(input).test(String(input.default)), `default of ${name} matches its regex`).toBe(true);
    }
    for (const [name, input] of Object.entries(inputs)) {
      if ((input.type ?? 'string') !== 'string') expect(input.regex, `${name} is not a string`).toBeUndefined();
    }
  });

  it.each([
    [
      'postgres-version',
      ['17', '16.4', '17-alpine', '17-3.5', '17-3.5-alpine', '15-layout18', 'pg17', '0.8.0-pg17', 'pg17-bookworm'],
      ['latest', '17:1', 'v17', 'pg', '-17', ''],
    ],
    [
      'image',
      ['postgres', 'postgis/postgis', 'registry.example.com:5000/library/postgres'],
      ['postgres:17', 'Postgres', 'a b', ''],
    ],
    ['job-name', ['.postgres', '.pg-17'], ['postgres', '.', '.a b']],
    ['alias', ['postgres', 'db-1'], ['Postgres', '-db', 'db_1']],
    ['user', ['postgres', 'app_user', 'ci-user', 'u'.repeat(63)], ['a b', 'x@y', '', 'u'.repeat(64)]],
    ['password', ['postgres', 'Secret-1.x~y_z'], ['p$ss', 'a@b', 'a:b', 'a/b', 'a b', '']],
    ['database', ['postgres', 'app_test', 'd'.repeat(63)], ['a/b', '', 'd'.repeat(64)]],
    ['pgdata', ['', '/var/lib/postgresql/data', '/var/lib/postgresql/18/docker'], ['relative/dir', '/a b', '/x/']],
    ['tmpfs-size', ['', '1g', '512m', '50%'], ['1 g', '1gb', '-1']],
    ['shm-size', ['', '512m', '1g'], ['1%', 'big']],
    [
      'settings',
      ['', 'work_mem=64MB', 'work_mem = 64MB\n\n# comment\nlog_statement=all\n', "search_path='$user', public"],
      ['fsync', 'bad-name=1', 'a b=1', 'work_mem=', '=on'],
    ],
    [
      'extensions',
      ['', 'pg_trgm', 'pg_trgm, uuid-ossp', 'vector postgis', 'pg_trgm\n\n# geo\npostgis,\n  citext\n', 'a'.repeat(63)],
      ['$EXT', '-x', '.x', 'pg_trgm;drop', '"vector"', 'a/b', 'a'.repeat(64), 'x # comment'],
    ],
    [
      'databases',
      ['', 'app_b', 'app_b\napp-c', 'one, two ,three,', '# more\nx.y', ' a\t,\tb '],
      ['a b c;', "x'y", '${DB}', '-db', 'a$b', 'my db', 'one, two three', 'a\tb'],
    ],
    [
      'init',
      ['', 'db/schema.sql', 'db/schema.sql\n# seeds\ndb/seed/*.sql\n', 'my dir/[0-9]*.sql'],
      ['$CI_PROJECT_DIR/x.sql', 'a$$b'],
    ],
    [
      'schema-cache-files',
      ['', 'Gemfile.lock', 'db/migrate\ndb/schema.rb\n# lockfiles\npackage-lock.json\n', 'db/migrations/*.sql'],
      ['$CI_PROJECT_DIR/x', 'a$$b'],
    ],
    [
      'schema-cache-key',
      ['', 'v2', '2024-06-01', 'rails:7.1+pg', 'k'.repeat(100)],
      ['$KEY', 'a b', 'v2\n', 'a/b', 'k'.repeat(101)],
    ],
  ])('input %s accepts %j and rejects %j', (name, good, bad) => {
    const re = inputRegex(loadComponent().inputs[name]!);
    for (const value of good) expect(re.test(value), `${name} accepts ${JSON.stringify(value)}`).toBe(true);
    for (const value of bad) expect(re.test(value), `${name} rejects ${JSON.stringify(value)}`).toBe(false);
  });

  it('uses exactly the inputs it declares', () => {
    const { text, inputs } = loadComponent();
    const body = text.slice(text.indexOf('\n---\n'));
    const used = new Set([...body.matchAll(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(Object.keys(inputs).sort());
  });
});

describe('GitLab component job', () => {
  it('is a hidden job named by the job-name input', () => {
    const { jobs } = loadComponent();
    expect(Object.keys(jobs)).toEqual(['$[[ inputs.job-name ]]']);
  });

  it('runs the service with exactly the durability settings of src/profile.ts as -c flags', () => {
    const service = theService();
    expect(service.command).toEqual(EXPECTED_ARGS);
    expect(service.command.join(' ')).not.toMatch(/shared_buffers/);
  });

  it('passes the initdb arguments of src/profile.ts through POSTGRES_INITDB_ARGS', () => {
    expect(theService().variables.POSTGRES_INITDB_ARGS).toBe(INITDB_ARGS.join(' '));
  });

  it('names the service image from the inputs and gives it the alias input', () => {
    const service = theService();
    expect(service.name).toBe('$[[ inputs.image ]]:$[[ inputs.postgres-version ]]');
    expect(service.alias).toBe('$[[ inputs.alias ]]');
    expect(service.variables).toMatchObject({
      POSTGRES_USER: '$[[ inputs.user ]]',
      POSTGRES_PASSWORD: '$[[ inputs.password ]]',
      POSTGRES_DB: '$[[ inputs.database ]]',
    });
  });

  it("wraps the image's own entrypoint: one shell script that ends in exec docker-entrypoint.sh", () => {
    const ep = theService().entrypoint;
    expect(ep).toHaveLength(4);
    expect(ep.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(ep[3]).toBe('pg-tmpfs'); // $0 of the script; `command` follows as $1...
    const script = ep[2]!;
    expect(script.trimEnd().split('\n').at(-1)).toBe('exec docker-entrypoint.sh "$@"');
    // Exactly one log line about PGDATA, whichever case applies.
    expect(script.match(/\bsay "PGDATA /g)).toHaveLength(2); // one per branch of a single if/else
    expect(script).toMatch(/if \[ "\$type" = tmpfs \]; then\n\s+say "PGDATA \$PGDATA is on tmpfs/);
  });

  it('gives the job DATABASE_URL and the PG* variables for the service alias', () => {
    expect(theJob().variables).toEqual({
      PGHOST: '$[[ inputs.alias ]]',
      PGPORT: '5432',
      PGUSER: '$[[ inputs.user ]]',
      PGPASSWORD: '$[[ inputs.password ]]',
      PGDATABASE: '$[[ inputs.database ]]',
      DATABASE_URL: 'postgresql://$[[ inputs.user ]]:$[[ inputs.password ]]@$[[ inputs.alias ]]:5432/$[[ inputs.database ]]',
      PG_TMPFS_WAIT_TIMEOUT: '$[[ inputs.wait-timeout ]]',
      PG_TMPFS_IMAGE: '$[[ inputs.image ]]:$[[ inputs.postgres-version ]]',
      PG_TMPFS_EXTENSIONS: '$[[ inputs.extensions ]]',
      PG_TMPFS_CREATE_DATABASES: '$[[ inputs.databases ]]',
      PG_TMPFS_INIT: '$[[ inputs.init ]]',
      PG_TMPFS_TEMPLATE: '$[[ inputs.template ]]',
      PG_TMPFS_SCHEMA_CACHE: '$[[ inputs.schema-cache ]]',
      PG_TMPFS_SCHEMA_CACHE_FILES: '$[[ inputs.schema-cache-files ]]',
      PG_TMPFS_SCHEMA_KEY_EXTRA: '$[[ inputs.schema-cache-key ]]',
      PG_TMPFS_INITDB_ARGS: INITDB_ARGS.join(' '),
    });
    // The schema cache key hashes the initdb arguments the service really gets.
    expect(theJob().variables.PG_TMPFS_INITDB_ARGS).toBe(theService().variables.POSTGRES_INITDB_ARGS);
  });

  it('keeps the schema cache folder in a cache: list entry of its own, uploaded only when the job succeeds', () => {
    // A list, so a job with its own cache keeps this one: cache: [!reference [.postgres, cache], {...}].
    expect(theJob().cache).toEqual([
      { key: 'pg-tmpfs-schema$[[ inputs.job-name ]]', paths: ['.pg-tmpfs-schema/'], when: 'on_success' },
    ]);
    const setup = theJob().before_script[1]!;
    expect(setup).toMatch(/^\s+pg_tmpfs_store=\.pg-tmpfs-schema$/m);
    // Every program the cache runs has a deadline (pg_tmpfs_limit); psql and pg_dump* also a connect timeout.
    for (const program of ['pg_dump', 'pg_dumpall', 'pg_restore', 'sha256sum', 'find']) {
      const unbounded = setup
        .split('\n')
        .filter((l) => !l.trim().startsWith('#'))
        .filter((l) => new RegExp(`(^|[|;&(!]|\\$\\(|\\b(?:if|do|then|else))\\s*${program} `).test(l.trim()));
      expect(unbounded, `unbounded ${program}`).toEqual([]);
      expect(setup, program).toMatch(new RegExp(`pg_tmpfs_limit \\d+ ${program} `));
    }
    expect(setup).toMatch(
      /PGCONNECT_TIMEOUT=10 pg_tmpfs_limit 900 psql -X -q -v ON_ERROR_STOP=1 --single-transaction -f "\$pg_tmpfs_entry\.roles\.sql" -f "\$pg_tmpfs_sql"/,
    );
    expect(setup).toMatch(/PGCONNECT_TIMEOUT=10 pg_tmpfs_limit 900 pg_dump -Fc /);
  });

  it('documents the schema cache inputs and the list form of cache: in docs/gitlab.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8');
    for (const name of ['schema-cache', 'schema-cache-files', 'schema-cache-key']) expect(doc, name).toContain(`\`${name}\``);
    expect(doc).toContain('!reference [.postgres, cache]');
    expect(doc).toContain('.pg-tmpfs-schema/');
  });

  it('never puts an input into shell script text: inputs reach the scripts only as variables', () => {
    const service = theService();
    for (const script of [...theJob().before_script, service.entrypoint[2]!]) expect(script).not.toMatch(/\$\[\[/);
  });

  it('runs extensions, databases, init and template after the wait, with names only as psql variables', () => {
    const [wait, setup, ...rest] = theJob().before_script;
    expect(rest).toEqual([]);
    expect(wait).toMatch(/until pg_tmpfs_err=/);
    expect(setup).toMatch(/^# pg-tmpfs: the extensions, databases, init and template inputs\n/);
    // SQL text is fixed; a name enters it only as :"name" (identifier) or :'name' (literal).
    expect(setup).toMatch(
      /'CREATE EXTENSION IF NOT EXISTS :"name" CASCADE;' \| pg_tmpfs_psql -d "\$pg_tmpfs_db" -v name="\$pg_tmpfs_x"/,
    );
    expect(setup).toMatch(/select format\('CREATE DATABASE %I', :'name'\) where not exists/);
    expect(setup).toMatch(/'ALTER DATABASE :"name" IS_TEMPLATE true;'/);
    expect(setup).toMatch(/psql -X -q -v ON_ERROR_STOP=1 \$\{pg_tmpfs_one:\+"\$pg_tmpfs_one"\} -f "\$pg_tmpfs_path"/);
    expect(setup).toMatch(/pg_tmpfs_one=--single-transaction/);
    expect(setup).toMatch(/from pg_available_extensions/);
    // Every input variable is read quoted with a default, and no SQL is built by the shell around a name.
    for (const name of ['PG_TMPFS_EXTENSIONS', 'PG_TMPFS_CREATE_DATABASES', 'PG_TMPFS_INIT', 'PG_TMPFS_TEMPLATE']) {
      expect(setup, name).toContain(`"\${${name}:-`);
    }
    expect(setup).not.toMatch(/psql[^\n]*-c "[^"]*\$pg_tmpfs/);
  });

  it.each(['sh', 'bash'])(
    '%s: databases split on commas and line breaks; a name holding a space fails before psql runs (issue #26)',
    (shell) => {
      const setup = theJob().before_script[1]!;
      const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-component-'));
      try {
        // A psql that records the name it is given and answers nothing.
        writeFileSync(
          join(dir, 'psql'),
          `#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in name=*) printf '%s\\n' "\${1#name=}" >> "${dir}/names";; esac; shift; done\ncat > /dev/null\n`,
          { mode: 0o755 },
        );
        const run = (databases: string) =>
          spawnSync(shell, [...(shell === 'bash' ? ['--norc'] : []), '-c', setup], {
            encoding: 'utf8',
            env: {
              PATH: `${dir}:${process.env.PATH ?? ''}`,
              PG_TMPFS_CREATE_DATABASES: databases,
              PGDATABASE: 'app',
              PGUSER: 'postgres',
              PGPASSWORD: 'pw',
              PGHOST: 'postgres',
              PGPORT: '5432',
            },
          });
        const names = () => (existsSync(join(dir, 'names')) ? readFileSync(join(dir, 'names'), 'utf8') : '');
        const ok = run(' one , two\n# three four\n\tthree,,\r\n');
        expect(ok.status, ok.stderr).toBe(0);
        expect(names()).toBe('one\ntwo\nthree\n');
        rmSync(join(dir, 'names'), { force: true });
        const bad = run('ok,my db');
        expect(bad.status).toBe(1);
        expect(bad.stderr).toBe(
          'pg-tmpfs: error: databases input: "my db" holds whitespace: names are separated by commas or line breaks; write each name without spaces\n',
        );
        expect(names()).toBe('');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('waits in before_script for an answered select 1, polling every 50 ms, with a timeout', () => {
    const wait = theJob().before_script[0]!;
    expect(wait).toMatch(/until pg_tmpfs_err=\$\(PGCONNECT_TIMEOUT=2 psql [^)]*-c 'select 1'/);
    expect(wait).toMatch(/sleep 0\.05/);
    expect(wait).toMatch(/did not answer 'select 1' within \$pg_tmpfs_wait s/);
    expect(wait).toMatch(/psql is not installed in the job image/);
  });
});
