/**
 * The workflows pass the linters that action authors run (issue #14), in the project's own test
 * command, so a finding fails CI:
 * - actionlint, with shellcheck on the `run:` scripts, over every file in .github/workflows;
 * - zizmor, offline with its default persona, over the repository as it collects it: the
 *   workflows, .github/dependabot.yml, action.yml and wait/action.yml.
 * Both are pinned (scripts/setup-test-infra.sh, section 7, which also installs Debian's
 * shellcheck). What cannot apply where the workflows run (act) is ignored in .github/zizmor.yml
 * or inline, with the reason. A known-bad workflow (tests/fixtures/workflow-lint) proves that
 * each tool runs and reports.
 *
 * The GitHub services template (templates/github/services.yaml) is linted by actionlint too, with
 * one finding ignored: actionlint 1.7.12 does not know `command` on services (actions/runner PR
 * #4276, 2026; tests/unit/services-template.test.ts checks the file against the runner's own
 * schema). The test proves that the ignore removes exactly those findings.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goBinary, ROOT } from '../helpers/infra.js';

const SETUP = 'run bash scripts/setup-test-infra.sh';
const FIXTURE = 'tests/fixtures/workflow-lint/bad-workflow.yml';
const SERVICES_TEMPLATE = 'templates/github/services.yaml';
/** What actionlint 1.7.12 wrongly reports in the services template, and nothing more is ignored. */
const COMMAND_IGNORE = 'unexpected key "command" for "services" section';
/** zizmor's venv, made by scripts/setup-test-infra.sh at the same path. */
const ZIZMOR = join(process.env.PG_TMPFS_TEST_CACHE || join(homedir(), '.cache', 'pg-tmpfs-test'), 'zizmor', 'bin', 'zizmor');
/** Every workflow, so one added later is linted too. */
const WORKFLOWS = readdirSync(join(ROOT, '.github', 'workflows'))
  .filter((n) => /\.ya?ml$/.test(n))
  .sort()
  .map((n) => `.github/workflows/${n}`);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[]): Run {
  // ZIZMOR_CONFIG would replace the repository's .github/zizmor.yml.
  const env = { ...process.env, ZIZMOR_CONFIG: undefined, NO_COLOR: '1' };
  const r = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The version scripts/setup-test-infra.sh pins (its variable, which the environment may set). */
function pinnedVersion(variable: 'ACTIONLINT_VERSION' | 'ZIZMOR_VERSION'): string {
  const script = readFileSync(join(ROOT, 'scripts', 'setup-test-infra.sh'), 'utf8');
  const pinned = new RegExp(`^${variable}=\\$\\{${variable}:-(\\S+)\\}$`, 'm').exec(script)?.[1];
  if (!pinned) throw new Error(`no ${variable} in scripts/setup-test-infra.sh`);
  return (process.env[variable] || pinned).replace(/^v/, '');
}

/** A tool's path, after checking that `--version` names the pinned version. */
function pinnedTool(path: string, variable: 'ACTIONLINT_VERSION' | 'ZIZMOR_VERSION'): string {
  const version = pinnedVersion(variable);
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`${path} does not run (${r.error?.message ?? r.stderr}): ${SETUP}`);
  if (!r.stdout.includes(version)) throw new Error(`${path} is not version ${version} (${r.stdout.trim()}): ${SETUP}`);
  return path;
}

function actionlint(): string {
  return pinnedTool(goBinary('actionlint'), 'ACTIONLINT_VERSION');
}

function zizmor(): string {
  return pinnedTool(ZIZMOR, 'ZIZMOR_VERSION');
}

/** shellcheck, passed to actionlint: without it actionlint skips the `run:` scripts silently. */
function shellcheck(): string {
  const path = spawnSync('sh', ['-c', 'command -v shellcheck'], { encoding: 'utf8' }).stdout.trim();
  if (!path) throw new Error(`shellcheck is not installed: ${SETUP}`);
  return path;
}

/** actionlint with shellcheck, without pyflakes (no Python `run:` scripts; the same lint everywhere). */
function runActionlint(files: string[], format?: string, ignore?: string): Run {
  return run(actionlint(), [
    `-shellcheck=${shellcheck()}`,
    '-pyflakes=',
    '-no-color',
    ...(format ? ['-format', format] : []),
    ...(ignore ? ['-ignore', ignore] : []),
    ...files,
  ]);
}

interface ActionlintError {
  message: string;
  filepath: string;
  line: number;
  kind: string;
}

interface ZizmorFinding {
  ident: string;
  desc: string;
  ignored: boolean;
  determinations: { severity: string; confidence: string };
  locations: {
    symbolic: { key: { Local?: { verbatim_path: string } }; annotation: string; kind: string };
    concrete: { location: { start_point: { row: number } } };
  }[];
}

