/**
 * The bodies of `pg-tmpfs down` and `pg-tmpfs status`, and the `--timeout` of `wait`.
 */
import { backgroundAlive, stopBackground } from '../background.js';
import { InputError } from '../errors.js';
import { isAlive } from '../lifecycle.js';
import { checkInstanceName, listInstances, readInstance, removeInstance, type Instance } from './instances.js';
import { ownerAlive, throwIfStarting } from './instance-name.js';
import type { Io } from './output.js';
import { consoleLogger } from '../log.js';
import { awaitKeep } from '../native/source/npm/keep.js';

/**
 * `down`: stops a background start under way, then removes what instance `name` made and its record.
 * @throws InputError (name) when its start runs in another `up`; SetupError listing what could not be removed
 */
export async function down(name: string, io: Io): Promise<void> {
  checkInstanceName(name);
  let found = readInstance(name);
  let stoppedStart = false;
  if (
    found.kind === 'ok' &&
    found.instance.state === 'starting' &&
    found.instance.log &&
    backgroundAlive(found.instance.ownerPid)
  ) {
    // A background start (up --no-wait) under way: SIGTERM makes it remove what it made.
    io.stderr(`Stopping the background start of "${name}" (pid ${found.instance.ownerPid})\n`);
    stoppedStart = await stopBackground(found.instance.ownerPid);
    found = readInstance(name);
  }
  if (found.kind === 'ok') throwIfStarting(found.instance, 'Wait for it to finish (or stop it with Ctrl-C), then run down again');
  const handle = found.kind === 'ok' ? (found.instance.server ?? found.instance.handle) : null;
  // A build taken into RAM is being kept on disk: that ends first, then the server goes (npm-keep.ts).
  await awaitKeep(handle, consoleLogger(false, io.stderr));
  const removed = await removeInstance(name, handle, (text) => io.stderr(`warning: ${text}\n`));
  if (found.kind === 'unreadable') {
    io.stderr(`Removed the unreadable record ${found.file} (${found.problem}).\n`);
  }
  if (found.kind === 'none' && removed.length === 0 && !stoppedStart) {
    io.stderr(`No running instance named "${name}".\n`);
    return;
  }
  for (const r of removed) io.stderr(`Removed leftover ${r}.\n`);
  io.stderr(`Stopped "${name}".\n`);
}

/**
 * A copy of a record's value with every `password` replaced, and the password of every
 * `postgresql://user:password@…` URI in it (the extra databases' URIs): `status` output is not
 * secret.
 */
export function withoutPasswords(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key: string, v: unknown) => {
    if (typeof v !== 'string') return v;
    if (key === 'password') return '(hidden)';
    return v.replace(/(postgres(?:ql)?:\/\/[^:@/\s]*:)[^@/\s]*@/g, '$1(hidden)@');
  }) as unknown;
}

/**
 * What `status` prints per record: the record (passwords hidden) with `alive` checked now and
 * its state: `running`, `starting` (its `up` or background start runs), `abandoned` (killed
 * while starting: `down` removes what it made), `failed` (a background start failed: `wait`
 * says why), `dead` (the server is gone), or `unreadable`.
 */
export async function status(io: Io): Promise<void> {
  const rows = [];
  for (const { name, record } of listInstances()) {
    if (record.kind === 'ok') {
      const { instance } = record;
      const handle = instance.server ?? instance.handle;
      const alive = handle ? await isAlive(handle) : false;
      const state =
        instance.state === 'failed'
          ? 'failed'
          : instance.state === 'starting'
            ? ownerAlive(instance)
              ? 'starting'
              : 'abandoned'
            : alive
              ? 'running'
              : 'dead';
      rows.push({ ...(withoutPasswords(instance) as Instance), alive, state });
    } else if (record.kind === 'unreadable') {
      rows.push({ name, state: 'unreadable', alive: false, problem: `${record.file}: ${record.problem}` });
    }
  }
  io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
}

/**
 * A duration flag of the CLI, in ms: whole seconds (`30`, `30s`) or milliseconds with their
 * suffix (`500ms`), the one unit rule of every `--timeout` (issue #43).
 * @param flag the flag's name without dashes, for the error
 * @param minMs the shortest accepted, in ms; @param maxMs the longest, in ms
 * @throws InputError (flag) for anything else, saying both forms
 */
export function parseDuration(flag: string, raw: string, minMs: number, maxMs: number): number {
  const m = /^(\d{1,9})(s|ms)?$/.exec(raw.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : 1000) : NaN;
  if (!(ms >= minMs && ms <= maxMs)) {
    const span = (n: number) => (n % 1000 === 0 ? `${n / 1000} s` : `${n} ms`);
    // A bare number too large as seconds was most likely meant as ms (db take --timeout took ms before).
    const meant = m && !m[2] && Number(m[1]) <= maxMs ? `; a number without a unit is seconds: for ms write ${m[1]}ms` : '';
    throw new InputError(
      flag,
      `"${raw}" is not a duration from ${span(minMs)} to ${span(maxMs)}${meant}`,
      `Give whole seconds (--${flag} 30 or 30s) or milliseconds with their unit (--${flag} 500ms)`,
    );
  }
  return ms;
}

/**
 * The `--timeout` of `wait`, in ms; undefined when not given.
 * @throws InputError (timeout) when it is not a duration from 1 s to 86400 s (parseDuration)
 */
export function parseTimeout(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseDuration('timeout', raw, 1000, 86_400_000);
}
