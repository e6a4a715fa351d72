/**
 * The file half of a base backup taken with PostgreSQL's low-level backup API (manual, "Making a
 * Base Backup Using the Low Level API" and its "Backing Up the Data Directory"): which files of
 * a running cluster's data directory are left out, which WAL segments the backup needs, and the
 * copy itself, each file hashed as it is written, so the entry's manifest needs no second read.
 * The SQL half (pg_backup_start, pg_backup_stop) is native/schema-cache/snapshot.ts snapshotNative.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { SetupError } from '../../errors.js';
import { throwIfInterrupted } from '../../interrupt.js';
import type { Manifest } from '../../store/manifest.js';

/** What the copy does with a path of the data directory. */
type CopyRule = 'copy' | 'skip';

/**
 * Folders whose contents are left out (the folders stay): the WAL (copied after pg_backup_stop,
 * only the segments the backup needs), replication slots, and what the postmaster rebuilds at
 * start (manual, "Backing Up the Data Directory"). pg_wal keeps its subfolders (archive_status,
 * and summaries from PostgreSQL 17), empty.
 */
const EMPTIED = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);

/**
 * Files of the data directory's top level that are left out: the running postmaster's own
 * (postmaster.pid, postmaster.opts: "These files can confuse pg_ctl"), the label and map of a
 * backup (written from pg_backup_stop's result instead), and the temporary files PostgreSQL's
 * own base backup leaves out (src/backend/backup/basebackup.c excludeFiles).
 */
const TOP_FILES = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'backup_label',
  'tablespace_map',
  'backup_manifest',
  'postgresql.auto.conf.tmp',
  'current_logfiles.tmp',
]);

/**
 * The socket and its lock file when unix_socket_directories names the data directory (native
 * mode's does): the lock file names this postmaster's PID, and a restored copy whose port is the
 * same would refuse to start while another process has that PID.
 */
const SOCKET_FILE = /^\.s\.PGSQL\.\d+(\.lock)?$/;

/** A temporary relation's files, `t<backend>_<relfilenode>[_fork][.segment]`: removed at every start. */
const TEMP_RELATION = /^t\d+_\d+(_[a-z]+)?(\.\d+)?$/;

/**
 * What the copy does with `rel`, a path relative to the data directory (`/`-separated):
 * everything is copied but what the manual lists as not needed in a base backup (the contents
 * of EMPTIED folders; postmaster.pid and postmaster.opts; anything named pgsql_tmp*; every
 * pg_internal.init), the other files of TOP_FILES, the socket's files, and temporary relations.
 * @param isDir whether `rel` is a folder
 */
export function copyRule(rel: string, isDir: boolean): CopyRule {
  const parts = rel.split('/');
  const name = parts[parts.length - 1] ?? '';
  if (name.startsWith('pgsql_tmp') || name.startsWith('pg_internal.init')) return 'skip';
  const top = parts[0] ?? '';
  if (parts.length === 1) return !isDir && (TOP_FILES.has(name) || SOCKET_FILE.test(name)) ? 'skip' : 'copy';
  if (EMPTIED.has(top)) return isDir && top === 'pg_wal' ? 'copy' : 'skip';
  if (!isDir && (top === 'base' || top === 'pg_tblspc') && TEMP_RELATION.test(name)) return 'skip';
  return 'copy';
}

/** A WAL segment file's name: timeline, then the segment number's high and low halves, 8 hex digits each. */
const SEGMENT_NAME = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;

/** Most segments one backup may need: 65 536 (1 TiB of 16 MB segments; a schema's is 1 or 2). */
const MAX_SEGMENTS = 65_536;

/**
 * The WAL segment files from `first` to `last`, both included, on `first`'s timeline. A segment
 * number is split into two halves of 4 GiB / `segmentBytes` segments each (PostgreSQL's
 * XLogFileName, src/include/access/xlog_internal.h).
 * @param segmentBytes wal_segment_size in bytes: a power of two from 1 MiB to 1 GiB
 * @returns e.g. `['000000010000000000000002', '000000010000000000000003']`
 * @throws Error when a name is not a segment's, the timelines differ, `last` comes before
 *   `first`, the size is not one PostgreSQL allows, or there are more than MAX_SEGMENTS
 */
