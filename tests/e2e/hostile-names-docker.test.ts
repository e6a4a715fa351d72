/**
 * Issue #35 (third hostile sweep), Docker mode, through the CLI in-process (runCli): settings
 * another input or the project owns, refused before anything starts; settings the server refuses
 * together; settings too long to pass to the image. Every row fails with the input named and
 * leaves nothing (tests/helpers/hostile-rows.ts). Native mode's rows are in
 * hostile-names-native.test.ts; what both share in tests/helpers/hostile-names.ts.
 */
import { afterEach, beforeAll, describe, it } from 'vitest';
import { requireImages } from '../helpers/infra.js';
import { defineRefusedBeforeStartTests, defineRefusedTogetherTests, SHORT } from '../helpers/hostile-names.js';
import { cleanupCase, IMAGE, runRow } from '../helpers/hostile-rows.js';

afterEach(cleanupCase);
beforeAll(requireImages);

defineRefusedBeforeStartTests('docker');
defineRefusedTogetherTests('docker');

describe('#35: Docker mode refuses settings too long to pass to the image', () => {
  it(
    'a 100 KB search_path names settings',
    () =>
      runRow(
        {
          title: '100 KB search_path',
          argv: [...SHORT, '--setting', `search_path=${'s,'.repeat(50_000)}public`],
          input: '--settings',
        },
        ['--mode', 'docker', '--image', IMAGE],
      ),
    90_000,
  );
});
