/**
 * What the background-start files (tests/e2e/background-{action,cli}-{docker,native}.test.ts,
 * issue #12) share: the bundled entries, the file's work folder and initdb cache, a snapshot that
 * also sees background starts (of this file's lane), a registry on 127.0.0.1 to pull from (started
 * in beforeAll, Docker mode's files), the action's step processes, and queries. The tests both
 * modes run are in background-action.ts and background-cli.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { BACKGROUND_FLAG } from '../../src/background.js';
import { leftoverSnapshot, liveProcesses, ofOurLane, requireImages, ROOT, TEST_IMAGES } from './infra.js';
import { pushProbeImage, startRegistry, type Registry } from './registry.js';
import { runStepProcess } from './runner-env.js';

/** The bundled CLI and the action's steps (build first). */
export const CLI = join(ROOT, 'dist', 'cli.js');
export const MAIN = join(ROOT, 'dist', 'main.js');
export const WAIT = join(ROOT, 'dist', 'wait.js');
export const POST = join(ROOT, 'dist', 'post.js');
/** The file's work folder and its initdb cache. */
export const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-background-'));
export const cacheDir = join(work, 'cache');

/** The file's registry (set in beforeAll). */
export const bg: { registry: Registry | null } = { registry: null };

/**
 * PIDs of live background starts (their command line carries the flag) of this file's lane
 * (ofOurLane: a background start inherits PG_TMPFS_TEST_LANE from the step, CLI or act run that
 * launched it), so that the other lane's, running at the same time, do not count.
 */
export function backgroundProcesses(): string[] {
  return liveProcesses((argv, pid) => argv.includes(BACKGROUND_FLAG) && ofOurLane(pid)).map((p) => `background ${p.pid}`);
}

/** A mode of the background starts: each file runs one. */
export type BackgroundMode = 'docker' | 'native';

/** leftoverSnapshot() plus background processes. */
export function snapshot(): { added: () => string[] } {
  const base = leftoverSnapshot();
  const before = new Set(backgroundProcesses());
  return { added: () => [...base.added(), ...backgroundProcesses().filter((p) => !before.has(p))] };
}

/**
 * Registers beforeAll (in Docker mode: the images checked, the registry started) and afterAll
 * (the registry stopped, the work folder removed).
 */
export function useBackgroundSetup(mode: BackgroundMode): void {
  beforeAll(async () => {
    if (mode !== 'docker') return;
    requireImages();
    bg.registry = await startRegistry();
  });
  afterAll(async () => {
    await bg.registry?.stop();
    rmSync(work, { recursive: true, force: true });
  });
}

/** One step's process in this file's work folder (runner-env.ts runStepProcess). */
export const step = (
  script: string,
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  env: Record<string, string> = {},
) => runStepProcess(work, script, inputs, state, env);

/** The first row of `sql` on `uri` (10 s connect deadline). */
export async function query(uri: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as Record<string, unknown>;
  } finally {
    await client.end();
  }
}

/** Pushes the 18 test image to the registry under a new tag and removes it locally: the start must pull it. */
export function pushed(tag: string): string {
  return pushProbeImage(TEST_IMAGES[18], bg.registry?.address ?? '', tag);
}

/** A step's duration as act prints it (`[942.3ms]`, `[1.2s]`), in ms; NaN when not found. */
export function actStepMs(log: string, title: string): number {
  const m = new RegExp(`Success - Main ${title} \\[([\\d.]+)(ms|s|m\\d+[\\d.]*s)\\]`).exec(log);
  if (!m) return NaN;
  return m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
}
