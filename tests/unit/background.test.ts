/**
 * The background start's pure parts (src/background.ts): errors as data and back, the planned
 * connection check, deadlines, the atomic JSON files, and which process counts as a background
 * start. The starts themselves are in tests/e2e/background-{action,cli}.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BACKGROUND_FLAG,
  backgroundAlive,
  backgroundDeadline,
  checkPlanned,
  errorFrom,
  errorRecord,
  readJson,
  writeJson,
} from '../../src/background.js';
import { entryPath } from '../../src/launch.js';
import { InputError, SetupError } from '../../src/errors.js';
import type { Server } from '../../src/server.js';
import { ROOT } from '../helpers/infra.js';

const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-bg-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('background start, pure parts', () => {
  it('keeps an error class, its input, fix and server log across the process boundary', () => {
    const input = errorFrom(JSON.parse(JSON.stringify(errorRecord(new InputError('port', 'in use', 'Pick another', 'log')))));
    expect(input).toBeInstanceOf(InputError);
    expect(input.message).toBe("Input 'port': in use. Pick another");
    expect((input as InputError).detail).toBe('log');
    const setup = errorFrom(errorRecord(new SetupError('no docker', 'Start it')));
    expect(setup).toBeInstanceOf(SetupError);
    expect(setup.message).toBe('no docker. Start it');
    expect(errorFrom(errorRecord(new Error('boom'))).message).toBe('boom');
  });

  it('fails a server reached elsewhere than published, naming both without the password', () => {
    const planned = { host: '127.0.0.1', port: 5432, user: 'u', password: 'secret', database: 'd' };
    const server = { connection: { ...planned, port: 5433 } } as Server;
    expect(() => checkPlanned(planned, server)).toThrow(
      'The background start reached PostgreSQL at postgresql://u:***@127.0.0.1:5433/d, not at postgresql://u:***@127.0.0.1:5432/d as published',
    );
    expect(() => checkPlanned(planned, { connection: planned } as Server)).not.toThrow();
  });

  it('gives waiters a deadline past the pull, the run and the wait timeout', () => {
    expect(backgroundDeadline({ waitTimeoutMs: 60_000 }, 1_000)).toBe(1_000 + 60_000 + 900_000);
  });

  it('writes JSON atomically and privately, and reads a missing or broken file as null', () => {
    const file = join(dir, 'x.json');
    writeJson(file, { a: 1 });
    expect(readJson(file)).toEqual({ a: 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['x.json']);
    expect(readJson(join(dir, 'none.json'))).toBeNull();
  });

  it('counts only a process carrying the background flag as a background start', async () => {
    expect(backgroundAlive(process.pid)).toBe(false);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)', '--', BACKGROUND_FLAG], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    expect(backgroundAlive(child.pid ?? 0)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(backgroundAlive(child.pid ?? 0)).toBe(false);
  });

  it('finds the built entries from the source tree', () => {
    expect(entryPath('main')).toBe(join(ROOT, 'dist', 'main.js'));
    expect(entryPath('cli')).toBe(join(ROOT, 'dist', 'cli.js'));
  });
});