export function walSegments(first: string, last: string, segmentBytes: number): string[] {
  const a = SEGMENT_NAME.exec(first);
  const b = SEGMENT_NAME.exec(last);
  if (!a || !b) throw new Error(`not WAL segment names: ${first}, ${last}`);
  if (a[1] !== b[1]) throw new Error(`${first} and ${last} are on different timelines`);
  if (!Number.isInteger(Math.log2(segmentBytes)) || segmentBytes < 2 ** 20 || segmentBytes > 2 ** 30) {
    throw new Error(`wal_segment_size ${segmentBytes} is not a power of two from 1 MiB to 1 GiB`);
  }
  const perHalf = 2 ** 32 / segmentBytes;
  const number = (m: RegExpExecArray) => parseInt(m[2] as string, 16) * perHalf + parseInt(m[3] as string, 16);
  const from = number(a);
  const to = number(b);
  if (to < from) throw new Error(`${last} comes before ${first}`);
  if (to - from >= MAX_SEGMENTS) throw new Error(`${first} to ${last} is more than ${MAX_SEGMENTS} segments`);
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  const names: string[] = [];
  for (let n = from; n <= to; n++) names.push(`${a[1]}${hex(Math.floor(n / perHalf))}${hex(n % perHalf)}`);
  return names;
}

/**
 * The first WAL segment a backup needs, as its backup_label names it (`START WAL LOCATION:
 * 0/2000028 (file 000000010000000000000002)`: the segment of the backup's checkpoint's redo
 * point, src/backend/access/transam/xlogbackup.c build_backup_content).
 * @throws Error when the label names none
 */
export function labelStartSegment(label: string): string {
  const m = /^START WAL LOCATION: [0-9A-F]+\/[0-9A-F]+ \(file ([0-9A-F]{24})\)$/m.exec(label);
  if (!m?.[1]) throw new Error('the backup label names no start WAL file');
  return m[1];
}

/** Open flags of every read from the data directory: no symbolic link followed. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** Bytes read and written at a time: 1 MiB (a relation segment can be 1 GiB). */
const CHUNK_BYTES = 1024 * 1024;

/** How long the copy runs before it lets timers, signals and sockets have their turn: 20 ms. */
const SLICE_MS = 20;

/**
 * A copy of a data directory into an empty folder, with the manifest of what it wrote (each
 * folder after its parent; each file's size and sha256, of the bytes written). Folders are made
 * 0700, files keep their mode without group or others' write; all belong to this process's
 * user. Nothing outside `dest` is written.
 */
export class BackupCopy {
  /** What has been written so far. */
  readonly manifest: Manifest = { dirs: [], files: {} };
  private buffer: Buffer | null = null;
  private sliceStart = performance.now();

  /**
   * @param src the data directory (PGDATA)
   * @param dest an existing empty folder
   * @param deadline Date.now() value after which the copy gives up
   */
  constructor(
    readonly src: string,
    readonly dest: string,
    readonly deadline: number,
  ) {}

