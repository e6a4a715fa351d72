/**
 * CLI `up` in Docker mode, on both engines, interrupted (SIGTERM, SIGINT, SIGHUP) at points before,
 * during and after the container starts: it exits 128 + the signal's number and leaves nothing,
 * not even its record. Killed (SIGKILL) at the same points: whatever is left is named by its
 * record, and `down` (or `up` with the same name, then `down`) removes it. And two `up` with one
 * name at once: one wins, the other names `--name` (issue #10; native mode's rows are in
 * interrupt-cli-native.test.ts).
 *
 * Measured on a 2-core machine: node is ready after ~0.15-0.2 s; `docker run` from ~0.23 s to
 * ~0.9 s, first answer ~1.2-2 s.
 */
import { describe, it } from 'vitest';
import { useDockerHost } from '../helpers/infra.js';
import { oneNameCase } from '../helpers/interrupt-cases.js';
import { ENGINE29, cliRow, dockerArgs, useInterruptSetup } from '../helpers/interrupt-cli.js';
import { DOCKER_CLI_ROWS } from '../helpers/interrupt-rows.js';

useInterruptSetup({ warm: false, names: 'itrd' });

// Docker mode's rows on Docker 29 with the containerd image store (issue #25): DOCKER_HOST for
// the whole block, so the CLI, the leftover check and the clean-up all talk to that engine.
describe.skipIf(!ENGINE29)('CLI up on the second engine (Docker 29, containerd image store), interrupted or killed', () => {
  useDockerHost(ENGINE29 ?? '');
  it.each(DOCKER_CLI_ROWS)('$label', cliRow);
});

describe('CLI up, interrupted or killed', () => {
  it.each(DOCKER_CLI_ROWS)('$label', cliRow);
});

describe('one name, one instance', () => {
  it.each([{ mode: 'docker', args: () => dockerArgs }])(
    'two `up --name same` at once ($mode): one wins, the other names --name; down leaves nothing',
    oneNameCase,
  );
});
