/**
 * The schema cache with the frameworks of docs/schema-cache.md, as its sections show them: the
 * CLI in native mode runs each example's migrate command (docs/examples/schema-cache/<framework>)
 * as init-command with that section's schema-cache-files. Run 1 misses and migrates; run 2 hits,
 * the migrate command does not run (what its data migration wrote keeps its timestamp) and the
 * framework's own tests pass against the restored database; a changed migration misses again.
 * Django and Alembic run from a venv each, Rails (Debian 12's 6.1) from Debian's packages, all
 * installed by scripts/setup-test-infra.sh; each in a copy of its example in a scratch folder, so
 * this test writes nothing into the repository. Nothing is left behind.
 *
 * Not run here: Prisma (its CLI downloads its schema engine from Prisma's own host, which this
 * machine cannot reach); docs/schema-cache.md says so.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, ROOT } from '../helpers/infra.js';
import { ALEMBIC_START, DJANGO_START, RAILS_START, type FrameworkStart } from '../helpers/schema-cache-frameworks.js';

const EXAMPLES = join(ROOT, 'docs', 'examples', 'schema-cache');
const SETUP = 'run bash scripts/setup-test-infra.sh';
const TEST_CACHE = process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test');

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-frameworks-'));
const names = new Set<string>();

interface UpJson {
  connectionUri: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  schemaCacheHit?: boolean;
  schemaCacheKey?: string;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr */
  output: string;
}

/** A framework's example, how docs/schema-cache.md starts it, and what shows that it ran. */
interface Framework extends FrameworkStart {
  /** A line the migrate command prints when it runs (in the CLI's log, on stderr). */
  ranMigrations: RegExp;
  /** A query giving when the migrations ran: unchanged by a hit. */
  migratedAt: string;
  /** The migration the last test changes. */
  migration: string;
  /** Variables its commands need (a venv's bin first on PATH, as a CI job that activated it). */
  env: () => Record<string, string>;
  /** Fails (never skips, under CI=true too) when the framework is not installed; readies the copy. */
  prepare: (project: string) => void;
}

/** The bin folder of a framework's venv from scripts/setup-test-infra.sh. */
function venvBin(name: string): string {
  return join(TEST_CACHE, `schema-cache-${name}`, 'bin');
}

/** A Python framework's venv on PATH, no .pyc files written (none in the scratch copy either). */
function pythonEnv(name: string): Record<string, string> {
  return { PATH: `${venvBin(name)}${delimiter}${process.env.PATH ?? ''}`, PYTHONDONTWRITEBYTECODE: '1' };
}

/** Fails when a Python framework's venv is missing. */
function requireVenv(name: string): void {
  const bin = venvBin(name);
  if (!existsSync(join(bin, 'python'))) throw new Error(`no Python venv for the ${name} example at ${bin}: ${SETUP}`);
}

const DJANGO: Framework = {
  ...DJANGO_START,
  ranMigrations: /Applying inventory\.0003_seed_categories\.\.\. OK/,
  migratedAt: "select max(applied)::text || ' / ' || max(c.created_at)::text as v from django_migrations, inventory_category c",
  migration: 'inventory/migrations/0003_seed_categories.py',
  env: () => pythonEnv('django'),
  prepare: () => requireVenv('django'),
};

const ALEMBIC: Framework = {
  ...ALEMBIC_START,
  ranMigrations: /Running upgrade 0002 -> 0003, seed plans: a data migration/,
  migratedAt: 'select max(created_at)::text as v from plans',
  migration: 'migrations/versions/0003_seed_plans.py',
  env: () => pythonEnv('alembic'),
  prepare: () => requireVenv('alembic'),
};

