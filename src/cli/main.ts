#!/usr/bin/env node
/** Entry of the pg-tmpfs command (package.json bin → dist/cli.js). */
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv);
