/**
 * The CLI's records of instances: one JSON file per instance name under $PG_TMPFS_STATE_DIR,
 * else $XDG_STATE_HOME/pg-tmpfs, else ~/.local/state/pg-tmpfs.
 *
 * A record is data only (never a command to run). It is created exclusively (O_EXCL) before
 * anything starts, which makes it the instance name's lock, and it is rewritten atomically as the
 * start makes things, so a run killed at any point leaves a record that names what to remove.
 * The folder must be private (0700, owned by this user): a record someone else could write would
 * tell `down` what to stop.
 * Over 300 lines because it is everything about an instance record: reading, writing, the name's lock, and taking or removing a name.
 */
import { linkSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { InputError, SetupError } from '../errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../fsutil.js';
import { backgroundAlive, writeJson, type ErrorRecord } from '../background.js';
import { isAlive, stop, sweepLeftovers } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { processAlive } from '../processes.js';
import type { Server, ServerHandle } from '../server.js';

/** What `up` records and `down`/`status` read. */
export interface Instance {
  /** Instance name (`--name`), also the record's file name. */
  name: string;
  /**
   * `starting` from before the first side effect until `up` finished; then `running`. `failed`:
   * a background start (`up --no-wait`) failed; the record keeps its error for `wait`.
   */
  state: 'starting' | 'running' | 'failed';
  /**
   * PID of the process that owns the start: `up`, or its background process with `--no-wait` (a
   * `starting` record whose owner is gone was left by a killed run).
   */
  ownerPid: number;
  /** ISO 8601 time the record was made. */
  startedAt: string;
  /** What must be removed, as soon as it exists; null before the start made anything. */
  handle: ServerHandle | null;
  /** The running server, once `up` finished. */
  server: Server | null;
  /** The background start's log file (`up --no-wait`), shown by `wait`; absent otherwise. */
  log?: string;
  /** Why a background start failed (state `failed`): start-guard.ts's failure record, which `wait` prints. */
  error?: ErrorRecord;
  /** Date.now() when a background start's server answered and was verified, ms since the epoch. */
  readyAtMs?: number;
}

/** A record as read: none, sound, or unreadable (with the reason). */
type ReadRecord = { kind: 'none' } | { kind: 'ok'; instance: Instance } | { kind: 'unreadable'; file: string; problem: string };

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$/;

/** Validates an instance name (used in file and container names). */
export function checkInstanceName(name: string): string {
  if (!NAME.test(name)) {
    throw new InputError('name', `"${name}" is not a valid instance name`, 'Use up to 63 letters, digits, "_", "." or "-".');
  }
  return name;
}

/** The folder holding instance records. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PG_TMPFS_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'pg-tmpfs');
}

/** The record file of an instance. */
function recordFile(name: string): string {
  return join(stateDir(), `${name}.json`);
}

/** The log file of an instance's background start (`up --no-wait`). */
export function logFile(name: string): string {
  return join(stateDir(), `${name}.log`);
}

/**
 * Makes the state folder (0700) and checks that only this user can write it.
 * @throws SetupError naming PG_TMPFS_STATE_DIR when it cannot be made or is not private
 */
function prepareStateDir(): string {
  const dir = stateDir();
  try {
    makeDirs(dir, 0o700);
    checkPrivateDir(dir);
  } catch (error) {
    if (error instanceof FolderError) {
      throw new SetupError(
        `The state folder ${dir} cannot hold instance records: ${error.message}`,
        'Set PG_TMPFS_STATE_DIR to a folder only you can write (mode 0700), or fix that one (chmod 700)',
      );
    }
    throw error;
  }
  return dir;
}

function isInstance(value: unknown, name: string): value is Instance {
  const v = value as Partial<Instance> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.name === name &&
    (v.state === 'starting' || v.state === 'running' || v.state === 'failed') &&
    typeof v.ownerPid === 'number' &&
    (v.handle === null || (typeof v.handle === 'object' && (v.handle.mode === 'docker' || v.handle.mode === 'native')))
  );
}

