/**
 * npm package tarballs (gzip-compressed tar, every path under `package/`) as the local npm registry
 * (npm-registry.ts) needs them: their digests as the registry's `dist` gives them, their
 * package.json, and a tampered copy with one byte of one file changed that is still a valid
 * tarball (so npm accepts it when the metadata matches it).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** What a registry's `dist` says of a tarball. */
export interface TarballDigests {
  /** Subresource integrity of the file, `sha512-<base64>` (npm's `dist.integrity`). */
  integrity: string;
  /** sha1 of the file in hex (npm's older `dist.shasum`). */
  shasum: string;
  /** Size of the file, bytes. */
  size: number;
}

/** The digests of a tarball's bytes. */
export function digestsOf(bytes: Buffer): TarballDigests {
  return {
    integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    shasum: createHash('sha1').update(bytes).digest('hex'),
    size: bytes.length,
  };
}

/** A file in a tar archive. */
export interface TarEntry {
  /** Its path in the archive (a pax `path` record or a GNU long name applied), e.g. `package/package.json`. */
  name: string;
  /** Its type flag: '0' (or '\0') a regular file, '5' a folder, '2' a symbolic link, … */
  type: string;
  /** Offset of its data in the archive, bytes. */
  offset: number;
  /** Size of its data, bytes. */
  size: number;
}

/** A NUL-terminated string field of a tar header. */
function field(header: Buffer, start: number, end: number): string {
  const raw = header.subarray(start, end);
  const nul = raw.indexOf(0);
  return raw.toString('utf8', 0, nul === -1 ? raw.length : nul);
}

/**
 * The entries of an uncompressed tar archive (POSIX ustar with pax extended headers, as npm
 * writes them; GNU long names too), metadata entries left out. Sizes in base-256 (8 GB and more)
 * are not read: no npm package has such a file.
 * @throws Error when a header's size is not an octal number (not a tar archive)
 */
export function tarEntries(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    const sizeText = field(header, 124, 136).trim();
    if (!/^[0-7]*$/.test(sizeText)) throw new Error(`not a tar header at offset ${off} (size field ${JSON.stringify(sizeText)})`);
    const size = parseInt(sizeText || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = header.toString('latin1', 257, 262) === 'ustar' ? field(header, 345, 500) : '';
    const offset = off + 512;
    const data = tar.subarray(offset, offset + size);
    if (type === 'x') {
      // pax records: "<length> <key>=<value>\n"; `path` names the next entry.
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1] ?? longName;
    } else if (type === 'L') {
      longName = field(data, 0, data.length);
    } else if (type !== 'g') {
      entries.push({
        name: longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100)),
        type,
        offset,
        size,
      });
      longName = undefined;
    }
    off = offset + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/** What npm-registry.ts knows of one tarball file. */
export interface TarballInfo extends TarballDigests {
  /** The file's path. */
  file: string;
  /** Its package/package.json, parsed. */
  packageJson: Record<string, unknown> & { name: string; version: string };
}

/** Read tarballs by path, size and modification time: a test file that starts many registries reads each once. */
const infoCache = new Map<string, Promise<TarballInfo>>();

/**
 * Digests and package.json of a package tarball (cached while the file's size and modification
 * time stay the same).
 * @throws Error when the file cannot be read, is not a gzip-compressed tar, or has no
 *   package/package.json with a name and a version
 */
export async function tarballInfo(file: string): Promise<TarballInfo> {
  const st = await stat(file);
  const key = `${file}\0${st.size}\0${st.mtimeMs}`;
  let info = infoCache.get(key);
  if (!info) {
    info = (async () => {
      const bytes = await readFile(file);
      const tar = await gunzipAsync(bytes);
      const entry = tarEntries(tar).find((e) => e.name === 'package/package.json');
      if (!entry) throw new Error(`${file}: no package/package.json in the tarball`);
      const packageJson = JSON.parse(tar.toString('utf8', entry.offset, entry.offset + entry.size)) as TarballInfo['packageJson'];
      if (typeof packageJson.name !== 'string' || typeof packageJson.version !== 'string') {
        throw new Error(`${file}: package/package.json has no name or version`);
      }
      return { file, packageJson, ...digestsOf(bytes) };
    })();
    infoCache.set(key, info);
    info.catch(() => infoCache.delete(key));
  }
  return info;
}

/** A tarball with one byte changed. */
export interface TamperedTarball extends TarballDigests {
  /** The tarball's bytes (gzip-compressed again). */
  bytes: Buffer;
  /** The file whose first byte was changed, e.g. `package/README.md`. */
  entry: string;
  /** Offset of the changed byte in the uncompressed archive. */
  offset: number;
}

/**
 * `file` with the first byte of one file's data flipped (its lowest bit): package/README.md, else
 * the first non-empty regular file other than package.json (which npm reads). The archive stays
 * valid (tar checksums cover headers only) and is compressed again, so npm unpacks it; only a
 * digest kept apart from the registry tells it from the original.
 * @throws Error as tarballInfo, or when the package has no file to change
 */
export async function tamperedTarball(file: string): Promise<TamperedTarball> {
  const tar = await gunzipAsync(await readFile(file));
  const files = tarEntries(tar).filter((e) => (e.type === '0' || e.type === '\0') && e.size > 0);
  const target = files.find((e) => e.name === 'package/README.md') ?? files.find((e) => e.name !== 'package/package.json');
  if (!target) throw new Error(`${file}: no file to change`);
  tar[target.offset] = (tar[target.offset] ?? 0) ^ 1;
  // Level 1: quick, and a valid gzip stream all the same.
  const bytes = await gzipAsync(tar, { level: 1 });
  return { bytes, entry: target.name, offset: target.offset, ...digestsOf(bytes) };
}
