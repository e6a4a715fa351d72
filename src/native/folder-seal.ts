/**
 * PLACEHOLDER until the fastcheck branch lands (it provides sealFolder/folderProblem).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { trustProblem } from './cache-manifest.js';

export interface SealedFile {
  size: number;
  sha256: string;
  fingerprint: string;
}

export interface Seal {
  dirs: string[];
  files: Record<string, SealedFile>;
  links: Record<string, string>;
}

function fingerprint(s: Stats): string {
  return `${s.ino}:${s.mtimeMs}:${s.ctimeMs}`;
}

export function sealFolder(dir: string): Seal {
  const seal: Seal = { dirs: [], files: {}, links: {} };
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const rel = relative(dir, path);
      const s = lstatSync(path);
      if (s.isDirectory()) {
        seal.dirs.push(rel);
        walk(path);
      } else if (s.isSymbolicLink()) {
        seal.links[rel] = readlinkSync(path);
      } else {
        const bytes = readFileSync(path);
        seal.files[rel] = {
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          fingerprint: fingerprint(s),
        };
      }
    }
  };
  walk(dir);
  return seal;
}

export function folderProblem(dir: string, seal: Seal): string | null {
  for (const d of ['', ...seal.dirs]) {
    const s = lstatSync(join(dir, d), { throwIfNoEntry: false });
    const problem = s ? trustProblem(s, 'folder') : 'is missing';
    if (problem) return `${d || 'its folder'} ${problem}`;
  }
  for (const [f, e] of Object.entries(seal.files)) {
    const s = lstatSync(join(dir, f), { throwIfNoEntry: false });
    const problem = s ? trustProblem(s, 'file') : 'is missing';
    if (problem) return `${f} ${problem}`;
    if (!s || s.size !== e.size) return `${f} has ${s?.size} bytes, not ${e.size}`;
    if (fingerprint(s) !== e.fingerprint) {
      if (
        createHash('sha256')
          .update(readFileSync(join(dir, f)))
          .digest('hex') !== e.sha256
      )
        return `${f} does not match the sha256 in its manifest`;
    }
  }
  for (const [l, target] of Object.entries(seal.links)) {
    try {
      if (readlinkSync(join(dir, l)) !== target) return `${l} does not point to ${target}`;
    } catch {
      return `${l} is not the link it was`;
    }
  }
  return null;
}
