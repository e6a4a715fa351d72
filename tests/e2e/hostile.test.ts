/**
 * Hostile input and faults through the CLI, in-process (runCli): every row must fail with exit
 * code 1, name the input at fault (`error: --INPUT: problem. fix`) or, for the environment and
 * the machine, the key phrase of the setup error, and leave nothing behind: no container, run
 * folder, mount, postgres process, shared memory segment or postgres port (leftoverSnapshot), and
 * no instance record in the case's own state folder (PG_TMPFS_STATE_DIR, a fresh temp folder per
 * case).
 *
 * Each row was run by hand first (`node dist/cli.js up ...`); the table holds what the CLI really
 * says. Docker rows use the local test image only (nothing is ever pulled).
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { killActive } from '../../src/proc.js';
import { leftoverSnapshot, requireImages, TEST_IMAGES } from '../helpers/infra.js';

/** Instance name of every case (not `default`: `down` sweeps run folders by name, and a developer's `default` must survive). */
const NAME = 'hostile';
const IMAGE = TEST_IMAGES[18];
/** uid of `nobody` (Debian). */
const NOBODY = 65534;

/** One case while it runs. */
interface Case {
  /** Fresh temp folder of the case. */
  dir: string;
  /** PG_TMPFS_STATE_DIR of the case: `<dir>/state` unless the setup points it elsewhere. */
  state: string;
  /** Values of `{key}` placeholders in argv and env (`{dir}` is the case folder). */
  vars: Record<string, string>;
  /** Undone after the case (servers closed). */
  undo: Array<() => Promise<void> | void>;
}

/** A row of a table: a bad input or a fault, and what the error must name. */
interface Row {
  title: string;
  /** Arguments of `up` after `--name hostile` and the mode's arguments (a later flag wins). */
  argv: string[];
  /** Environment of the run (only while `up` runs: the leftover checks see the real one). */
  env?: Record<string, string>;
  setup?: (c: Case) => void | Promise<void>;
  /** `--flag`: the error line is `error: --flag: ...`; anything else: a phrase the error line holds. */
  input: string;
  /** The row planted a record that `up` refused: `down` must remove it afterwards. */
  downRemovesRecord?: boolean;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], env: Record<string, string>): Promise<Result> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(['node', 'pg-tmpfs', ...argv], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  } finally {
    // As dist/cli.js does on exit: docker calls a failed start left running (a daemon that hangs) go.
    killActive();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * Every entry of the state folder with its content (records, half-written `.tmp-` files): `{}`
 * when the folder does not exist (yet), one `(no folder)` entry when the path is no folder.
 */
function stateEntries(state: string): Record<string, string> {
  let names: string[];
  try {
    names = readdirSync(state);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { '(no folder)': code ?? String(error) };
  }
  return Object.fromEntries(
    names.map((n) => {
      const p = join(state, n);
      return [n, statSync(p).isDirectory() ? '(folder)' : readFileSync(p, 'utf8')];
    }),
  );
}

/** A TCP listener on 127.0.0.1 (not postgres): its port is `{busyPort}`. */
async function busyPort(c: Case): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  c.vars.busyPort = String((server.address() as { port: number }).port);
  c.undo.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** A "Docker daemon" on `<dir>/docker.sock` that accepts connections and never answers. */
async function silentDaemon(c: Case): Promise<void> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(join(c.dir, 'docker.sock'), resolve));
  c.undo.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
}

/** A private state folder holding `hostile.json` with `content` (a folder when content is null). */
function plantRecord(content: string | null, owner?: number) {
  return (c: Case): void => {
    mkdirSync(c.state, { mode: 0o700 });
    const file = join(c.state, `${NAME}.json`);
    if (content === null) mkdirSync(file);
    else writeFileSync(file, content, { mode: 0o600 });
    if (owner !== undefined) chownSync(file, owner, owner);
  };
}

let current: Case | null = null;

async function runRow(row: Row, modeArgs: string[]): Promise<void> {
  const c: Case = { dir: mkdtempSync(join(tmpdir(), 'pg-tmpfs-hostile-')), state: '', vars: {}, undo: [] };
  c.state = join(c.dir, 'state');
  current = c;
  await row.setup?.(c);
  const fill = (s: string) => s.replace(/\{(\w+)\}/g, (m, k: string) => (k === 'dir' ? c.dir : (c.vars[k] ?? m)));
  const env = { PG_TMPFS_STATE_DIR: c.state, ...Object.fromEntries(Object.entries(row.env ?? {}).map(([k, v]) => [k, fill(v)])) };
  const before = stateEntries(c.state);
  const snap = leftoverSnapshot();

  const r = await cli(['up', '--name', NAME, ...modeArgs, ...row.argv.map(fill)], env);

  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  if (row.input.startsWith('--')) {
    expect(r.stderr).toMatch(new RegExp(`^error: ${row.input}: `, 'm'));
  } else {
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error: ') && l.includes(row.input))).toHaveLength(1);
  }
  expect(snap.added()).toEqual([]);
  expect(stateEntries(c.state)).toEqual(before);

  if (row.downRemovesRecord) {
    const down = await cli(['down', '--name', NAME], { PG_TMPFS_STATE_DIR: c.state });
    expect(down.code, down.stderr).toBe(0);
    expect(stateEntries(c.state)).toEqual({});
  }
}

