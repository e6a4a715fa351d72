/**
 * Taking an instance name: its record created exclusively is the name's lock; a record left by a
 * run that was killed, or whose server died, is cleaned up first, by one run at a time (the
 * takeover file). The records themselves are in instances.ts.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundAlive } from '../background.js';
import { InputError, SetupError } from '../errors.js';
import { isAlive } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { processAlive } from '../processes.js';
import {
  prepareStateDir,
  readInstance,
  recordFile,
  recordWriteError,
  removeInstance,
  removeStaleTemps,
  stateDir,
  type Instance,
} from './instances.js';

/**
 * Creates an instance's record exclusively: the lock on its name.
 * @returns false when a record exists already
 * @throws SetupError when it cannot be written (before anything started)
 */
export function claimInstance(instance: Instance): boolean {
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
export async function withTakeover(name: string, fn: () => Promise<void>): Promise<boolean> {
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
