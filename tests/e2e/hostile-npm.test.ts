/**
 * Hostile input and faults of the third source of server programs, server builds from npm, run
 * as the other hostile tables are (tests/helpers/hostile-rows.ts): each row fails with exit code
 * 1, names the input at fault or the setup error's key phrase, and leaves nothing behind. The
 * builds come from a registry of the test's own on 127.0.0.1 (it answers from this process's
 * event loop, which the in-process CLI leaves free), told to refuse, stall or tamper per row.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { cleanupCase, runRow, type Case, type Row } from '../helpers/hostile-rows.js';
import { npmClient, requireNpmPackages, startNpmRegistry, type NpmClient, type NpmRegistry } from '../helpers/npm-packages.js';

let registry: NpmRegistry | undefined;
let client: NpmClient | undefined;

beforeAll(async () => {
  const packages = await requireNpmPackages();
  if (!packages) return;
  registry = await startNpmRegistry({ tarballs: packages.filter((p) => p.platform === 'linux-x64').map((p) => p.file) });
  client = npmClient(registry);
});
afterAll(async () => {
  client?.cleanup();
  await registry?.close();
});
afterEach(async () => {
  if (registry) registry.behaviour = 'serve';
  await cleanupCase();
});

/** The case folder readable by user postgres (as root it must reach a kept build), and the registry behaving as asked. */
function registryThat(behaviour: NpmRegistry['behaviour']) {
  return (c: Case): void => {
    chmodSync(c.dir, 0o755);
    if (registry) registry.behaviour = behaviour;
  };
}

/** A read-only tmpfs on `<dir>/ro` as cache-dir (even root cannot write it). */
function readOnlyCacheDir(c: Case): void {
  const dir = join(c.dir, 'ro');
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir], { timeout: 30_000 });
  c.undo.push(() => {
    execFileSync('umount', [dir], { timeout: 30_000 });
  });
}

/** Refused before anything starts: nothing is fetched. */
const VALIDATION: Row[] = [
  { title: 'binaries not a source', argv: ['--binaries', 'brew'], input: '--binaries' },
  { title: 'binaries npm with mode docker', argv: ['--binaries', 'npm', '--mode', 'docker'], input: '--binaries' },
  { title: 'binaries installed with an image', argv: ['--binaries', 'installed', '--image', 'postgres:17'], input: '--binaries' },
  {
    title: 'binaries npm with a registry',
    argv: ['--binaries', 'npm', '--registry', 'mirror.gcr.io/library'],
    input: '--binaries',
  },
  {
    title: 'a major the packages lack (12)',
    argv: ['--binaries', 'npm', '--postgres-version', '12'],
    input: '--postgres-version',
  },
  {
    title: 'a major the packages lack (19)',
    argv: ['--binaries', 'npm', '--postgres-version', '19'],
    input: '--postgres-version',
  },
  {
    title: 'a minor the table does not pin',
    argv: ['--binaries', 'npm', '--postgres-version', '17.99'],
    input: '--postgres-version',
  },
  {
    title: 'an image tag with binaries npm',
    argv: ['--binaries', 'npm', '--postgres-version', '17-alpine'],
    input: '--postgres-version',
  },
  {
    title: 'a platform no package covers (PG_TMPFS_BINARIES_PLATFORM)',
    argv: ['--binaries', 'npm', '--postgres-version', '17'],
    env: { PG_TMPFS_BINARIES_PLATFORM: 'plan9-x64' },
    input: 'PG_TMPFS_BINARIES_PLATFORM=plan9-x64 names no package platform',
  },
  {
    title: 'binaries installed, and the major is not installed',
    argv: ['--binaries', 'installed', '--postgres-version', '17'],
    input: 'No installed PostgreSQL 17 server binaries',
  },
];

/** Faults of the fetch and the keeping, each with the registry told how to behave. */
const FAULTS: Row[] = [
  {
    title: 'a tarball that is not the pinned build (the registry flips a byte, metadata to match)',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    setup: registryThat('tamper'),
    input: '--binaries',
  },
  {
    title: 'a registry that refuses (503)',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    setup: registryThat('refuse'),
    input: '--binaries',
  },
  {
    title: 'a registry that accepts and never answers: wait-timeout',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache', '--wait-timeout', '3'],
    setup: registryThat('stall'),
    input: '--binaries',
  },
  {
    title: 'a cache-dir no one can write',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/ro'],
    setup: readOnlyCacheDir,
    input: '--cache-dir',
  },
];

describe('hostile input and faults of server builds from npm', () => {
  it.for(VALIDATION)('$title', async (row, ctx) => {
    if (!client) return ctx.skip();
    await runRow({ ...row, env: { ...client.env, ...row.env } }, ['--mode', 'native']);
  });
  it.for(FAULTS)('$title', async (row, ctx) => {
    if (!client) return ctx.skip();
    await runRow({ ...row, env: { ...client.env, ...row.env } }, []);
  });
});
