/**
 * Section 1's rows for server builds from npm in the benchmark's report (bench/report/startup.ts,
 * startup-npm.ts): their own table after the main one, each target as "met" or "not met" from
 * the medians, the installed binaries a kept build is held against (the image's container, else
 * this machine's `cli-native-warm`), a first start against the kept build too, with its keep
 * after the start, and where the native starts' time went.
 */
import { describe, expect, it } from 'vitest';
import { NPM_COLD_TARGET, NPM_WARM_TARGET } from '../report/startup-npm.js';
import { renderStartup } from '../report/startup.js';
import { summarize, type CaseResult } from '../lib/results.js';

/** A section-1 case with `samples` (seconds) and optional per-sample details. */
function c(key: string, samples: number[], details: Array<Record<string, unknown>> = []): CaseResult {
  return {
    section: 'startup',
    id: `startup/${key}`,
    row: `row ${key}`,
    variant: 'seconds',
    metric: 'seconds',
    samples,
    details: details.length ? details : samples.map(() => ({})),
    errors: [],
    summary: summarize(samples),
  };
}

/** The table line of a case's row. */
const line = (out: string, key: string) => out.split('\n').find((l) => l.startsWith(`| row ${key} |`)) ?? '';

describe('section 1: the npm rows', () => {
  it('holds a kept build against installed binaries of its container, and a cold start against Docker’s pull and start', () => {
    const out = renderStartup([
      c('cli-native-warm', [0.3]),
      c('installed-17', [0.2, 0.2, 0.22]),
      c('npm-warm-17', [0.21, 0.2, 0.25]), // 1.05× the median 0.2: met at the target itself
      c('npm-cold-17', [3.6]),
      c('cli-docker-pulled-17', [10], [{ pullMs: 8000 }]),
      c('installed-18', [0.2]),
      c('npm-warm-18', [0.22]), // 1.10×
      c('npm-cold-18', [4]),
      c('cli-docker-pulled-18', [10]), // 0.40×
    ]);
    expect(NPM_WARM_TARGET).toBe(1.05);
    expect(NPM_COLD_TARGET).toBe(0.35);
    expect(line(out, 'npm-warm-17')).toContain('1.05× installed binaries (target ≤ 1.05×: met)');
    expect(line(out, 'npm-cold-17')).toContain('0.36× Docker mode’s pull and start (target ≤ 0.35×: not met)');
    expect(line(out, 'npm-warm-18')).toContain('1.10× installed binaries (target ≤ 1.05×: not met)');
    expect(line(out, 'npm-cold-18')).toContain('0.40× Docker mode’s pull and start (target ≤ 0.35×: not met)');
    expect(line(out, 'cli-docker-pulled-17')).toContain('of which pull 8.00 s');
    // The npm rows come in their own table, after the main one.
    const [main, npm] = out.split('Server builds from npm, per major (issue #34):');
    expect(main).toContain('| row cli-native-warm |');
    expect(main).not.toContain('| row npm-warm-17 |');
    expect(npm).toContain('| row npm-warm-17 |');
  });

  it('holds a first start (through RAM, issue #42) against Docker’s pull and start and against the kept build, with its keep after it', () => {
    const out = renderStartup([
      c('npm-warm-16', [0.3, 0.3, 0.31]),
      c('npm-cold-16', [2.4, 2.5, 2.6], [{ keepMs: 1500 }, { keepMs: 1700 }, { keepMs: 1600 }]),
      c('cli-docker-pulled-16', [8]),
    ]);
    expect(line(out, 'npm-cold-16')).toContain(
      '0.31× Docker mode’s pull and start (target ≤ 0.35×: met); 8.33× the kept build’s start; kept on disk after the start in 1.60 s',
    );
  });

  it('holds the kept build of this machine’s major against cli-native-warm when no container ran it', () => {
    const out = renderStartup([
      c('cli-native-warm', [0.4]),
      c('npm-warm-15', [0.41]),
      c('npm-cold-15', [3]),
      c('cli-docker-pulled-15', [10]),
    ]);
    expect(line(out, 'npm-warm-15')).toContain('1.02× installed binaries (`cli-native-warm` above) (target ≤ 1.05×: met)');
    expect(line(out, 'npm-cold-15')).toContain('0.30× Docker mode’s pull and start (target ≤ 0.35×: met)');
  });

  it('gives no ratio when the case it is held against has no median', () => {
    const failed = { ...c('cli-docker-pulled-17', []), errors: ['pull failed'] };
    const out = renderStartup([c('npm-cold-17', [3]), failed, c('npm-warm-17', [0.3])]);
    expect(line(out, 'npm-cold-17')).not.toContain('target');
    expect(line(out, 'npm-warm-17')).not.toContain('target');
    expect(line(out, 'cli-docker-pulled-17')).toContain('⚠ 1 failed');
  });

  it('shows where the native npm rows’ time went, one column per major and kind, Docker rows left out', () => {
    const phases = (binaries: number) => [
      { phasesMs: { 'node start and module load': 90, 'binaries, run-as user, cache folder': binaries } },
    ];
    const out = renderStartup([
      c('cli-native-warm', [0.3], phases(3)),
      c('installed-17', [0.2], phases(3)),
      c('npm-warm-17', [0.2], phases(20)),
      c('npm-cold-17', [3], phases(2500)),
      c('cli-docker-pulled-17', [10], [{ phasesMs: { pull: 8000 } }]),
    ]);
    const npm = out.split('Server builds from npm, per major (issue #34):')[1] ?? '';
    expect(npm).toContain('| Phase | 17 installed | 17 npm kept | 17 npm cold |');
    expect(npm).toContain('| binaries, run-as user, cache folder | 3.0 | 20.0 | 2500.0 |');
    expect(npm).not.toContain('| pull |');
    // The main table's phases keep their own columns.
    expect(out.split('Server builds from npm')[0]).toContain('| Phase | warm cache |');
  });
});