  /**
   * Copies the data directory as copyRule says, leaving out `later` (copied by copyFile).
   * Files that vanish while it walks (a relation dropped or truncated meanwhile) are left out:
   * the WAL replayed at restore brings the cluster to its state at pg_backup_stop.
   * @throws SetupError when a symbolic link is met (a tablespace outside the data directory, or
   *   pg_wal elsewhere), at the deadline; InterruptedError; filesystem errors as they come
   */
  async copyDataDirectory(later: readonly string[]): Promise<void> {
    const walk = async (rel: string): Promise<void> => {
      let entries;
      try {
        entries = readdirSync(rel ? join(this.src, rel) : this.src, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && rel) return; // dropped meanwhile
        throw error;
      }
      for (const entry of entries.sort((x, y) => (x.name < y.name ? -1 : 1))) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isSymbolicLink()) throw symlinkError(path);
        const isDir = entry.isDirectory();
        if ((!isDir && !entry.isFile()) || copyRule(path, isDir) === 'skip' || later.includes(path)) continue;
        await this.turn();
        if (isDir) {
          this.mkdir(path);
          await walk(path);
        } else this.copyFile(path);
      }
    };
    await walk('');
  }

  /** Makes folder `rel` of the copy (mode 0700) and records it. */
  mkdir(rel: string): void {
    mkdirSync(join(this.dest, rel), { mode: 0o700 });
    this.manifest.dirs.push(rel);
  }

  /**
   * Copies the data directory's file `rel` into the copy, reading it to its end as it is then,
   * and records its size and sha256.
   * @returns false when it is not there (or not a regular file): nothing written
   */
  copyFile(rel: string): boolean {
    let fd: number;
    try {
      fd = openSync(join(this.src, rel), READ_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false;
      if (code === 'ELOOP') throw symlinkError(rel);
      throw error;
    }
    try {
      const s = fstatSync(fd);
      if (!s.isFile()) return false;
      this.buffer ??= Buffer.allocUnsafe(CHUNK_BYTES);
      const out = openSync(join(this.dest, rel), 'wx', s.mode & 0o750);
      const hash = createHash('sha256');
      let size = 0;
      try {
        for (;;) {
          const n = readSync(fd, this.buffer, 0, CHUNK_BYTES, size);
          if (n === 0) break;
          const bytes = this.buffer.subarray(0, n);
          hash.update(bytes);
          for (let done = 0; done < n;) done += writeSync(out, bytes, done, n - done);
          size += n;
        }
      } finally {
        closeSync(out);
      }
      this.manifest.files[rel] = { size, sha256: hash.digest('hex') };
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** Writes `content` as the copy's file `rel` (mode 0600) and records it. */
  writeFile(rel: string, content: string): void {
    const bytes = Buffer.from(content, 'utf8');
    const out = openSync(join(this.dest, rel), 'wx', 0o600);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(out, bytes, done, bytes.length - done);
    } finally {
      closeSync(out);
    }
    this.manifest.files[rel] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  /**
   * Copies WAL segments `names` and every timeline history file from the data directory's
   * pg_wal, after pg_backup_stop, each segment marked archived (`archive_status/<name>.done`, as
   * pg_basebackup marks the WAL it fetched) so that a restored server with archive_mode on does
   * not archive them again.
   * @throws SetupError naming the first segment that is gone (a checkpoint during the copy
   *   recycled it: nothing to restore from)
   */
  async copyWal(names: readonly string[]): Promise<void> {
    const history = readdirSync(join(this.src, 'pg_wal')).filter((n) => /^[0-9A-F]{8}\.history$/.test(n));
    for (const name of history) this.copyFile(`pg_wal/${name}`);
    if (!this.manifest.dirs.includes('pg_wal/archive_status')) this.mkdir('pg_wal/archive_status');
    for (const name of names) {
      await this.turn();
      if (!this.copyFile(`pg_wal/${name}`)) {
        throw new SetupError(
          `WAL segment ${name}, which the copy needs, was removed from pg_wal while it was taken`,
          'Run again; if it keeps happening, raise wal_keep_size in input settings',
        );
      }
      this.writeFile(`pg_wal/archive_status/${name}.done`, '');
    }
  }

  /** Gives the event loop a turn every SLICE_MS (a signal's handler, the backup session's socket); checks the deadline. */
  private async turn(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await yieldToEvents();
    this.sliceStart = performance.now();
    throwIfInterrupted();
    if (Date.now() > this.deadline) {
      throw new SetupError(
        `the copy of the cluster did not finish in time (${this.src})`,
        'See whether the disk is full or slow',
      );
    }
  }
}

/** The error for a symbolic link in the data directory: a tablespace or WAL folder outside it. */
function symlinkError(rel: string): SetupError {
  return new SetupError(
    `${rel} in the data directory is a symbolic link (${rel.startsWith('pg_tblspc/') ? 'a tablespace' : 'a folder'} outside it), which the schema cache does not copy`,
    'Create no tablespace in init (CREATE TABLESPACE), or turn schema-cache off',
  );
}
