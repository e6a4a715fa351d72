#!/usr/bin/env node
/**
 * The test command's checks and vitest runs (npm test, after the set-up): at the same time, the
 * Docker e2e lane, the native e2e lane, the unit and bench projects, and the static checks
 * (typecheck, lint, the dist/ check); then the solo lane alone (vitest.config.ts,
 * tests/helpers/infra/lane.ts). One vitest process cannot do this: vitest 4.1 runs every project
 * that allows one file at a time in a single sequential group. Each lane's own output is printed
 * line by line with its name; the vitest lanes' blob reports are merged at the end into the reporters given
 * here (`--reporter=...`, `--outputFile...`; vitest's default reporter when none), so
 * `.tmp/vitest.json` holds every file as before. Other arguments (file filters, `-t`, ...) go to
 * every vitest lane. Each lane has a deadline (PG_TMPFS_LANE_TIMEOUT_MIN, default 45 minutes), after
 * which it is ended with its workers (SIGTERM to its process group, then SIGKILL 30 s later); a
 * SIGINT, SIGTERM or SIGHUP of this process ends every lane so. Exit status: 1 when any lane or
 * the merge failed, else 0.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const blobs = join(root, '.tmp', 'lanes');
const deadlineMs = Number(process.env.PG_TMPFS_LANE_TIMEOUT_MIN ?? 45) * 60_000;

/**
 * The arguments split: reporters and their output files (`--reporter=x`, `--reporter x`,
 * `--outputFile.json=f`, `--outputFile.json f`) for the merge, the rest for every lane.
 */
function splitArgs(args) {
  const reportArgs = [];
  const laneArgs = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!/^--(reporter|outputFile)\b/.test(a)) laneArgs.push(a);
    else if (a.includes('=') || i + 1 >= args.length) reportArgs.push(a);
    else reportArgs.push(`${a}=${args[++i]}`);
  }
  return { reportArgs, laneArgs };
}
const { reportArgs, laneArgs } = splitArgs(process.argv.slice(2));

/** The lanes' vitest processes running now, each the leader of its own process group. */
const running = new Set();
/** Ends a lane's vitest and everything it started (its fork workers, their servers' children): its process group. */
function endGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // gone
  }
}
/** Set by a signal: the lanes running are ended, and no later lane starts. */
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of running) endGroup(child, 'SIGTERM');
  });
}

/**
 * Runs vitest with `projectArgs`, its output prefixed with `[name]`, a blob report in `blobs`.
 * @returns its exit status (1 when it was ended at the deadline or failed to start) and wall seconds
 */
function runLane(name, projectArgs) {
  return runCommand(name, process.execPath, [
    vitest,
    'run',
    ...projectArgs,
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=blob',
    `--outputFile.blob=${join(blobs, `${name}.json`)}`,
    ...laneArgs,
  ]);
}

/**
 * Runs `command` with `args` (and `env`) in the repository, its output prefixed with `[name]`, ended with its
 * process group at the deadline or on a signal of this process.
 * @returns its exit status (1 when it was ended at the deadline or failed to start) and wall seconds
 */
function runCommand(name, command, args, env = process.env) {
  const started = Date.now();
  const child = spawn(
    command,
    args,
    // Its own process group, so that the deadline and a signal end its workers too, not vitest alone.
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  running.add(child);
  const prefix = (stream, out) => {
    let rest = '';
    stream.setEncoding('utf8').on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) out.write(`[${name}] ${l}\n`);
    });
    stream.on('end', () => rest && out.write(`[${name}] ${rest}\n`));
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  let killer;
  const deadline = setTimeout(() => {
    console.error(`[${name}] deadline of ${deadlineMs / 60_000} minutes passed: ending it`);
    endGroup(child, 'SIGTERM');
    killer = setTimeout(() => endGroup(child, 'SIGKILL'), 30_000);
  }, deadlineMs);
  return new Promise((done) => {
    const finish = (status) => {
      running.delete(child);
      clearTimeout(deadline);
      clearTimeout(killer);
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`[${name}] finished in ${seconds} s, exit status ${status}`);
      done({ status, seconds });
    };
    child.once('error', (error) => {
      console.error(`[${name}] could not start ${command}: ${error.message}`);
      finish(1);
    });
    child.once('close', (code) => finish(code ?? 1));
  });
}

rmSync(blobs, { recursive: true, force: true });
mkdirSync(blobs, { recursive: true });
const started = Date.now();
/**
 * Whether the isolated lane can run in namespaces of its own: as root, where `unshare` makes a PID,
 * IPC and mount namespace with a tmpfs on its /dev/shm (10 s deadline). Else its files run alone
 * after the solo lane.
 */
function canIsolate() {
  if (process.getuid?.() !== 0) return false;
  const r = spawnSync(
    'unshare',
    ['--pid', '--fork', '--mount-proc', '--ipc', 'sh', '-c', 'mount -t tmpfs -o mode=1777 shm /dev/shm'],
    {
      stdio: 'ignore',
      timeout: 10_000,
    },
  );
  return r.status === 0;
}