const RAILS: Framework = {
  ...RAILS_START,
  ranMigrations: /^Seeded 2 genres$/m,
  // When the schema was loaded (schema_sha1, which `bin/rails test` checks) and the seeds ran.
  migratedAt:
    "select max(m.created_at)::text || ' / ' || max(g.created_at)::text as v from ar_internal_metadata m, genres g where m.key = 'schema_sha1'",
  migration: 'db/migrate/20261101000003_add_isbn_to_books.rb',
  env: () => ({ RAILS_ENV: 'test' }),
  prepare: (project) => {
    const ruby = run('ruby', ['-e', 'require "rails"; require "active_record"; require "pg"; puts Rails.version'], project, {
      ...process.env,
    });
    if (ruby.status !== 0) throw new Error(`no Ruby with Rails and pg (Debian's ruby-railties): ${SETUP}\n${ruby.output}`);
    // The lock names the gems Debian installed: made again from them, so that a Debian update
    // of Rails does not break the test (the committed one is what the doc keys).
    const lock = run('bundle', ['lock', '--local'], project, { ...process.env });
    expect(lock.status, lock.output).toBe(0);
  },
};

/**
 * This process's environment without vitest's variables and any connection, the framework's
 * own variables, and `extra`.
 */
function envFor(framework: Framework | undefined, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(VITEST|PG|DATABASE_URL$|TEST_DATABASE$|RAILS_ENV$)/.test(k)),
  );
  return {
    ...env,
    ...framework?.env(),
    NO_COLOR: '1',
    PG_TMPFS_STATE_DIR: join(work, 'state'),
    PG_TMPFS_CACHE_DIR: join(work, 'cache'),
    ...extra,
  };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Run {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
  const stdout = r.stdout ?? '';
  const stderr = `${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`;
  return { status: r.status, stdout, stderr, output: `${stdout}${stderr}` };
}

/** The connection of a started server, as pg-tmpfs exports it. */
function connectionEnv(server: UpJson): Record<string, string> {
  return {
    DATABASE_URL: server.connectionUri,
    PGHOST: server.host,
    PGPORT: String(server.port),
    PGUSER: server.user,
    PGPASSWORD: server.password,
    PGDATABASE: server.database,
  };
}

/**
 * One framework: its example copied into the scratch folder, three starts (miss, hit, miss after
 * a changed migration), the framework's own checks on the hit.
 */
function describeFramework(framework: Framework, checkHit: (project: string, server: UpJson) => Promise<void>): void {
  describe(framework.name, () => {
    const project = join(work, framework.name);
    const cli = (args: string[]): Run =>
      run(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], project, envFor(framework));
    const up = (name: string, password: string): { json: UpJson; stderr: string } => {
      const instance = `fw-${framework.name}-${name}-${process.pid}`;
      names.add(instance);
      const args = ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--port', '0', '--name', instance, '--json'];
      args.push('--password', password, '--database', framework.database, '--schema-cache');
      args.push('--init-command', framework.initCommand);
      for (const f of framework.schemaCacheFiles) args.push('--schema-cache-files', f);
      const r = cli(args);
      expect(r.status, r.stderr).toBe(0);
      return { json: JSON.parse(r.stdout) as UpJson, stderr: r.stderr };
    };
    const down = (name: string): void => {
      const r = cli(['down', '--name', `fw-${framework.name}-${name}-${process.pid}`]);
      expect(r.status, r.stderr).toBe(0);
    };

    let firstKey = '';
    let migratedAt = '';

    beforeAll(() => {
      cpSync(join(EXAMPLES, framework.name), project, { recursive: true });
      framework.prepare(project);
    });

    it('misses: the init command migrates, and the cluster is saved', async () => {
      const { json, stderr } = up('miss', 'first-secret');
      expect(json.schemaCacheHit).toBe(false);
      expect(stderr).toContain(`Init command: ${framework.initCommand}`);
      expect(stderr).toMatch(framework.ranMigrations);
      expect(stderr).toMatch(/schema cache saved: /);
      firstKey = json.schemaCacheKey ?? '';
      migratedAt = await queryValue(json.connectionUri, framework.migratedAt);
      expect(migratedAt).toMatch(/^\d{4}-/);
      down('miss');
    });

    it("hits: the init command does not run, the schema is there and the framework's tests pass", async () => {
      const { json, stderr } = up('hit', 'second-secret');
      expect([json.schemaCacheHit, json.schemaCacheKey]).toEqual([true, firstKey]);
      expect(stderr).not.toContain('Init command');
      expect(stderr).not.toMatch(framework.ranMigrations);
      expect(await queryValue(json.connectionUri, framework.migratedAt)).toBe(migratedAt);
      await checkHit(project, json);
      down('hit');
    });

    it('misses again when a migration changes, and migrates', () => {
      appendFileSync(join(project, framework.migration), '# changed\n');
      const { json, stderr } = up('changed', 'third-secret');
      expect(json.schemaCacheHit).toBe(false);
      expect(json.schemaCacheKey).not.toBe(firstKey);
      expect(stderr).toMatch(framework.ranMigrations);
      down('changed');
    });
  });
}

