/**
 * The schema cache in Docker mode: the server's identity (the image ID, never the tag, and the
 * initdb arguments the entrypoint gets), the consistent copy after init (pg_basebackup inside the
 * container: one tar on its stdout, kept as it is, `base.tar`, the entry's only file), and the
 * restore (that tar, checked against the manifest's sha256, written to `tar -x` in the container,
 * into the tmpfs PGDATA, before the image's entrypoint runs: run-plan.ts RESTORE_WRAPPER), then
 * this run's password set over the container's Unix socket. PGDATA and the image's VOLUME stay
 * on the container's tmpfs; nothing is mounted from the host, so a `container:` job (whose files
 * the daemon cannot see) works the same. The tar keeps the container's owners, so the server's
 * files are postgres's as they were. Manual: "Making a Base Backup", pg_basebackup (`-D -` writes
 * a tar to stdout when WAL is fetched, not streamed).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { readProblem, sha256, withFile, type Manifest, DamagedEntryError } from '../store/manifest.js';
import { scramVerifier } from '../scram.js';
import { run, tail } from '../proc.js';
import { LOG_TAIL_LINES, type DockerServer } from '../server.js';
import { docker, isRunning, logsTail } from './engine.js';
import type { ImageConfig } from './image.js';
import { initdbArgsEnv, RESTORE_TIMEOUT_MS, RESTORED_MARKER } from './run-plan.js';
import { noManifest, type ServerIdentity } from '../schema-cache/key.js';
import { EMPTY_AUTO_CONF, EntryNotStarted } from '../schema-cache/restored.js';
import type { StoreEntry } from '../schema-cache/store.js';
import { saveCluster } from '../schema-cache/save.js';

/** The file of a Docker-mode entry: pg_basebackup's tar of the cluster, as it came. */
const BASE_TAR = 'base.tar';

/** Deadline of the copy after init (pg_basebackup through `docker exec`), in ms: 600 000. */
const SNAPSHOT_TIMEOUT_MS = 600_000;

/**
 * The identity of a Docker server for the key: the image ID (`docker image inspect` .Id; a tag
 * moves, and an image's extensions are in it), its platform (on the containerd image store the ID
 * names a multi-platform index, the same on x64 and arm64), POSTGRES_INITDB_ARGS and the superuser.
 */
export function dockerIdentity(
  image: Pick<ImageConfig, 'id' | 'platform'>,
  config: Pick<Config, 'locale' | 'user'>,
): ServerIdentity {
  return {
    mode: 'docker',
    imageId: image.id,
    platform: image.platform,
    initdbArgs: [initdbArgsEnv(config), `--username=${config.user}`],
  };
}

/**
 * Reads a Docker-mode entry's tar and checks it against the manifest: its only file, a regular
 * file of this user that others cannot write, of the manifest's size and sha256. What is checked
 * is what restoreDocker writes into the container.
 * @returns the tar's bytes (a copy of its own)
 * @throws DamagedEntryError naming the first difference
 */
export function readEntry(entry: StoreEntry): Buffer {
  const { dir, manifest } = entry;
  const names = Object.keys(manifest.files);
  if (names.length !== 1 || names[0] !== BASE_TAR || manifest.dirs.length) {
    throw new DamagedEntryError(dir, `holds ${names.join(', ') || 'nothing'}, not one ${BASE_TAR}`);
  }
  const want = manifest.files[BASE_TAR] as { size: number; sha256: string };
  let problem: string | null = null;
  let bytes = Buffer.alloc(0);
  try {
    problem = withFile(join(dir, BASE_TAR), (read, s) => {
      if (s.size !== want.size || read.length !== want.size) return `has ${read.length} bytes, not ${want.size}`;
      if (sha256(read) !== want.sha256) return 'does not match the sha256 in its manifest (it changed after the fill)';
      bytes = Buffer.from(read);
      return null;
    });
  } catch (error) {
    problem = readProblem(error);
  }
  if (problem) throw new DamagedEntryError(dir, `${BASE_TAR} ${problem}`);
  return bytes;
}

/**
 * How long `stopped` waits for the engine to report a container stopped after the restore's exec
 * was killed (exit code 137).
 */
