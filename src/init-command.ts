/**
 * The `init-command` input: one `sh -c` in the working folder with the server's connection in its
 * environment, under init-timeout; what it leaves running is ended (its process group, and what
 * carries its run's token).
 */
import { connectionEnv, LIBPQ_SESSION_ENV, type ConnectionInfo } from './connection.js';
import { InputError } from './errors.js';
import type { Config } from './inputs.js';
import type { Logger } from './log.js';
import { closeRunMarker, endMarkedProcesses, openRunMarker, processesMarked } from './orphans.js';
import { RUN_ENV, run, tail } from './proc.js';

/**
 * Runs the init command once: `sh -c COMMAND` in `config.workDir`, with the caller's environment,
 * DATABASE_URL and PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE of the server set, and libpq's
 * other variables removed (LIBPQ_SESSION_ENV), its output streamed into the log, killed after
 * `config.initTimeoutMs`.
 * Its environment also holds RUN_ENV=`runToken` (the server's run token), which what it starts
 * inherits: a command left running by a killed start, and anything it left running, is found by
 * it and ended when the server is removed (orphans.ts).
 * It is done when `sh` exits: what it left running (`sleep 300 &`, a daemon) would otherwise hold
 * its output, and the step, until init-timeout. Those processes are ended then (its process group,
 * and what carries RUN_ENV=`runToken` or its marker descriptor, fd 3: orphans.ts openRunMarker),
 * with a warning naming init-command. A process that closes fd 3, drops RUN_ENV and leaves the
 * process group before the command exits is out of reach (docs/how-it-works.md).
 * @throws InputError (init-command) when it exits non-zero or times out, with the tail of its
 *   output; Error when `sh` cannot be started
 */
export async function runInitCommand(config: Config, connection: ConnectionInfo, log: Logger, runToken = ''): Promise<void> {
  // One line buffer per stream, so a line of stdout and one of stderr never merge.
  const pending = { stdout: '', stderr: '' };
  const flush = (stream: 'stdout' | 'stderr', chunk: string, end = false): void => {
    pending[stream] += chunk;
    const lines = pending[stream].split('\n');
    pending[stream] = end ? '' : (lines.pop() ?? '');
    for (const line of lines) if (!end || line !== '') log.info(line);
  };
  // fd 3 marks what it starts, whatever environment or session they take (orphans.ts).
  const markerFd = runToken && process.platform === 'linux' ? openRunMarker(runToken) : undefined;
  const result = await run('sh', ['-c', config.initCommand], {
    ...(markerFd !== undefined ? { markerFd } : {}),
    timeoutMs: config.initTimeoutMs,
    cwd: config.workDir,
    env: { ...connectionEnv(connection), ...(runToken ? { [RUN_ENV]: runToken } : {}) },
    // libpq variables that would send the command elsewhere than the server just started, or
    // shape its sessions (what it loads is cached under a key that does not hold them).
    unsetEnv: [...LIBPQ_SESSION_ENV],
    onOutput: (chunk, stream) => flush(stream, chunk),
    endGroupOnExit: true,
  }).finally(() => {
    if (markerFd !== undefined) closeRunMarker(markerFd);
  });
  flush('stdout', '', true);
  flush('stderr', '', true);
  // What left the process group (setsid, a daemon) still carries the run's token in its
  // environment, or its marker descriptor. A process that called setsid while its group was being
  // ended is found both ways: each PID counts once.
  const escaped = runToken ? processesMarked(runToken).map((p) => p.pid) : [];
  if (escaped.length > 0) for (const problem of await endMarkedProcesses(runToken)) log.warning(problem);
  const ended = new Set([...result.leftoverPids, ...escaped]).size;
  if (ended > 0) {
    log.warning(
      `init-command: ${ended} process${ended > 1 ? 'es' : ''} it started still ran when it exited (e.g. a command ending in &); they were ended. Wait for them in the command (wait), or start what the tests need in a step of its own`,
    );
  }
  if (result.code !== 0) {
    throw new InputError(
      'init-command',
      result.timedOut
        ? `did not finish within ${config.initTimeoutMs / 1000} s (init-timeout) and was killed`
        : `exited with ${result.code === null ? 'a signal' : `code ${result.code}`}: ${tail(result.stderr || result.stdout, 3)}`,
      result.timedOut
        ? 'Raise init-timeout, or make the command faster'
        : 'Fix the command; its whole output is in the log above',
    );
  }
}
