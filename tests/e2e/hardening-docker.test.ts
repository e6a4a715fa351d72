/**
 * The hardening issue's settings row in Docker mode, through the CLI (dist/cli.js): settings
 * compared the way PostgreSQL reads them (timezone=UTC, DateStyle in lower case, an extension
 * setting), each reported as the server has it, and nothing left behind. Native mode's rows (that
 * one, a damaged initdb cache entry, shared memory, the password kept out of the server log) are
 * in hardening-native.test.ts; what both share in tests/helpers/hardening.ts.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { defineSettingsTests, work } from '../helpers/hardening.js';
import { requireImages } from '../helpers/infra.js';

beforeAll(() => requireImages());
afterAll(() => rmSync(work, { recursive: true, force: true }));

defineSettingsTests('docker');
