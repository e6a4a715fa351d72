/** Entry of the action's post step (action.yml runs.post → dist/post.js). */
import { cleanup } from './post-step.js';

await cleanup();
