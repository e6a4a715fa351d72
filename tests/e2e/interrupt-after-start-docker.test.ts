/**
 * A signal after the start returned, while the action's main step publishes the server (its
 * outputs, the job summary). GITHUB_OUTPUT is made a FIFO, so the step blocks opening it until the
 * test opens the other end: the signal lands in that window every time, not by chance. Found by
 * CI: 'native: SIGINT during verification' (then in interrupt.test.ts, now
 * interrupt-action-native.test.ts) once landed there, and the step died of the signal (no handler
 * was left), leaving postgres to the post step. Docker mode here; native mode's test is in
 * interrupt-after-start-native.test.ts, what both share in tests/helpers/interrupt-after-start.ts.
 */
import { defineAfterStartTest } from '../helpers/interrupt-after-start.js';

defineAfterStartTest('docker');
