/** Entry of the action's main step (action.yml runs.main → dist/main.js). */
import { killActive } from '../proc.js';
import { run } from './main-step.js';

await run();
// Programs still running after a failed start (docker calls to a hung daemon) end with the step.
killActive();
process.exit();
