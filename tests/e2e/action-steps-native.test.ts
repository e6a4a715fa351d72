/**
 * The action's main and post steps through their exported functions (mainStep, postStep) on a
 * real server, native mode on the installed binaries: inputs go in as INPUT_*; the outputs,
 * exported env, job summary and the handle in GITHUB_STATE come out; the post step, given that
 * state, leaves nothing behind. Docker mode's tests are in action-steps-docker.test.ts, what both
 * share in tests/helpers/action-steps.ts; act runs the same steps from dist/ in
 * tests/e2e/action-native.test.ts.
 */
import { defineMainPostTests } from '../helpers/action-steps.js';

defineMainPostTests('native');
