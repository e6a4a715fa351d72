/** The version is one: package.json, src/version.ts, the CLI's --version. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { VERSION } from '../../src/version.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('version', () => {
  it('src/version.ts says the version package.json says', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('pg-tmpfs --version prints it and exits 0', async () => {
    let out = '';
    const code = await runCli(['node', 'pg-tmpfs', '--version'], { stdout: (t) => (out += t), stderr: () => undefined });
    expect(code).toBe(0);
    expect(out).toBe(`${VERSION}\n`);
  });
});

describe('repository files', () => {
  it('LICENSE is the MIT license package.json names; CHANGELOG, SECURITY and CONTRIBUTING are there', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toMatch(/\n## \[Unreleased\]\n/);
    expect(readFileSync(join(ROOT, 'SECURITY.md'), 'utf8')).toMatch(/## Reporting a vulnerability/);
    expect(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')).toMatch(/npm run check-dist/);
  });

  it("dependabot updates npm and the workflows' actions", async () => {
    const { parse } = await import('yaml');
    const config = parse(readFileSync(join(ROOT, '.github', 'dependabot.yml'), 'utf8')) as {
      version: number;
      updates: Array<{ 'package-ecosystem': string; directory: string }>;
    };
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => u['package-ecosystem'])).toEqual(expect.arrayContaining(['npm', 'github-actions']));
  });
});
