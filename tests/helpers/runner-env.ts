/**
 * A step's environment as GitHub's runner gives it, for calling the action's run() and cleanup()
 * in-process: INPUT_* variables, and the GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV and
 * GITHUB_STEP_SUMMARY files, parsed back after the step. Workflow commands written to stdout
 * (::error::, ::warning::, ::group::) are captured too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Parses a runner file command file (`name<<DELIMITER\nvalue\nDELIMITER`, or `name=value` lines). */
export function parseFileCommand(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = '', delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      out[name] = value.join('\n');
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return out;
}

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

/** Files of one job: a folder with the runner's files; `summary` persists across steps like GitHub's. */
export class RunnerJob {
  readonly dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-runner-'));
  readonly summaryFile = join(this.dir, 'summary.md');

  constructor() {
    writeFileSync(this.summaryFile, '');
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
    rmSync(this.dir, { recursive: true, force: true });
  }
}
