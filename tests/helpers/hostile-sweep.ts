/**
 * What the second-sweep files of the hostile tests (tests/e2e/hostile-*.test.ts, issue #26) share:
 * the modes, `up` that must fail or work from a case folder, and the blocks that run once per mode
 * (each mode in its own file: Docker-mode files and native-mode files run in different lanes).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftoverSnapshot, liveProcesses } from './infra.js';
import { cli, IMAGE, NAME, newCase, runRow, stateEntries, type Case, type Row } from './hostile-rows.js';

/** A mode and the `up` arguments that choose it. */
export interface ModeArgs {
  mode: 'native' | 'docker';
  args: string[];
}

/** Both modes. */
export const MODES: ModeArgs[] = [
  { mode: 'native', args: ['--mode', 'native'] },
  // The image is local: a row that wrongly passed validation would start it, never pull.
  { mode: 'docker', args: ['--mode', 'docker', '--image', IMAGE] },
];
/** One mode of MODES. */
export const only = (mode: ModeArgs['mode']): ModeArgs[] => MODES.filter((m) => m.mode === mode);

/** INSERT lines of the long files: 20 000 (the size). */
export const ROWS = 20_000;
/** `count` INSERT lines into t, numbered from `from`. */
export const inserts = (from: number, count: number): string =>
  Array.from({ length: count }, (_, i) => `INSERT INTO t VALUES (${from + i}, 'value number ${from + i}');`).join('\n');

/** A case folder holding `files` (name → content; `-> target` makes a symbolic link), and the up arguments' env. */
export function withFiles(files: Record<string, string>) {
  return (c: Case): void => {
    for (const [name, content] of Object.entries(files)) {
      const path = join(c.dir, name);
      mkdirSync(join(path, '..'), { recursive: true });
      if (content.startsWith('-> ')) symlinkSync(content.slice(3), path);
      else writeFileSync(path, content);
    }
  };
}
/**
 * `up` in native mode from the case folder must fail naming `input` (a flag) with an error line
 * matching `says`, and leave nothing behind.
 */
export async function upFails(
  argv: string[],
  setup: (c: Case) => void,
  input: string,
  says: RegExp,
  modeArgs = ['--mode', 'native'],
) {
  const c = newCase();
  setup(c);
  const snap = leftoverSnapshot();
  const r = await cli(['up', '--name', NAME, ...modeArgs, ...argv.map((a) => a.replace('{dir}', c.dir))], {
    PG_TMPFS_STATE_DIR: c.state,
  });
  expect(r.code, r.stderr).toBe(1);
  const line = r.stderr.split('\n').find((l) => l.startsWith('error: '));
  expect(line, r.stderr).toMatch(new RegExp(`^error: ${input}: `));
  expect(line).toMatch(says);
  expect(snap.added()).toEqual([]);
  expect(stateEntries(c.state)).toEqual({});
}

/** `up --json` in native mode must succeed; `check` runs a query on the database; then `down` leaves nothing. */
export async function upWorks(argv: string[], setup: (c: Case) => void, sql: string): Promise<string> {
  const c = newCase();
  setup(c);
  const snap = leftoverSnapshot();
  const env = { PG_TMPFS_STATE_DIR: c.state };
  const r = await cli(['up', '--name', NAME, '--mode', 'native', '--json', ...argv.map((a) => a.replace('{dir}', c.dir))], env);
  expect(r.code, r.stderr).toBe(0);
  const { connectionUri } = JSON.parse(r.stdout) as { connectionUri: string };
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: connectionUri });
  await client.connect();
  let value: string;
  try {
    value = String(Object.values((await client.query(sql)).rows[0] as object)[0]);
  } finally {
    await client.end();
  }
  const down = await cli(['down', '--name', NAME], env);
  expect(down.code, down.stderr).toBe(0);
  expect(snap.added()).toEqual([]);
  return value;
}

