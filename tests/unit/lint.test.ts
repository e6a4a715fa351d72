/**
 * What `npm run lint` enforces beyond style (docs/architecture.md, "Layers"): an import cycle
 * fails it. tests/fixtures/lint/cycle holds two modules that import each other; the main lint
 * run ignores that folder, this test lints it with the project's own configuration.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('lint', () => {
  it('fails on an import cycle (import/no-cycle)', async () => {
    const eslint = new ESLint({ cwd: ROOT, ignore: false });
    const results = await eslint.lintFiles([join(ROOT, 'tests', 'fixtures', 'lint', 'cycle', 'a.ts')]);
    const rules = results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`));
    expect(rules).toEqual(['import/no-cycle: Dependency cycle detected.']);
  }, 60_000);
});
