/**
 * The e2e lanes (vitest.config.ts): `e2e-docker` runs the files whose servers live in containers,
 * `e2e-native` the files whose servers are host processes, `e2e-isolated` the benchmark's smoke run,
 * Windows under Wine and the native kill loop in PID, IPC and mount namespaces of their own, with
 * their own /dev/shm and TMPDIR (scripts/test-lanes.mjs starts it with `unshare` as root), all at
 * the same time (one file at a time in each), then
 * `e2e-solo` the files that start both, with the machine to themselves. Each project sets
 * PG_TMPFS_TEST_LANE for its files, and the leftover checks count only what their own lane can
 * leave: the Docker lane the labelled containers and volumes, the native lane the host's run
 * folders, mounts, postgres processes, SysV segments, ports and keepers. What the isolated lane's
 * processes hold on the host is out of the other lanes' sight; its containers (the benchmark's)
 * carry names the Docker lane's checks pass over (leftovers.ts BENCH_NAMES). The solo
 * lane (or no lane: a file run by itself) counts all.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** A lane, from PG_TMPFS_TEST_LANE: `docker`, `native`, `isolated`, or `all` (solo, or unset). */
export type TestLane = 'docker' | 'native' | 'isolated' | 'all';

/** This file's lane (PG_TMPFS_TEST_LANE, set by its vitest project); `all` when unset or unknown. */
export function testLane(): TestLane {
  const lane = process.env.PG_TMPFS_TEST_LANE;
  return lane === 'docker' || lane === 'native' || lane === 'isolated' ? lane : 'all';
}

/** True when other lanes may be running now (this file is in the Docker, the native or the isolated lane). */
export function lanesRun(): boolean {
  return testLane() !== 'all';
}

/**
 * True when this lane's leftover checks count what lives in Docker (containers, volumes): not in
 * the native lane, nor in the isolated one (native files, and the benchmark, which checks its own).
 */
export function countsDocker(): boolean {
  const lane = testLane();
  return lane !== 'native' && lane !== 'isolated';
}

/** True when this lane's leftover checks count what lives on the host (folders, mounts, processes, segments, ports). */
export function countsHost(): boolean {
  return testLane() !== 'docker';
}

/** The PID namespace of this process (`pid:[4026531836]`), read once. */
const ownPidNamespace = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
})();

/**
 * True when process `pid` is in this process's PID namespace: a host process, not one inside a
 * container (whose SysV segments, mounts and folders are the container's own, removed with it).
 * True too when its namespace cannot be read (a process that exited meanwhile, or another user's):
 * such a process is counted, never hidden.
 */
export function inOurPidNamespace(pid: number | string): boolean {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`) === ownPidNamespace;
  } catch {
    return true;
  }
}

/**
 * True when process `pid` counts in this lane's checks, by the PG_TMPFS_TEST_LANE its environment
 * inherited from the file that started it (as the pool's keeper inherits its start's): in the
 * Docker lane only the Docker lane's; in the native lane all but the Docker lane's (a process
 * started through act carries the lane: act on the host passes its environment to the steps; one
 * that carries none counts there); outside the lanes, all.
 * An environment that cannot be read names no lane.
 */
export function ofOurLane(pid: number | string): boolean {
  const lane = testLane();
  if (lane === 'all' || lane === 'isolated') return true;
  let tag: string | undefined;
  try {
    tag = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((v) => v.startsWith('PG_TMPFS_TEST_LANE='));
  } catch {
    tag = undefined;
  }
  return lane === 'docker' ? tag === 'PG_TMPFS_TEST_LANE=docker' : tag !== 'PG_TMPFS_TEST_LANE=docker';
}