/** zizmor offline, default persona and thresholds, JSON; the findings one line each and the inputs it audited. */
function runZizmor(inputs: string[]): { status: number | null; findings: string[]; audited: string[] } {
  const r = run(zizmor(), ['--offline', '--persona=regular', '--format=json', '--color=never', '--no-progress', ...inputs]);
  let parsed: ZizmorFinding[];
  try {
    parsed = JSON.parse(r.stdout) as ZizmorFinding[];
  } catch {
    throw new Error(`zizmor (exit ${r.status}) did not print JSON:\n${r.stdout}\n${r.stderr}`);
  }
  const relative = (path: string) => path.replace(/^\.\//, '');
  const findings = parsed
    .filter((f) => !f.ignored)
    .map((f) => {
      const at = f.locations.find((l) => l.symbolic.kind === 'Primary') ?? f.locations[0];
      const where = at
        ? `${relative(at.symbolic.key.Local?.verbatim_path ?? '?')}:${at.concrete.location.start_point.row + 1}`
        : '?';
      return `${f.ident} (${f.determinations.severity}, confidence ${f.determinations.confidence}) ${where}: ${f.desc}: ${at?.symbolic.annotation ?? ''}`;
    });
  const audited = [...r.stderr.matchAll(/completed (\S+)/g)].map((m) => relative(m[1] ?? '')).sort();
  return { status: r.status, findings, audited };
}

describe('workflow linters', () => {
  it('actionlint (with shellcheck) finds nothing in any workflow of .github/workflows', () => {
    expect(WORKFLOWS).toEqual(expect.arrayContaining(['.github/workflows/ci.yml', '.github/workflows/e2e.yml']));
    const r = runActionlint(WORKFLOWS);
    expect({ status: r.status, output: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, output: '' });
  });

  it('actionlint finds nothing in the services template but the `command` it does not know, ignored by that message only', () => {
    const all = runActionlint([SERVICES_TEMPLATE], '{{json .}}');
    expect(all.status).toBe(1);
    const errors = (JSON.parse(all.stdout) as ActionlintError[]).map((e) => `${e.kind} ${e.filepath}:${e.line} ${e.message}`);
    const unknown = `syntax-check ${SERVICES_TEMPLATE}`;
    const expected = `${COMMAND_IGNORE}. expected one of "credentials", "env", "image", "options", "ports", "volumes"`;
    // Both jobs' `command:` lines, and nothing else (shellcheck ran on the wait steps too).
    const commandLines = readFileSync(SERVICES_TEMPLATE, 'utf8')
      .split('\n')
      .flatMap((line, i) => (/^\s+command: /.test(line) ? [i + 1] : []));
    expect(commandLines).toHaveLength(2);
    expect(errors).toEqual(commandLines.map((n) => `${unknown}:${n} ${expected}`));
    const ignored = runActionlint([SERVICES_TEMPLATE], undefined, COMMAND_IGNORE);
    expect({ status: ignored.status, output: `${ignored.stdout}${ignored.stderr}` }).toEqual({ status: 0, output: '' });
  });

  it('zizmor finds nothing in the workflows, dependabot.yml, action.yml and wait/action.yml', () => {
    const r = runZizmor(['.']);
    expect(r.findings).toEqual([]);
    expect(r.status).toBe(0);
    // What it collected from the repository: all of these (and act's setup-node stand-in, an
    // action too), and not the known-bad fixture, which is a workflow outside .github/workflows.
    expect(r.audited).toEqual(
      expect.arrayContaining([
        ...WORKFLOWS,
        '.github/dependabot.yml',
        'action.yml',
        'wait/action.yml',
        'tests/fixtures/act/setup-node/action.yml',
      ]),
    );
    expect(r.audited).not.toContain(FIXTURE);
  });

  it('actionlint reports the known-bad workflow: an undefined step output, and shellcheck on a run script', () => {
    const r = runActionlint([FIXTURE], '{{json .}}');
    expect(r.status).toBe(1);
    const errors = (JSON.parse(r.stdout) as ActionlintError[]).map((e) => `${e.kind} ${e.filepath}:${e.line} ${e.message}`);
    expect(errors).toEqual([
      `expression ${FIXTURE}:21 property "x" is not defined in object type {}`,
      expect.stringMatching(new RegExp(`^shellcheck ${FIXTURE}:23 shellcheck reported issue in this script: SC2086:`)),
    ]);
  });

  it('zizmor reports the known-bad workflow: unpinned-uses and artipacked on its checkout', () => {
    const r = runZizmor([FIXTURE]);
    expect(r.findings).toEqual([
      `artipacked (Medium, confidence Low) ${FIXTURE}:17: credential persistence through GitHub Actions artifacts: does not set persist-credentials: false`,
      `unpinned-uses (High, confidence High) ${FIXTURE}:17: unpinned action reference: action is not pinned to a hash (required by blanket policy)`,
    ]);
    expect(r.audited).toEqual([FIXTURE]);
    // zizmor's exit code for a high-severity finding.
    expect(r.status).toBe(14);
  });
});
