/**
 * This checkout as a scratch repository gets it (the files git tracks or would track, committed or
 * not, from the working tree), and CHANGELOG.md as a release commit makes it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './infra.js';

/** The version in package.json: the one the next release commit names. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Copies the files of this checkout that git tracks or would track (committed or not) into `to`. */
export function copyCheckout(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    try {
      cpSync(join(ROOT, f), join(to, f));
    } catch (e) {
      // A tracked file deleted in the working tree is not part of the checkout.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

/**
 * The body of a Keep a Changelog section (`## [version]`, with or without ` - date`) up to the next
 * `## ` heading or the link definitions, trimmed; '' when there is no such section. Read here
 * independently of scripts/changelog-notes.sh.
 */
export function changelogSection(text: string, version: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === `## [${version}]` || l.startsWith(`## [${version}] - `));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && (l.startsWith('## ') || /^\[[^\]]+\]: /.test(l)));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
}

/**
 * CHANGELOG.md text as the release commit of `version` has it: the [Unreleased] entries under
 * `## [version] - date` (CONTRIBUTING.md "Releasing"); unchanged when that section exists already.
 */
export function releasedChangelog(text: string, version: string, date = '2026-11-21'): string {
  if (changelogSection(text, version) !== '') return text;
  if (!text.includes('## [Unreleased]\n')) throw new Error('CHANGELOG.md has no "## [Unreleased]" heading');
  return text.replace('## [Unreleased]\n', `## [Unreleased]\n\n## [${version}] - ${date}\n`);
}
