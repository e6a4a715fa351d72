/**
 * The one parser of the mount table (src/mounts.ts): octal escapes in every field, the mount that
 * holds a path, and this machine's own table.
 */
import { describe, expect, it } from 'vitest';
import { mountOf, parseMounts, readMounts } from '../../src/mounts.js';

/** A mount point as /proc/self/mounts writes it: space, tab, newline and backslash escaped (proc(5)). */
const TABLE = [
  'overlay / overlay rw,relatime,lowerdir=/l 0 0',
  'tmpfs /dev/shm tmpfs rw,nosuid,nodev,noexec 0 0',
  'tmpfs /tmp/with\\040space tmpfs rw 0 0',
  'tmpfs /tmp/with\\011tab tmpfs rw,size=1024k 0 0',
  'tmpfs /tmp/with\\012newline ramfs rw 0 0',
  'tmpfs /tmp/back\\134slash tmpfs ro 0 0',
  '/dev/vda1 /tmp/back\\134slash/inner ext4 rw 0 0',
  'my\\040disk /media/x ext4 rw 0 0',
  '',
  'short line',
].join('\n');

describe('parseMounts', () => {
  const mounts = parseMounts(TABLE);

  it('decodes every octal escape in every field, and skips lines that are no mount', () => {
    expect(mounts.map((m) => m.point)).toEqual([
      '/',
      '/dev/shm',
      '/tmp/with space',
      '/tmp/with\ttab',
      '/tmp/with\nnewline',
      '/tmp/back\\slash',
      '/tmp/back\\slash/inner',
      '/media/x',
    ]);
    expect(mounts[7]?.source).toBe('my disk');
  });

  it('splits the options', () => {
    expect(mounts[1]).toEqual({
      source: 'tmpfs',
      point: '/dev/shm',
      type: 'tmpfs',
      options: ['rw', 'nosuid', 'nodev', 'noexec'],
    });
    expect(mounts[3]?.options).toEqual(['rw', 'size=1024k']);
  });

  it('is empty for empty text', () => {
    expect(parseMounts('')).toEqual([]);
  });
});

describe('mountOf', () => {
  const mounts = parseMounts(TABLE);

  it('finds the longest mount point at or above the path, escaped points included', () => {
    expect(mountOf('/tmp/with space/pg/data', mounts)?.point).toBe('/tmp/with space');
    expect(mountOf('/tmp/with\ttab', mounts)?.type).toBe('tmpfs');
    expect(mountOf('/tmp/with\nnewline/x', mounts)?.type).toBe('ramfs');
    expect(mountOf('/tmp/back\\slash/inner/pg', mounts)?.type).toBe('ext4');
    expect(mountOf('/tmp/back\\slash/other', mounts)?.options).toEqual(['ro']);
  });

  it('does not take a longer name for a folder above it, and falls back to /', () => {
    expect(mountOf('/dev/shmx', mounts)?.point).toBe('/');
    expect(mountOf('/tmp/with', mounts)?.point).toBe('/');
  });

  it('takes the last of equal mount points (the one on top)', () => {
    expect(mountOf('/dev/shm/a', parseMounts(`${TABLE}\ntmpfs /dev/shm tmpfs rw 0 0`))?.options).toEqual(['rw']);
  });

  it('is null when nothing covers the path', () => {
    expect(mountOf('/x', [])).toBeNull();
    expect(mountOf('/x', parseMounts('tmpfs /dev/shm tmpfs rw 0 0'))).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('readMounts', () => {
  it("reads this process's table: / is mounted", () => {
    expect(readMounts().some((m) => m.point === '/')).toBe(true);
    expect(mountOf('/proc/self', readMounts())?.type).toBe('proc');
  });
});
