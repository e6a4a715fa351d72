/**
 * The action's main step (dist/main.js) in native mode interrupted with SIGINT (what GitHub's
 * runner sends on cancel) or killed: the post step (dist/post.js), given the last handle saved in
 * GITHUB_STATE, leaves nothing; and gap A (interrupt-gaps-native.test.ts) in the main step
 * (issue #10; Docker mode's rows are in interrupt-action-docker.test.ts).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  ACTION_ROWS,
  actionRow,
  nativeInputs,
  newJob,
  postStep,
  savedServer,
  setJobPrefix,
} from '../helpers/interrupt-action.js';
import { MAIN, useInterruptSetup } from '../helpers/interrupt-cli.js';
import { freezePostmasterThenSignal, scrub, snapshot } from '../helpers/interrupt.js';

useInterruptSetup({ warm: true, names: 'itran' });
setJobPrefix('itrn');

describe('action main step, interrupted or killed; then the post step', () => {
  it.each(ACTION_ROWS.filter((r) => r.inputs === nativeInputs))('$label', actionRow);

  /* GAP A (see above) in the main step: SIGINT, and the post step cannot find the postgres either. */
  it('gap A: SIGINT before the spawned postgres wrote postmaster.pid; main and post steps remove that postgres', async () => {
    const containerName = 'pg-tmpfs-itr-gapa';
    const { env, stateFile } = newJob({ ...nativeInputs, 'container-name': containerName });
    const leftovers = snapshot();
    try {
      const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      let stopped = 0;
      const frozen = await freezePostmasterThenSignal(child, () => savedServer(stateFile)?.handle, 'SIGINT');
      stopped = frozen.stopped;
      const { pidfileAtStop, code } = frozen;
      expect(stopped).toBeGreaterThan(0);
      expect(pidfileAtStop).toBe(false);
      expect(code, out).toBe(130);
      const post = postStep(env, stateFile);
      expect(post.status).toBe(0);
      expect(leftovers.added()).toEqual([]);
    } finally {
      postStep(env, stateFile);
      await scrub(containerName, leftovers.added());
    }
  });
});
