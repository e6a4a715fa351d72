/** Entry of the action's post step (action.yml runs.post → dist/post.js). */
import { postStep } from './post-step.js';

await postStep();
