/**
 * The benchmark's PGlite rows (issue #36): the first failures read from pytest's JUnit XML
 * (bench/lib/pglite-suite.ts), and the notes the tables print for them (bench/report/pglite.ts:
 * the part in the process, the ratio to the schema cache's hits, what section 2 did not run and
 * why, the versions and the command that repeats them).
 */
import { describe, expect, it } from 'vitest';
import { junitFailures, reasonCounts } from '../lib/pglite-suite.js';
import { summarize, type CaseResult, type Section } from '../lib/results.js';
import { pgliteNote, pgliteSuiteNote, pgliteWorkloadsNote } from '../report/pglite.js';
import { renderSchemaCache } from '../report/schema-cache.js';

const XML = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="2" skipped="1" tests="6">
<testcase classname="test.orm.A" name="test_ok" time="0.1" />
<testcase classname="test.orm.A" name="test_fails" time="0.1"><failure message="sqlalchemy.exc.OperationalError: server closed the connection unexpectedly&#10;&#09;This probably means">trace</failure></testcase>
<testcase classname="test.orm.B" name="test_skip"><skipped message="not mssql" /></testcase>
<testcase classname="test.orm.B" name="test_error"><error message="fixture broke">trace 2</error></testcase>
<testcase classname="test.orm.C" name="test_text_only"><failure>AssertionError: 1 != 2
more</failure></testcase>
<testcase classname="test.orm.C" name="test_ok2" />
</testsuite></testsuites>`;

describe('junitFailures', () => {
  it('lists failed and erring tests in file order with the first line of their message, up to the limit', () => {
    expect(junitFailures(XML, 10)).toEqual([
      { test: 'test.orm.A::test_fails', reason: 'sqlalchemy.exc.OperationalError: server closed the connection unexpectedly' },
      { test: 'test.orm.B::test_error', reason: 'fixture broke' },
      { test: 'test.orm.C::test_text_only', reason: 'AssertionError: 1 != 2' },
    ]);
    expect(junitFailures(XML, 2).map((f) => f.test)).toEqual(['test.orm.A::test_fails', 'test.orm.B::test_error']);
  });

  it('counts the distinct reasons, the most frequent first, one server’s ports written alike', () => {
    const f = (reason: string) => ({ test: 't', reason });
    expect(reasonCounts([f('refused at port 1234'), f('AssertionError'), f('refused at port 5678'), f('other')])).toEqual([
      { reason: 'refused at port PORT', count: 2 },
      { reason: 'AssertionError', count: 1 },
      { reason: 'other', count: 1 },
    ]);
    expect(junitFailures(XML)).toHaveLength(3);
  });

  it('gives none for a suite without failures, and rejects XML without a testsuite', () => {
    expect(
      junitFailures('<testsuites><testsuite tests="1"><testcase classname="a" name="b"/></testsuite></testsuites>', 5),
    ).toEqual([]);
    expect(() => junitFailures('<testsuites></testsuites>', 5)).toThrow('without a testsuite');
  });
});

/** A case of `section` with one sample and details. */
function c(section: Section, key: string, value: number, details: Record<string, unknown> = {}): CaseResult {
  return {
    section,
    id: `${section}/${key}`,
    row: `row ${key}`,
    variant: 'v',
    metric: section === 'workloads' ? 'tps' : 'seconds',
    samples: [value],
    details: [details],
    errors: [],
    summary: summarize([value]),
  };
}

const versions = { pglite: '0.5.14', pgliteSocket: '0.2.17' };

describe('the PGlite notes', () => {
  it('splits a fresh start into Node’s start and the part in the process, next to Node’s start alone', () => {
    const fresh = c('startup', 'pglite-socket-fresh', 5, { bootMs: 100, inProcessMs: 4500, firstQueryMs: 40 });
    const note = pgliteNote(fresh, [fresh, c('startup', 'node-start', 0.05)]);
    expect(note).toBe(
      "in the process 4.50 s until pglite-socket listens, after Node's start 0.100 s; the first query through the socket 0.040 s; Node's start alone (node -e 0) 0.050 s",
    );
    expect(pgliteNote(c('startup', 'node-start', 0.05), [])).toBe('');
  });

  it('holds section 10’s PGlite rows against both schema cache hits, and names the versions and the command', () => {
    const out = renderSchemaCache([
      c('schema_cache', 'native-hit', 0.5),
      c('schema_cache', 'docker-hit', 1),
      c('schema_cache', 'pglite-loaded', 2, {
        bootMs: 50,
        inProcessMs: 1900,
        ...versions,
        repeat: 'npm run bench -- --only schema_cache',
      }),
    ]);
    const row = out.split('\n').find((l) => l.startsWith('| row pglite-loaded |')) ?? '';
    expect(row).toContain('4.00× the native hit; 2.00× the docker hit');
    expect(out).toContain('PGlite 0.5.14, pglite-socket 0.2.17');
    expect(out).toContain('Repeat: `npm run bench -- --only schema_cache`.');
  });

  it('lists what section 2 did not run on PGlite, with the reason from the run', () => {
    const note = pgliteWorkloadsNote([
      c('workloads', 'commit/c1/pglite-socket', 1, {
        ...versions,
        maxConnections: 10,
        notRun: { 'createdb-wal-log': 'served database postgres', c4: 'one session' },
        repeat: 'npm run bench -- --only workloads',
      }),
    ]);
    expect(note).toContain('maxConnections 10');
    expect(note).toContain('- not run: createdb-wal-log: served database postgres');
    expect(note).toContain('- not run: every workload at 4 clients: one session');
    expect(pgliteWorkloadsNote([c('workloads', 'commit/c1/off-tmpfs', 1)])).toBe('');
  });

  it('prints the real suite’s failures on PGlite from its first run', () => {
    const note = pgliteSuiteNote([
      c('real_suite', 'pglite-socket', 9, {
        ...versions,
        passed: 133,
        failed: 7,
        errors: 0,
        skipped: 1,
        maxConnections: 10,
        createDatabase: 'succeeds',
        failures: [{ test: 'test.orm.A::test_a', reason: 'server closed the connection unexpectedly' }],
        reasons: [{ reason: 'server closed the connection unexpectedly', count: 7 }],
        repeat: 'npm run bench -- --only real_suite',
      }),
    ]);
    expect(note).toContain('7 test(s) failed or erred in its first run');
    expect(note).toContain('- 7× server closed the connection unexpectedly');
    expect(note).toContain('- `test.orm.A::test_a`: server closed the connection unexpectedly');
    expect(note).toContain('CREATE DATABASE test succeeds');
  });
});
