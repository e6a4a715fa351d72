/**
 * The CLI's record of running instances: one JSON file per instance name under
 * $PG_TMPFS_STATE_DIR, else $XDG_STATE_HOME/pg-tmpfs, else ~/.local/state/pg-tmpfs.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import type { Server } from '../server.js';

/** What `up` records and `down`/`status` read: the instance's name, when it started, and its server. */
export interface Instance {
  /** Instance name (`--name`), also the record's file name. */
  name: string;
  /** ISO 8601 time `up` finished. */
  startedAt: string;
  /** The running server, with the handle `down` removes. */
  server: Server;
}

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

/** Writes an instance record atomically (temporary file, then rename), readable by its owner only (0600, folder 0700). */
export function saveInstance(instance: Instance): void {
  const dir = stateDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${instance.name}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(instance, null, 2), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Reads an instance record; null when there is none or it cannot be read. */
export function loadInstance(name: string): Instance | null {
  try {
    return JSON.parse(readFileSync(join(stateDir(), `${name}.json`), 'utf8')) as Instance;
  } catch {
    return null;
  }
}

/** All instance records. */
export function listInstances(): Instance[] {
  let names: string[] = [];
  try {
    names = readdirSync(stateDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((f) => loadInstance(f.slice(0, -'.json'.length))).filter((i): i is Instance => i !== null);
}

/** Deletes an instance record. */
export function forgetInstance(name: string): void {
  rmSync(join(stateDir(), `${name}.json`), { force: true });
}