afterEach(async () => {
  const c = current;
  current = null;
  if (!c) return;
  const records = Object.keys(stateEntries(c.state)).filter((n) => n.endsWith('.json'));
  for (const record of records) await cli(['down', '--name', record.slice(0, -'.json'.length)], { PG_TMPFS_STATE_DIR: c.state });
  for (const undo of c.undo.reverse()) await undo();
  rmSync(c.dir, { recursive: true, force: true });
});

/** An image without PGDATA (nor anything else): `docker import` of an empty archive. */
const NO_PGDATA = 'pg-tmpfs-test/no-pgdata:1';

beforeAll(() => {
  requireImages();
  execFileSync('docker', ['import', '-', NO_PGDATA], { input: execFileSync('tar', ['-c', '--files-from', '/dev/null']) });
});

afterAll(() => {
  execFileSync('docker', ['image', 'rm', NO_PGDATA]);
});

/** A read-only tmpfs on `<dir>/ro` (even root cannot make a folder there). */
function readOnlyMount(c: Case): void {
  const dir = join(c.dir, 'ro');
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
  c.undo.push(() => {
    execFileSync('umount', [dir]);
  });
}

const LONG = 'u'.repeat(64);
/** 64 bytes in 63 characters. */
const LONG_BYTES = `é${'x'.repeat(62)}`;

/** Rejected by validation before anything starts, whatever the mode. */
const VALIDATION: Row[] = [
  { title: 'postgres-version not a version', argv: ['--postgres-version', 'abc'], input: '--postgres-version' },
  { title: 'postgres-version with three parts', argv: ['--postgres-version', '1.2.3'], input: '--postgres-version' },
  { title: 'image with a space', argv: ['--image', 'bad image'], input: '--image' },
  { title: 'image starting with a dash', argv: ['--image=-bad'], input: '--image' },
  { title: 'registry with spaces and capitals', argv: ['--registry', 'Not A Registry'], input: '--registry' },
  { title: 'registry that is a Docker Hub namespace', argv: ['--registry', 'library'], input: '--registry' },
  { title: 'port -1', argv: ['--port=-1'], input: '--port' },
  { title: 'port 70000', argv: ['--port', '70000'], input: '--port' },
  { title: 'port abc', argv: ['--port', 'abc'], input: '--port' },
  { title: 'port 1.5', argv: ['--port', '1.5'], input: '--port' },
  { title: 'publish-host a host name', argv: ['--publish-host', 'localhost'], input: '--publish-host' },
  { title: 'publish-host a word', argv: ['--publish-host', 'abc'], input: '--publish-host' },
  { title: 'publish-host no IPv4 address', argv: ['--publish-host', '999.1.1.1'], input: '--publish-host' },
  { title: 'password-file missing', argv: ['--password-file', '/nonexistent/pw'], input: '--password-file' },
  { title: 'setting value with a NUL', argv: ['--setting', 'work_mem=1\0'], input: '--settings' },
  { title: 'user longer than 63 bytes', argv: ['--user', LONG], input: '--user' },
  { title: 'user of 63 characters but 64 bytes', argv: ['--user', LONG_BYTES], input: '--user' },
  { title: 'user with a double quote', argv: ['--user', 'a"b'], input: '--user' },
  { title: 'user with a NUL', argv: ['--user', 'a\0b'], input: '--user' },
  { title: 'database longer than 63 bytes', argv: ['--database', LONG], input: '--database' },
  { title: 'database with a NUL', argv: ['--database', 'a\0b'], input: '--database' },
  { title: 'password with a NUL', argv: ['--password', 'a\0b'], input: '--password' },
  { title: 'tmpfs-size with an unknown unit', argv: ['--tmpfs-size', '1x'], input: '--tmpfs-size' },
  { title: 'tmpfs-size 0', argv: ['--tmpfs-size', '0'], input: '--tmpfs-size' },
  { title: 'shm-size negative', argv: ['--shm-size=-5m'], input: '--shm-size' },
  { title: 'shm-size a word', argv: ['--shm-size', 'lots'], input: '--shm-size' },
  { title: "settings line without '='", argv: ['--settings', 'work_mem'], input: '--settings' },
  { title: 'settings line without a name', argv: ['--settings', '=1'], input: '--settings' },
  { title: 'settings name starting with a digit', argv: ['--settings', '1bad=3'], input: '--settings' },
  { title: 'settings name with two dots', argv: ['--settings', 'a.b.c=1'], input: '--settings' },
  { title: 'settings empty value', argv: ['--settings', 'work_mem='], input: '--settings' },
  { title: 'settings bad third line', argv: ['--settings', 'a=1\n\nbad'], input: '--settings' },
  { title: "setting (repeatable flag) without '='", argv: ['--setting', 'work_mem'], input: '--settings' },
  { title: 'wait-timeout 0', argv: ['--wait-timeout', '0'], input: '--wait-timeout' },
  { title: 'wait-timeout 3601', argv: ['--wait-timeout', '3601'], input: '--wait-timeout' },
  { title: 'wait-timeout x', argv: ['--wait-timeout', 'x'], input: '--wait-timeout' },
  { title: 'wait-timeout -5', argv: ['--wait-timeout=-5'], input: '--wait-timeout' },
  // The CLI sets the container name from --name; the flag itself is unknown (commander's usage error).
  { title: 'container-name (no such flag)', argv: ['--container-name', 'x'], input: "unknown option '--container-name'" },
  { title: 'locale with a space', argv: ['--locale', 'en US'], input: '--locale' },
  { title: 'locale with a semicolon', argv: ['--locale', 'C;rm'], input: '--locale' },
  { title: 'locale with a slash', argv: ['--locale', 'xx/../C'], input: '--locale' },
  { title: 'name with a slash', argv: ['--name', 'bad/name'], input: '--name' },
  { title: 'name empty', argv: ['--name', ''], input: '--name' },
  { title: 'name longer than 63 characters', argv: ['--name', LONG], input: '--name' },
  { title: 'name starting with a dot', argv: ['--name', '.hidden'], input: '--name' },
  { title: 'name starting with a dash', argv: ['--name', '-x'], input: '--name' },
];

