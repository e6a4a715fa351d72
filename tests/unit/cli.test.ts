/**
 * The CLI through runCli() (argv in; exit code, stdout and stderr out), for what needs no server:
 * usage, bad flags, status and down of unknown instances. Starting servers is in
 * tests/e2e/native-cli.test.ts and docker-cli.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDuration, withoutPasswords } from '../../src/cli/commands.js';
import { inputError } from '../helpers/inputs.js';
import { formatError } from '../../src/cli/output.js';
import { runCli } from '../../src/cli/program.js';
import { InputError, SetupError } from '../../src/errors.js';

const stateDir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-cli-unit-'));
let savedStateDir: string | undefined;
beforeAll(() => {
  savedStateDir = process.env.PG_TMPFS_STATE_DIR;
  process.env.PG_TMPFS_STATE_DIR = stateDir;
});
afterAll(() => {
  if (savedStateDir === undefined) delete process.env.PG_TMPFS_STATE_DIR;
  else process.env.PG_TMPFS_STATE_DIR = savedStateDir;
  rmSync(stateDir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['node', 'pg-tmpfs', ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('runCli', () => {
  it('prints help on stdout and exits 0', async () => {
    const r = await cli('up', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--postgres-version <value>');
    expect(r.stdout).toContain('--setting <name=value>');
  });

  it('rejects an unknown command with a usage error', async () => {
    const r = await cli('upp');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'upp'");
  });

  it('names the flag and the fix for bad input, before anything starts', async () => {
    const r = await cli('up', '--port', 'x', '--mode', 'docker');
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: --port: "x" is not a whole number from 0 to 65535. Use a TCP port such as 5432, or 0 to let Docker pick a free one.\n',
    });
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it('rejects an instance name that cannot be a file or container name', async () => {
    const r = await cli('up', '--name', '../etc');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: --name: "\.\.\/etc" is not a valid instance name/);
  });

  it('up --no-wait checks its input before anything starts; wait names a missing instance and a bad timeout', async () => {
    const bad = await cli('up', '--no-wait', '--shm-size', 'huge', '--mode', 'docker');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: --shm-size: "huge" is not a size/);
    expect(readdirSync(stateDir)).toEqual([]);
    expect(await cli('wait', '--name', 'nothing')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --name: there is no instance named "nothing". Start one with `pg-tmpfs up --no-wait`, or give its --name\n',
    });
    const timeout = await cli('wait', '--timeout', '0');
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toMatch(/^error: --timeout: "0" is not a duration from 1 s to 86400 s/);
  });

  it('status lists no instances, and down of an unknown one says so', async () => {
    expect(await cli('status')).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    expect(await cli('down', '--name', 'nothing')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No running instance named "nothing".\n',
    });
  });
});

describe('formatError', () => {
  it('prints the server log before a setup error, and the flag for an input error', () => {
    expect(formatError(new SetupError('it died', 'Read the log', 'FATAL: x'))).toBe(
      '--- server log ---\nFATAL: x\n---\nerror: it died. Read the log\n',
    );
    expect(formatError(new InputError('port', 'bad', 'Fix it.'))).toBe('error: --port: bad. Fix it.\n');
  });
});

describe('status hides passwords', () => {
  it('in password fields and in the URIs of extra databases (issue #26)', () => {
    const record = {
      server: {
        connection: { password: 'pw1' },
        provisioned: { databases: { b1: 'postgresql://postgres:s%40cret@127.0.0.1:5432/b1' } },
      },
      note: 'postgres://u:x@h/d and postgresql://postgres@127.0.0.1/x',
    };
    const shown = JSON.stringify(withoutPasswords(record));
    expect(shown).not.toContain('pw1');
    expect(shown).not.toContain('s%40cret');
    expect(shown).toContain('postgresql://postgres:(hidden)@127.0.0.1:5432/b1');
    expect(shown).toContain('postgres://u:(hidden)@h/d');
    expect(shown).toContain('postgresql://postgres@127.0.0.1/x');
  });
});

describe('parseDuration: one unit rule for every --timeout (issue #43)', () => {
  it.each<[string, number]>([
    ['30', 30_000],
    ['30s', 30_000],
    ['500ms', 500],
    [' 2s ', 2_000],
    ['0', 0],
    ['0ms', 0],
  ])('reads %j as %d ms', (raw, ms) => {
    expect(parseDuration('timeout', raw, 0, 3_600_000)).toBe(ms);
  });

  it.each(['1.5', '-1', '10m', 'soon', '', '5 s', '30000000'])('refuses %j for db take, saying both forms', (raw) => {
    const error = inputError(() => parseDuration('timeout', raw, 0, 600_000));
    expect(error.input).toBe('timeout');
    expect(error.problem).toBe(`${JSON.stringify(raw)} is not a duration from 0 s to 600 s`);
    expect(error.fix).toBe('Give whole seconds (--timeout 30 or 30s) or milliseconds with their unit (--timeout 500ms)');
  });

  it('a bare number too large as seconds says how to write ms (db take --timeout took ms before)', () => {
    const error = inputError(() => parseDuration('timeout', '2000', 0, 600_000));
    expect(error.problem).toBe(
      '"2000" is not a duration from 0 s to 600 s; a number without a unit is seconds: for ms write 2000ms',
    );
  });
});
