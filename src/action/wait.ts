/** Entry of the wait sub-action (wait/action.yml runs.main → dist/wait.js). */
import { waitStep } from './wait-step.js';

await waitStep();
process.exit();
