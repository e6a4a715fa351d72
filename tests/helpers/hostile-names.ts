/**
 * What the #35 names-and-settings files share (tests/e2e/hostile-names-docker.test.ts and
 * hostile-names-native.test.ts): a bounded wait, and the rows of settings the server refuses
 * together, defined per mode.
 */
import { describe, it } from 'vitest';
import { runRow } from './hostile-rows.js';
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
