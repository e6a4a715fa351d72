/**
 * Faults of the engine in Docker mode through the CLI, in-process (runCli), on both engines:
 * every row must fail with exit code 1, name the input at fault (`error: --INPUT: problem. fix`)
 * or the key phrase of the setup error, and leave nothing behind: no container, postgres port
 * (leftoverSnapshot), and no instance record in the case's own state folder. Docker rows use the
 * local test image only (nothing is ever pulled). Native mode's rows are in
 * hostile-faults-native.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { engine29Host, useDockerHost, requireImages } from '../helpers/infra.js';
import { busyPort, cleanupCase, IMAGE, runRow, silentDaemon, type Row } from '../helpers/hostile-rows.js';

afterEach(cleanupCase);

/** An image without PGDATA (nor anything else): `docker import` of an empty archive. */
const NO_PGDATA = 'pg-tmpfs-test/no-pgdata:1';

/** Imports NO_PGDATA into the engine DOCKER_HOST names. */
function importNoPgdata(): void {
  execFileSync('docker', ['import', '-', NO_PGDATA], { input: execFileSync('tar', ['-c', '--files-from', '/dev/null']) });
}

/** The second engine's DOCKER_HOST (null off CI when it does not answer; under CI=true it must). */
const ENGINE29 = engine29Host();

beforeAll(() => {
  requireImages();
  importNoPgdata();
});

/** Docker mode's rows, run on each engine. */
const DOCKER_ROWS: Row[] = [
  { title: 'port in use', argv: ['--port', '{busyPort}'], setup: busyPort, input: '--port' },
  { title: 'password with a line break', argv: ['--password', 'first\nsecond'], input: '--password' },
  {
    title: 'setting the server does not know',
    argv: ['--setting', 'no_such_setting=1'],
    input: '--settings',
  },
  { title: 'setting value the server refuses', argv: ['--setting', 'work_mem=lots'], input: '--settings' },
  { title: 'tmpfs-size too small for initdb', argv: ['--tmpfs-size', '1m'], input: '--tmpfs-size' },
  { title: 'shm-size too small for the server', argv: ['--shm-size', '1b'], input: '--shm-size' },
  { title: 'publish-host not an address of this machine', argv: ['--publish-host', '10.99.99.99'], input: '--publish-host' },
  { title: 'image without PGDATA', argv: ['--image', NO_PGDATA], input: '--image' },
  {
    title: 'a daemon that accepts and never answers',
    argv: [],
    env: { DOCKER_HOST: 'unix://{dir}/docker.sock' },
    setup: silentDaemon,
    input: 'did not finish within',
  },
];

afterAll(() => {
  execFileSync('docker', ['image', 'rm', NO_PGDATA]);
});

describe('hostile CLI input and faults fail with the input named and leave nothing', () => {
  describe('docker mode on the local engine', () => {
    it.each<Row>(DOCKER_ROWS)('$title', (row) => runRow(row, ['--mode', 'docker', '--image', IMAGE]), 60_000);
  });

  // The same rows on Docker 29 with the containerd image store (issue #25), through DOCKER_HOST
  // for the whole block, so the leftover check counts that engine's containers; the silent daemon
  // row brings its own DOCKER_HOST and says nothing of an engine.
  describe.skipIf(!ENGINE29)('docker mode on the second engine (Docker 29, containerd image store)', () => {
    useDockerHost(ENGINE29 ?? '');
    beforeAll(importNoPgdata);
    afterAll(() => execFileSync('docker', ['image', 'rm', NO_PGDATA]));
    it.each<Row>(DOCKER_ROWS.filter((r) => !r.env?.DOCKER_HOST))(
      '$title',
      (row) => runRow(row, ['--mode', 'docker', '--image', IMAGE]),
      60_000,
    );
  });
});
