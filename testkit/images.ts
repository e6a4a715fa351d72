/**
 * Local Docker images the tests and the benchmark make and remove: copies pushed to a local
 * registry (registry.ts) and pulled back.
 */
import { execFileSync } from 'node:child_process';

/** Removes a local image tag (`docker image rm --force`, 60 000 ms deadline); nothing when it is not there. */
export function forgetImage(ref: string): void {
  try {
    execFileSync('docker', ['image', 'rm', '--force', ref], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // not there
  }
}
