/**
 * The action's steps as GitHub's runner starts them, each `node dist/<step>.js` as its own
 * process (section 8): inputs as INPUT_*, saved state as STATE_*, fresh runner files, and what
 * the step wrote to them parsed back. The tests use the same (tests/helpers/runner-env.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { run } from '../src/proc.js';

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

/** What one step's process left. */
export interface StepProcess {
  /** Exit code (-1 when killed). */
  code: number;
  /** stdout and stderr: workflow commands and log lines. */
  log: string;
  outputs: Record<string, string>;
  state: Record<string, string>;
  env: Record<string, string>;
  /** Wall time of the process, ms. */
  ms: number;
}

/**
 * Runs `node <script>` as GitHub's runner runs a JavaScript action's step: inputs as INPUT_*,
 * saved state as STATE_*, fresh GITHUB_OUTPUT/STATE/ENV/STEP_SUMMARY files in `dir`, RUNNER_TEMP
 * = `dir`, and nothing of those from this process's own environment. Deadline: 300 000 ms.
 * @param extra more environment (e.g. what an earlier step exported)
 */
export async function runStepProcess(
  dir: string,
  script: string,
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  extra: Record<string, string> = {},
): Promise<StepProcess> {
  const id = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const files = Object.fromEntries(
    ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY'].map((k) => [k, join(dir, `${k.toLowerCase()}-${id}`)]),
  );
  for (const f of Object.values(files)) writeFileSync(f, '');
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_(STATE|OUTPUT|ENV|STEP_SUMMARY)$|RUNNER_TEMP$)/.test(k)),
  );
  const env = {
    ...base,
    ...extra,
    ...files,
    RUNNER_TEMP: dir,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])),
  };
  const t0 = performance.now();
  const r = await run(process.execPath, [script], { timeoutMs: 300_000, env });
  const ms = Math.round(performance.now() - t0);
  const read = (k: string) => parseFileCommand(readFileSync(files[k] as string, 'utf8'));
  return {
    code: r.code ?? -1,
    log: `${r.stdout}${r.stderr}`,
    outputs: read('GITHUB_OUTPUT'),
    state: read('GITHUB_STATE'),
    env: read('GITHUB_ENV'),
    ms,
  };
}
