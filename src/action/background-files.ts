/**
 * A background start's folder, as the wait and post steps read it (the layout is in
 * background.ts). Kept apart from the launch so that the wait step loads nothing of the start
 * itself: its process is on the job's critical path.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { awaitOutcome, readJson, stopBackground, type Awaited, type Outcome } from '../background.js';
import { SetupError } from '../errors.js';

/** The environment variable that lists the job's background starts (folders, path-delimiter separated). */
export const BACKGROUND_ENV = 'PG_TMPFS_BACKGROUND';

/** Files of a background start's folder. */
export const FILES = Object.freeze({
  launch: 'launch.json',
  log: 'start.log',
  handle: 'handle.json',
  outcome: 'outcome.json',
  shown: 'shown',
});

/** What the main step writes to launch.json. */
export interface Launch {
  /** PID of the background process. */
  pid: number;
  /** Date.now() when the main step began, ms since the epoch. */
  startedAtMs: number;
  /** When waiters give up (background.ts backgroundDeadline), ms since the epoch. */
  deadlineAtMs: number;
}

/** What the main step hands the post step (GITHUB_STATE `background`). */
export interface SavedBackground {
  dir: string;
  pid: number;
}

/** The launch record of a folder. @throws SetupError when it is missing (not a background start folder) */
export function readLaunch(dir: string): Launch {
  const launch = readJson<Launch>(join(dir, FILES.launch));
  if (!launch || typeof launch.pid !== 'number') {
    throw new SetupError(
      `${dir} holds no background start of PostgreSQL`,
      `Check ${BACKGROUND_ENV}; it is set by the main step with 'wait: false'`,
    );
  }
  return launch;
}

/**
 * Waits for the background start in `dir` to end (until its deadline; past it, stops it).
 * @param onWaiting called once when it is still running at the first look
 */
export async function awaitStart(dir: string, launch: Launch, onWaiting: () => void): Promise<Awaited> {
  const got = await awaitOutcome(() => readJson<Outcome>(join(dir, FILES.outcome)), launch.pid, launch.deadlineAtMs, onWaiting);
  if (got.kind === 'timeout') await stopBackground(launch.pid);
  return got;
}

/** Copies start.log to this step's output as it is (its workflow commands take effect now, in order). */
export function replayLog(dir: string): void {
  let text = '';
  try {
    text = readFileSync(join(dir, FILES.log), 'utf8');
  } catch {
    return;
  }
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Marks the log as shown (the post step then does not show it again). */
export function markShown(dir: string): void {
  writeFileSync(join(dir, FILES.shown), '');
}