/** An init file that overfills tmpfs-size, once per mode in `modes` (under "second sweep (#26): init files"). */
export function overfillRows(modes: ModeArgs[]): void {
  it.each(modes)(
    'an init file that overfills tmpfs-size names tmpfs-size ($mode)',
    async ({ args }) => {
      await upFails(
        ['--init', '{dir}/big.sql', '--tmpfs-size', '64m'],
        withFiles({
          'big.sql': "CREATE TABLE big (v text);\nINSERT INTO big SELECT repeat('x', 1000) FROM generate_series(1, 100000);\n",
        }),
        '--tmpfs-size',
        /big\.sql:2:1: .*No space left on device.*Raise tmpfs-size above 64m/,
        args,
      );
    },
    90_000,
  );
}

/** PIDs of live processes whose command line is `argv` exactly (zombies excluded). */
const processesRunning = (...argv: string[]): number[] =>
  liveProcesses((cmd) => cmd.length === argv.length && cmd.every((a, k) => a === argv[k])).map((p) => p.pid);

/**
 * The blocks of "second sweep (#26): init-command, the check after init, database", once per mode
 * in `modes`.
 */
export function initCommandBlocks(modes: ModeArgs[]): void {
  /**
   * `up` with an init command that leaves processes behind: it passes once the command exits (it
   * waited out init-timeout before, then failed on it), says so in a warning naming init-command,
   * and nothing the command started runs any more. `down` then leaves nothing.
   */
  describe.each(modes)('an init command that leaves processes running, $mode mode', ({ args }) => {
    it.each([
      { title: 'a background job (sleep &)', command: 'sleep 3071 & echo forked', argv: ['sleep', '3071'] },
      { title: 'a daemon in its own session (setsid)', command: 'setsid sleep 3072 & echo forked', argv: ['sleep', '3072'] },
      // #35: without the run's mark in its environment; found by the marker descriptor (fd 3).
      {
        title: 'env -u PG_TMPFS_RUN, then setsid',
        command: 'env -u PG_TMPFS_RUN setsid sleep 3074 & echo forked',
        argv: ['sleep', '3074'],
      },
      {
        title: 'a background job that ignores SIGTERM',
        command: "(trap '' TERM; exec sleep 3073) & echo forked",
        argv: ['sleep', '3073'],
      },
    ])(
      '$title',
      async ({ command, argv }) => {
        const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-'));
        const env = { PG_TMPFS_STATE_DIR: join(dir, 'state') };
        const snap = leftoverSnapshot();
        try {
          const r = await cli(['up', '--name', NAME, ...args, '--init-command', command, '--init-timeout', '30'], env);
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).toMatch(/^forked$/m);
          expect(r.stderr).toMatch(/^warning: init-command: 1 process it started still ran when it exited .*they were ended/m);
          expect(processesRunning(...argv)).toEqual([]);
          const down = await cli(['down', '--name', NAME], env);
          expect(down.code, down.stderr).toBe(0);
          expect(snap.added()).toEqual([]);
        } finally {
          await cli(['down', '--name', NAME], env);
          for (const pid of processesRunning(...argv)) process.kill(pid, 'SIGKILL');
          rmSync(dir, { recursive: true, force: true });
        }
      },
      90_000,
    );
  });

  /** Writes `<dir>/<name>` with `text`. */
  const file =
    (name: string, text: string) =>
    (c: Case): void =>
      writeFileSync(join(c.dir, name), text);
  /** A script that has the postmaster stop (fast shutdown) from SQL: its backend signals its parent. */
  const STOP_SERVER = `psql -c "COPY (SELECT 1) TO PROGRAM 'kill -INT \\$(cut -d\\" \\" -f4 /proc/\\$PPID/stat)'" || true\n`;

  // `up` passed (exit 0) and handed out a connection that no longer worked.
  describe.each(modes)('init that breaks the connection the outputs give, $mode mode', ({ args }) => {
    it.each<Row>([
      {
        title: "an init file changes the superuser's password",
        argv: ['--password', 'first-secret', '--init', '{dir}/pw.sql'],
        setup: file('pw.sql', "ALTER USER postgres PASSWORD 'changed';\n"),
        input: 'error: --init: after the init files ran, user "postgres" can no longer log in with the password the outputs give',
      },
      {
        title: 'the init command drops the database',
        argv: ['--database', 'app', '--init-command', `psql -d postgres -c 'DROP DATABASE app WITH (FORCE)'`],
        input: 'error: --init-command: after the init command ran, database "app" (the database input) no longer exists',
      },
      {
        title: 'the init command stops the server',
        argv: ['--init-command', 'sh {dir}/stop.sh'],
        setup: file('stop.sh', STOP_SERVER),
        input: 'error: --init-command: after the init command ran, the server no longer answers',
      },
    ])('$title', (row) => runRow(row, args), 60_000);
  });

  describe.each(modes)('database input, $mode mode', ({ args }) => {
    // Docker waited out wait-timeout on "not currently accepting connections"; native said
    // "already exists", naming no input.
    it.each<Row>([
      { title: 'database template0', argv: ['--database', 'template0'], input: '--database' },
      { title: 'database template1', argv: ['--database', 'template1'], input: '--database' },
    ])('$title', (row) => runRow(row, args), 60_000);
  });
}

