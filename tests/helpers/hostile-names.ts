/**
 * What the #35 names-and-settings files share (tests/e2e/hostile-names-docker.test.ts and
 * hostile-names-native.test.ts): a bounded wait, and the rows of settings refused before anything
 * starts and of settings the server refuses together, defined per mode.
 */
import { describe, it } from 'vitest';
import { runRow, type Row } from './hostile-rows.js';
import { only, type ModeArgs } from './hostile-sweep.js';

/** A bounded wait: a row that wrongly starts fails in seconds, not after the default wait-timeout. */
export const SHORT = ['--wait-timeout', '20'];

/** Settings the server refuses together name settings (from its log), in `mode`. */
export function defineRefusedTogetherTests(mode: ModeArgs['mode']): void {
  describe('#35: settings the server refuses together name settings (from its log)', () => {
    it.each(only(mode))(
      'max_connections=1 ($mode mode)',
      ({ args }) =>
        runRow({ title: 'max_connections=1', argv: [...SHORT, '--setting', 'max_connections=1'], input: '--settings' }, args),
      90_000,
    );
  });
}

/**
 * Settings another input or pg-tmpfs owns, refused before anything starts (#35), in `mode`'s
 * rows: each fails naming --settings and leaves nothing.
 */
export function defineRefusedBeforeStartTests(mode: ModeArgs['mode']): void {
  describe('#35: settings another input or pg-tmpfs owns are refused before anything starts', () => {
    describe.each(only(mode))('$mode mode', ({ args }) => {
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
}
