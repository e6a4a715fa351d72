/**
 * docs/per-test-databases.md shows the per-test-clone examples' code: each fenced block under a
 * `<!-- file: path -->` comment must be that file, word for word, so the doc shows what
 * tests/e2e/examples.test.ts runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = 'docs/per-test-databases.md';

interface MarkedBlock {
  file: string;
  line: number;
  code: string | undefined;
}

/** Each `<!-- file: … -->` comment with the fenced block that follows it (blank lines between allowed). */
function markedBlocks(markdown: string): MarkedBlock[] {
  const lines = markdown.split('\n');
  const blocks: MarkedBlock[] = [];
  lines.forEach((text, i) => {
    const marker = /^<!-- file: (\S+) -->$/.exec(text.trim());
    if (!marker?.[1]) return;
    let open = i + 1;
    while (open < lines.length && lines[open]?.trim() === '') open++;
    const fence = /^(`{3,})\w*$/.exec(lines[open] ?? '');
    let code: string | undefined;
    if (fence?.[1]) {
      const close = lines.findIndex((l, j) => j > open && l === fence[1]);
      if (close > open) code = `${lines.slice(open + 1, close).join('\n')}\n`;
    }
    blocks.push({ file: marker[1], line: i + 1, code });
  });
  return blocks;
}

describe(DOC, () => {
  const blocks = markedBlocks(readFileSync(join(ROOT, DOC), 'utf8'));

  it('marks the helper of every example, and a fenced block follows each mark', () => {
    expect(blocks.map((b) => b.file)).toEqual(
      expect.arrayContaining([
        'docs/examples/per-test-clone/node/db.ts',
        'docs/examples/per-test-clone/python/conftest.py',
        'docs/examples/per-test-clone/go/db_test.go',
        'docs/examples/per-test-clone/ruby/per_test_database.rb',
      ]),
    );
    for (const b of blocks) expect(b.code, `${DOC}:${b.line}: no fenced block after the mark`).toBeDefined();
  });

  it.each(blocks.map((b) => [b.file, b] as const))('shows %s as it is', (file, b) => {
    const path = join(ROOT, file);
    expect(existsSync(path), `${DOC}:${b.line}: ${file} does not exist`).toBe(true);
    expect(b.code, `${DOC}:${b.line}: the block differs from ${file}`).toBe(readFileSync(path, 'utf8'));
  });

  it('finds a block and tells a changed one apart', () => {
    const md = '<!-- file: a.ts -->\n\n```ts\nconst a = 1;\n```\n\n<!-- file: b.ts -->\ntext\n';
    expect(markedBlocks(md)).toEqual([
      { file: 'a.ts', line: 1, code: 'const a = 1;\n' },
      { file: 'b.ts', line: 7, code: undefined },
    ]);
  });
});
