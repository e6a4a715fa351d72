/**
 * A third-party project's own PostgreSQL test suite for section real_suite (issue #24):
 * SQLAlchemy's, from its pinned PyPI sdist (which ships lib/ and test/), run with
 * `pytest --dburi`. Installed by the benchmark itself into a venv of its own and kept between
 * runs; each run's pass, fail and skip counts come from pytest's JUnit XML.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { XMLParser } from 'fast-xml-parser';
import type { ConnectionInfo } from '../../src/connection.js';
import { run } from '../../src/proc.js';

/** The suite's project and version (the sdist on PyPI). */
export const SQLALCHEMY = { name: 'sqlalchemy', version: '2.0.44' } as const;

/** sha256 of sqlalchemy-2.0.44.tar.gz as PyPI serves it: the suite run is exactly this one. */
const SDIST_SHA256 = '0ae7454e1ab1d780aee69fd2aae7d6b8670a581d8847f2d1e0f7ddfbf47e5a22';

/** The pinned packages the suite runs with (pytest, psycopg2-binary, ...), wheels only. */
const REQUIREMENTS = resolve(import.meta.dirname, '..', 'real-suite', 'requirements.txt');

/**
 * The slice run: ORM test files whose classes create and drop their tables and insert and delete
 * their rows per test, as an application's ORM suite does (a full run: 1678 tests, about 6 400
 * commits, 40 s on tmpfs here); a quick run: one small file of it (a few tests: that the suite runs).
 */
export const SLICE: Record<'full' | 'quick', readonly string[]> = {
  full: [
    'test/orm/test_unitofwork.py',
    'test/orm/test_unitofworkv2.py',
    'test/orm/test_cascade.py',
    'test/orm/test_naturalpks.py',
    'test/orm/test_session.py',
    'test/orm/test_transaction.py',
    'test/orm/test_versioning.py',
    'test/orm/test_relationships.py',
    'test/orm/test_cycles.py',
    'test/orm/test_merge.py',
    'test/orm/test_expire.py',
    'test/orm/test_onetoone.py',
    'test/orm/test_manytomany.py',
    'test/orm/test_backref_mutations.py',
    'test/orm/test_defaults.py',
  ],
  quick: ['test/orm/test_defaults.py'],
};

/**
 * What the suite expects of its server, run as the superuser before each run (SQLAlchemy's
 * README.unittests.rst): a database `test` with the schemas test_schema and test_schema_2.
 */
export const SUITE_DATABASE = 'test';
export const SUITE_SETUP_SQL = ['CREATE SCHEMA test_schema', 'CREATE SCHEMA test_schema_2'] as const;

/** An installed suite. */
export interface Suite {
  /** The venv's python. */
  python: string;
  /** The unpacked sdist (lib/, test/, pyproject.toml): pytest's working directory. */
  dir: string;
}

/** Pass, fail, error and skip counts of one run (from JUnit XML). */
export interface SuiteCounts {
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
}

/** One run of the suite. */
export interface SuiteRun {
  /** Wall time of the pytest process, in seconds. */
  seconds: number;
  counts: SuiteCounts;
}

/** Where suites are kept between runs: $PG_TMPFS_BENCH_CACHE, else ~/.cache/pg-tmpfs-bench. */
function cacheRoot(): string {
  return process.env.PG_TMPFS_BENCH_CACHE || join(homedir(), '.cache', 'pg-tmpfs-bench');
}

/** Runs a program to completion or throws with its output (`what` names the step). */
async function step(what: string, cmd: string, args: string[], timeoutMs: number, cwd?: string): Promise<void> {
  const r = await run(cmd, args, { timeoutMs, ...(cwd ? { cwd } : {}) });
  if (r.code !== 0)
    throw new Error(
      `${what} failed (${r.timedOut ? `no end after ${timeoutMs} ms` : `exit ${r.code}`}): ${(r.stderr || r.stdout).trim().slice(-2000)}`,
    );
}

/**
 * The suite, installed when missing or when the requirements or the Python changed (a stamp
 * records them): `python3 -m venv`, the requirements as wheels, the sdist downloaded with pip and
 * checked against SDIST_SHA256, unpacked, and compiled to bytecode (so the first measured run
 * does not compile). Built in a scratch folder and renamed into place, so a killed install
 * leaves nothing that looks installed. Each step has a deadline (60 to 600 s).
 * @param log progress lines
 * @throws Error naming the step that failed (no python3, no package index, a changed sdist)
 */
