/**
 * A step's environment as GitHub's runner gives it, for calling the action's run() and cleanup()
 * in-process: INPUT_* variables, and the GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV and
 * GITHUB_STEP_SUMMARY files, parsed back after the step. Workflow commands written to stdout
 * (::error::, ::warning::, ::group::) are captured too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFileCommand } from '../../testkit/step-process.js';

export { parseFileCommand, runStepProcess, type StepProcess } from '../../testkit/step-process.js';

/** What one step left behind. */
export interface StepResult<T> {
  value: T;
  /** Everything the step wrote to stdout (workflow commands and log lines). */
  stdout: string;
  /** process.exitCode after the step (1 when core.setFailed was called). */
  exitCode: number;
  outputs: Record<string, string>;
  state: Record<string, string>;
  env: Record<string, string>;
  /** The job summary (HTML/Markdown) the step appended. */
  summary: string;
}

/**
 * Files of one job: a folder with the runner's files; `summary` persists across steps like GitHub's.
 * The folder is made by the first step (a job made in a describe block that is skipped, or whose
 * setup failed, leaves nothing) and goes with remove().
 */
export class RunnerJob {
  #dir = '';

  /** The job's folder, made on first use. */
  get dir(): string {
    if (!this.#dir) {
      this.#dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-runner-'));
      writeFileSync(join(this.#dir, 'summary.md'), '');
    }
    return this.#dir;
  }

  /** The job summary's file (GITHUB_STEP_SUMMARY). */
  get summaryFile(): string {
    return join(this.dir, 'summary.md');
  }

  /**
   * Runs one step in-process with `inputs` (action input names, e.g. `postgres-version`) and
   * `state` (what an earlier main step saved, for a post step).
   */
  async step<T>(
    fn: () => Promise<T>,
    inputs: Record<string, string> = {},
    state: Record<string, string> = {},
  ): Promise<StepResult<T>> {
    const files = { GITHUB_OUTPUT: 'output', GITHUB_STATE: 'state', GITHUB_ENV: 'env' } as const;
    const saved = { ...process.env };
    const paths: Record<string, string> = {};
    for (const [variable, name] of Object.entries(files)) {
      paths[variable] = join(this.dir, `${name}-${Date.now()}-${Math.random().toString(16).slice(2)}`);
      writeFileSync(paths[variable] as string, '');
      process.env[variable] = paths[variable];
    }
    process.env.GITHUB_STEP_SUMMARY = this.summaryFile;
    for (const [name, value] of Object.entries(inputs)) process.env[`INPUT_${name.toUpperCase()}`] = value;
    for (const [name, value] of Object.entries(state)) process.env[`STATE_${name}`] = value;
    const summaryBefore = readFileSync(this.summaryFile, 'utf8');
    let stdout = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write;
    const exitBefore = process.exitCode;
    process.exitCode = 0;
    try {
      const value = await fn();
      const read = (v: string) => parseFileCommand(readFileSync(paths[v] as string, 'utf8'));
      return {
        value,
        stdout,
        exitCode: Number(process.exitCode ?? 0),
        outputs: read('GITHUB_OUTPUT'),
        state: read('GITHUB_STATE'),
        env: read('GITHUB_ENV'),
        summary: readFileSync(this.summaryFile, 'utf8').slice(summaryBefore.length),
      };
    } finally {
      process.stdout.write = write;
      process.exitCode = exitBefore;
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  }

  /** Removes the job's folder. */
  remove(): void {
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = '';
  }
}

/** A job's runner files in a folder of its own, for running the action's steps as processes. */
export interface JobFiles {
  /** The steps' environment: this process's (less runner variables), the files, RUNNER_TEMP, INPUT_*. */
  env: NodeJS.ProcessEnv;
  /** GITHUB_STATE's file (what the main step saved for the post step). */
  stateFile: string;
  /** RUNNER_TEMP (`<dir>/runner-temp`). */
  runnerTemp: string;
  /** GITHUB_STATE parsed. */
  state: () => Record<string, string>;
  /** GITHUB_ENV parsed (what the steps exported for later steps). */
  exported: () => Record<string, string>;
}

/**
 * Makes a job's runner files (GITHUB_STATE, GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STEP_SUMMARY) and
 * RUNNER_TEMP in `dir`, and its steps' environment with `inputs` as INPUT_* (spaces as `_`,
 * upper case, as the runner does).
 */
export function jobFiles(dir: string, inputs: Record<string, string>): JobFiles {
  const runnerTemp = join(dir, 'runner-temp');
  mkdirSync(runnerTemp, { recursive: true });
  const files = {
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
  };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$|PG_TMPFS_BACKGROUND$)/.test(k),
    ),
  );
  const env: NodeJS.ProcessEnv = { ...base, ...files, RUNNER_TEMP: runnerTemp };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  return {
    env,
    stateFile: files.GITHUB_STATE,
    runnerTemp,
    state: () => parseFileCommand(readFileSync(files.GITHUB_STATE, 'utf8')),
    exported: () => parseFileCommand(readFileSync(files.GITHUB_ENV, 'utf8')),
  };
}
