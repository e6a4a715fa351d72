/**
 * #26, native mode: an init command orphaned by a SIGKILL (to `up`, or to the background process of
 * `up --no-wait`) survived `down`: `sh -c …`, its children and a child that daemonized itself
 * (20 of 20 tries, both modes). The command and what it starts carry PG_TMPFS_RUN=<run token>;
 * `down`, and the next `up` of the name when no `down` came, end them. The same for the
 * action's main step and its post step.
 */
import { describe, it } from 'vitest';
import { orphanActionCase, orphanCliCase, orphanRows } from '../helpers/interrupt-cases.js';
import { useInterruptSetup } from '../helpers/interrupt-cli.js';

useInterruptSetup({ warm: true, names: 'itrp' });

describe('init command orphaned by a SIGKILL', () => {
  /** Numbers the commands (their sleeps are found machine-wide): from 50 in this file. */
  let n = 50;
  it.each(orphanRows('native'))(
    '$mode: SIGKILL to $target while the command runs, then $then',
    (row) => orphanCliCase(row, ++n),
    120_000,
  );

  it.each(['native'] as const)(
    '%s: SIGKILL to the action main step while the command runs, then the post step',
    (mode) => orphanActionCase(mode, ++n),
    120_000,
  );
});
