/** Entry of the action's main step (action.yml runs.main → dist/main.js). */
import { run } from './main-step.js';

await run();
