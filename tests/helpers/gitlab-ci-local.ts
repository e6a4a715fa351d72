/**
 * Shared helpers for the tests that run GitLab pipelines with gitlab-ci-local (tests/e2e/gitlab-{services,runner}.test.ts,
 * tests/e2e/gitlab-schema-cache.test.ts, tests/e2e/gitlab-catalog.test.ts): its binary and images, a
 * throwaway repository with the origin the pipelines name, a run with a deadline, job output and
 * service logs, and what it leaves on Docker. Missing infrastructure fails the test with what to run
 * (never skips).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { git } from './git.js';
import { requireImages, ROOT } from './infra.js';

/**
 * gitlab-ci-local's binary: installed by scripts/setup-test-infra.sh from
 * tests/tools/gitlab-ci-local/package-lock.json into the test cache (`$PG_TMPFS_TEST_CACHE`,
 * default ~/.cache/pg-tmpfs-test), in a folder named by the first 16 hex digits of the lock's
 * sha256, this Node's ABI and arch (its re2 is compiled for them), as the script names it. Not a devDependency: its re2 compiles C++ for over a minute on
 * every `npm ci`.
 */
export const GITLAB_CI_LOCAL = join(
  process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'),
  'gitlab-ci-local',
  `${createHash('sha256')
    .update(readFileSync(join(ROOT, 'tests', 'tools', 'gitlab-ci-local', 'package-lock.json')))
    .digest('hex')
    .slice(0, 16)}-node${process.versions.modules}-${process.arch}`,
  'node_modules',
  '.bin',
  'gitlab-ci-local',
);
export const HELPER_IMAGE = 'docker.io/firecow/gitlab-ci-local-util:latest';
/**
 * The helper image the runs use (--helper-image): a local stand-in with rsync, which gitlab-ci-local
 * runs there to copy a job's cache: and artifacts: out of its build volume (without it, nothing).
 */
export const RSYNC_HELPER_IMAGE = 'pg-tmpfs-test/gitlab-ci-local-util:latest';
/** gitlab-ci-local's service health check (waits for the service's port, as GitLab Runner does). */
export const WAIT_IMAGE = 'docker.io/sumina46/wait-for-it:latest';
/**
 * Where the pipelines say the component lives; the throwaway repository's origin. gitlab-ci-local
 * derives CI_SERVER_FQDN (gitlab.example.com) and CI_PROJECT_PATH (pg-tmpfs/pg-tmpfs-action) from it.
 */
export const ORIGIN = 'https://gitlab.example.com/pg-tmpfs/pg-tmpfs-action.git';

export function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** Everything gitlab-ci-local creates on Docker for these pipelines, by its naming scheme. */
export function gitlabCiLocalResources(): string[] {
  const networks = lines(docker(['network', 'ls', '--format', '{{.Name}}'])).filter((n) => n.startsWith('gitlab-ci-local-'));
  const volumes = lines(docker(['volume', 'ls', '--format', '{{.Name}}'])).filter((v) => v.startsWith('gcl-pg-tmpfs-'));
  const containers = lines(docker(['ps', '-a', '--format', '{{.Names}}'])).filter((c) => c.startsWith('gcl-'));
  return [
    ...networks.map((n) => `network ${n}`),
    ...volumes.map((v) => `volume ${v}`),
    ...containers.map((c) => `container ${c}`),
  ];
}

/**
 * gitlab-ci-local removes what it creates (its --cleanup is on by default); this only removes what a
 * failed run may have left: networks and volumes of these pipelines, their containers, not in `before`.
 */
export function removeGitlabCiLocalLeftovers(before: string[]): void {
  const leftovers = gitlabCiLocalResources().filter((r) => !before.includes(r));
  for (const r of leftovers) {
    const [kind, name] = r.split(' ') as [string, string];
    if (kind === 'container') spawnSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
    if (kind === 'network' || kind === 'volume') {
      const filter = kind === 'network' ? `network=${name}` : `volume=${name}`;
      const ids = lines(docker(['ps', '-aq', '--filter', filter]));
      if (ids.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore' });
      spawnSync('docker', [kind, 'rm', name], { stdio: 'ignore' });
    }
  }
}

export function requireGitlabInfra(): void {
  requireImages();
  if (spawnSync('docker', ['image', 'inspect', HELPER_IMAGE], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`gitlab-ci-local's helper image ${HELPER_IMAGE} is missing: run bash scripts/setup-test-infra.sh`);
  }
  const rsync = spawnSync('docker', ['run', '--rm', '--entrypoint', 'rsync', RSYNC_HELPER_IMAGE, '--version'], {
    stdio: 'ignore',
    timeout: 60_000,
  });
  if (rsync.status !== 0) {
    throw new Error(
      `gitlab-ci-local's helper image with rsync, ${RSYNC_HELPER_IMAGE}, is missing: run bash scripts/setup-test-infra.sh`,
    );
  }
  // Without it the health check fails at once and the service's log is saved before the
  // service printed anything.
  if (spawnSync('docker', ['image', 'inspect', WAIT_IMAGE], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`gitlab-ci-local's health check image ${WAIT_IMAGE} is missing: run bash scripts/setup-test-infra.sh`);
  }
  if (!existsSync(GITLAB_CI_LOCAL))
    throw new Error(`gitlab-ci-local is not installed (${GITLAB_CI_LOCAL}): run bash scripts/setup-test-infra.sh`);
  if (spawnSync('rsync', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('gitlab-ci-local needs rsync: run bash scripts/setup-test-infra.sh');
  }
}

/** Makes `dir` a git repository on branch main with everything in it committed, and ORIGIN as origin. */
export function commitRepository(dir: string, message: string): void {
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message]);
  git(dir, ['remote', 'add', 'origin', ORIGIN]);
}

export function gitlabCiLocal(
  cwd: string,
  args: string[],
  timeout = 400_000,
): { status: number | null; stdout: string; log: string } {
  const helper = ['--helper-image', RSYNC_HELPER_IMAGE];
  const r = spawnSync(GITLAB_CI_LOCAL, ['--pull-policy', 'if-not-present', '--no-color', ...helper, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, log: `${r.stdout}\n${r.stderr}` };
}

/** Lines a job printed in gitlab-ci-local's log (`<job> > <line>`). */
export function jobOutput(log: string, job: string): string[] {
  const prefix = new RegExp(`^${job}\\s+> ?(.*)$`);
  return log.split('\n').flatMap((l) => {
    const m = l.match(prefix);
    return m ? [m[1]!] : [];
  });
}

/**
 * The service's log as gitlab-ci-local saved it: `docker logs` once its health check saw the
 * service's port open, so the component's line (printed before initdb) is in it.
 */
export function serviceLog(repo: string, job: string): string[] {
  const dir = join(repo, '.gitlab-ci-local', 'services-output', job);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(files).toHaveLength(1);
  return readFileSync(join(files[0]!.parentPath, files[0]!.name), 'utf8').split('\n');
}
