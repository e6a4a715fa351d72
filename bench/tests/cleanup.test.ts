/**
 * The benchmark's undo list (bench/lib/cleanup.ts): newest first, and each action with the Docker
 * engine it was registered under (section 1 switches DOCKER_HOST per measurement).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup } from '../lib/cleanup.js';

const saved = process.env.DOCKER_HOST;
afterEach(() => {
  if (saved === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = saved;
});

describe('Cleanup.runAll', () => {
  it('runs each action newest first, with the DOCKER_HOST it was registered under, then restores it', async () => {
    const cleanup = new Cleanup();
    const seen: string[] = [];
    delete process.env.DOCKER_HOST;
    cleanup.add('on the first engine', () => void seen.push(`first ${process.env.DOCKER_HOST ?? '(unset)'}`));
    process.env.DOCKER_HOST = 'unix:///run/engine29.sock';
    cleanup.add('on engine 29', () => void seen.push(`second ${process.env.DOCKER_HOST ?? '(unset)'}`));
    process.env.DOCKER_HOST = 'unix:///elsewhere.sock';
    await cleanup.runAll();
    expect(seen).toEqual(['second unix:///run/engine29.sock', 'first (unset)']);
    expect(process.env.DOCKER_HOST).toBe('unix:///elsewhere.sock');
    expect(cleanup.size).toBe(0);
  });

  it('records a failing action as a problem and goes on', async () => {
    const cleanup = new Cleanup();
    const seen: string[] = [];
    cleanup.add('first', () => void seen.push('first'));
    cleanup.add('broken', () => {
      throw new Error('no such container');
    });
    await cleanup.runAll();
    expect(seen).toEqual(['first']);
    expect(cleanup.problems).toEqual(['cleanup of broken failed: no such container']);
  });
});
