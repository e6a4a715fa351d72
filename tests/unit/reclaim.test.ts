/** reclaim.ts: when a copy whose taker is gone is given back (issue #43). */
import { describe, expect, it } from 'vitest';
import { MIN_RECLAIM_MS, RECLAIM_ENV, RECLAIM_MS, Reclaimer, reclaimMs } from '../../src/pool/reclaim.js';

describe('Reclaimer', () => {
  it('a copy is due once unheld for the whole wait; one that was held meanwhile starts again', () => {
    const r = new Reclaimer(1_000);
    expect(r.due(['a', 'b'], 0)).toEqual([]);
    expect(r.due(['a', 'b'], 999)).toEqual([]);
    // b was held (or had a session) at this look: its wait starts again.
    expect(r.due(['a'], 1_000)).toEqual(['a']);
    expect(r.due(['a', 'b'], 1_500)).toEqual(['a']);
    expect(r.due(['b'], 2_499)).toEqual([]);
    expect(r.due(['b'], 2_500)).toEqual(['b']);
  });

  it('a wait of 0 gives back at the first look', () => {
    expect(new Reclaimer(0).due(['a'], 5)).toEqual(['a']);
  });
});

describe('reclaimMs', () => {
  it('reads a whole number of ms, else the default', () => {
    expect(reclaimMs({})).toBe(RECLAIM_MS);
    expect(reclaimMs({ [RECLAIM_ENV]: '1500' })).toBe(1_500);
    // Never shorter than the moment between a take's ticket and its row.
    expect(reclaimMs({ [RECLAIM_ENV]: '0' })).toBe(MIN_RECLAIM_MS);
    for (const bad of ['', '-1', '1.5', '1e3', '10s', '9999999999']) expect(reclaimMs({ [RECLAIM_ENV]: bad })).toBe(RECLAIM_MS);
  });
});
