/**
 * Test bodies the interrupt tests run once per mode, each mode in its own file (Docker-mode files
 * and native-mode files run in different lanes): two `up` with one name at once, and an init
 * command orphaned by a SIGKILL to `up`, to the background process of `up --no-wait`, or to the
 * action's main step.
 */
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { liveProcesses } from './infra.js';
import { dockerInputs, nativeInputs, newJob, postStep } from './interrupt-action.js';
import {
  CLI,
  MAIN,
  cli,
  cliEnv,
  dockerArgs,
  downQuietly,
  nativeWarm,
  newStateDir,
  readRecord,
  stateFiles,
  status,
} from './interrupt-cli.js';
import { runAndKill, scrub, snapshot, type Point } from './interrupt.js';

/** Two `up --name same` at once with these arguments: one wins, the other names --name; down leaves nothing. */
export async function oneNameCase({ args }: { args: () => string[] }): Promise<void> {
  const state = newStateDir();
  const leftovers = snapshot();
  try {
    const upArgs = ['up', ...args(), '--name', 'same', '--json'];
    const never: Point = { kind: 'ms', ms: 600_000 };
    const both = await Promise.all([
      runAndKill(CLI, upArgs, cliEnv(state), never, 'SIGKILL'),
      runAndKill(CLI, upArgs, cliEnv(state), never, 'SIGKILL'),
    ]);
    expect(both.map((e) => e.code).sort()).toEqual([0, 1]);
    const loser = both.find((e) => e.code === 1);
    expect(loser?.stderr).toMatch(
      /error: --name: (instance "same" is being started by process \d+|an instance named "same" is already running)/,
    );
    // And once it runs, a third is turned away too.
    const third = cli(upArgs, state);
    expect(third.status).toBe(1);
    expect(third.stderr).toContain('error: --name: an instance named "same" is already running');
    expect(status(state)).toMatchObject([{ name: 'same', state: 'running', alive: true }]);
    const down = cli(['down', '--name', 'same'], state);
    expect(down.status, down.stderr).toBe(0);
    expect(leftovers.added()).toEqual([]);
    expect(stateFiles(state)).toEqual([]);
  } finally {
    downQuietly(state);
  }
}

/** The init command: a child in its own session, a background child, and sh waiting for them. */
export const command = (n: number): string =>
  `setsid sleep ${30_900 + n} & sleep ${31_900 + n} & echo init-command-running; wait`;

/** Live processes (zombies excluded) that are the command or one of its sleeps. */
export const orphans = (n: number): string[] =>
  liveProcesses(
    (argv) =>
      (argv[0] === 'sleep' && [`${30_900 + n}`, `${31_900 + n}`].includes(argv[1] ?? '')) ||
      (argv[0] === 'sh' && argv[2] === command(n)),
  ).map((p) => `process ${p.pid} ${p.argv.join(' ')}`);

/** Waits (10 ms polls, up to 60 s) until `read()` holds `line`. */
async function waitForLine(read: () => string, line: RegExp): Promise<void> {
  for (let i = 0; i < 6000 && !line.test(read()); i++) await sleep(10);
  expect(read()).toMatch(line);
}

/** What an orphan CLI row does: the mode, which process gets the SIGKILL, and how it is cleaned up. */
export interface OrphanRow {
  mode: 'docker' | 'native';
  target: 'up' | 'the background process of up --no-wait';
  then: 'down' | 'up and down';
}

/** The CLI rows of one mode. */
export function orphanRows(mode: 'docker' | 'native'): OrphanRow[] {
  return (['up', 'the background process of up --no-wait'] as const).flatMap((target) =>
    (['down', 'up and down'] as const).map((then) => ({ mode, target, then })),
  );
}

/** One orphan CLI row; `n` numbers the command and the instance (unique on the machine). */
export async function orphanCliCase({ mode, target, then }: OrphanRow, n: number): Promise<void> {
  const name = `orphan${n}`;
  const state = newStateDir();
  const args = ['up', ...(mode === 'docker' ? dockerArgs : nativeWarm()), '--name', name, '--init-command', command(n)];
  const leftovers = snapshot();
  try {
    if (target === 'up') {
      const exit = await runAndKill(
        CLI,
        args,
        cliEnv(state),
        { kind: 'line', line: /init-command-running/, delay: 100 },
        'SIGKILL',
      );
      expect(exit.killedAt, exit.stderr).not.toBeNull();
      expect(exit.code).toBe(128 + constants.signals.SIGKILL);
    } else {
      const launched = cli([...args, '--no-wait'], state);
      expect(launched.status, launched.stderr).toBe(0);
      const record = readRecord(state, name);
      expect(record?.log).toBeTruthy();
      await waitForLine(
        () => (record?.log && existsSync(record.log) ? readFileSync(record.log, 'utf8') : ''),
        /init-command-running/,
      );
      await sleep(100);
      process.kill(record?.ownerPid ?? 0, 'SIGKILL');
    }
    // The command and both its sleeps run on, orphaned.
    expect(orphans(n)).toHaveLength(3);
    if (then === 'up and down') {
      // Its own init command ends (the orphaned one waits for its sleeps for hours).
      const again = cli([...args.slice(0, -1), 'echo again'], state);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain(`Instance "${name}" was left behind (its start was killed): removing it`);
      expect(orphans(n)).toEqual([]);
    }
    const down = cli(['down', '--name', name], state);
    expect(down.status, down.stderr).toBe(0);
    expect(orphans(n)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
    expect(stateFiles(state)).toEqual([]);
  } finally {
    downQuietly(state);
    for (const p of orphans(n)) process.kill(Number(p.split(' ')[1]), 'SIGKILL');
    await scrub(`pg-tmpfs-cli-${name}-`, leftovers.added());
  }
}

/** The action main step killed while its init command runs, then the post step; `n` as in orphanCliCase. */
export async function orphanActionCase(mode: 'docker' | 'native', n: number): Promise<void> {
  const containerName = `pg-tmpfs-itr-orphan${n}`;
  const { env, stateFile } = newJob({
    ...(mode === 'docker' ? dockerInputs : nativeInputs),
    'container-name': containerName,
    'init-command': command(n),
  });
  const leftovers = snapshot();
  try {
    const exit = await runAndKill(MAIN, [], env, { kind: 'line', line: /init-command-running/, delay: 100 }, 'SIGKILL');
    expect(exit.killedAt, exit.stdout).not.toBeNull();
    expect(orphans(n)).toHaveLength(3);
    const post = postStep(env, stateFile);
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(orphans(n)).toEqual([]);
    expect(leftovers.added()).toEqual([]);
  } finally {
    postStep(env, stateFile);
    for (const p of orphans(n)) process.kill(Number(p.split(' ')[1]), 'SIGKILL');
    await scrub(containerName, leftovers.added());
  }
}
