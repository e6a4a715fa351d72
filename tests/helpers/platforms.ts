/**
 * What tests/e2e/platforms.test.ts needs to run .github/workflows/platforms.yml through act: the
 * workflow's matrix as written, act's arguments for its cells (a label on the host, or in a job
 * container without the Docker socket), the setup-node stand-in, a Docker "daemon" that never
 * answers and counts who called it, and the leftovers of a snapshot that are this test's runs'.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { ROOT } from './infra.js';

/** The workflow, relative to the repository (act's -W). */
export const PLATFORMS_WORKFLOW = '.github/workflows/platforms.yml';

/** One cell of the workflow's matrix, as written there. */
export interface PlatformCell {
  /** The runner label, e.g. `ubuntu-slim`. */
  label: string;
  /** The first start: `version` (a major) and `binaries` (installed, auto or npm). */
  first: { version: string; binaries: string };
  /** The major of the npm starts. */
  npm: string;
}

/** The text of platforms.yml. */
function workflowText(): string {
  return readFileSync(join(ROOT, PLATFORMS_WORKFLOW), 'utf8');
}

/**
 * The matrix cells of platforms.yml's `platform` job (`strategy.matrix.include`), in order.
 * @throws Error when the file has no such job or matrix
 */
export function platformCells(): PlatformCell[] {
  const doc = parse(workflowText()) as { jobs?: { platform?: { strategy?: { matrix?: { include?: PlatformCell[] } } } } };
  const cells = doc.jobs?.platform?.strategy?.matrix?.include;
  if (!cells?.length) throw new Error(`${PLATFORMS_WORKFLOW} has no jobs.platform.strategy.matrix.include`);
  return cells;
}

/**
 * act's arguments for the `platform` job's cells `labels` only (`--matrix label:<label>` each),
 * each label mapped by `-P` to `platform` (`-self-hosted`: the host; an image: a job container).
 */
export function cellArgs(labels: readonly string[], platform: string): string[] {
  return ['-j', 'platform', ...labels.flatMap((l) => ['-P', `${l}=${platform}`, '--matrix', `label:${l}`])];
}

/**
 * act's `--local-repository` for actions/setup-node at the SHA platforms.yml pins: the stand-in
 * of tests/fixtures/act/setup-node. act resolves every remote action of a job before running it,
 * even one whose step is skipped (setup-node is, under act), and cannot fetch from GitHub here.
 * @throws Error when the workflow does not pin setup-node by commit SHA
 */
export function setupNodeStandIn(): string[] {
  const pin = /actions\/setup-node@([0-9a-f]{40})/.exec(workflowText())?.[1];
  if (!pin) throw new Error(`${PLATFORMS_WORKFLOW} does not pin actions/setup-node by commit SHA`);
  return ['--local-repository', `actions/setup-node@${pin}=${join(ROOT, 'tests', 'fixtures', 'act', 'setup-node')}`];
}

/** A Docker "daemon" that accepts connections and never answers (startSilentDaemon). */
export interface SilentDaemon {
  /** `tcp://127.0.0.1:PORT`: a DOCKER_HOST for the docker CLI. */
  dockerHost: string;
  /** Connections accepted so far: each is a docker CLI call (or anything else) that reached it. */
  connections(): number;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a TCP listener on 127.0.0.1 (a free port) that stands for a Docker daemon that never
 * answers: every docker CLI call with DOCKER_HOST at it connects, is counted, and waits (until the
 * caller's own deadline). Zero connections after a job means that nothing in it asked Docker.
 */
export async function startSilentDaemon(): Promise<SilentDaemon> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // read and drop the request; never answer
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    dockerHost: `tcp://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A run folder's name in a text (`…/pg-tmpfs-<container-name>-<token>…`): its token (src/native/start.ts, 8 hex). */
const RUN_FOLDER = /\/pg-tmpfs-[^/\s]*?-([0-9a-f]{8})(?=[/.\s]|$)/g;

/** The tokens of every run folder a text names (an act log: each start's PGDATA and removal). */
export function runTokens(text: string): Set<string> {
  return new Set([...text.matchAll(RUN_FOLDER)].map((m) => m[1]!));
}

/** A file of /proc, or '' when it cannot be read (gone, another user's). */
function proc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** What traceToken says of a leftover that is no longer there (another suite's, gone meanwhile). */
const GONE = Symbol('gone');

/**
 * The run token a leftover of infra.ts leftoverSnapshot() belongs to: a path or a process names
 * its run folder; a port's listener (ss -ltnpH), a shared memory segment's creator
 * (/proc/sysvipc/shm cpid) and a keeper (PG_TMPFS_RUN in its environment) lead to a process; a
 * container carries its run label. GONE when it is no longer there; null when it cannot be traced.
 */
function traceToken(entry: string): string | null | typeof GONE {
  const named = (text: string) => [...runTokens(text)][0] ?? null;
  const cmdline = (pid: string) => proc(`/proc/${pid}/cmdline`).split('\0').join(' ');
  const [kind, first, second] = entry.split(' ');
  if (kind === 'port') {
    const line = (spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' }).stdout ?? '')
      .split('\n')
      .find((l) => l.includes(` ${first} `));
    if (!line) return GONE;
    const pid = /pid=(\d+)/.exec(line)?.[1];
    return pid ? named(cmdline(pid)) : null;
  }
  if (kind === 'shm') {
    const row = proc('/proc/sysvipc/shm')
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1] === second);
    if (!row) return GONE;
    return row[4] ? named(cmdline(row[4])) : null;
  }
  if (kind === 'keeper' || kind === 'process') {
    if (!existsSync(`/proc/${first}`)) return GONE;
    if (kind === 'process') return named(entry);
    return /(?:^|\0)PG_TMPFS_RUN=([0-9a-f]{8})(?:\0|$)/.exec(proc(`/proc/${first}/environ`))?.[1] ?? null;
  }
  if (/^[0-9a-f]{12,64}$/.test(entry)) {
    const label = spawnSync('docker', ['inspect', '-f', '{{index .Config.Labels "io.github.pg-tmpfs-action.run"}}', entry], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (label.status !== 0 && /no such object/i.test(label.stderr ?? '')) return GONE;
    return /^[0-9a-f]{8}$/.test(label.stdout?.trim() ?? '') ? label.stdout.trim() : null;
  }
  if (entry.startsWith('/') && !existsSync(entry)) return GONE;
  return named(entry);
}

/** How long ownLeftovers waits before it looks again at what it could not trace: 3000 ms. */
const SETTLE_MS = 3_000;

/**
 * Of what a leftover snapshot added while act ran, what may be this test's: the machine is shared
 * with other suites, whose servers (their own run tokens) appear and go meanwhile. Dropped: what
 * is gone by now, and what traces to a run token that is not `ours`; what cannot be traced (a
 * process that is exiting has no command line left) is looked at again SETTLE_MS later, and kept
 * unless it is gone then or traces to another run.
 * @param ours the tokens of this test's runs (runTokens of its act log)
 */
export async function ownLeftovers(added: readonly string[], ours: ReadonlySet<string>): Promise<string[]> {
  const keep = (token: ReturnType<typeof traceToken>) => token !== GONE && (token === null || ours.has(token));
  const first = added.filter((entry) => keep(traceToken(entry)));
  if (first.length === 0) return [];
  await sleep(SETTLE_MS);
  return first.filter((entry) => keep(traceToken(entry)));
}
