/**
 * Pulling images: `docker pull` with a deadline for the registry's first answer, retries of
 * transient failures, and errors that name the input to check.
 */
import { SetupError } from '../errors.js';
import { dockerRun, PULL_TIMEOUT_MS } from './engine.js';

/**
 * How long failed pulls of one image are retried, in ms (120 000): no new attempt starts after
 * it; an attempt already running may take up to PULL_TIMEOUT_MS.
 */
export const PULL_RETRY_MS = 120_000;

/**
 * How long a pull attempt may wait for the registry's first answer, in ms (20 000): `docker pull`
 * prints `<tag>: Pulling from <repository>` once the registry has given the image's manifest
 * (Docker Hub, a mirror: under a few seconds). A registry that accepts connections and never
 * answers otherwise holds each attempt for the daemon's own time limits (25 s here: the ping's
 * 15 s, then plain HTTP), and the retries for PULL_RETRY_MS. startDocker lowers it to the
 * wait-timeout when that is shorter.
 */
export const PULL_ANSWER_MS = 20_000;

/** What `docker pull` prints once the registry has answered (its first progress line), e.g. `18: Pulling from library/postgres`. */
const PULL_ANSWERED = /Pulling from |^Digest: |^Status: /m;

/** What a failed `docker pull` means for the next step. */
export type PullFailure = 'transient' | 'credentials' | 'not-found' | 'no-answer' | 'other';

/**
 * Classifies `docker pull` stderr: rate limits (HTTP 429), server errors (5xx) and dropped
 * connections are worth retrying; a registry asking for credentials, an unknown image or a host
 * name that does not resolve (a misspelt registry, as a rule) are not. Docker Hub answers
 * "repository does not exist or may require 'docker login'" for both unknown and private
 * images (the containerd image store: "repository does not exist or may require authorization"):
 * that counts as not found, and the error names both fixes, unless the daemon says it had no
 * credentials to send.
 * The daemon's own time-outs (awaiting headers, TLS handshake, i/o timeout) are `transient`, as
 * Docker Hub's passing hiccups are; `no-answer` is only what pullImage's own answer deadline
 * ends (a registry that accepts and never answers), never a classification of stderr.
 */
export function classifyPullError(stderr: string): Exclude<PullFailure, 'no-answer'> {
  const e = stderr.toLowerCase();
  // A registry that asked for credentials and got none: the containerd image store (Docker 29)
  // words it "pull access denied, repository does not exist or may require authorization:
  // authorization failed: no basic auth credentials", which would otherwise read as not found.
  if (/no basic auth credentials|authentication required/.test(e)) return 'credentials';
  if (/manifest unknown|not found|repository does not exist|name unknown|invalid reference|no such host/.test(e))
    return 'not-found';
  if (/unauthorized|authentication required|no basic auth credentials|requested access to the resource is denied/.test(e))
    return 'credentials';
  if (
    /toomanyrequests|too many requests|\b429\b|\b5\d\d\b|internal server error|bad gateway|service unavailable|gateway time-?out|connection refused|connection reset|i\/o timeout|tls handshake timeout|unexpected eof|\beof\b|temporary failure|client\.timeout exceeded|context deadline exceeded|request canceled|server misbehaving/.test(
      e,
    )
  )
    return 'transient';
  return 'other';
}

/**
 * The registry host (and port) of an image reference, as Docker reads it: the first path
 * component when it has a `.` or `:` or is `localhost`, else Docker Hub (`docker.io`).
 */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return /[.:]/.test(first) || first === 'localhost' ? first : 'docker.io';
}

/** Options of pullImage. */
export interface PullOptions {
  /** How long the registry may take to answer each attempt, in ms (default PULL_ANSWER_MS). */
  answerMs?: number;
  /**
   * Extra environment of the `docker pull` process: the run's marker (RUN_ENV=token), so that
   * `down`, the next `up` of the name or the post step end a pull its killed start left running
   * (src/orphans.ts endMarkedProcesses).
   */
  env?: Record<string, string>;
}

/**
 * Pulls an image. Each attempt ends when the registry has not answered within `answerMs` (no
 * retry then: the registry is silent, not busy), and in any case after PULL_TIMEOUT_MS. Transient
 * failures (HTTP 429, 5xx, network) are retried after 1, 2, 4, 8, 16 … s for up to `retryMs` in
 * total, each retry reported through `onRetry`.
 * @throws SetupError naming the input to check: credentials (log in first, as
 *   docker/login-action does), an image that does not exist, a registry that does not answer, or
 *   retries exhausted
 */
export async function pullImage(
  image: string,
  onRetry: (message: string) => void = () => undefined,
  retryMs = PULL_RETRY_MS,
  options: PullOptions = {},
): Promise<void> {
  const answerMs = options.answerMs ?? PULL_ANSWER_MS;
  const t0 = Date.now();
  const deadline = t0 + retryMs;
  for (let attempt = 1; ; attempt++) {
    const result = await dockerRun(['pull', image], {
      timeoutMs: PULL_TIMEOUT_MS,
      firstOutputMs: answerMs,
      firstOutputPattern: PULL_ANSWERED,
      env: options.env,
    });
    if (result.timedOut && !result.silent) {
      throw new SetupError(
        `docker pull did not finish within ${Math.round(PULL_TIMEOUT_MS / 1000)} s (image "${image}")`,
        'The Docker daemon or the registry is too slow; check them (`docker info`), or pull the image in an earlier step',
      );
    }
    if (result.code === 0) return;
    const reason = result.silent
      ? `no answer within ${formatSeconds(answerMs)}`
      : result.stderr.trim().split('\n').pop() || `exit code ${result.code ?? 'none'}`;
    const kind: PullFailure = result.silent ? 'no-answer' : classifyPullError(result.stderr);
    if (kind === 'credentials') {
      throw new SetupError(
        `Image "${image}" needs registry credentials: ${reason}`,
        "Log in to its registry in an earlier step (e.g. docker/login-action), or check the inputs 'image' and 'registry'",
      );
    }
    if (kind === 'no-answer') {
      throw new SetupError(
        `Registry ${registryOf(image)} did not answer the pull of image "${image}" within ${formatSeconds(Math.min(answerMs, Date.now() - t0))}: ${reason}`,
        "Check the inputs 'registry' and 'image' (host and port of a registry that is up and reachable from the Docker daemon); it accepted the connection but sent nothing" +
          (answerMs < PULL_ANSWER_MS
            ? `. Input 'wait-timeout' bounds this wait (${formatSeconds(answerMs)}); raise it if the registry is only slow`
            : ''),
      );
    }
    const waitMs = Math.min(1000 * 2 ** (attempt - 1), 16_000);
    if (kind !== 'transient' || Date.now() + waitMs > deadline) {
      throw new SetupError(
        `Could not pull image "${image}"${kind === 'transient' ? ` after ${attempt} attempts in ${Math.round((Date.now() - t0) / 1000)} s` : ''}: ${reason}`,
        kind === 'transient'
          ? "The registry kept failing; try again later, or pull from a mirror with input 'registry'"
          : "Check the inputs 'postgres-version', 'image' and 'registry' (does that tag exist? is the registry's name right?), and log in first (docker/login-action) if the image is private",
      );
    }
    onRetry(`Pull of ${image} failed (${reason}); retrying in ${waitMs / 1000} s (attempt ${attempt + 1})`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/** A duration in ms as seconds for messages: `20 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
