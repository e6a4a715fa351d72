/**
 * Second sweep (#26), Docker mode: an init file that overfills tmpfs-size, init commands that
 * leave processes running or break the connection the outputs give, the database input,
 * --databases, and start-time server errors (a preload library, a published port that cannot be
 * reached). Each fails naming its input or works, and leaves nothing behind. Native mode's rows
 * are in hostile-{init,sweep}-native.test.ts.
 */
import { beforeAll, describe, it } from 'vitest';
import { requireImages } from '../helpers/infra.js';
import { runRow } from '../helpers/hostile-rows.js';
import { initCommandBlocks, only, overfillRows, startErrorBlocks } from '../helpers/hostile-sweep.js';

beforeAll(() => {
  requireImages();
});

describe('second sweep (#26): init files', () => {
  overfillRows(only('docker'));
});

describe('second sweep (#26): init-command, the check after init, database', () => {
  initCommandBlocks(only('docker'));
});

describe('second sweep (#26): databases, db create / db drop', () => {
  it.each(only('docker'))('--databases "my db" is refused naming --databases ($mode mode), not read as two', ({ args }) =>
    runRow({ title: 'databases with a space', argv: ['--databases', 'my db'], input: '--databases' }, args),
  );
});

describe('second sweep (#26): registry, component and start-time server errors', () => {
  startErrorBlocks(only('docker'));
});
