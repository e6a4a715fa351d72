import { describe, expect, it } from 'vitest';
import { containerIdFromMountinfo, userNetwork } from '../../src/docker/job-container.js';

const ID = 'a'.repeat(12) + '0123456789abcdef'.repeat(3) + '0123';

describe('containerIdFromMountinfo', () => {
  it("finds the container's ID in the bind mounts Docker makes for /etc/hostname", () => {
    const mountinfo = [
      '655 600 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X',
      `672 655 254:1 /var/lib/docker/containers/${ID}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda rw`,
      `673 655 254:1 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw,relatime - ext4 /dev/vda rw`,
    ].join('\n');
    expect(ID).toMatch(/^[0-9a-f]{64}$/);
    expect(containerIdFromMountinfo(mountinfo)).toBe(ID);
  });
  it('returns null on a host', () => {
    expect(containerIdFromMountinfo('22 1 0:21 / /proc rw - proc proc rw\n')).toBeNull();
  });
});

describe('userNetwork', () => {
  it("picks the job's user-defined network, not Docker's own", () => {
    expect(userNetwork('{"bridge":{},"github_network_5f2c":{}}')).toBe('github_network_5f2c');
    expect(userNetwork('{"host":{}}')).toBeNull();
    expect(userNetwork('{"bridge":{}}')).toBeNull();
    expect(userNetwork('null')).toBeNull();
  });
});
