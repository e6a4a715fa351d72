#!/usr/bin/env bash
# Runs as a workflow step after the action: uses only what a user's step would have (the outputs,
# the exported PG* variables, psql). Prints "e2e-check <image>: ok" on success.
set -euo pipefail
fail() { echo "::error::$*"; exit 1; }
q() { psql "$URI" -v ON_ERROR_STOP=1 -Atqc "$1"; }

# Exported environment (export-env: true): psql with no arguments reads PG* variables.
[ -n "${DATABASE_URL:-}" ] || fail "DATABASE_URL was not exported"
[ "$DATABASE_URL" = "$URI" ] || fail "DATABASE_URL differs from the connection-uri output"
[ "$(psql -Atqc 'select current_user')" = "$OUT_USER" ] || fail "PG* variables do not reach the server as $OUT_USER"
[ "$PGDATABASE" = "$OUT_DATABASE" ] || fail "PGDATABASE is $PGDATABASE"

# Write and read rows through the output URI.
q "create table e2e_items (id int primary key, name text)"
q "insert into e2e_items select g, 'item ' || g from generate_series(1, 1000) g"
[ "$(q 'select count(*) from e2e_items')" = 1000 ] || fail "rows not read back"
q "truncate e2e_items"

# Durability is off, user settings took.
[ "$(q 'show fsync')" = off ] || fail "fsync is not off"
[ "$(q 'show full_page_writes')" = off ] || fail "full_page_writes is not off"
[ "$(q 'show jit')" = off ] || fail "jit is not off"
[ "$(q 'show work_mem')" = 8MB ] || fail "work_mem from the settings input is $(q 'show work_mem')"
[ "$(q 'show max_connections')" = 50 ] || fail "max_connections from the settings input did not take"
[ "$(q 'select current_database()')" = app-db ] || fail "wrong database"
[ "$(q 'select current_user')" = app_user ] || fail "wrong user"

# PGDATA is on tmpfs, measured from inside the container, and the output agrees.
[ "$OUT_TMPFS" = true ] || fail "tmpfs output is $OUT_TMPFS"
[ "$(q 'show data_directory')" = "$OUT_DATA_DIRECTORY" ] || fail "data-directory output differs from the server"
fstype=$(docker exec "$OUT_CONTAINER_ID" stat -f -c %T "$OUT_DATA_DIRECTORY")
[ "$fstype" = tmpfs ] || fail "PGDATA $OUT_DATA_DIRECTORY is on $fstype"
shm=$(docker exec "$OUT_CONTAINER_ID" df -k --output=size /dev/shm | tail -1 | tr -d ' ')
[ "$shm" -gt 65536 ] || fail "/dev/shm is only ${shm} kB"
published=$(docker port "$OUT_CONTAINER_ID" 5432/tcp)
case "$published" in 127.0.0.1:*) ;; *) fail "port published on $published, not 127.0.0.1 only" ;; esac

[ "$OUT_STARTUP_MS" -gt 0 ] || fail "startup-ms is $OUT_STARTUP_MS"
echo "e2e-check ${OUT_DATA_DIRECTORY}: ok (server ${OUT_SERVER_VERSION}, startup-ms ${OUT_STARTUP_MS}, container ${OUT_CONTAINER_ID})"
