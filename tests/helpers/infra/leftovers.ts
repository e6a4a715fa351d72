/**
 * What a start may leave on the machine, for the end-to-end tests' "nothing is left" checks:
 * labelled containers and volumes, native run folders, mounts, postgres processes, SysV segments,
 * postgres ports, pool keepers. Lane-aware (lane.ts): the Docker lane counts what lives in Docker,
 * the native lane what lives on the host, so the two lanes can run at the same time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CONTAINER_LABEL } from '../../../src/docker/run-plan.js';
import { KEEPER_FLAG } from '../../../src/pool/start.js';
import { KEEP_FLAG } from '../../../src/native/source/npm/keep.js';
import { findProcesses, type ProcessInfo } from '../../../src/processes.js';
import { countsDocker, countsHost, inOurPidNamespace, lanesRun, ofOurLane } from './lane.js';

/**
 * Volumes that act makes for itself and keeps on purpose: `act-toolcache`, the tool cache of its
 * container jobs (mounted at the job's RUNNER_TOOL_CACHE), created the first time act runs one
 * on an engine and reused by every later job. Not left by anything of ours: a
 * leftover check that snapshots volumes before the first container job on a new engine would
 * otherwise see it as new (the 2026-11-26 failure of tests/e2e/engine29.test.ts).
 */
export const ACT_OWN_VOLUMES: readonly string[] = ['act-toolcache'];

/**
 * Names of the engine's volumes (`docker volume ls -q`, 60 s deadline; DOCKER_HOST as `env`, by
 * default this process's, sets it), without act's own (ACT_OWN_VOLUMES). [] when the engine does
 * not answer. While the lanes run (lane.ts), only dangling volumes (no container refers to them):
 * the anonymous volume of another lane's running container (a test image declares VOLUME) is not
 * a leftover, and one a removed container left is dangling. A volume the other lane is removing
 * with its container (`docker rm -v`, act and gitlab-ci-local removing a job's volumes) is dangling
 * for a moment: so in the lanes a list that is not empty is taken again VOLUME_SETTLE_MS later,
 * and only the volumes in both count (a leftover stays).
 */
export function dockerVolumeNames(env: NodeJS.ProcessEnv = process.env): string[] {
  const args = ['volume', 'ls', '-q', ...(lanesRun() ? ['--filter', 'dangling=true'] : [])];
  const list = () =>
    (spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000, env }).stdout ?? '')
      .split('\n')
      .filter((v) => v !== '' && !ACT_OWN_VOLUMES.includes(v));
  return lanesRun() ? settled(list, VOLUME_SETTLE_MS) : list();
}

/** How long a dangling volume must stay to count while the lanes run (dockerVolumeNames): 1500 ms. */
const VOLUME_SETTLE_MS = 1500;

/**
 * What `list()` gives now and still gives `ms` later (a blocking wait, only when the first list is
 * not empty): a leftover stays, while what another lane is removing at that moment goes.
 */
function settled(list: () => string[], ms: number): string[] {
  const first = list();
  if (first.length === 0) return first;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const again = new Set(list());
  return first.filter((x) => again.has(x));
}

/**
 * The names the benchmark gives its containers (`pgtbench-<run id>`). Its smoke test runs in the
 * isolated lane (lane.ts) at the same time as the Docker lane, whose checks pass over these
 * names while the lanes run; the benchmark's test checks them itself.
 */
const BENCH_NAMES = 'pgtbench-';

/** True when `name` is the benchmark's and the lanes run (BENCH_NAMES). */
function benchOwned(name: string): boolean {
  return lanesRun() && name.includes(BENCH_NAMES);
}

