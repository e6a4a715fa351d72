/**
 * CLI `up` in native mode (warm initdb cache, fresh cache, its own tmpfs mount) interrupted
 * (SIGTERM, SIGINT, SIGHUP) at points before, during and after the server starts: it exits 128 +
 * the signal's number and leaves nothing, not even its record. Killed (SIGKILL) at the same
 * points: whatever is left is named by its record, and `down` (or `up` with the same name, then
 * `down`) removes it (issue #10; Docker mode's rows are in interrupt-cli-docker.test.ts, the rows
 * that hit gaps A and B only sometimes in interrupt-gaps-native.test.ts).
 *
 * Kill points are a delay after spawn, a line in the log (plus a delay), or the moment the
 * recorded postmaster has written postmaster.pid. Measured on a 2-core machine: node is ready
 * after ~0.15-0.2 s; with a warm initdb cache: "initdb cache hit" at ~0.18-0.3 s, postgres
 * spawned ~0.02-0.09 s later (the cluster copy is synchronous), first answer ~0.3-0.5 s; with a
 * fresh cache: initdb from ~0.26 s, its bootstrap and single-user postgres until ~0.6-0.9 s, then
 * a synchronous copy into the cache until ~1.2-2.5 s.
 */
import { describe, it } from 'vitest';
import { cliRow, useInterruptSetup } from '../helpers/interrupt-cli.js';
import { NATIVE_CLI_ROWS } from '../helpers/interrupt-rows.js';

useInterruptSetup({ warm: true, names: 'itrn' });

describe('CLI up, interrupted or killed', () => {
  it.each(NATIVE_CLI_ROWS)('$label', cliRow);
});