describe('schema cache with the frameworks of docs/schema-cache.md (native mode, CLI)', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of names)
      spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'down', '--name', name], { env: envFor(undefined) });
    rmSync(work, { recursive: true, force: true });
  });

  describeFramework(DJANGO, async (project, server) => {
    const env = envFor(DJANGO, connectionEnv(server));
    const check = run('python', ['manage.py', 'migrate', '--check', '--noinput'], project, env);
    expect(check.status, check.output).toBe(0);
    // TEST_DATABASE=app: the tests run in the restored database, kept (--keepdb), and Django's
    // own migrate finds nothing to apply; without it Django would make test_app and migrate it.
    const tests = run('python', ['manage.py', 'test', '--keepdb', '--noinput', '-v', '2'], project, {
      ...env,
      TEST_DATABASE: 'app',
    });
    expect(tests.status, tests.output).toBe(0);
    expect(tests.stderr).toContain("Using existing test database for alias 'default' ('app')");
    expect(tests.stdout).toMatch(/^ {2}No migrations to apply\.$/m);
    expect(tests.output).not.toContain('Applying ');
    expect(tests.stderr).toMatch(/^Ran 2 tests in [\d.]+s\n\nOK$/m);
    const databases = await queryValue(
      server.connectionUri,
      "select string_agg(datname, ',' order by datname) as v from pg_database",
    );
    expect(databases).toBe('app,postgres,template0,template1');
  });

  describeFramework(ALEMBIC, async (project, server) => {
    const env = envFor(ALEMBIC, connectionEnv(server));
    const current = run('alembic', ['current'], project, env);
    expect(current.status, current.output).toBe(0);
    expect(current.stdout.trim()).toBe('0003 (head)');
    // The models and the restored schema agree: autogenerate finds nothing to do.
    const check = run('alembic', ['check'], project, env);
    expect(check.status, check.output).toBe(0);
    expect(check.output).toContain('No new upgrade operations detected.');
    const tests = run('python', ['-m', 'pytest', '-p', 'no:cacheprovider', '-q'], project, env);
    expect(tests.status, tests.output).toBe(0);
    expect(tests.stdout).toMatch(/^2 passed in [\d.]+s$/m);
  });

  describeFramework(RAILS, async (project, server) => {
    const env = envFor(RAILS, connectionEnv(server));
    const migratedAt = await queryValue(server.connectionUri, RAILS.migratedAt);
    // rails/test_help keeps the test schema (maintain_test_schema): it loads db/schema.rb again
    // unless the schema_sha1 that db:schema:load recorded matches; here it does, so the restored
    // database, seeds and all, is the one the tests run in.
    const tests = run('bin/rails', ['test', '-v'], project, env);
    expect(tests.status, tests.output).toBe(0);
    expect(tests.stdout).toMatch(/^2 runs, 2 assertions, 0 failures, 0 errors, 0 skips$/m);
    expect(await queryValue(server.connectionUri, RAILS.migratedAt)).toBe(migratedAt);
  });

  it('leaves nothing behind', () => {
    expect(leftovers.added()).toEqual([]);
  });
});
