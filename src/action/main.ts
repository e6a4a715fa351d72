/**
 * Entry of the action's main step (action.yml runs.main → dist/main.js), and of its background
 * start (`dist/main.js --pg-tmpfs-background`, launched by the main step with `wait: false`), and
 * of the pool's keeper (`dist/main.js --pg-tmpfs-keeper`, src/pool/start.ts), and of the keep of a
 * server build from npm taken into RAM (`dist/main.js --pg-tmpfs-keep-build`, src/native/source/npm/keep.ts).
 */
import { BACKGROUND_FLAG } from '../background.js';
import { interrupted } from '../interrupt.js';
import { killActive } from '../proc.js';
import { KEEP_FLAG, keepChild } from '../native/source/npm/keep.js';
import { KEEPER_FLAG, keeperChild } from '../pool/start.js';
import { backgroundChild } from './background.js';
import { mainStep } from './main-step.js';

// The keep of a build a start took into RAM, launched once the server answered (src/native/source/npm/keep.ts).
if (process.argv[2] === KEEP_FLAG) process.exit(await keepChild(process.argv.slice(3)));
if (process.argv[2] === KEEPER_FLAG) {
  const code = await keeperChild().catch((error: unknown) => {
    process.stderr.write(`The pool's keeper failed: ${String(error)}\n`);
    return 1;
  });
  process.exit(code);
}
if (process.argv[2] === BACKGROUND_FLAG) {
  const code = await backgroundChild().catch((error: unknown) => {
    process.stderr.write(`The background start failed: ${String(error)}\n`);
    return 1;
  });
  // A signal after the start returned is being handled (the server removed, then exit 128+n).
  if (interrupted()) await new Promise(() => undefined);
  killActive();
  process.exit(code);
}
await mainStep();
// A signal after the start returned (while outputs and the summary were written) is being
// handled: the server is removed, then the step exits 128+n (start-guard.ts).
if (interrupted()) await new Promise(() => undefined);
// Programs still running after a failed start (docker calls to a hung daemon) end with the step.
killActive();
process.exit();
