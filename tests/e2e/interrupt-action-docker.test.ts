/**
 * The action's main step (dist/main.js) in Docker mode, on both engines, interrupted with SIGINT
 * (what GitHub's runner sends on cancel) or SIGTERM, or killed: the post step (dist/post.js),
 * given the last handle saved in GITHUB_STATE, leaves nothing (issue #10; native mode's rows are
 * in interrupt-action-native.test.ts).
 */
import { describe, it } from 'vitest';
import { useDockerHost } from '../helpers/infra.js';
import { ACTION_ROWS, actionRow, dockerInputs, setJobPrefix } from '../helpers/interrupt-action.js';
import { ENGINE29, useInterruptSetup } from '../helpers/interrupt-cli.js';

useInterruptSetup({ warm: false, names: 'itrad' });
setJobPrefix('itrd');

describe.skipIf(!ENGINE29)('action main step on the second engine (Docker 29), interrupted or killed; then the post step', () => {
  useDockerHost(ENGINE29 ?? '');
  it.each(ACTION_ROWS.filter((r) => r.inputs === dockerInputs))('$label', actionRow);
});

describe('action main step, interrupted or killed; then the post step', () => {
  it.each(ACTION_ROWS.filter((r) => r.inputs === dockerInputs))('$label', actionRow);
});