const STOP_REPORT_MS = 10_000;

/**
 * True when the container no longer runs. The end of a container kills its execs (exit code 137),
 * and the engine may answer the exec's end before it has handled the container's own (seen on a
 * loaded machine: the restore's exec killed when the server did not start from the entry, the
 * container still reported running): after a 137 it is asked again every 100 ms, for
 * STOP_REPORT_MS at most, and only a clear answer (running or not; gone counts as not) ends the
 * wait early, not an inspect that failed; after any other exit code it is asked once.
 */
async function stopped(containerId: string, execCode: number | null): Promise<boolean> {
  if (execCode !== 137) return !(await isRunning(containerId));
  const deadline = performance.now() + STOP_REPORT_MS;
  for (;;) {
    const r = await docker(['container', 'inspect', '--format', '{{.State.Running}}', containerId]);
    if (r.exitCode === 0 && r.stdout.trim() === 'false') return true;
    if (r.exitCode !== 0 && /No such (container|object)/i.test(r.stderr)) return true;
    if (performance.now() >= deadline) return !(r.exitCode === 0 && r.stdout.trim() === 'true');
    await sleep(100);
  }
}

/**
 * Writes a checked entry's tar (readEntry) to `tar -x` in the container, into PGDATA, makes
 * RESTORED_MARKER so that the container's wrapper runs the image's entrypoint, and then, in the
 * same `docker exec`, sets this run's password over the container's Unix socket (the official
 * image's pg_hba.conf trusts local connections: initdb's default), retrying every 10 ms while the
 * server replays the copy's WAL and starts. Only a SCRAM verifier reaches the container, in the
 * environment of the exec (`-e NAME`: not in argv). The entry's postgresql.auto.conf is replaced
 * by an empty one (EMPTY_AUTO_CONF).
 * @param config the superuser and password to set; waitTimeoutMs, how long the server may take to
 *   accept the connection; tmpfsSize, for the error of a tmpfs that is too small
 * @throws InputError (tmpfs-size) when the container's tmpfs has no room for the entry (the entry
 *   is good: kept); EntryNotStarted when the container stopped after the tar went in (the server
 *   did not start from it); SetupError with what the container's tar or psql said
 */
export async function restoreDocker(
  containerId: string,
  tar: Buffer,
  config: Pick<Config, 'user' | 'password' | 'waitTimeoutMs' | 'tmpfsSize'>,
): Promise<void> {
  const { user, password, waitTimeoutMs: timeoutMs, tmpfsSize } = config;
  const sql = `ALTER ROLE "${user.replace(/"/g, '""')}" PASSWORD '${scramVerifier(password)}';`;
  const tries = Math.max(1, Math.ceil(timeoutMs / 10));
  const script = [
    'user=$1; tries=$2; i=0',
    'mkdir -p "$PGDATA" && tar -x -f - -C "$PGDATA" || exit 3',
    // ALTER SYSTEM of the saving run's init never reaches a hit (EMPTY_AUTO_CONF).
    'printf "%s" "$PG_TMPFS_AUTO_CONF" > "$PGDATA/postgresql.auto.conf" || exit 3',
    `: > ${RESTORED_MARKER}`,
    'until out=$(printf "%s\\n" "$PG_TMPFS_SQL" | psql -X -q -v ON_ERROR_STOP=1 -U "$user" -d template1 2>&1); do',
    '  i=$((i + 1))',
    '  if [ "$i" -ge "$tries" ]; then printf "%s\\n" "$out" >&2; exit 4; fi',
    '  sleep 0.01',
    'done',
  ].join('\n');
  const deadlineMs = RESTORE_TIMEOUT_MS + timeoutMs;
  const r = await run(
    'docker',
    [
      'exec',
      '-i',
      '-e',
      'PG_TMPFS_SQL',
      '-e',
      'PG_TMPFS_AUTO_CONF',
      containerId,
      'sh',
      '-c',
      script,
      'pg-tmpfs',
      user,
      String(tries),
    ],
    { timeoutMs: deadlineMs, input: tar, env: { PG_TMPFS_SQL: sql, PG_TMPFS_AUTO_CONF: EMPTY_AUTO_CONF } },
  );
  if (r.code === 0) return;
  const said = tail(r.stderr.trim() || `exit code ${String(r.code)}`);
  if (r.code === 3 && /No space left on device/i.test(r.stderr)) {
    // This run's tmpfs is too small for the entry: a local limit, the entry is kept.
    throw new InputError(
      'tmpfs-size',
      `${tmpfsSize ? `a ${tmpfsSize} tmpfs` : "the container's tmpfs"} has no room for the schema cache entry (${said.split('\n')[0] ?? ''})`,
      'Raise tmpfs-size, or leave it empty',
    );
  }
  if (!r.timedOut && r.code !== 3 && (await stopped(containerId, r.code))) {
    // The tar went in; the server started from it, then the container stopped.
    const log = await logsTail(containerId, LOG_TAIL_LINES);
    const fatal = log.split('\n').filter((l) => /FATAL|could not|invalid/i.test(l));
    throw new EntryNotStarted(`the container stopped: ${fatal.at(-1)?.trim() ?? said}`, log);
  }
  throw new SetupError(
    r.timedOut
      ? `the schema cache restore into the container did not finish within ${deadlineMs / 1000} s`
      : r.code === 4
        ? `could not set the password on the restored cluster: ${said}`
        : `the schema cache restore into the container failed: ${said}`,
    'The image needs sh, tar and psql, and must trust local connections (the official image does); or turn schema-cache off',
  );
}