/** IDs of containers this project started (by label), running or not; while the lanes run, not the benchmark's. */
export function ourContainers(): string[] {
  // Not -q: the docker CLI ignores --format when --quiet is given.
  return execFileSync('docker', ['ps', '-a', '--filter', `label=${CONTAINER_LABEL}`, '--format', '{{.ID}} {{.Names}}'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean)
    .filter((l) => !benchOwned(l.split(' ')[1] ?? ''))
    .map((l) => l.split(' ')[0] as string);
}

/**
 * What native mode may leave behind: run folders under /dev/shm and the temp folder, tmpfs mounts
 * and their `pg-tmpfs-mnt-*` folders, and host postgres processes (in this PID namespace, not in a
 * container) whose data directory is one of ours. All must be empty after every test.
 */
export function nativeLeftovers(): string[] {
  const tmp = process.env.RUNNER_TEMP || tmpdir();
  // /dev/shm: every pg-tmpfs-* folder; the temp folder: mount folders and run folders
  // (`<container-name>-<16 hex token>`), not the tests' own pg-tmpfs-* scratch folders.
  const dirs = [
    ...readdirSync('/dev/shm')
      .filter((n) => n.startsWith('pg-tmpfs-'))
      .map((n) => `/dev/shm/${n}`),
    ...readdirSync(tmp)
      .filter((n) => n.startsWith('pg-tmpfs-mnt-') || (n.startsWith('pg-tmpfs-') && /-[0-9a-f]{16}$/.test(n)))
      .map((n) => `${tmp}/${n}`),
  ];
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter((l) => l.includes('/pg-tmpfs-mnt-'))
    .map((l) => `mount ${l.split(' ')[1]}`);
  const procs = spawnSync('pgrep', ['-af', 'postgres -D .*/pg-tmpfs-'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l !== '' && inOurPidNamespace(l.split(' ')[0] as string))
    .map((l) => `process ${l}`);
  return [...dirs, ...mounts, ...procs];
}

/**
 * The tests' one walk of /proc: live processes (zombies and this one excluded) whose command line
 * `match` accepts (src/processes.ts findProcesses, which the product uses to find what a killed start
 * left). `match` may read more of /proc/<pid>/ and throw when it cannot: that process is skipped.
 * While the lanes run (lane.ts), only this lane's: in this PID namespace (not the isolated lane's,
 * not a container's) and of its lane by PG_TMPFS_TEST_LANE (ofOurLane).
 */
export function liveProcesses(match: (argv: string[], pid: number) => boolean): ProcessInfo[] {
  return findProcesses(
    (pid) =>
      match(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean), pid) &&
      (!lanesRun() || (inOurPidNamespace(pid) && ofOurLane(pid))),
  );
}

/**
 * POSIX dynamic shared memory of PostgreSQL that no process maps (`dsm /dev/shm/PostgreSQL.<n>`):
 * what a postmaster killed with SIGKILL leaves. A live server's segments are mapped by its
 * postmaster, whichever lane or PID namespace it runs in, so they never count. A server stopping
 * unmaps its control segment just before it removes it: a list that is not empty is taken again
 * DSM_SETTLE_MS later, and only the files in both count.
 */
export function leakedDsmFiles(): string[] {
  const list = () => {
    const files = readdirSync('/dev/shm').filter((n) => n.startsWith('PostgreSQL.'));
    if (files.length === 0) return [];
    const mapped = new Set<string>();
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      let maps = '';
      try {
        maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
      } catch {
        continue; // gone, or not ours to read
      }
      for (const m of maps.matchAll(/\s\/dev\/shm\/(PostgreSQL\.\d+)/g)) mapped.add(m[1] as string);
    }
    return files.filter((n) => !mapped.has(n)).map((n) => `dsm /dev/shm/${n}`);
  };
  return settled(list, DSM_SETTLE_MS);
}

/** How long an unmapped DSM file must stay to count (leakedDsmFiles): 300 ms. */
const DSM_SETTLE_MS = 300;

/** SysV shared memory segments (ipcs -m), which a postmaster that was not stopped keeps: `shm <key> <owner>`. */
export function sharedMemorySegments(): string[] {
  return spawnSync('ipcs', ['-m'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => /^0x[0-9a-f]+\s/.test(l))
    .map((l) => {
      const [key, id, owner] = l.trim().split(/\s+/);
      return `shm ${key} ${id} ${owner}`;
    });
}

/** TCP ports a host postgres process (not one in a container) listens on (ss -ltnp): `port <address:port>`. */
export function postgresPorts(): string[] {
  return spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.includes('"postgres"') && inOurPidNamespace(/pid=(\d+)/.exec(l)?.[1] ?? 'self'))
    .map((l) => `port ${l.trim().split(/\s+/)[3]}`);
}

/**
 * The pool's keeper processes (src/pool/start.ts launches them with KEEPER_FLAG): `keeper <pid>`;
 * and the keeps of builds taken into RAM (src/native/npm-keep.ts, KEEP_FLAG): `keep of a build in RAM <pid>`.
 * Host processes only (this PID namespace): one in a container goes with it; in a lane, only that
 * lane's (ofOurLane: a Docker-mode pool's keeper runs on the host too).
 */
export function keeperProcesses(): string[] {
  const host = (flag: string) => (argv: string[], pid: number) => argv.includes(flag) && inOurPidNamespace(pid) && ofOurLane(pid);
  return [
    ...liveProcesses(host(KEEPER_FLAG)).map((p) => `keeper ${p.pid}`),
    ...liveProcesses(host(KEEP_FLAG)).map((p) => `keep of a build in RAM ${p.pid}`),
  ];
}

/**
 * Snapshot of what a start may leave (our containers, native run folders, mounts, postgres
 * processes, shared memory segments, postgres ports, pool keepers); `added()` lists what appeared
 * since. Tests assert `added()` is empty, so instances a developer runs alongside (or another run
 * on the same engine) do not count. In a lane (lane.ts) only that lane's part: the Docker lane
 * counts containers, the native lane the host's folders, mounts, processes, segments and ports,
 * both their own lane's keepers; the solo lane, or a file run by itself, counts everything.
 */
export function leftoverSnapshot(): { added: () => string[] } {
  const all = () => [
    ...(countsDocker() ? ourContainers() : []),
    ...(countsHost() ? [...nativeLeftovers(), ...sharedMemorySegments(), ...postgresPorts()] : []),
    ...keeperProcesses(),
  ];
  const before = new Set(all());
  return { added: () => all().filter((x) => !before.has(x)) };
}
