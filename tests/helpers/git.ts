/** git for the tests' scratch repositories. */
import { execFileSync } from 'node:child_process';

/**
 * Runs git in `cwd` with a fixed identity, no signing, and neither the user's nor the system's
 * configuration (so a developer's git settings cannot change a test), with a 60 000 ms deadline.
 * @returns its standard output, trimmed
 * @throws Error (execFileSync's) when git exits non-zero or the deadline passes
 */
export function git(cwd: string, args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=pg-tmpfs test', '-c', 'user.email=test@pg-tmpfs.invalid', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    },
  ).trim();
}
