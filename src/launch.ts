/**
 * Detached children of this program: `node <entry> <flag> [args]` in a process group of its own,
 * which outlives the step or command that launched it. Three kinds: a background start
 * (background.ts), the pool's keeper (pool/start.ts) and the keep of a build in RAM
 * (native/npm-keep.ts). A job that holds a secret (the password) is handed over as JSON on the
 * child's stdin, never in a file or on the command line (which `ps` shows); the child reads it
 * with readStdinJson.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetupError } from './errors.js';

/** How long a child may take to read its job from stdin, and the launcher to hand it over: 10 000 ms. */
export const HANDOVER_TIMEOUT_MS = 10_000;

/**
 * The built entry `name` (dist/<name>.js) of this package, found upwards from this module (which
 * is dist/lib/*.js when bundled, src/*.ts in tests).
 * @throws SetupError when there is no such file (dist/ not built)
 */
export function entryPath(name: 'main' | 'cli'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'dist', `${name}.js`);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new SetupError(`Cannot find dist/${name}.js to start PostgreSQL in the background`, 'Run npm run build');
}

/** What to launch, and how. */
export interface LaunchOptions {
  /** The built entry to run (entryPath: dist/main.js, dist/cli.js). */
  entry: string;
  /** First argument: what the entry is to do (e.g. `--pg-tmpfs-background`). */
  flag: string;
  /** Arguments after the flag: `ps` shows them, so never a secret. */
  args?: readonly string[];
  /** Handed over as JSON on the child's stdin, which is then closed; without it, no stdin. */
  job?: unknown;
  /**
   * The child's stdout and stderr: an open descriptor both go to (a log file; the caller closes it
   * after the launch), or `stderr`: stdout ignored, stderr a pipe the caller reads.
   */
  output: number | 'stderr';
  /** The child's whole environment. */
  env: NodeJS.ProcessEnv;
  /** Deadline of the handover, in ms (default HANDOVER_TIMEOUT_MS). */
  handoverMs?: number;
  /** Called with the child's PID once it runs, before the job is handed over. */
  beforeJob?: (pid: number) => void;
}

/** Why a launch failed: the child did not start (`start`), or did not take its job (`handover`). */
export class LaunchError extends Error {
  constructor(
    message: string,
    readonly stage: 'start' | 'handover',
  ) {
    super(message);
    this.name = 'LaunchError';
  }
}

/**
 * Spawns `node <entry> <flag> [args]` detached (its own process group), without waiting for
 * anything: for a caller that cannot wait (native/npm-keep.ts launchKeep). With `job`, stdin is a
 * pipe the caller writes; else none. A failure to start comes as the child's 'error' event.
 * @returns the child, not yet unreferenced
 */
export function spawnDetached(options: Omit<LaunchOptions, 'handoverMs' | 'beforeJob'>): ChildProcess {
  const out = options.output === 'stderr' ? (['ignore', 'pipe'] as const) : ([options.output, options.output] as const);
  return spawn(process.execPath, [options.entry, options.flag, ...(options.args ?? [])], {
    detached: true,
    stdio: [options.job === undefined ? 'ignore' : 'pipe', ...out],
    env: options.env,
  });
}

/**
 * Launches a detached child (spawnDetached), waits until it runs, calls `beforeJob` with its PID,
 * then hands it `job` as JSON on its stdin and waits until that is written, up to `handoverMs`.
 * The child is unreferenced once launched: this process does not wait for it to end.
 * @returns the child's PID, and the child (its stderr pipe with output `stderr`)
 * @throws LaunchError when it cannot be started (`start`) or the job is not handed over in time
 *   (`handover`); what `beforeJob` throws, as it is. After a failure the child is killed (SIGKILL).
 */
export async function launchDetached(options: LaunchOptions): Promise<{ pid: number; child: ChildProcess }> {
  const child = spawnDetached(options);
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid ?? 0));
    child.once('error', (error) => reject(new LaunchError(error.message, 'start')));
  });
  try {
    options.beforeJob?.(pid);
    if (options.job !== undefined) await handOver(child, options.job, options.handoverMs ?? HANDOVER_TIMEOUT_MS);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  child.unref();
  return { pid, child };
}

/** Writes `job` as JSON to the child's stdin and closes it, within `ms`. @throws LaunchError (handover) */
async function handOver(child: ChildProcess, job: unknown, ms: number): Promise<void> {
  child.stdin?.on('error', () => undefined); // EPIPE after the handover: the child's exit says why
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new LaunchError(`no handover within ${ms} ms`, 'handover')), ms);
    child.stdin?.once('error', (error) => {
      clearTimeout(timer);
      reject(new LaunchError(error.message, 'handover'));
    });
    child.stdin?.end(JSON.stringify(job), () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Reads all of stdin and parses it as JSON: how a detached child takes its job (launchDetached).
 * @throws Error when stdin closes without valid JSON, or does not close within HANDOVER_TIMEOUT_MS
 */
export async function readStdinJson<T>(): Promise<T> {
  const chunks: Buffer[] = [];
  const text = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no job on stdin within ${HANDOVER_TIMEOUT_MS} ms`)), HANDOVER_TIMEOUT_MS);
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.once('error', reject);
  });
  return JSON.parse(text) as T;
}
