/**
 * act for the end-to-end tests: workflows run on the host as a runner runs them, job containers on
 * networks of their own.
 */
import { execFile, execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { goBinary } from '../../../testkit/registry.js';
import { ROOT, TEST_IMAGES } from './images.js';

/** Path of a Go program installed by scripts/setup-test-infra.sh (the benchmark's own lookup). */
export { goBinary } from '../../../testkit/registry.js';

/** Path of the act binary. */
export function actBinary(): string {
  return goBinary('act');
}

/** act's command line for `workflow` on the host (`-P ubuntu-latest=-self-hosted`), no pulls, no action downloads. */
function actArgs(workflow: string, args: string[]): string[] {
  return ['push', '-P', 'ubuntu-latest=-self-hosted', '-W', workflow, '--pull=false', '--action-offline-mode', ...args];
}

/** What runAct and runActAsync may be given. */
interface ActOptions {
  /** The repository to run it in (default: this one). */
  cwd?: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Deadline, after which act is killed (default 20 min). */
  timeoutMs?: number;
}

/** The child process options of an act run. */
function actProcess(options: ActOptions) {
  return {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8' as const,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...options.env, ACT: 'true' },
    timeout: options.timeoutMs ?? 20 * 60_000,
    killSignal: 'SIGKILL' as const,
  };
}

/**
 * Runs a workflow with act on the host (`-P ubuntu-latest=-self-hosted`), as a runner would.
 * @returns act's exit status and combined output
 */
export function runAct(
  workflow: string,
  args: string[] = [],
  options: ActOptions = {},
): SpawnSyncReturns<string> & { log: string } {
  const r = spawnSync(actBinary(), actArgs(workflow, args), actProcess(options));
  return Object.assign(r, { log: `${r.stdout}${r.stderr}` });
}

/**
 * runAct without blocking this process: for a run that reaches a server this process serves
 * (the local npm registry answers from its event loop, which spawnSync would hold).
 * @returns act's exit status (null when killed at the deadline) and combined output
 */
export function runActAsync(
  workflow: string,
  args: string[] = [],
  options: ActOptions = {},
): Promise<{ status: number | null; log: string }> {
  return new Promise((resolve) => {
    execFile(actBinary(), actArgs(workflow, args), actProcess(options), (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, log: `${stdout}${stderr}` });
    });
  });
}

/**
 * e2e.yml's container job options (the PG_TMPFS_JOB_OPTIONS variable): node and the docker CLI
 * from the host, mounted read-only into the local job image. GitHub's runner brings its own node;
 * the docker CLI must be in the job image or mounted like this.
 */
export function jobContainerOptions(): string {
  const dockerCli = execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8', timeout: 10_000 }).trim();
  return `-v ${process.execPath}:/usr/bin/node:ro -v ${dockerCli}:/usr/bin/docker:ro`;
}

/**
 * Runs `fn` with a user-defined bridge network of its own (as GitHub's `job.container.network`),
 * removed afterwards, with every container still attached to it.
 */
export function withNetwork<T>(fn: (network: string) => T): T {
  const network = `pg-tmpfs-e2e-net-${process.pid}-${Date.now()}`;
  execFileSync('docker', ['network', 'create', network], { stdio: 'ignore' });
  try {
    return fn(network);
  } finally {
    const attached = (spawnSync('docker', ['ps', '-aq', '--filter', `network=${network}`], { encoding: 'utf8' }).stdout ?? '')
      .split('\n')
      .filter(Boolean);
    if (attached.length) spawnSync('docker', ['rm', '-f', '-v', ...attached], { stdio: 'ignore' });
    spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
  }
}

/**
 * e2e.yml's `container-job` through act, as GitHub runs a `container:` job: the job in the 15 test
 * image on a bridge network of its own (withNetwork), the server from the 18 test image.
 * @returns act's result, and what its log must show when the server joined the job's network and
 *   answered there
 */
export function runContainerJob(): { r: ReturnType<typeof runAct>; expected: RegExp[] } {
  const r = withNetwork((network) =>
    runAct('.github/workflows/e2e.yml', [
      '-j',
      'container-job',
      '--network',
      network,
      '--var',
      `PG_TMPFS_JOB_IMAGE=${TEST_IMAGES[15]}`,
      '--var',
      `PG_TMPFS_JOB_OPTIONS=${jobContainerOptions()}`,
      '--var',
      `PG_TMPFS_SERVER_IMAGE=${TEST_IMAGES[18]}`,
    ]),
  );
  showLines(r.log, /e2e-check|job container|Answered a query/);
  const expected = [
    /Running in a job container on network pg-tmpfs-e2e-net-\S+: PostgreSQL joins it as pg-tmpfs-\S+:5432/,
    /e2e-check container-job: ok \(host pg-tmpfs-\S+, port 5432\)/,
    /Removed PostgreSQL container/,
  ];
  return { r, expected };
}

/** Prints the lines of a (long) log that match `pattern`, for the test output. */
export function showLines(log: string, pattern: RegExp): void {
  console.log(
    log
      .split('\n')
      .filter((l) => pattern.test(l))
      .join('\n'),
  );
}
