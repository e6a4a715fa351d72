/**
 * Native mode on PostgreSQL 17 and 18: the CLI (dist/cli.js) runs inside a container of each test
 * image, whose Debian packages put the real binaries in /usr/lib/postgresql/<major>/bin, as on
 * an Ubuntu runner; node is mounted from the host. Each run fills the initdb cache, starts from
 * it a second time, answers through the URI it printed, and `down` leaves nothing. The cache
 * folder is shared by both majors: two entries prove the key tells their initdb apart.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

const cache = mkdtempSync(`${tmpdir()}/pg-tmpfs-native-majors-cache-`);
beforeAll(() => requireImages());
afterAll(() => rmSync(cache, { recursive: true, force: true }));

/**
 * Runs `script` with bash in a container of `image`, as root, with this checkout at /src, the
 * host's node, and the shared initdb cache at /cache (PG_TMPFS_CACHE_DIR); `extra` docker run
 * arguments go first.
 */
function inContainer(image: string, script: string, extra: string[]) {
  return spawnSync(
    'docker',
    [
      'run',
      '--rm',
      ...extra,
      '--env',
      'PG_TMPFS_CACHE_DIR=/cache',
      '--volume',
      `${ROOT}:/src:ro`,
      '--volume',
      `${process.execPath}:/usr/local/bin/node:ro`,
      '--volume',
      `${cache}:/cache`,
      '--entrypoint',
      '/bin/bash',
      image,
      '-c',
      script,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
}

/** In the container, as root (postgres then runs as the image's postgres user). */
const SCRIPT = String.raw`
set -euo pipefail
up() { node /src/dist/cli.js up --mode native --postgres-version "$MAJOR" --name "$1" --json --quiet; }
field() { node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j[process.argv[1]])' "$1"; }
first=$(up first)
echo "FIRST $(printf '%s' "$first" | field cacheHit) $(printf '%s' "$first" | field tmpfs) $(printf '%s' "$first" | field serverVersion)"
uri=$(printf '%s' "$first" | field connectionUri)
echo "QUERY $(psql "$uri" -XAtc "select current_setting('server_version_num')::int / 10000 || ' ' || current_setting('fsync') || ' ' || current_setting('data_checksums')")"
second=$(up second)
echo "SECOND $(printf '%s' "$second" | field cacheHit)"
node /src/dist/cli.js down --name first
node /src/dist/cli.js down --name second
echo "LEFT $(ls /dev/shm | grep -c '^pg-tmpfs-' || true) $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^postgres$' || true)"
`;

describe.each(['17', '18'] as const)('native mode on PostgreSQL %s (real Debian binaries)', (major) => {
  it('fills the initdb cache, starts from it, answers, and down leaves nothing', () => {
    const r = inContainer(TEST_IMAGES[major], SCRIPT, ['--shm-size', '2g', '--env', `MAJOR=${major}`]);
    console.log(r.stdout);
    expect(r.status, r.stderr).toBe(0);
    const line = (tag: string) => r.stdout.split('\n').find((l) => l.startsWith(`${tag} `)) ?? '';
    expect(line('FIRST')).toMatch(new RegExp(`^FIRST false true ${major}\\.\\d+`));
    // PostgreSQL 18's initdb turns data checksums on by default; the profile leaves initdb's default.
    expect(line('QUERY')).toBe(`QUERY ${major} off ${major === '18' ? 'on' : 'off'}`);
    expect(line('SECOND')).toBe('SECOND true');
    expect(line('LEFT')).toBe('LEFT 0 0');
  });
});

describe('the initdb cache shared by both majors', () => {
  it('holds one entry per major: the key includes the initdb version', () => {
    expect(readdirSync(cache).filter((n) => /^[0-9a-f]{32}$/.test(n))).toHaveLength(2);
  });
});

/**
 * A container as root but without mount rights, with Docker's 64 MB /dev/shm (too small for the
 * 1 GiB native mode asks of it): the mount of a tmpfs fails, and native mode falls back to disk
 * with a warning instead of failing; with tmpfs-size (which only a mount can honour) the same
 * failed mount is an error naming tmpfs-size. Nothing is left either way.
 */
const NO_MOUNT_SCRIPT = String.raw`
set -uo pipefail
out=$(node /src/dist/cli.js up --mode native --name fallback --json 2>/tmp/err); echo "UP $?"
grep -o 'warning: PGDATA is on disk, not in RAM ([^;]*mounting a tmpfs failed' /tmp/err | head -1 | sed 's/^/WARN /'
printf '%s' "$out" | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log("TMPFS " + j.tmpfs)'
node /src/dist/cli.js down --name fallback; echo "DOWN $?"
node /src/dist/cli.js up --mode native --name capped --tmpfs-size 200m 2>&1 | grep '^error:' | sed 's/^/CAPPED /'
echo "LEFT $(ls /tmp | grep -c '^pg-tmpfs-' || true) $(ls /dev/shm | grep -c '^pg-tmpfs-' || true) $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^postgres$' || true) $(grep -c pg-tmpfs /proc/mounts || true)"
`;

describe('native mode where a tmpfs cannot be mounted', () => {
  it('falls back to disk with a warning; tmpfs-size is then an error naming it; nothing is left', () => {
    const r = inContainer(TEST_IMAGES[18], NO_MOUNT_SCRIPT, []);
    console.log(r.stdout);
    expect(r.status, r.stderr).toBe(0);
    const line = (tag: string) => r.stdout.split('\n').find((l) => l.startsWith(`${tag} `)) ?? '';
    expect(line('UP')).toBe('UP 0');
    expect(line('WARN')).toMatch(/^WARN warning: PGDATA is on disk, not in RAM \(.*mounting a tmpfs failed/);
    expect(line('TMPFS')).toBe('TMPFS false');
    expect(line('DOWN')).toBe('DOWN 0');
    expect(line('CAPPED')).toMatch(
      /^CAPPED error: --tmpfs-size: native mode limits the data directory's size by mounting a tmpfs/,
    );
    expect(line('LEFT')).toBe('LEFT 0 0 0 0');
  });
});