const MODES = [
  { mode: 'native', args: ['--mode', 'native'] },
  // The image is local: a row that wrongly passed validation would start it, never pull.
  { mode: 'docker', args: ['--mode', 'docker', '--image', IMAGE] },
];

describe('hostile CLI input and faults fail with the input named and leave nothing', () => {
  describe.each(MODES)('validation, $mode mode', ({ args }) => {
    it.each(VALIDATION)('$title', (row) => runRow(row, args));
  });

  it.each<Row>([
    { title: 'mode not a mode', argv: ['--mode', 'bogus'], input: '--mode' },
    { title: 'mode in capitals', argv: ['--mode', 'Docker', '--image', IMAGE], input: '--mode' },
  ])('validation: $title', (row) => runRow(row, []));

  describe('native mode on this machine', () => {
    it.each<Row>([
      { title: 'cache-dir that is a file', argv: ['--cache-dir', '/etc/passwd'], input: '--cache-dir' },
      { title: 'cache-dir below a file', argv: ['--cache-dir', '/etc/passwd/x'], input: '--cache-dir' },
      // Node's recursive mkdir used to loop forever here.
      { title: 'cache-dir under /proc', argv: ['--cache-dir', '/proc/nope/x'], input: '--cache-dir' },
      {
        title: 'port in use',
        argv: ['--port', '{busyPort}'],
        setup: busyPort,
        input: '--port',
      },
      {
        title: 'locale initdb refuses (fresh cache-dir)',
        argv: ['--cache-dir', '{dir}/cache', '--locale', 'xx_YY.UTF-8'],
        input: '--locale',
      },
      {
        title: 'setting the server does not know',
        argv: ['--setting', 'no_such_setting=1'],
        input: '--settings',
      },
      { title: 'setting value the server refuses', argv: ['--setting', 'work_mem=lots'], input: '--settings' },
      { title: 'tmpfs-size too small for the cluster', argv: ['--tmpfs-size', '20m'], input: '--tmpfs-size' },
      { title: 'publish-host not an address of this machine', argv: ['--publish-host', '10.99.99.99'], input: '--publish-host' },
      {
        title: 'postgres-version not installed',
        argv: ['--postgres-version', '16'],
        input: 'PostgreSQL 16 server binaries not found (looked for initdb and postgres in',
      },
      {
        title: 'an instance of that name already running',
        argv: [],
        setup: async (c) => {
          const r = await cli(['up', '--mode', 'native', '--name', NAME, '--quiet'], { PG_TMPFS_STATE_DIR: c.state });
          expect(r.code, r.stderr).toBe(0);
        },
        input: '--name',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']), 30_000);

    // As root every folder is writable, except on a read-only filesystem.
    it.each<Row>([
      {
        title: 'cache-dir on a read-only filesystem',
        argv: ['--cache-dir', '{dir}/ro/cache'],
        setup: readOnlyMount,
        input: '--cache-dir',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']));
  });

  describe('docker mode on the local engine', () => {
    it.each<Row>([
      { title: 'port in use', argv: ['--port', '{busyPort}'], setup: busyPort, input: '--port' },
      { title: 'password with a line break', argv: ['--password', 'first\nsecond'], input: '--password' },
      {
        title: 'setting the server does not know',
        argv: ['--setting', 'no_such_setting=1'],
        input: '--settings',
      },
      { title: 'setting value the server refuses', argv: ['--setting', 'work_mem=lots'], input: '--settings' },
      { title: 'tmpfs-size too small for initdb', argv: ['--tmpfs-size', '1m'], input: '--tmpfs-size' },
      { title: 'shm-size too small for the server', argv: ['--shm-size', '1b'], input: '--shm-size' },
      { title: 'publish-host not an address of this machine', argv: ['--publish-host', '10.99.99.99'], input: '--publish-host' },
      { title: 'image without PGDATA', argv: ['--image', NO_PGDATA], input: '--image' },
      {
        title: 'a daemon that accepts and never answers',
        argv: [],
        env: { DOCKER_HOST: 'unix://{dir}/docker.sock' },
        setup: silentDaemon,
        input: 'did not finish within',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'docker', '--image', IMAGE]), 60_000);
  });

  describe('state folder and records', () => {
    it.each<Row>([
      {
        title: 'state folder writable by others',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'open');
          mkdirSync(c.state);
          chmodSync(c.state, 0o777);
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder owned by another user',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'theirs');
          mkdirSync(c.state, { mode: 0o700 });
          chownSync(c.state, NOBODY, NOBODY);
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder that is a file',
        argv: [],
        setup: (c) => {
          c.state = join(c.dir, 'file');
          writeFileSync(c.state, '');
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      {
        title: 'state folder below a file',
        argv: [],
        setup: (c) => {
          writeFileSync(join(c.dir, 'file'), '');
          c.state = join(c.dir, 'file', 'state');
        },
        input: 'PG_TMPFS_STATE_DIR',
      },
      { title: 'record that is not JSON', argv: [], setup: plantRecord('{bad'), input: '--name', downRemovesRecord: true },
      {
        title: 'record that is JSON but no instance record',
        argv: [],
        setup: plantRecord('{"name":"x"}'),
        input: '--name',
        downRemovesRecord: true,
      },
      {
        title: 'record owned by another user',
        argv: [],
        setup: plantRecord('{}', NOBODY),
        input: '--name',
        downRemovesRecord: true,
      },
      { title: 'record that is a folder', argv: [], setup: plantRecord(null), input: '--name', downRemovesRecord: true },
      {
        title: 'record of a start still under way (its process, pid 1, runs)',
        argv: [],
        setup: plantRecord(
          JSON.stringify({
            name: NAME,
            state: 'starting',
            ownerPid: 1,
            startedAt: new Date().toISOString(),
            handle: null,
            server: null,
          }),
        ),
        input: '--name',
      },
    ])('$title', (row) => runRow(row, ['--mode', 'native']), 30_000);
  });
});

describe('second sweep (#26): registry, component and start-time server errors', () => {
  const CLI_JS = join(process.cwd(), 'dist', 'cli.js');

  describe.each(MODES)('$mode mode', ({ args }) => {
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

  it.each([
    {
      title: 'native mode, port 0',
      argv: ['--mode', 'native', '--port', '0'],
      error: /^error: --port: no free TCP port on 127\.0\.0\.1: /,
    },
    {
      title: 'native mode, a port that is in use',
      argv: ['--mode', 'native', '--port', '40000'],
      error: /^error: --port: port 40000 on 127\.0\.0\.1 is in use\. Choose another port/,
    },
    {
      title: 'docker mode: the published port cannot be reached (EADDRNOTAVAIL), said at once',
      argv: ['--mode', 'docker', '--image', IMAGE, '--port', '0', '--wait-timeout', '30'],
      error: /^error: --port: no local TCP port is free to connect to the server from \(connect EADDRNOTAVAIL /,
    },
  ])(
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
});
