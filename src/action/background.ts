/**
 * The action's background start (input `wait: false`, issue #12): the main step plans the
 * connection, launches a detached `node dist/main.js --pg-tmpfs-background`, publishes every
 * output it already knows and returns; the wait sub-action (wait/action.yml → dist/wait.js) or
 * the post step collects the outcome.
 *
 * One folder per background start, private (0700), under RUNNER_TEMP (removed by the runner with
 * the job; the post step removes it first):
 *   launch.json   what the main step launched (pid, times): data for the waiters
 *   start.log     everything the background process printed (workflow commands included), shown
 *                 whole by the wait step, or by the post step when no wait step ran
 *   handle.json   what the start made so far (ServerHandle), rewritten as it grows
 *   outcome.json  how it ended (background.ts Outcome)
 *   shown         present once a wait step showed start.log
 * Later steps find the folders through PG_TMPFS_BACKGROUND (exported, path-delimiter separated).
 */
import * as core from '@actions/core';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  backgroundAlive,
  backgroundDeadline,
  errorFrom,
  launchBackground,
  readJob,
  readJson,
  writeJson,
  type Outcome,
} from '../background.js';
import { entryPath } from '../launch.js';
import { connectionEnv, connectionUri, type ConnectionInfo } from '../connection.js';
import { SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { planStart } from '../lifecycle.js';
import { guardedStart } from '../start-guard.js';
import { launchKeep } from '../native/source/npm/keep.js';
import type { ServerHandle } from '../server.js';
import { actionsLogger } from './log.js';
import {
  awaitStart,
  BACKGROUND_ENV,
  FILES,
  readLaunch,
  replayLog,
  type Launch,
  type SavedBackground,
} from './background-files.js';
import { STATE } from './state.js';
import { actionsRemoteCache } from './schema-cache.js';

/** What the main step reports after launching. */
export interface Launched {
  background: true;
  dir: string;
  pid: number;
  connection: ConnectionInfo;
}

/** Variables the background process must not inherit: the main step's file commands and inputs. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|GITHUB_(OUTPUT|ENV|STATE|PATH|STEP_SUMMARY)$)/.test(k)),
  );
}

/**
 * Makes the background start's folder (0700) under `base`, named for the post step before it
 * exists: a main step killed between the two leaves a saved name whose folder the post step
 * removes, or finds missing, never a folder no step knows of (kill loop, seed 1695679669 try 111).
 * The PID is saved again once the process runs (pid 0 until then: nothing was launched).
 * @returns the folder's path, `<base>/pg-tmpfs-start-<12 hex digits>`
 * @throws Error from mkdir other than a name already taken (tried again with another name)
 */
function makeFolder(base: string): string {
  for (;;) {
    const dir = join(base, `pg-tmpfs-start-${randomBytes(6).toString('hex')}`);
    core.saveState(STATE.background, JSON.stringify({ dir, pid: 0 } satisfies SavedBackground));
    try {
      mkdirSync(dir, { mode: 0o700 });
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * The main step with `wait: false`: plans the connection, launches the background start, sets
 * the outputs it knows (connection-uri, host, port, user, password, database, mode) and the
 * exported env, saves the folder for the post step, and returns.
 * @param startedAtMs Date.now() when the step began
 * @throws InputError / SetupError from planning or launching; nothing is left behind then
 */
export async function launchInBackground(config: Config, startedAtMs: number): Promise<Launched> {
  const planned = await planStart(config, actionsLogger);
  const dir = makeFolder(process.env.RUNNER_TEMP || tmpdir());
  let pid: number;
  try {
    pid = await launchBackground(
      entryPath('main'),
      { config: planned.config, connection: planned.connection, startedAtMs, extra: { dir } },
      join(dir, FILES.log),
      childEnv(),
      (childPid) => {
        core.saveState(STATE.background, JSON.stringify({ dir, pid: childPid } satisfies SavedBackground));
        writeJson(join(dir, FILES.launch), {
          pid: childPid,
          startedAtMs,
          deadlineAtMs: backgroundDeadline(config, startedAtMs),
        } satisfies Launch);
      },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    // Nothing runs: the post step has nothing to wait for (its failure would repeat this one).
    core.saveState(STATE.background, '');
    throw error;
  }
  const c = planned.connection;
  const known: Record<string, string> = {
    'connection-uri': connectionUri(c),
    host: c.host,
    port: String(c.port),
    user: c.user,
    password: c.password,
    database: c.database,
    mode: planned.config.mode,
  };
  for (const [name, value] of Object.entries(known)) core.setOutput(name, value);
  if (config.exportEnv) for (const [name, value] of Object.entries(connectionEnv(c))) core.exportVariable(name, value);
  const others = (process.env[BACKGROUND_ENV] ?? '').split(delimiter).filter(Boolean);
  core.exportVariable(BACKGROUND_ENV, [...others, dir].join(delimiter));
  core.info(
    `Starting PostgreSQL in the background (${planned.config.mode} mode, pid ${pid}); it will answer at ${c.host}:${c.port}. ` +
      `Wait for it with a step \`uses: <this action>/wait@<ref>\` (or let clients retry); its log: ${join(dir, FILES.log)}`,
  );
  return { background: true, dir, pid, connection: c };
}

/**
 * The background process (dist/main.js --pg-tmpfs-background): reads its job from stdin, starts
 * the server, saving its handle to handle.json as it grows, and writes outcome.json. Its stdout
 * and stderr are start.log. Interrupted (the post step stops it with SIGTERM), it removes what it
 * made and writes an outcome saying so.
 * @returns the exit code: 0 when the server runs, 1 when the start failed
 */
export async function backgroundChild(): Promise<number> {
  const job = await readJob<{ dir: string }>();
  const dir = job.extra.dir;
  try {
    const server = await guardedStart(
      job.config,
      actionsLogger,
      {
        saveHandle: (h) => writeJson(join(dir, FILES.handle), h),
        saveServer: (server) =>
          writeJson(join(dir, FILES.outcome), { ok: true, server, readyAtMs: Date.now() } satisfies Outcome),
        saveFailure: ({ error, record, interrupted }) => {
          if (!interrupted) core.info(`The background start failed: ${error instanceof Error ? error.message : String(error)}`);
          writeJson(join(dir, FILES.outcome), { ok: false, error: record } satisfies Outcome);
        },
        interruptedError: (signal) =>
          new SetupError(`The background start was interrupted by ${signal}`, 'Start PostgreSQL again'),
      },
      { planned: job.connection, remote: actionsRemoteCache },
    );
    // Reported ready: a build taken into RAM is kept on disk now (npm-keep.ts).
    launchKeep(server, () => entryPath('main'), actionsLogger);
    return 0;
  } catch {
    return 1;
  }
}

/** What the post step learns from a background start's folder. */
export interface Finished {
  /** What to remove: the server it reported, else the handle it saved last; null when nothing. */
  handle: ServerHandle | null;
  /**
   * Why the job must fail: the start failed (or was killed, or passed its deadline) and no wait
   * step read it, so the job's steps ran without the database it asked for; null otherwise.
   */
  unread: string | null;
}

/**
 * For the post step: waits for a background start still running, shows its log unless a wait
 * step did, and returns what to remove and, when the start did not give a server and no wait
 * step said so, why the job must fail. Never throws; other problems are warnings.
 */
export async function finishBackground(saved: SavedBackground): Promise<Finished> {
  const { dir, pid } = saved;
  let launch: Launch | null = null;
  try {
    launch = readLaunch(dir);
  } catch {
    // killed before launch.json: the handle file (if any) still names what exists
  }
  let timedOut = false;
  if (backgroundAlive(pid)) {
    const got = await awaitStart(dir, launch ?? { pid, startedAtMs: Date.now(), deadlineAtMs: Date.now() + 60_000 }, () =>
      core.info(`The background start of PostgreSQL (pid ${pid}) is still running: waiting for it to end before cleaning up`),
    );
    if (got.kind === 'timeout') {
      timedOut = true;
      core.warning(`The background start of PostgreSQL (pid ${pid}) passed its deadline and was stopped`);
    }
  }
  const read = existsSync(join(dir, FILES.shown));
  if (!read) {
    core.info("The background start's log (no wait step showed it):");
    replayLog(dir);
  }
  const outcome = readJson<Outcome>(join(dir, FILES.outcome));
  let unread: string | null = null;
  if (outcome && !outcome.ok) {
    if (read) core.warning(`The background start of PostgreSQL failed: ${outcome.error.problem}`);
    else unread = errorFrom(outcome.error).message;
  } else if (!outcome && !read) {
    unread = timedOut
      ? `The background start of PostgreSQL (pid ${pid}) did not end by its deadline and was stopped`
      : pid > 0
        ? `The background start of PostgreSQL (pid ${pid}) was killed before it finished`
        : 'The main step was killed before it launched the background start of PostgreSQL';
  }
  if (unread) {
    unread =
      `The background start of PostgreSQL (wait: false) did not give the job its database, and no wait step read it: ${unread.replace(/\.?$/, '')}. ` +
      'Add a step `uses: <this action>/wait@<same ref>` after the main step: it fails there, before the steps that need the database';
  }
  return { handle: outcome?.ok ? outcome.server : readJson<ServerHandle>(join(dir, FILES.handle)), unread };
}

/** Removes a background start's folder (after its server was removed). */
export function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
