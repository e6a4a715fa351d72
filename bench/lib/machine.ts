/**
 * The machine a run was made on, and how busy it was while the run went on.
 */
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { filesystemTypeOf } from '../../src/verify.js';
import { run } from '../../src/proc.js';

/** What the results record about the machine. */
export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  os: string;
  kernel: string;
  node: string;
  /** `postgres --version` of the native binaries. */
  postgres: string;
  /** `pgbench --version`. */
  pgbench: string;
  /** Docker engine version, or the reason there is none. */
  docker: string;
  /** Image used for Docker cases and the server version it holds. */
  image: string;
  /** Filesystem and device of the on-disk folder, e.g. `ext4 on /dev/vda`. */
  disk: string;
  /** Filesystem of /dev/shm and its size. */
  shm: string;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

function osName(): string {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? process.platform;
  } catch {
    return process.platform;
  }
}

/** The mount that holds `path`: `type (options) on source`, from /proc/mounts. */
export function mountOf(path: string): string {
  try {
    const mounts = readFileSync('/proc/mounts', 'utf8');
    const type = filesystemTypeOf(path, mounts) ?? 'unknown';
    let best = { point: '', source: '', options: '' };
    for (const line of mounts.split('\n')) {
      const [source, point, , options] = line.split(' ');
      if (!source || !point) continue;
      if ((path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`)) && point.length >= best.point.length) {
        best = { point, source, options: options ?? '' };
      }
    }
    return `${type} (${best.options}) on ${best.source || 'unknown'}`;
  } catch {
    return 'unknown';
  }
}

/** Reads the machine description (versions through the programs themselves). */
export async function describeMachine(bindir: string, image: string, diskDir: string): Promise<Machine> {
  const version = async (program: string, args: string[]) => {
    try {
      const r = await run(program, args, { timeoutMs: 15_000 });
      return r.code === 0 ? firstLine(r.stdout) : `unavailable (${firstLine(r.stderr)})`;
    } catch (error) {
      return `unavailable (${error instanceof Error ? error.message : String(error)})`;
    }
  };
  let shmSize = '';
  try {
    const s = statfsSync('/dev/shm');
    shmSize = `${Math.round((s.blocks * s.bsize) / 1024 ** 3)} GiB`;
  } catch {
    shmSize = '?';
  }
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    os: osName(),
    kernel: release(),
    node: process.version,
    postgres: await version(join(bindir, 'postgres'), ['--version']),
    pgbench: await version('pgbench', ['--version']),
    docker: await version('docker', ['version', '--format', '{{.Server.Version}}']),
    image: `${image} (${await version('docker', ['run', '--rm', '--entrypoint', 'postgres', image, '--version'])})`,
    disk: `${diskDir}: ${mountOf(diskDir)}`,
    shm: `/dev/shm: ${mountOf('/dev/shm')}, ${shmSize}`,
  };
}

/** One line for the table's header: CPU, cores, RAM, OS, kernel, PostgreSQL, Docker. */
export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cpus} cores, ${m.memoryGiB} GiB RAM; ${m.os}, kernel ${m.kernel}; ${m.postgres}; Docker ${m.docker}; disk ${m.disk}; Node ${m.node}`;
}

/** Load average samples taken during the run (1-minute load, every `everyMs`). */
export class LoadSampler {
  readonly samples: Array<{ t: number; load1: number }> = [];
  private timer: NodeJS.Timeout | null = null;

  start(everyMs = 5000): void {
    const t0 = Date.now();
    const take = () => this.samples.push({ t: Math.round((Date.now() - t0) / 1000), load1: loadavg()[0] ?? 0 });
    take();
    this.timer = setInterval(take, everyMs);
    this.timer.unref();
  }

  stop(): { before: number; mean: number; max: number } {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const loads = this.samples.map((s) => s.load1);
    return {
      before: loads[0] ?? 0,
      mean: loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : 0,
      max: loads.length ? Math.max(...loads) : 0,
    };
  }
}

/** CPU time of one process (its own and its reaped children's), in seconds. */
interface ProcCpu {
  cpu: number;
  ppid: number;
  cmd: string;
  cgroup: string;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

function readProcesses(): Map<number, ProcCpu> {
  const out = new Map<number, ProcCpu>();
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after "(comm)": state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based in proc(5).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
      const ppid = Number(fields[1]);
      // Kernel threads (children of kthreadd, pid 2) work for everyone, this run included.
      if (Number(name) === 2 || ppid === 2) continue;
      out.set(Number(name), {
        cpu: ticks / CLOCK_TICKS,
        ppid,
        cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 100),
        cgroup: readFileSync(`/proc/${name}/cgroup`, 'utf8'),
      });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/**
 * Which other processes used the CPU during the run: a snapshot at the start, one at the end,
 * and the difference for processes that are neither this run's descendants, nor inside its
 * containers, nor the Docker daemons (which work for it).
 */
export class OtherWork {
  private readonly before = readProcesses();
  private readonly t0 = Date.now();

  /**
   * @param containerIds IDs (or prefixes) of the containers this run started
   * @returns up to `limit` lines "command: N CPU-seconds", busiest first, and the CPU-seconds total
   */
  report(containerIds: readonly string[], limit = 6): { seconds: number; total: number; top: string[] } {
    const after = readProcesses();
    const ours = new Set<number>([process.pid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, p] of after) {
        if (!ours.has(pid) && ours.has(p.ppid)) {
          ours.add(pid);
          grew = true;
        }
      }
    }
    const daemons = /^(\/usr\/bin\/|\/usr\/sbin\/)?(dockerd|containerd|containerd-shim\S*|docker-proxy|docker)\b/;
    const others: Array<{ cmd: string; cpu: number }> = [];
    for (const [pid, p] of after) {
      if (ours.has(pid) || daemons.test(p.cmd)) continue;
      if (containerIds.some((id) => id.length >= 12 && p.cgroup.includes(id.slice(0, 12)))) continue;
      const used = p.cpu - (this.before.get(pid)?.cpu ?? 0);
      if (used >= 1) others.push({ cmd: p.cmd || `pid ${pid}`, cpu: used });
    }
    others.sort((a, b) => b.cpu - a.cpu);
    return {
      seconds: Math.round((Date.now() - this.t0) / 1000),
      total: Math.round(others.reduce((s, o) => s + o.cpu, 0)),
      top: others.slice(0, limit).map((o) => `${o.cmd}: ${o.cpu.toFixed(0)} CPU-s`),
    };
  }
}
