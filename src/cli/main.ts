#!/usr/bin/env node
/** Entry of the pg-tmpfs command (package.json bin → dist/cli.js). */
import { interrupted } from '../interrupt.js';
import { killActive } from '../proc.js';
import { runCli } from './program.js';
import { BACKGROUND_FLAG } from '../background.js';
import { cliBackgroundChild } from './background.js';
import { KEEPER_FLAG, keeperChild } from '../pool/start.js';
import { KEEP_FLAG, keepChild } from '../native/source/npm/keep.js';

// `up --no-wait` launches this program again with BACKGROUND_FLAG (src/background.ts), and a
// start with --pool launches its keeper with KEEPER_FLAG (src/pool/start.ts).
// A first start from an npm build in RAM launches its keep with KEEP_FLAG (src/native/source/npm/keep.ts).
const code =
  process.argv[2] === KEEP_FLAG
    ? await keepChild(process.argv.slice(3))
    : process.argv[2] === KEEPER_FLAG
      ? await keeperChild().catch((error: unknown) => {
          process.stderr.write(`The pool's keeper failed: ${String(error)}\n`);
          return 1;
        })
      : process.argv[2] === BACKGROUND_FLAG
        ? await cliBackgroundChild().catch((error: unknown) => {
            process.stderr.write(`The background start failed: ${String(error)}\n`);
            return 1;
          })
        : await runCli(process.argv);
// A signal that came after `up` finished is being handled (the server removed, then exit 128+n).
if (interrupted()) await new Promise(() => undefined);
// A failed start may leave docker calls running to their deadline (a daemon that hangs): stop
// them rather than wait.
killActive();
process.exit(code);
