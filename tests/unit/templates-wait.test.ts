/**
 * The component's wait (run by sh and bash), the GitLab Runner settings
 * (templates/gitlab-runner.toml) and the Woodpecker workflow (templates/woodpecker/pipeline.yaml):
 * parsed and checked against the one definition of the durability settings (src/profile.ts) and
 * Woodpecker's JSON schema. The component itself is in templates-gitlab.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import getPort from 'get-port';
import { INITDB_ARGS } from '../../src/profile.js';
import { asList, loadWorkflow, substitute, type WoodpeckerWorkflow } from '../fixtures/woodpecker/backend.js';
import { WOODPECKER, RUNNER_CONFIG, EXPECTED_ARGS, theJob } from '../helpers/templates.js';

describe("the component's wait, run by sh and bash against a port where nothing listens (#26)", () => {
  /** Runs the wait (before_script[0]) with `wait-timeout` as GitLab passes it; killed after 30 s. */
  async function runWait(shell: string, waitTimeout: string) {
    const port = await getPort({ host: '127.0.0.1' }); // free: nothing listens there
    const r = spawnSync(shell, ['-c', theJob().before_script[0]!], {
      env: {
        PATH: process.env.PATH,
        PGHOST: '127.0.0.1',
        PGPORT: String(port),
        PGUSER: 'ci',
        PGPASSWORD: 'ci',
        PGDATABASE: 'ci',
        PG_TMPFS_WAIT_TIMEOUT: waitTimeout,
      },
      encoding: 'utf8',
      // stdin not a socket (Node's default pipe): bash would then read ~/.bashrc as for rsh.
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, port };
  }

  it.each(['sh', 'bash'])(
    '%s: a wait-timeout that is not whole seconds from 1 to 3600 fails at once, naming the input',
    async (shell) => {
      for (const value of ['1.5', '0', '3601', '99999', '-5', '060', '1e3', 'abc']) {
        const r = await runWait(shell, value);
        expect(r.status, `${value}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toBe(
          `pg-tmpfs: error: wait-timeout input: "${value}" is not a whole number of seconds from 1 to 3600. Give whole seconds, e.g. 60\n`,
        );
      }
    },
  );

  it.each(['sh', 'bash'])('%s: wait-timeout 1 ends after its deadline, with the last error', async (shell) => {
    const r = await runWait(shell, '1');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^pg-tmpfs: PostgreSQL at 127\\.0\\.0\\.1:${r.port} did not answer 'select 1' within 1 s \\(\\d+ attempts\\)\\. Last error: .*Connection refused`,
        'm',
      ),
    );
    expect(r.stderr).not.toMatch(/arithmetic|integer expression/);
  });
});

describe('GitLab Runner settings (templates/gitlab-runner.toml)', () => {
  it('puts a tmpfs on /var/lib/postgresql only (a mount on /var/lib/postgresql/data breaks 18+) and sets shm_size', () => {
    const toml = readFileSync(RUNNER_CONFIG, 'utf8');
    const section = toml.slice(toml.indexOf('[runners.docker.services_tmpfs]'));
    const paths = [...section.matchAll(/^\s*"([^"]+)"\s*=\s*"([^"]*)"/gm)].map((m) => m[1]);
    expect(paths).toEqual(['/var/lib/postgresql']);
    expect(toml).toMatch(/^\s*shm_size = 536870912$/m);
  });
});

describe('Woodpecker workflow (templates/woodpecker/pipeline.yaml)', () => {
  const load = (): WoodpeckerWorkflow => loadWorkflow(WOODPECKER).workflow;

  it("survives Woodpecker's variable substitution unchanged in meaning (every $ doubled)", () => {
    const raw = readFileSync(WOODPECKER, 'utf8');
    expect(() => substitute(raw)).not.toThrow();
    // No single $ outside $$ pairs: nothing is left for the substitution to touch.
    expect(raw.replace(/\$\$/g, '')).not.toMatch(/\$/);
    expect(substitute('a $$b $${c} \\\\ \\/ \\n')).toBe('a $b ${c} \\ / \\n');
    expect(() => substitute('${CI_COMMIT_SHA}')).toThrow(/would be substituted/);
  });

  it('runs the service with exactly the durability settings of src/profile.ts through entrypoint', () => {
    const postgres = load().services.postgres!;
    expect(asList(postgres.entrypoint)).toEqual(['docker-entrypoint.sh', ...EXPECTED_ARGS]);
    expect(postgres.environment?.POSTGRES_INITDB_ARGS).toBe(INITDB_ARGS.join(' '));
  });

  it('sets one PGDATA for every major and puts it, the VOLUME of every layout and /dev/shm on tmpfs', () => {
    expect(load().services.postgres!.environment?.PGDATA).toBe('/var/lib/postgresql/data');
    expect(load().services.postgres!.tmpfs).toEqual(['/var/lib/postgresql', '/var/lib/postgresql/data', '/dev/shm:size=512m']);
  });

  it('has a wait step before the tests that polls a real query', () => {
    const steps = load().steps;
    expect(Object.keys(steps)).toEqual(['wait-for-postgres', 'test']);
    const wait = asList(steps['wait-for-postgres']!.commands).join('\n');
    expect(wait).toMatch(/until err=\$\(PGCONNECT_TIMEOUT=2 psql -X -q -t -A -c 'select 1'/);
    expect(wait).toMatch(/sleep 0\.05/);
    expect(steps['wait-for-postgres']!.image).toBe(load().services.postgres!.image);
    expect(steps.test!.environment?.DATABASE_URL).toBe('postgresql://postgres:postgres@postgres:5432/postgres');
  });
});