/**
 * Writes a consistent copy of the running container's cluster into `dest` (an empty folder), as
 * `dest/base.tar`: pg_basebackup over the container's Unix socket (`-D - -F t -X fetch`: one tar
 * on stdout, the WAL it needs included), a fast checkpoint, no backup manifest. The server keeps
 * running.
 * @returns the entry's manifest, made from the bytes written
 * @throws SetupError with pg_basebackup's message; one naming the `settings` input when
 *   wal_level is minimal or max_wal_senders is 0
 */
export async function snapshotDocker(server: DockerServer, dest: string): Promise<Manifest> {
  const file = createWriteStream(join(dest, BASE_TAR), { mode: 0o600 });
  let writeError = '';
  file.on('error', (error: Error) => (writeError ||= error.message));
  // The manifest is made from the bytes as they are written: the tar is not read back.
  const hash = createHash('sha256');
  let size = 0;
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      file.write(chunk, (error) => done(error ?? null));
    },
    final(done) {
      file.end(() => done(writeError ? new Error(writeError) : null));
    },
  });
  out.on('error', (error: Error) => (writeError ||= error.message));
  const r = await run(
    'docker',
    [
      'exec',
      server.containerId,
      'pg_basebackup',
      '-D',
      '-',
      '-F',
      't',
      '-X',
      'fetch',
      '-c',
      'fast',
      ...noManifest(server.serverVersion),
      '-w',
      '-U',
      server.connection.user,
    ],
    { timeoutMs: SNAPSHOT_TIMEOUT_MS, stdoutStream: out },
  );
  if (r.code === 0 && !writeError) return { dirs: [], files: { [BASE_TAR]: { size, sha256: hash.digest('hex') } } };
  file.destroy();
  const text = r.stderr.trim();
  if (/wal_level|max_wal_senders|number of requested standby connections/i.test(text)) {
    throw new SetupError(
      `the cluster cannot be copied while it runs: ${text}`,
      "Remove wal_level=minimal or max_wal_senders=0 from input 'settings' (the schema cache copies the cluster with pg_basebackup)",
    );
  }
  throw new SetupError(
    r.timedOut
      ? `pg_basebackup did not finish within ${SNAPSHOT_TIMEOUT_MS / 1000} s`
      : `pg_basebackup in the container failed: ${tail(text || writeError || `exit code ${String(r.code)}`)}`,
    'See its message',
  );
}

/**
 * A miss's save of a Docker server into the store's folder `dest` (schema-cache/save.ts
 * saveCluster with snapshotDocker; no bootstrap password: the container has its socket).
 * @returns the copy's manifest
 * @throws what saveCluster throws
 */
export async function saveDocker(server: DockerServer, dest: string): Promise<Manifest | void> {
  return saveCluster(server, null, () => snapshotDocker(server, dest));
}
