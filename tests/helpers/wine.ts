/**
 * Windows programs under Wine for tests/e2e/windows-wine.test.ts: the prefix, Windows Node and the
 * installed windows-x64 PostgreSQL that scripts/setup-wine.sh makes; paths between the prefix's
 * drive C: and Linux; a Windows program run with files as its standard streams (a Unix pipe
 * makes Windows Node fail with `open EBADF`) from C:\, under a deadline; and what the prefix still
 * runs (postgres.exe, pg_ctl.exe, node.exe), for the leftover checks.
 */
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { NPM_WINDOWS_MAJOR } from '../../testkit/npm-packages.js';
import { liveProcesses, ROOT } from './infra.js';

/** Wine's 64-bit loader as Debian installs it. */
export const WINE64 = '/usr/lib/wine/wine64';
/** The test prefix (setup-wine.sh). */
export const WINE_PREFIX = join(process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'), 'wine', 'prefix');
/** The prefix's drive C: on Linux. */
export const DRIVE_C = join(WINE_PREFIX, 'drive_c');
/** Windows Node 22 (Node 24 does not start under Wine 8.0). */
export const WIN_NODE = 'C:\\pg-tmpfs-test\\node\\node.exe';
/** The preload that makes setKeepAlive a no-op (Wine 8.0 has no TCP keepalive; npm sets it). */
export const WIN_KEEPALIVE = 'C:\\pg-tmpfs-test\\node\\keepalive.cjs';
/** The PostgreSQL major installed in the prefix. */
export const WIN_MAJOR = NPM_WINDOWS_MAJOR;
/** Its bin folder, where GitHub's Windows images point PGBIN (EDB's layout). */
export const WIN_PGBIN = `C:\\Program Files\\PostgreSQL\\${WIN_MAJOR}\\bin`;

/**
 * Whether Wine, the prefix, Windows Node and the installed PostgreSQL are there; false (for the
 * caller to skip) when not.
 * @throws Error under CI=true instead of returning false, naming what is missing and the setup
 */
export function requireWine(): boolean {
  const missing = [
    [WINE64, 'Wine'],
    [join(WINE_PREFIX, 'system.reg'), 'the Wine prefix'],
    [unixPath(WIN_NODE), 'Windows Node'],
    [join(unixPath(WIN_PGBIN), 'postgres.exe'), `Windows PostgreSQL ${WIN_MAJOR}`],
  ].find(([path]) => !existsSync(path as string));
  if (!missing) return true;
  const problem = `${missing[1]} is missing (${missing[0]}): run bash scripts/setup-test-infra.sh (section 10: --wine-only)`;
  if (process.env.CI === 'true') throw new Error(problem);
  console.warn(`${problem}: skipping`);
  return false;
}

/** The Windows path (`C:\…`) of a Linux path inside the prefix's drive C:. */
export function winPath(path: string): string {
  const rel = relative(DRIVE_C, path);
  if (rel.startsWith('..')) throw new Error(`${path} is not on the Wine prefix's drive C:`);
  return `C:\\${rel.split(sep).join('\\')}`;
}

/** The Linux path of a Windows path on drive C: (`C:\a\b` or `C:/a/b`). */
export function unixPath(path: string): string {
  const m = /^[cC]:[\\/](.*)$/.exec(path);
  if (!m) throw new Error(`${path} is not on drive C:`);
  return join(DRIVE_C, ...(m[1] ?? '').split(/[\\/]/).filter(Boolean));
}

/** A folder of this test's own on drive C:, removed by the caller. */
export function driveFolder(prefix: string): string {
  mkdirSync(join(DRIVE_C, 'pg-tmpfs-test'), { recursive: true });
  return mkdtempSync(join(DRIVE_C, 'pg-tmpfs-test', prefix));
}

/**
 * Copies the unmodified dist/ (and package.json: `"type": "module"`) onto drive C:.
 * @returns the Windows path of its dist folder, e.g. `C:\pg-tmpfs-test\action-XXXX\dist`
 */
export function copyDist(): string {
  const dir = driveFolder('action-');
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  return `${winPath(dir)}\\dist`;
}

/** What a Windows program left. */
export interface WineResult {
  /** Exit code; null when killed (its deadline). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time, ms. */
  ms: number;
  /** The Linux PID of the process Wine ran it in. */
  pid: number;
}

/** A Windows program started under Wine: its Linux PID and its end. */
export interface WineProcess {
  pid: number;
  done: Promise<WineResult>;
}

/**
 * Starts `program args` under Wine in the test prefix, from C:\, its stdout and stderr to files
 * (read back when it ends) and stdin from /dev/null, with `env` over a small environment (HOME,
 * USER, LANG, WINEPREFIX, WINEDEBUG=-all; Wine adds the Windows ones: SystemRoot, TEMP, …). The
 * process gets SIGKILL at `timeoutMs`, with its process group.
 */
export function startWindows(program: string, args: string[], env: Record<string, string>, timeoutMs: number): WineProcess {
  const out = driveFolder('out-');
  const files = { stdout: join(out, 'stdout'), stderr: join(out, 'stderr') };
  const fds = { stdout: openSync(files.stdout, 'w'), stderr: openSync(files.stderr, 'w') };
  const t0 = performance.now();
  const child = spawn(WINE64, [program, ...args], {
    cwd: DRIVE_C,
    stdio: ['ignore', fds.stdout, fds.stderr],
    detached: true,
    env: {
      HOME: process.env.HOME ?? '/root',
      USER: process.env.USER ?? 'root',
      LANG: 'C.UTF-8',
      WINEPREFIX: WINE_PREFIX,
      WINEDEBUG: '-all',
      ...env,
    },
  });
  closeSync(fds.stdout);
  closeSync(fds.stderr);
  const pid = child.pid ?? 0;
  const done = new Promise<WineResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const read = (f: string) => readFileSync(f, 'utf8').replace(/\r\n/g, '\n');
      const result = { code, stdout: read(files.stdout), stderr: read(files.stderr), ms: performance.now() - t0, pid };
      rmSync(out, { recursive: true, force: true });
      resolve(result);
    });
  });
  return { pid, done };
}

/** startWindows, waited for. */
export function runWindows(
  program: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 180_000,
): Promise<WineResult> {
  return startWindows(program, args, env, timeoutMs).done;
}

/**
 * The Linux processes of the test prefix (WINEPREFIX in their environment) that run a Windows
 * program named by `names` (e.g. `postgres.exe`): `name pid` each. Zombies do not count.
 */
export function windowsProcesses(names: readonly string[] = ['postgres.exe', 'pg_ctl.exe', 'node.exe', 'initdb.exe']): string[] {
  return liveProcesses((argv, pid) => {
    const program = (argv[0] ?? '').split(/[\\/]/).pop()?.toLowerCase() ?? '';
    if (!names.includes(program)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`WINEPREFIX=${WINE_PREFIX}`);
    } catch {
      return false;
    }
  }).map((p) => `${(p.argv[0] ?? '').split(/[\\/]/).pop()} ${p.pid}`);
}

/** The names in a Windows folder on drive C: ([] when it is gone). */
export function windowsFolder(path: string): string[] {
  try {
    return readdirSync(unixPath(path));
  } catch {
    return [];
  }
}
