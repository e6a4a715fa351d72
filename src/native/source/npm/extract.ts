/**
 * A checked server build's tarball extracted with node-tar, npm's own extractor, in this process,
 * under a progress deadline: an extraction that stops advancing is stopped, made once more in a
 * fresh folder, and then given up on with an error, instead of holding the start until the job's
 * own timeout. Seen here twice in about 1,800 extractions of the same 23 MB build (node-tar
 * 7.5.23, node 20, 2026-11-27): once in a start, 724 of the 1,006 files written, the tarball
 * read to its end, no file open, the process idle for ten minutes; once in a loop of node-tar's
 * own `x({ file })` alone. Not reproduced since; cause unknown.
 */
import { createReadStream, mkdirSync } from 'node:fs';
import { SetupError } from '../../../errors.js';
import type { Logger } from '../../../log.js';
import { removeTree } from '../../../store/removal.js';

/** How long an extraction may go without a new entry or a read of the tarball: 30 000 ms (a healthy one advances every few ms). */
const EXTRACT_STALL_MS = 30_000;

/** Times an extraction is made before a stall fails the start: 2. */
const EXTRACT_ATTEMPTS = 2;

/** An operation that made no progress for its window (withStallDeadline). */
export class StallError extends Error {}

/** An operation watched by withStallDeadline: its outcome, and how to stop it. */
interface Watched<T> {
  /** Settles when the operation ends. */
  done: Promise<T>;
  /** Stops the operation (called once, on a stall, with the StallError). */
  stop(error: StallError): void;
}

/**
 * Runs `start`, which calls `progress()` each time the operation advances, and waits for it.
 * When `stallMs` pass without a call, the operation is stopped and the wait rejected.
 * @param what names the operation in the error, e.g. `extracting x.tgz`
 * @param stallMs the window, in ms; a stall is seen between stallMs and twice that after the last progress
 * @returns what the operation resolves with
 * @throws StallError (`<what> made no progress for <n> s`) on a stall; else what the operation rejects with
 */
export function withStallDeadline<T>(what: string, stallMs: number, start: (progress: () => void) => Watched<T>): Promise<T> {
  let steps = 0;
  const watched = start(() => {
    steps += 1;
  });
  return new Promise<T>((resolve, reject) => {
    let seen = steps;
    const timer = setInterval(() => {
      if (steps !== seen) {
        seen = steps;
        return;
      }
      clearInterval(timer);
      const error = new StallError(`${what} made no progress for ${Math.round(stallMs / 1000)} s`);
      watched.stop(error);
      reject(error);
    }, stallMs);
    watched.done.then(
      (value) => {
        clearInterval(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearInterval(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Extracts a checked tarball into `dest` (which must exist) with node-tar, as npm (pacote) does:
 * the file streamed into tar's extractor. Entries below `package/native/` only, no absolute paths
 * or `..` (node-tar's default), owned by this user whatever the tarball says (preserveOwner off,
 * also as root), their modification times not set (noMtime). In this process, for the CLI and the
 * action alike: nothing is left running when the process is killed (a `tar` child, as
 * @actions/tool-cache's extractTar runs, would go on writing). Bounded by the tarball, checked
 * against its pin before this is called, and by `stallMs` without progress (a new entry, a read).
 * @throws StallError on a stall (the extraction aborted); what node-tar throws (strict: a bad entry; ENOSPC)
 */
export async function extractPackage(tarball: string, dest: string, stallMs = EXTRACT_STALL_MS): Promise<void> {
  // tar/extract, not tar: the same extract (tar.x), without the pre-minified whole of node-tar
  // (create, list, update) that the CLI's package would carry.
  const { extract } = await import('tar/extract');
  return withStallDeadline(`extracting ${tarball}`, stallMs, (progress) => {
    const unpack = extract({
      cwd: dest,
      strict: true,
      preserveOwner: false,
      // Each file's modification time is left at its extraction: setting the tarball's costs a
      // utimes per file (a quarter of the extraction on this project's ext4), and nothing reads it.
      noMtime: true,
      filter: (path) => /^package\/native\//.test(path),
      onReadEntry: progress,
    });
    const input = createReadStream(tarball);
    const done = new Promise<void>((resolve, reject) => {
      unpack.on('close', () => resolve());
      // The tarball is closed on a failure too (Windows cannot remove an open file).
      unpack.on('error', (error: Error) => {
        input.destroy();
        reject(error);
      });
      input.on('error', reject);
    });
    input.on('data', progress);
    input.pipe(unpack);
    return {
      done,
      stop: (error) => {
        input.destroy();
        unpack.abort(error);
      },
    };
  });
}

/**
 * extractPackage with node-tar's synchronous writes (a build into RAM, on the start's path: about
 * 0.45 s against 0.7 s for the stream of asynchronous writes here; the event loop is held
 * meanwhile, and a signal waits that long). Synchronous, it cannot stall as the streamed
 * extraction once did: it ends when the tarball, checked against its pin, is read.
 * @throws what node-tar throws (strict: a bad entry; ENOSPC)
 */
export async function extractPackageSync(tarball: string, dest: string): Promise<void> {
  const { extract } = await import('tar/extract');
  extract({
    file: tarball,
    cwd: dest,
    sync: true,
    strict: true,
    preserveOwner: false,
    noMtime: true,
    filter: (path: string) => /^package\/native\//.test(path),
  });
}

/**
 * extractPackage, made again in an emptied `dest` after a stall (a warning), up to `attempts` times.
 * @throws SetupError when every attempt stalled; what extractPackage throws otherwise
 */
export async function extractWithRetry(
  tarball: string,
  dest: string,
  log: Logger,
  stallMs = EXTRACT_STALL_MS,
  attempts = EXTRACT_ATTEMPTS,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await extractPackage(tarball, dest, stallMs);
      return;
    } catch (error) {
      if (!(error instanceof StallError)) throw error;
      if (attempt >= attempts) {
        throw new SetupError(`${error.message}, ${attempts} times`, 'Run the job again; if it happens again, report it');
      }
      log.warning(`${error.message}: extracting it again`);
      const left = removeTree(dest);
      if (left) throw new SetupError(`${error.message}, and its folder could not be emptied: ${left}`, 'Run the job again');
      mkdirSync(dest, { mode: 0o700 });
    }
  }
}