/** The dist CLI `upWithoutFreePorts` runs (build first). */
const CLI_JS = join(process.cwd(), 'dist', 'cli.js');

/**
 * The rows of "second sweep (#26): registry, component and start-time server errors", once per
 * mode in `modes`.
 */
export function startErrorBlocks(modes: ModeArgs[]): void {
  describe.each(modes)('$mode mode', ({ args }) => {
    it.each<Row>([
      {
        title: 'a shared_preload_libraries library that is not installed: the log line, naming settings',
        argv: ['--setting', 'shared_preload_libraries=nosuchlib'],
        input: '--settings: the library "nosuchlib" of shared_preload_libraries could not be loaded',
      },
    ])('$title', (row) => runRow(row, args), 60_000);
  });

  /**
   * `node dist/cli.js up ARGS` in a network namespace of its own (unshare -n) whose ephemeral port
   * range is two ports, both held by listeners: no port is free to bind or to connect from. The
   * Docker daemon is reached through its socket and publishes in its own namespace, so a container
   * starts, and its published port cannot be reached from here (EADDRNOTAVAIL).
   */
  function upWithoutFreePorts(argv: string[], state: string) {
    const holder = `
      const net = require('node:net');
      const { spawnSync } = require('node:child_process');
      const hold = (port) => new Promise((resolve, reject) => net.createServer().on('error', reject).listen(port, '0.0.0.0', resolve));
      Promise.all([40000, 40001].map(hold)).then(() => {
        const r = spawnSync(process.execPath, process.argv.slice(1), { stdio: 'inherit' });
        process.exit(r.status ?? 1);
      });`;
    const r = spawnSync(
      'unshare',
      [
        '-n',
        'sh',
        '-c',
        'ip link set lo up && echo "40000 40001" > /proc/sys/net/ipv4/ip_local_port_range && exec "$0" "$@"',
        process.execPath,
        '-e',
        holder,
        CLI_JS,
        'up',
        '--name',
        NAME,
        ...argv,
      ],
      { env: { ...process.env, PG_TMPFS_STATE_DIR: state }, encoding: 'utf8', timeout: 120_000 },
    );
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it.each(
    [
      {
        title: 'native mode, port 0',
        mode: 'native',
        argv: ['--mode', 'native', '--port', '0'],
        error: /^error: --port: no free TCP port on 127\.0\.0\.1: /,
      },
      {
        title: 'native mode, a port that is in use',
        mode: 'native',
        argv: ['--mode', 'native', '--port', '40000'],
        error: /^error: --port: port 40000 on 127\.0\.0\.1 is in use\. Choose another port/,
      },
      {
        title: 'docker mode: the published port cannot be reached (EADDRNOTAVAIL), said at once',
        mode: 'docker',
        argv: ['--mode', 'docker', '--image', IMAGE, '--port', '0', '--wait-timeout', '30'],
        error: /^error: --port: no local TCP port is free to connect to the server from \(connect EADDRNOTAVAIL /,
      },
    ].filter((row) => modes.some((m) => m.mode === row.mode)),
  )(
    'no free port ($title): the error names port and the fix, nothing left',
    ({ argv, error }) => {
      const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-'));
      const state = join(dir, 'state');
      const snap = leftoverSnapshot();
      try {
        const r = upWithoutFreePorts(argv, state);
        expect(r.status, r.stderr).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([expect.stringMatching(error)]);
        expect(snap.added()).toEqual([]);
        expect(stateEntries(state)).toEqual({});
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
}
