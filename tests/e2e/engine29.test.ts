/**
 * The Docker-mode paths on the engine GitHub's runners have: Docker 29 (moby v2) with the
 * containerd image store, which scripts/setup-test-infra.sh (section 8) starts beside the first
 * engine on a socket of its own. Everything here talks to it through DOCKER_HOST, which the CLI,
 * the action, act and the helpers' docker commands all honour:
 * - the CLI's up, wait, status and down on PostgreSQL 15 and 18: published port, PGDATA on tmpfs,
 *   no anonymous volume, nothing left;
 * - pulls from a registry on 127.0.0.1: a full pull, retries of 429 and 503 and a registry that
 *   asks for credentials (the retry logic reads the daemon's error texts, which this engine words
 *   otherwise), a silent registry (given up on within wait-timeout), and a CLI start killed
 *   during a pull from one, whose `docker pull` `down` ends;
 * - the action through act: main and post on PostgreSQL 15 and 18, a background start (wait:
 *   false, pulling from the registry) and the wait sub-action, and a `container:` job on a
 *   bridge network of its own (the job container found on this engine, the server joining it).
 * Under CI=true an engine that does not answer fails (tests/helpers/infra.ts engine29Host).
 */
import { describe, expect, it } from 'vitest';
import { officialPgdata, queryValue, runAct, showLines, TEST_IMAGES, runContainerJob } from '../helpers/infra.js';
import { cli, docker, host, useEngine29 } from '../helpers/engine29.js';

describe.skipIf(!host)('Docker 29 with the containerd image store', () => {
  const e = useEngine29();

  it.each([
    { major: '15' as const, noWait: false },
    { major: '18' as const, noWait: true },
  ])('CLI up (no-wait: $noWait), wait, status, down on PostgreSQL $major', async ({ major, noWait }) => {
    const name = `e29-${major}`;
    const up = cli([
      'up',
      '--mode',
      'docker',
      '--image',
      TEST_IMAGES[major],
      '--name',
      name,
      '--json',
      ...(noWait ? ['--no-wait'] : []),
    ]);
    expect(up.status, up.stderr).toBe(0);
    const waited = cli(['wait', '--name', name, '--json']);
    expect(waited.status, waited.stderr).toBe(0);
    const server = JSON.parse(waited.stdout) as {
      connectionUri: string;
      containerId: string;
      dataDirectory: string;
      filesystem: string;
    };
    expect({ dataDirectory: server.dataDirectory, filesystem: server.filesystem }).toEqual({
      dataDirectory: officialPgdata(major),
      filesystem: 'tmpfs',
    });
    // Through the published port on 127.0.0.1 (docker-proxy on this engine).
    expect(await queryValue(server.connectionUri, 'select current_setting($$server_version_num$$)::int / 10000 as v')).toBe(
      major,
    );
    const status = JSON.parse(cli(['status']).stdout) as Array<{ name: string; state: string; alive: boolean }>;
    expect(status.find((s) => s.name === name)).toMatchObject({ state: 'running', alive: true });
    // The tmpfs holds PGDATA's VOLUME: no anonymous volume, and the run's labels are there.
    const inspected = JSON.parse(docker(['container', 'inspect', server.containerId]))[0] as {
      Mounts: Array<{ Type: string }>;
      Config: { Labels: Record<string, string> };
    };
    expect(inspected.Mounts.filter((m) => m.Type === 'volume')).toEqual([]);
    expect(inspected.Config.Labels['io.github.pg-tmpfs-action']).toBe('1');
    expect(cli(['down', '--name', name]).status).toBe(0);
    expect(docker(['ps', '--all', '--quiet', '--filter', `id=${server.containerId}`]).trim()).toBe('');
    expect(e.leftovers.added()).toEqual([]);
  });

  it("an address Docker cannot publish on names input 'publish-host' and this engine's own words", () => {
    const r = cli(['up', '--mode', 'docker', '--image', TEST_IMAGES[15], '--name', 'e29-host', '--publish-host', '198.51.100.7']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error: --publish-host: Docker cannot publish on 198\.51\.100\.7 \(docker: Error response from daemon: .*failed to bind host port 198\.51\.100\.7:\d+\/tcp: cannot assign requested address\)/m,
    );
    expect(e.leftovers.added()).toEqual([]);
  });

  it('the action through act: main and post on PostgreSQL 15 and 18, DOCKER_HOST passed through', () => {
    const images = JSON.stringify([TEST_IMAGES[15], TEST_IMAGES[18]]);
    const since = String(Math.floor(Date.now() / 1000) - 1);
    const r = runAct('.github/workflows/e2e.yml', ['-j', 'docker-mode', '--var', `PG_TMPFS_TEST_IMAGES=${images}`]);
    showLines(r.log, /e2e-check|Answered a query after/);
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const major of ['15', '18']) {
      expect(r.log).toMatch(new RegExp(`e2e-check ${officialPgdata(major)}: ok \\(server ${major}\\.`));
    }
    // The servers ran on this engine: it started the containers e2e-check names.
    const started = docker([
      'events',
      '--since',
      since,
      '--until',
      String(Math.ceil(Date.now() / 1000)),
      '--filter',
      'type=container',
      '--filter',
      'event=start',
      '--format',
      '{{.Actor.ID}}',
    ]);
    const checked = [...r.log.matchAll(/e2e-check .*: ok .*container ([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(checked).toHaveLength(2);
    for (const id of checked) expect(started).toContain(id);
    expect(r.log).toMatch(/Removed PostgreSQL container/);
    expect(e.leftovers.added()).toEqual([]);
  });

  it('container job on a bridge network: the server joins the job network (job-container detection on this engine)', () => {
    const { r, expected } = runContainerJob();
    expect(r.status, r.log.slice(-6000)).toBe(0);
    for (const line of expected) expect(r.log).toMatch(line);
    expect(e.leftovers.added()).toEqual([]);
  });
});
