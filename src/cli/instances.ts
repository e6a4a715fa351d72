/**
 * The CLI's records of instances: one JSON file per instance name under $PG_TMPFS_STATE_DIR,
 * else $XDG_STATE_HOME/pg-tmpfs, else ~/.local/state/pg-tmpfs.
 *
 * A record is data only (never a command to run). It is created exclusively (O_EXCL) before
 * anything starts, which makes it the instance name's lock, and it is rewritten atomically as the
 * start makes things, so a run killed at any point leaves a record that names what to remove.
 * The folder must be private (0700, owned by this user): a record someone else could write would
 * tell `down` what to stop. Taking a name (the lock, a takeover of a stale record) is in
 * instance-name.ts.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { InputError, SetupError } from '../errors.js';
import { checkPrivateDir, FolderError, makeDirs } from '../fsutil.js';
import { writeJson, type ErrorRecord } from '../background.js';
import { stop, sweepLeftovers } from '../lifecycle.js';
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
export function recordFile(name: string): string {
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
export function prepareStateDir(): string {
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
 * The error for a record that could not be written: its path, and the state folder's
 * (PG_TMPFS_STATE_DIR) when it is full (ENOSPC, EDQUOT).
 */
export function recordWriteError(file: string, error: unknown): SetupError {
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
export function removeStaleTemps(name: string): void {
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
