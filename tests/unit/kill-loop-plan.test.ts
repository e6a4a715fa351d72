/**
 * The kill loop's draws (tests/helpers/kill-loop-plan.ts): a seed and a try's number give the same
 * try every time (so one try replays alone), every scenario comes round, and the moment stays
 * within 0 to 1.15 of the start.
 */
import { describe, expect, it } from 'vitest';
import { planTry, prng, SCENARIOS } from '../helpers/kill-loop-plan.js';

describe('kill loop plans', () => {
  it('prng is deterministic and uniform in [0, 1)', () => {
    const a = prng(42);
    const b = prng(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeGreaterThan(0.45);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeLessThan(0.55);
  });

  it('a try replays alone: the same seed and number give the same plan', () => {
    for (const n of [0, 7, 499]) expect(planTry(123, n)).toEqual(planTry(123, n));
    expect(planTry(123, 5)).not.toEqual(planTry(124, 5));
  });

  it('every scenario comes round once per lap; signals fit the target', () => {
    const plans = Array.from({ length: 4 * SCENARIOS.length }, (_, n) => planTry(9, n));
    for (const s of SCENARIOS) expect(plans.filter((p) => p.scenario.id === s.id)).toHaveLength(4);
    for (const p of plans) {
      expect(p.at).toBeGreaterThanOrEqual(0);
      expect(p.at).toBeLessThan(1.15);
      if (p.scenario.kind === 'cli') expect(['SIGKILL', 'SIGTERM', 'SIGINT']).toContain(p.signal);
      if (p.target === 'step') expect(['cancel', 'SIGKILL']).toContain(p.signal);
      if (p.target === 'background') expect(['SIGKILL', 'SIGTERM']).toContain(p.signal);
      if (p.upAgain) expect(p.signal).toBe('SIGKILL');
    }
  });

  it('over 500 tries, every kind of signal goes to every kind of target', () => {
    const seen = new Set(Array.from({ length: 500 }, (_, n) => planTry(1, n)).map((p) => `${p.scenario.kind} ${p.signal}`));
    for (const k of [
      'cli SIGKILL',
      'cli SIGTERM',
      'cli SIGINT',
      'cli-bg SIGKILL',
      'cli-bg SIGTERM',
      'action cancel',
      'action SIGKILL',
    ]) {
      expect(seen).toContain(k);
    }
    expect(seen).toContain('action-wait cancel');
    expect(seen).toContain('action-wait SIGTERM');
  });

  it('the pool (issue #37) is killed in the CLI, the background start and both action steps, in both modes, always with init', () => {
    const pooled = SCENARIOS.filter((s) => s.pool);
    expect(new Set(pooled.map((s) => s.kind))).toEqual(new Set(['cli', 'cli-bg', 'action', 'action-wait']));
    expect(new Set(pooled.map((s) => s.mode))).toEqual(new Set(['docker', 'native']));
    for (const s of pooled) {
      expect(s.init).toBe(true);
      expect(s.pool).toBeGreaterThan(0);
    }
    // Every lap of the loop starts each of them once.
    const plans = Array.from({ length: SCENARIOS.length }, (_, n) => planTry(3, n));
    for (const s of pooled) expect(plans.filter((p) => p.scenario.id === s.id)).toHaveLength(1);
  });

  it('the keep of a build taken into RAM (issue #42) is in the loop for every npm scenario, under the CLI, its background start and both action steps', () => {
    const npm = SCENARIOS.filter((s) => s.binaries === 'npm');
    expect(npm.every((s) => s.keep && s.cold && s.mode === 'native')).toBe(true);
    expect(new Set(npm.map((s) => s.kind))).toEqual(new Set(['cli', 'cli-bg', 'action', 'action-wait']));
    expect(SCENARIOS.filter((s) => s.keep && s.binaries !== 'npm')).toEqual([]);
  });
});
