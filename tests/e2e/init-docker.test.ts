/**
 * Schema once, a fresh database per test (issue #13), the CLI in Docker mode: `up` with init
 * files, an init command, extensions, databases and `--template`, then `db create` by 4 parallel
 * workers and `db drop` (tests/helpers/init.ts). Native mode's CLI (the same test, a clean session
 * per file, the failures) is in init-native.test.ts; the action through act, which starts both
 * modes in one job, in init.test.ts.
 */
import { describe } from 'vitest';
import { templateTest, useInitCli } from '../helpers/init.js';

describe('init, template and per-test databases', () => {
  const file = useInitCli(['tmpl-docker']);
  templateTest('docker', file);
});