/**
 * The isolated lane's vitest in a PID, IPC and mount namespace of its own (/proc mounted for it),
 * with a /dev/shm of its own (a fresh tmpfs) and its own TMPDIR (a new folder on disk, where
 * Docker's bind mounts reach), under `sh` as the namespace's first process, which reaps the
 * processes left to it (a daemon's parent that exited) as init would. Its processes, SysV
 * segments, POSIX shared memory, run folders and mounts are then out of the other lanes' sight
 * (tests/helpers/infra/lane.ts); Docker and the network stay shared. Afterwards the benchmark's
 * containers (`pgtbench-*`) are removed on both engines, in case the lane was ended at its deadline.
 */
async function runIsolatedLane() {
  const tmp = mkdtempSync(join(tmpdir(), 'pg-tmpfs-lane-isolated-'));
  const args = [vitest, 'run', '--project', 'e2e-isolated', '--passWithNoTests', '--reporter=default', '--reporter=blob'];
  args.push(`--outputFile.blob=${join(blobs, 'isolated.json')}`, ...laneArgs);
  // At nice 5: its files have the most room before the Docker lane, the longest, ends.
  const result = await runCommand(
    'isolated',
    'nice',
    [
      '-n',
      '5',
      'unshare',
      '--pid',
      '--fork',
      '--mount-proc',
      '--ipc',
      'sh',
      '-c',
      'mount -t tmpfs -o mode=1777 shm /dev/shm || exit 1; "$0" "$@"; status=$?; exit $status',
      process.execPath,
      ...args,
    ],
    { ...process.env, TMPDIR: tmp },
  );
  try {
    rmSync(tmp, { recursive: true, force: true });
  } catch (error) {
    console.error(`[isolated] could not remove ${tmp}: ${error.message}`);
  }
  // The second engine where testkit/engines.ts says it is.
  const engine29 = process.env.PG_TMPFS_ENGINE29_HOST || 'unix:///run/pg-tmpfs-engine29/docker.sock';
  for (const host of [process.env.DOCKER_HOST, engine29]) {
    const env = { ...process.env, ...(host ? { DOCKER_HOST: host } : {}) };
    const ids = (
      spawnSync('docker', ['ps', '-aq', '--filter', 'name=pgtbench-'], { encoding: 'utf8', env, timeout: 60_000 }).stdout ?? ''
    )
      .split('\n')
      .filter(Boolean);
    if (ids.length) {
      console.error(`[isolated] removing ${ids.length} benchmark container(s) left on ${host ?? 'the default engine'}`);
      spawnSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore', env, timeout: 120_000 });
    }
  }
  return result;
}

// At the same time: the Docker lane, the native lane, the isolated lane (when it can be isolated),
// the unit and bench projects (they make nothing the lanes count: tests/unit/hostile-names.test.ts
// keeps its run folders out of /dev/shm), and the static checks (typecheck, lint, the dist/
// check), which need no lane; then the solo lane (and the isolated files, when they could not be).
const isolate = canIsolate();
if (!isolate) console.log('[isolated] not root or no unshare: the bench and Wine files run alone after the solo lane');
const [docker, native, unit, checks, isolatedBeside] = await Promise.all([
  runLane('docker', ['--project', 'e2e-docker']),
  runLane('native', ['--project', 'e2e-native']),
  runLane('unit', ['--project', 'unit', '--project', 'bench']),
  // At the lowest priority: nothing in them waits on time, and the e2e lanes' deadlines do; they
  // take what CPU the lanes leave.
  runCommand('checks', 'nice', ['-n', '19', 'sh', '-c', 'npm run -s typecheck && npm run -s lint && npm run -s check-dist']),
  isolate ? runIsolatedLane() : null,
]);
if (stopping) process.exit(1);
const solo = await runLane('solo', ['--project', 'e2e-solo']);
if (stopping) process.exit(1);
const isolated = isolatedBeside ?? (await runLane('isolated', ['--project', 'e2e-isolated']));
if (stopping) process.exit(1);
console.log(
  `lanes: docker ${docker.seconds} s, native ${native.seconds} s, isolated ${isolated.seconds} s` +
    `${isolate ? '' : ' (after solo)'}, unit ${unit.seconds} s, checks ${checks.seconds} s; ` +
    `solo ${solo.seconds} s; wall ${Math.round((Date.now() - started) / 1000)} s`,
);
const merged = await new Promise((done) => {
  const child = spawn(process.execPath, [vitest, 'run', `--merge-reports=${blobs}`, ...reportArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 5 * 60_000);
  child.once('error', () => (clearTimeout(deadline), done(1)));
  child.once('close', (code) => (clearTimeout(deadline), done(code ?? 1)));
});
process.exit([docker, native, isolated, unit, checks, solo].some((l) => l.status !== 0) || merged !== 0 ? 1 : 0);
