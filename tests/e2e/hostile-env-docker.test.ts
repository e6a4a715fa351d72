/**
 * The caller's environment, hostile (issue #35, item 5), Docker mode, through the built CLI
 * (`node dist/cli.js`, the variables in its environment only): the project's own connections
 * (readiness, verification, init files) ignore PGOPTIONS, PGSSLMODE and PGAPPNAME. Every start is
 * taken down, and nothing is left behind (leftoverSnapshot). Native mode's rows (the server's
 * clean environment, each variable on its own, the init command's variables, TZ) are in
 * hostile-env-native.test.ts; what both share in tests/helpers/hostile-env.ts.
 */
import { beforeAll, describe } from 'vitest';
import { defineSessionEnvTests, endCasesAfterEach } from '../helpers/hostile-env.js';
import { requireImages } from '../helpers/infra.js';

beforeAll(() => {
  if (process.env.CI === 'true') requireImages();
});
endCasesAfterEach();

describe("the project's own connections ignore the caller's PGOPTIONS, PGSSLMODE, PGAPPNAME", () => {
  defineSessionEnvTests('docker');
});
