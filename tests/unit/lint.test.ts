/**
 * What `npm run lint` enforces beyond style (docs/architecture.md, "Layers"): an import cycle
 * fails it, through type imports too, and so does an import that runs up the layers. The fixtures
 * in tests/fixtures/lint/ (a value cycle, a type-only cycle, a shared module and Docker mode
 * importing native mode) are left out of the main lint run; this test lints them with the
 * project's own configurations (eslint.config.js, .dependency-cruiser.cjs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = 'tests/fixtures/lint';

/**
 * dependency-cruiser on `paths` with the project's configuration, as `npm run lint` runs it
 * (`--output-type err`, 60 s deadline): its exit status (the number of violations) and each
 * violation as `rule: from` (a cycle's first module), sorted.
 */
function cruise(...paths: string[]): { status: number | null; violations: string[] } {
  const cli = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const out = spawnSync(process.execPath, [cli, ...paths, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const violations = [...out.stdout.matchAll(/^\s*error (\S+): (\S+) →/gm)].map(([, rule, from]) => `${rule}: ${from}`);
  return { status: out.status, violations: violations.sort() };
}

describe('lint', () => {
  it('fails on an import cycle (import/no-cycle)', async () => {
    const eslint = new ESLint({ cwd: ROOT, ignore: false });
    const results = await eslint.lintFiles([join(ROOT, FIXTURES, 'cycle', 'a.ts')]);
    const rules = results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`));
    expect(rules).toEqual(['import/no-cycle: Dependency cycle detected.']);
  }, 60_000);

  it('fails on a cycle through type imports only, which import/no-cycle lets pass (dependency-cruiser)', async () => {
    const eslint = new ESLint({ cwd: ROOT, ignore: false });
    const results = await eslint.lintFiles([join(ROOT, FIXTURES, 'type-cycle', 'a.ts')]);
    expect(results.flatMap((r) => r.messages.map((m) => m.ruleId))).toEqual([]);
    const { status, violations } = cruise(`${FIXTURES}/type-cycle`);
    expect(status).toBe(1);
    expect(violations).toEqual([`no-circular: ${FIXTURES}/type-cycle/a.ts`]);
  }, 60_000);

  it('fails on an import up the layers and between the two modes (dependency-cruiser)', () => {
    const { status, violations } = cruise(`${FIXTURES}/layers`);
    expect(status).toBe(2);
    expect(violations).toEqual([
      `layer-shared: ${FIXTURES}/layers/src/verify.ts`,
      `modes-apart-1: ${FIXTURES}/layers/src/docker/start.ts`,
    ]);
  }, 60_000);
});
