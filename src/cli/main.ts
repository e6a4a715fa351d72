#!/usr/bin/env node
/** Entry of the pg-tmpfs command (package.json bin → dist/cli.js). */
import { killActive } from '../proc.js';
import { runCli } from './program.js';

const code = await runCli(process.argv);
// A failed start may leave docker calls running to their deadline (a daemon that hangs): stop
// them rather than wait.
killActive();
process.exit(code);