export async function ensureSuite(log: (m: string) => void): Promise<Suite> {
  const python3 = 'python3';
  const probe = await run(python3, ['-c', 'import sys; print(sys.version.split()[0])'], { timeoutMs: 30_000 });
  const pyVersion = probe.stdout.trim();
  if (probe.code !== 0 || !pyVersion) throw new Error(`python3 does not run: ${probe.stderr.trim()}`);
  const requirements = readFileSync(REQUIREMENTS);
  const stamp = `${createHash('sha256').update(requirements).digest('hex').slice(0, 16)} ${SDIST_SHA256.slice(0, 16)} ${pyVersion}`;
  const home = join(cacheRoot(), `${SQLALCHEMY.name}-${SQLALCHEMY.version}`);
  const suite = { python: join(home, 'venv', 'bin', 'python'), dir: join(home, 'src') };
  if (existsSync(suite.python) && existsSync(join(home, 'stamp')) && readFileSync(join(home, 'stamp'), 'utf8') === stamp)
    return suite;
  log(`real_suite: installing SQLAlchemy ${SQLALCHEMY.version}'s test suite into ${home}`);
  const scratch = `${home}.partial`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const venvPython = join(scratch, 'venv', 'bin', 'python');
  await step('python3 -m venv', python3, ['-m', 'venv', join(scratch, 'venv')], 120_000);
  const pip = ['-m', 'pip', '--disable-pip-version-check', '--quiet'];
  await step('pip install (requirements)', venvPython, [...pip, 'install', '--only-binary=:all:', '-r', REQUIREMENTS], 600_000);
  const spec = `${SQLALCHEMY.name}==${SQLALCHEMY.version}`;
  const dl = join(scratch, 'dl');
  await step(
    'pip download (sdist)',
    venvPython,
    // This one project's sdist; its build requirements (only used to read its metadata) come as
    // wheels. Its content is pinned by the sha256 below.
    [...pip, 'download', '--no-deps', '--no-binary', SQLALCHEMY.name, '-d', dl, spec],
    600_000,
  );
  const tarball = join(dl, `${SQLALCHEMY.name}-${SQLALCHEMY.version}.tar.gz`);
  const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  if (sha !== SDIST_SHA256) throw new Error(`${tarball}: sha256 ${sha}, expected ${SDIST_SHA256}`);
  await step('tar -x (sdist)', 'tar', ['-xzf', tarball, '-C', scratch], 120_000);
  rmSync(dl, { recursive: true, force: true });
  renameSync(join(scratch, `${SQLALCHEMY.name}-${SQLALCHEMY.version}`), join(scratch, 'src'));
  await step('compileall', venvPython, ['-m', 'compileall', '-q', 'lib', 'test'], 300_000, join(scratch, 'src'));
  writeFileSync(join(scratch, 'stamp'), stamp);
  rmSync(home, { recursive: true, force: true });
  renameSync(scratch, home);
  // A venv's scripts name its path; python -m is used throughout, so the rename is harmless.
  return suite;
}

/** `postgresql+psycopg2://user:password@host:port/test`, each part URL-encoded. */
export function dburi(conn: ConnectionInfo): string {
  const e = encodeURIComponent;
  return `postgresql+psycopg2://${e(conn.user)}:${e(conn.password)}@${conn.host}:${conn.port}/${SUITE_DATABASE}`;
}

/**
 * Reads pytest's JUnit XML (`--junitxml`, xunit2): the counts summed over its testsuite elements.
 * @throws Error when it holds no testsuite
 */
export function parseJunit(xml: string): SuiteCounts {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as Record<string, unknown>;
  const root = (doc.testsuites ?? doc) as Record<string, unknown>;
  const suites = ([] as unknown[]).concat(root.testsuite ?? []) as Array<Record<string, string>>;
  if (!suites.length) throw new Error('JUnit XML without a testsuite');
  const sum = (k: string) => suites.reduce((n, s) => n + Number(s[k] ?? 0), 0);
  const tests = sum('tests');
  const counts = { failed: sum('failures'), errors: sum('errors'), skipped: sum('skipped') };
  return { passed: tests - counts.failed - counts.errors - counts.skipped, ...counts };
}

/**
 * Runs `files` of the suite against `conn` (its database `test`): `python -m pytest FILES --dburi
 * URI`, timed from spawn to exit.
 * @param junit where pytest writes its JUnit XML
 * @param timeoutMs deadline of the whole run
 * @throws Error when pytest did not finish a run (exit codes other than 0 and 1: interrupted,
 *   internal error, usage, no tests) or ran past its deadline
 */
export async function runSuite(
  suite: Suite,
  conn: ConnectionInfo,
  files: readonly string[],
  junit: string,
  timeoutMs: number,
): Promise<SuiteRun> {
  rmSync(junit, { force: true });
  const t0 = performance.now();
  const r = await run(
    suite.python,
    [
      '-m',
      'pytest',
      ...files,
      '--dburi',
      dburi(conn),
      '-q',
      '-p',
      'no:cacheprovider',
      '-o',
      'junit_family=xunit2',
      `--junitxml=${junit}`,
    ],
    { timeoutMs, cwd: suite.dir, env: { PYTHONDONTWRITEBYTECODE: '1' } },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (r.code !== 0 && r.code !== 1)
    throw new Error(
      `pytest ${r.timedOut ? `ran past ${timeoutMs} ms` : `exited with ${r.code}`}: ${(r.stdout + r.stderr).trim().slice(-1500)}`,
    );
  return { seconds, counts: parseJunit(readFileSync(junit, 'utf8')) };
}
