/**
 * What the GitLab component's e2e files (tests/e2e/gitlab-{services,runner}.test.ts) share: the
 * fixtures, the majors, the runner-side tests' names and labels, a job's printed facts, and the
 * setup: a throwaway git repository with the component, gitlab-ci-local's resources before, and
 * whether --privileged containers start here; afterAll removes what was left.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { DURABILITY_SETTINGS } from '../../src/profile.js';
import {
  commitRepository,
  docker,
  gitlabCiLocalResources,
  lines,
  removeGitlabCiLocalLeftovers,
  requireGitlabInfra,
} from './gitlab-ci-local.js';
import { officialPgdata, ROOT, TEST_IMAGES, TEST_MAJORS } from './infra.js';

/** The GitLab fixtures and the privileged shim. */
export const FIXTURES = join(ROOT, 'tests', 'fixtures', 'gitlab');
export const PRIVILEGED_SHIM = join(FIXTURES, 'docker-privileged-shim.sh');

/** The jobs of each sample pipeline, one per real major, with the image's own PGDATA. */
export const MAJORS = TEST_MAJORS.map((major) => ({
  major,
  job: `pg-tmpfs-${major}`,
  image: TEST_IMAGES[major],
  pgdata: officialPgdata(major),
}));

/** Names and labels of the containers and networks the runner-side tests create. */
export const RUN_ID = `pg-tmpfs-e2e-gitlab-${randomBytes(4).toString('hex')}`;
/** The runner-side tests' label. */
export const LABEL = `pg-tmpfs-e2e=${RUN_ID}`;

/** Containers and networks of the runner-side tests. */
export function ownResources(): string[] {
  const containers = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
  const networks = lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]));
  return [...containers.map((c) => `container ${c}`), ...networks.map((n) => `network ${n}`)];
}

/** A git repository holding the component and the sample pipelines, with the origin they name. */
function makeRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-gitlab-'));
  cpSync(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true });
  for (const file of ['.gitlab-ci.yml', 'runner.gitlab-ci.yml', 'init.gitlab-ci.yml', 'check.yml', 'sql'])
    cpSync(join(FIXTURES, file), join(dir, file), { recursive: true });
  commitRepository(dir, 'sample pipelines');
  return dir;
}

/** What a job printed: see tests/fixtures/gitlab/check.yml and the component's before_script. */
export interface JobFacts {
  connected?: string;
  settings: Record<string, string>;
  mounts: Record<string, { mountPoint: string; fs: string; options: string }>;
  waitLine?: string;
}

/** The facts a job printed (CONNECTED, SETTING, MOUNT lines, the wait line). */
export function jobFacts(output: string[]): JobFacts {
  const facts: JobFacts = { settings: {}, mounts: {} };
  for (const line of output) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^CONNECTED (.*)$/))) facts.connected = m[1];
    else if ((m = line.match(/^SETTING (\S+) (.*)$/))) facts.settings[m[1]!] = m[2]!;
    else if ((m = line.match(/^MOUNT (\S+) (\S+) (\S+) (\S+)$/)))
      facts.mounts[m[1]!] = { mountPoint: m[2]!, fs: m[3]!, options: m[4]! };
    else if (/^pg-tmpfs: PostgreSQL .* answers at /.test(line)) facts.waitLine = line;
  }
  return facts;
}

/** The durability settings of the component, and shared_buffers at its default. */
export function expectDurable(facts: JobFacts): void {
  for (const s of DURABILITY_SETTINGS) expect(facts.settings[s.name], s.name).toBe(s.value);
  // Not raised: PostgreSQL's default (see src/profile.ts).
  expect(facts.settings.shared_buffers).toBe('128MB');
}

/** The lines pg-tmpfs printed in a log. */
export function ourLogLines(log: string[]): string[] {
  return log.filter((l) => l.startsWith('pg-tmpfs:'));
}

/** The file's setup: the repository (set in beforeAll), gitlab-ci-local's resources then, whether --privileged works. */
export const gl = { repo: '', before: [] as string[], privilegedWorks: false };

/** Registers the file's beforeAll (requireGitlabInfra, the repository, the privileged probe) and afterAll (clean-up). */
export function useGitlabSetup(): void {
  beforeAll(() => {
    requireGitlabInfra();
    gl.repo = makeRepository();
    gl.before = gitlabCiLocalResources();
    // Some Docker hosts (a CI sandbox whose capability bounding set lacks CAP_SYS_RESOURCE) cannot
    // start --privileged containers at all; there the shim maps --privileged to every capability the
    // host has. On a normal host gitlab-ci-local's own --privileged is used.
    const probe = ['run', '--rm', '--name', `${RUN_ID}-probe`, '--label', LABEL, '--privileged', '--entrypoint', 'true'];
    gl.privilegedWorks = spawnSync('docker', [...probe, TEST_IMAGES.layout17], { stdio: 'ignore' }).status === 0;
  });

  afterAll(() => {
    removeGitlabCiLocalLeftovers(gl.before);
    const own = lines(docker(['ps', '-aq', '--filter', `label=${LABEL}`]));
    if (own.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...own], { stdio: 'ignore' });
    for (const n of lines(docker(['network', 'ls', '-q', '--filter', `label=${LABEL}`]))) {
      spawnSync('docker', ['network', 'rm', n], { stdio: 'ignore' });
    }
    if (gl.repo) rmSync(gl.repo, { recursive: true, force: true });
  });
}
