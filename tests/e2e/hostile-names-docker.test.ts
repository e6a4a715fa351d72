/**
 * Issue #35 (third hostile sweep), through the CLI in-process (runCli): settings another input or
 * the project owns, refused before anything starts (both modes' rows: they start nothing, so they
 * run in this lane, the shorter one), settings the Docker-mode server refuses together, and
 * Docker-mode settings too long to pass to the image. Every row fails with the input named and
 * leaves nothing (tests/helpers/hostile-rows.ts). Native mode's rows (settings refused together,
 * a full state folder, `down` on a record naming a folder pg-tmpfs did not make, db commands on
 * names over 63 bytes) are in hostile-names-native.test.ts; what both share in
 * tests/helpers/hostile-names.ts.
 */
import { afterEach, beforeAll, describe, it } from 'vitest';
import { requireImages } from '../helpers/infra.js';
import { defineRefusedTogetherTests, SHORT } from '../helpers/hostile-names.js';
import { cleanupCase, IMAGE, runRow, type Row } from '../helpers/hostile-rows.js';
import { MODES } from '../helpers/hostile-sweep.js';

afterEach(cleanupCase);
beforeAll(requireImages);

describe('#35: settings another input or pg-tmpfs owns are refused before anything starts', () => {
  describe.each(MODES)('$mode mode', ({ args }) => {
    it.each<Row>(
      [
        'port=5999',
        'PORT=5999',
        'listen_addresses=127.0.0.1',
        'unix_socket_directories=/tmp',
        'data_directory=/tmp',
        'hba_file=/tmp/pg-tmpfs-trust.conf',
        'ident_file=/tmp/pg-tmpfs-ident.conf',
        'config_file=/tmp/pg-tmpfs.conf',
      ].map((setting) => ({ title: setting, argv: [...SHORT, '--setting', setting], input: '--settings' })),
    )('$title', (row) => runRow(row, args), 60_000);
  });
});

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
