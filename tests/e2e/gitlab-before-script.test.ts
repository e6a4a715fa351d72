/**
 * The GitLab CI/CD component's before_script against a real server (native mode), as the job's
 * shell runs it (#26). The component through gitlab-ci-local is in gitlab-services.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/program.js';
import { ROOT } from '../helpers/infra.js';

describe("the component's before_script against a real server (native mode), as the job's shell runs it (#26)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-shell-'));
  const state = join(dir, 'state');
  const project = join(dir, 'project');
  const password = 'shell-secret';
  let port = 0;

  /** Runs the component's before_script (its entries in one shell, as the runner does). */
  function beforeScript(shell: string, env: Record<string, string>) {
    const job = Object.values(parse(readFileSync(join(ROOT, 'templates', 'postgres.yml'), 'utf8').split('\n---\n')[1]!))[0] as {
      before_script: string[];
    };
    const r = spawnSync(shell, ['-c', job.before_script.join('\n')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        PGHOST: '127.0.0.1',
        PGPORT: String(port),
        PGUSER: 'postgres',
        PGPASSWORD: password,
        PGDATABASE: 'app',
        CI_PROJECT_DIR: project,
        PG_TMPFS_WAIT_TIMEOUT: '60',
        ...env,
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'], // stdin no socket: bash would read ~/.bashrc
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  const sql = (query: string) =>
    spawnSync('psql', ['-XtAc', query], {
      env: {
        ...process.env,
        PGHOST: '127.0.0.1',
        PGPORT: String(port),
        PGUSER: 'postgres',
        PGPASSWORD: password,
        PGDATABASE: 'app',
      },
      encoding: 'utf8',
      timeout: 30_000,
    }).stdout.trim();

  beforeAll(async () => {
    mkdirSync(project);
    let out = '';
    const saved = process.env.PG_TMPFS_STATE_DIR;
    process.env.PG_TMPFS_STATE_DIR = state;
    try {
      const code = await runCli(
        [
          'node',
          'pg-tmpfs',
          'up',
          '--mode',
          'native',
          '--name',
          'gitlab-shell',
          '--password',
          password,
          '--database',
          'app',
          '--json',
          '--quiet',
        ],
        { stdout: (t) => (out += t), stderr: () => undefined },
      );
      expect(code).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.PG_TMPFS_STATE_DIR;
      else process.env.PG_TMPFS_STATE_DIR = saved;
    }
    port = (JSON.parse(out) as { port: number }).port;
  }, 60_000);

  afterAll(async () => {
    process.env.PG_TMPFS_STATE_DIR = state;
    try {
      await runCli(['node', 'pg-tmpfs', 'down', '--name', 'gitlab-shell'], { stdout: () => undefined, stderr: () => undefined });
    } finally {
      delete process.env.PG_TMPFS_STATE_DIR;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['sh', 'bash'])(
    '%s: init files named -nt.sql (no-transaction) and - run as files, not as options or stdin',
    (shell) => {
      const db = `nt_${shell}`;
      writeFileSync(join(project, '-nt.sql'), `-- pg-tmpfs: no-transaction\nCREATE DATABASE ${db};\n`);
      writeFileSync(join(project, '-'), `CREATE TABLE dash_${shell} ();\n`);
      const r = beforeScript(shell, { PG_TMPFS_INIT: '-nt.sql\n-' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('pg-tmpfs: init -nt.sql\npg-tmpfs: init -\n');
      expect(sql(`select count(*) from pg_database where datname = '${db}'`)).toBe('1');
      expect(sql(`select count(*) from pg_tables where tablename = 'dash_${shell}'`)).toBe('1');
    },
    60_000,
  );

  it.each(['sh', 'bash'])('%s: wait-timeout 1.5 with the server up fails at once, naming the input', (shell) => {
    const r = beforeScript(shell, { PG_TMPFS_WAIT_TIMEOUT: '1.5' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'pg-tmpfs: error: wait-timeout input: "1.5" is not a whole number of seconds from 1 to 3600. Give whole seconds, e.g. 60\n',
    );
  });
});
