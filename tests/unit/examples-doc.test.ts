/**
 * docs/per-test-databases.md shows the per-test-clone examples' code, docs/schema-cache.md the
 * schema cache's framework examples' code: each fenced block under a `<!-- file: path -->`
 * comment must be that file, word for word, and each under a `<!-- from: path -->` comment a
 * part of it (whole lines, in one piece), so the docs show what tests/e2e/examples.test.ts,
 * examples-pool.test.ts and tests/e2e/schema-cache-frameworks.test.ts run. docs/schema-cache.md's section of each tested
 * framework must also show, in its workflow and its CLI line, the init-command and
 * schema-cache-files that the e2e test starts the example with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALEMBIC_START, DJANGO_START, RAILS_START } from '../helpers/schema-cache-frameworks.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** Each doc, and the files it must show (it may show more). */
const DOCS: Record<string, string[]> = {
  'docs/per-test-databases.md': [
    'docs/examples/per-test-clone/node/db.ts',
    'docs/examples/per-test-clone/python/conftest.py',
    'docs/examples/per-test-clone/go/db_test.go',
    'docs/examples/per-test-clone/ruby/per_test_database.rb',
    'docs/examples/per-test-pool/node/db.ts',
    'docs/examples/per-test-pool/python/conftest.py',
    'docs/examples/per-test-pool/go/db_test.go',
    'docs/examples/per-test-pool/ruby/per_test_pool.rb',
  ],
  'docs/schema-cache.md': [
    'docs/examples/schema-cache/django/shop/settings.py',
    'docs/examples/schema-cache/alembic/migrations/env.py',
  ],
};

interface MarkedBlock {
  /** `file`: the block is the whole file; `from`: a part of it. */
  kind: 'file' | 'from';
  file: string;
  line: number;
  code: string | undefined;
}

/** Each `<!-- file: … -->` or `<!-- from: … -->` comment with the fenced block that follows it (blank lines between allowed). */
function markedBlocks(markdown: string): MarkedBlock[] {
  const lines = markdown.split('\n');
  const blocks: MarkedBlock[] = [];
  lines.forEach((text, i) => {
    const marker = /^<!-- (file|from): (\S+) -->$/.exec(text.trim());
    if (!marker?.[1] || !marker[2]) return;
    let open = i + 1;
    while (open < lines.length && lines[open]?.trim() === '') open++;
    const fence = /^(`{3,})\w*$/.exec(lines[open] ?? '');
    let code: string | undefined;
    if (fence?.[1]) {
      const close = lines.findIndex((l, j) => j > open && l === fence[1]);
      if (close > open) code = `${lines.slice(open + 1, close).join('\n')}\n`;
    }
    blocks.push({ kind: marker[1] as MarkedBlock['kind'], file: marker[2], line: i + 1, code });
  });
  return blocks;
}

/** Whether `part` (whole lines, ending in a newline) is in `text` in one piece, starting a line. */
function isPart(part: string, text: string): boolean {
  return part.length > 0 && `\n${text}`.includes(`\n${part}`);
}

describe.each(Object.entries(DOCS))('%s', (doc, shown) => {
  const blocks = markedBlocks(readFileSync(join(ROOT, doc), 'utf8'));

  it('marks the helper of every example, and a fenced block follows each mark', () => {
    expect(blocks.map((b) => b.file)).toEqual(expect.arrayContaining(shown));
    for (const b of blocks) expect(b.code, `${doc}:${b.line}: no fenced block after the mark`).toBeDefined();
  });

  it.each(blocks.map((b) => [b.kind, b.file, b] as const))('%s %s: shown as it is', (_kind, file, b) => {
    const path = join(ROOT, file);
    expect(existsSync(path), `${doc}:${b.line}: ${file} does not exist`).toBe(true);
    const text = readFileSync(path, 'utf8');
    if (b.kind === 'file') expect(b.code, `${doc}:${b.line}: the block differs from ${file}`).toBe(text);
    else expect(isPart(b.code ?? '', text), `${doc}:${b.line}: the block is not a part of ${file}`).toBe(true);
  });
});

describe('docs/schema-cache.md: the tested frameworks', () => {
  const doc = readFileSync(join(ROOT, 'docs/schema-cache.md'), 'utf8');

  it.each([DJANGO_START, ALEMBIC_START, RAILS_START].map((f) => [f.name, f] as const))(
    '%s: the workflow and the CLI line start it as the e2e test does',
    (_name, f) => {
      const start = doc.indexOf(`\n${f.heading}\n`);
      expect(start, `no heading ${f.heading}`).toBeGreaterThan(0);
      const end = doc.indexOf('\n### ', start + 1);
      const section = doc.slice(start, end < 0 ? undefined : end);
      const yaml = /```yaml\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
      const command = /^ +init-command: (.*?)(?: # .*)?$/m.exec(yaml)?.[1];
      expect(command).toBe(f.workflowInitCommand ?? f.initCommand);
      expect(yaml).toMatch(new RegExp(`^ +database: ${f.database}$`, 'm'));
      const files = /^( +)schema-cache-files: \|\n((?:\1 {2}.*\n?)+)/m.exec(yaml)?.[2] ?? '';
      expect(
        files
          .split('\n')
          .filter(Boolean)
          .map((l) => l.trim()),
      ).toEqual(f.schemaCacheFiles);
      const sh = (/```sh\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '').replace(/\\\n\s*/g, '');
      const flags = [
        `--database ${f.database} `,
        `--init-command '${f.initCommand}'`,
        ...f.schemaCacheFiles.map((g) => `--schema-cache-files '${g}'`),
      ];
      for (const flag of flags) expect(sh).toContain(flag);
      expect(sh).toContain('--schema-cache ');
    },
  );
});

describe('markedBlocks', () => {
  it('finds a block and tells a changed one apart', () => {
    const md = '<!-- file: a.ts -->\n\n```ts\nconst a = 1;\n```\n\n<!-- from: b.ts -->\ntext\n';
    expect(markedBlocks(md)).toEqual([
      { kind: 'file', file: 'a.ts', line: 1, code: 'const a = 1;\n' },
      { kind: 'from', file: 'b.ts', line: 7, code: undefined },
    ]);
  });

  it('isPart takes whole lines in one piece only', () => {
    const text = 'a\n  b\n  c\nd\n';
    expect(isPart('  b\n  c\n', text)).toBe(true);
    expect(isPart('a\n', text)).toBe(true);
    expect(isPart('  b\nd\n', text)).toBe(false);
    expect(isPart(' b\n', text)).toBe(false);
    expect(isPart('', text)).toBe(false);
  });
});