/** Reads an instance's record, telling a missing one from one that cannot be read or trusted. */
export function readInstance(name: string): ReadRecord {
  const file = recordFile(name);
  let text: string;
  try {
    const s = statSync(file);
    const uid = process.getuid?.();
    if (uid !== undefined && s.uid !== uid) return { kind: 'unreadable', file, problem: `it belongs to uid ${s.uid}` };
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', file, problem: code ?? String(error) };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isInstance(parsed, name)) return { kind: 'ok', instance: parsed };
    return { kind: 'unreadable', file, problem: 'it is not a pg-tmpfs instance record' };
  } catch (error) {
    return {
      kind: 'unreadable',
      file,
      problem: `it is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/**
 * Creates an instance's record exclusively: the lock on its name.
 * @returns false when a record exists already
 * @throws SetupError when it cannot be written (before anything started)
 */
function claimInstance(instance: Instance): boolean {
  const file = recordFile(instance.name);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    // Written in full first, then linked into place (link fails when the name exists): no other
    // run ever sees a half-written record.
    writeFileSync(tmp, JSON.stringify(instance, null, 2), { mode: 0o600 });
    linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw recordWriteError(file, error);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Runs `fn` holding `<name>.takeover` (created exclusively; one left by a dead process is
 * removed): only one run at a time removes a stale record and what it names.
 * @returns false, without running `fn`, when a live process holds it
 */
async function withTakeover(name: string, fn: () => Promise<void>): Promise<boolean> {
  const file = join(stateDir(), `${name}.takeover`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder > 0 && holder !== process.pid && processAlive(holder)) return false;
      rmSync(file, { force: true });
      continue;
    }
    try {
      await fn();
      return true;
    } finally {
      rmSync(file, { force: true });
    }
  }
  return false;
}

/**
 * The error for a record that could not be written: its path, and the state folder's
 * (PG_TMPFS_STATE_DIR) when it is full (ENOSPC, EDQUOT).
 */
function recordWriteError(file: string, error: unknown): SetupError {
  const code = (error as NodeJS.ErrnoException).code;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new SetupError(
    `Cannot write the instance record ${file}: ${full ? `the state folder ${stateDir()} is full` : 'it cannot be written'} (${(error as Error).message})`,
    full
      ? `Free space there, or set PG_TMPFS_STATE_DIR to a folder with room that only you can write`
      : 'Set PG_TMPFS_STATE_DIR to a folder only you can write',
  );
}

/**
 * Rewrites an instance's record atomically (temporary file, then rename), 0600.
 * @throws SetupError naming the record and PG_TMPFS_STATE_DIR when it cannot be written (a full
 *   state folder); the temporary file is removed then
 */
export function saveInstance(instance: Instance): void {
  const file = recordFile(instance.name);
  try {
    writeJson(file, instance);
  } catch (error) {
    throw recordWriteError(file, error);
  }
}

/** Every record in the state folder, sound or not, by name. */
export function listInstances(): Array<{ name: string; record: ReadRecord }> {
  let names: string[] = [];
  try {
    names = readdirSync(stateDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((f) => f.slice(0, -'.json'.length)).map((name) => ({ name, record: readInstance(name) }));
}

/** Deletes an instance's record; with `ownerPid`, only when the record is that process's. */
export function forgetInstance(name: string, ownerPid?: number): void {
  if (ownerPid !== undefined) {
    const found = readInstance(name);
    if (found.kind !== 'ok' || found.instance.ownerPid !== ownerPid) return;
  }
  rmSync(recordFile(name), { force: true, recursive: true });
  rmSync(logFile(name), { force: true });
  removeStaleTemps(name);
}

/**
 * Removes `<name>.json.tmp-<pid>` files whose process is gone: what a run killed while writing
 * a record leaves.
 */
function removeStaleTemps(name: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(stateDir());
  } catch {
    return;
  }
  for (const n of names) {
    const m = new RegExp(`^${name.replace(/[.]/g, '\\.')}\\.json\\.tmp-(\\d+)$`).exec(n);
    if (m && Number(m[1]) !== process.pid && !processAlive(Number(m[1]))) rmSync(join(stateDir(), n), { force: true });
  }
}

/**
 * The container name (and run folder prefix) of a CLI instance: `pg-tmpfs-cli-<name>-<6 hex>`,
 * the hex from the state folder's path, so instances of one name recorded in different state
 * folders neither collide (Docker's container names are global) nor remove each other's leftovers.
 */
export function cliContainerName(name: string, dir = stateDir()): string {
  return `pg-tmpfs-cli-${name}-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 6)}`;
}

/**
 * Whether the process that owns an instance's start still runs: its `up`, or for `up --no-wait`
 * its background process (background.ts backgroundAlive: not a zombie, not a reused PID).
 */
export function ownerAlive(instance: Instance): boolean {
  return instance.log ? backgroundAlive(instance.ownerPid) : processAlive(instance.ownerPid);
}

/**
 * @throws InputError (name) when another `up` is starting this instance now (its record says
 *   `starting` and the process that wrote it runs)
 */
export function throwIfStarting(instance: Instance, fix: string): void {
  if (instance.state === 'starting' && instance.ownerPid !== process.pid && ownerAlive(instance)) {
    throw new InputError('name', `instance "${instance.name}" is being started by process ${instance.ownerPid}`, fix);
  }
}

/**
 * Takes the instance name: creates its record (the lock). A record left by a run that was killed,
 * or whose server died, is cleaned up first (its server removed), and said so.
 * @throws InputError (name) when the instance runs, is being started, or its record cannot be read
 */
export async function takeName(name: string, log: Logger): Promise<Instance> {
  prepareStateDir();
  const mine: Instance = {
    name,
    state: 'starting',
    ownerPid: process.pid,
    startedAt: new Date().toISOString(),
    handle: null,
    server: null,
  };
  removeStaleTemps(name);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (claimInstance(mine)) return mine;
    const found = readInstance(name);
    if (found.kind === 'none') continue;
    if (found.kind === 'unreadable') {
      throw new InputError(
        'name',
        `the record of instance "${name}" (${found.file}) cannot be read: ${found.problem}`,
        `Run \`pg-tmpfs down --name ${name}\` (it removes what runs under that name and the record), or pick another --name`,
      );
    }
    const old = found.instance;
    throwIfStarting(old, `Wait for it (pg-tmpfs wait --name ${name}), or pick another --name`);
    const handle = old.server ?? old.handle;
    if (old.state === 'running' && handle && (await isAlive(handle))) {
      throw new InputError(
        'name',
        `an instance named "${name}" is already running`,
        `Run \`pg-tmpfs down --name ${name}\` first, or pick another --name.`,
      );
    }
    // One run at a time removes a stale record, and only the record it read: another `up` may
    // have replaced it since.
    const took = await withTakeover(name, async () => {
      const again = readInstance(name);
      if (again.kind !== 'ok' || again.instance.ownerPid !== old.ownerPid || again.instance.startedAt !== old.startedAt) return;
      log.warning(
        `Instance "${name}" was left behind (${old.state === 'starting' ? 'its start was killed' : old.state === 'failed' ? 'its background start failed' : 'its server is gone'}): removing it`,
      );
      await removeInstance(name, handle, (text) => log.warning(text));
    });
    if (!took)
      throw new InputError('name', `another run is removing what instance "${name}" left behind`, 'Try again in a moment');
  }
  throw new SetupError(`Could not take the instance name "${name}": its record keeps changing`, 'Try again');
}

/**
 * Removes what an instance made (its handle, and anything else run under its container name) and
 * its record. What the record names that pg-tmpfs did not make (a run folder elsewhere) is left
 * as it is, with a warning, and the record still goes.
 * @param warn told each such refusal
 * @throws SetupError listing what could not be removed (the record is kept then)
 */
export async function removeInstance(name: string, handle: ServerHandle | null, warn: (text: string) => void): Promise<string[]> {
  const problems = handle ? await stop(handle, warn) : [];
  const swept = await sweepLeftovers(cliContainerName(name));
  problems.push(...swept.problems);
  if (problems.length > 0) {
    throw new SetupError(
      `Could not remove everything of "${name}": ${problems.join('; ')}`,
      `Fix what is named, then run \`pg-tmpfs down --name ${name}\` again`,
    );
  }
  forgetInstance(name);
  return swept.removed;
}
