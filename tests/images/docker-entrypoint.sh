#!/usr/bin/env bash
# Entrypoint of the local test images pg-tmpfs-test/postgres:*.
#
# Written for this project; it reimplements the documented contract of the official `postgres`
# image's entrypoint (docker-library/postgres) as far as the tests of a client tool rely on it:
#   * arguments that start with "-" are options for `postgres`;
#   * as root: create PGDATA (0700) and /var/run/postgresql, hand them to the postgres user and
#     re-run this script as that user;
#   * empty PGDATA: initdb with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_INITDB_ARGS, a
#     `host all all all <POSTGRES_HOST_AUTH_METHOD|scram-sha-256>` line in pg_hba.conf, then a
#     TEMPORARY server listening on the Unix socket only (no TCP) that creates POSTGRES_DB and runs
#     /docker-entrypoint-initdb.d/*, then a fast stop;
#   * 18 and later, with PGDATA at its default /var/lib/postgresql/<major>/docker: refuse to
#     initialise (exit 1) when PostgreSQL data sits in /var/lib/postgresql,
#     /var/lib/postgresql/data or another /var/lib/postgresql/*/docker, or when
#     /var/lib/postgresql/data is a mount point (an "unused mount/volume" of an older layout);
#   * finally `exec "$@"`: the real server becomes PID 1 and reads PGDATA from the environment.
# POSTGRES_PASSWORD_FILE / POSTGRES_USER_FILE / POSTGRES_DB_FILE / POSTGRES_INITDB_ARGS_FILE are
# honoured too (Docker secrets style).
set -Eeo pipefail

say() { printf '%s\n' "$*"; }
die() { printf '%s\n' "$*" >&2; exit 1; }

# VAR_FILE=path -> VAR=<content of path>; both set is an error.
load_file_var() {
	local var=$1 file_var="${1}_FILE" default=${2:-}
	if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then
		die "error: both $var and $file_var are set (but are exclusive)"
	fi
	local value=$default
	if [ -n "${!var:-}" ]; then
		value=${!var}
	elif [ -n "${!file_var:-}" ]; then
		value=$(< "${!file_var}")
	fi
	export "$var"="$value"
	unset "$file_var"
}

# True when the arguments only ask postgres for help or its version (no init needed then).
wants_help_only() {
	local arg
	for arg; do
		case "$arg" in
			-'?' | --help | --describe-config | -V | --version) return 0 ;;
		esac
	done
	return 1
}

prepare_directories() {
	mkdir -p "$PGDATA"
	chmod 0700 "$PGDATA" 2>/dev/null || :
	mkdir -p /var/run/postgresql
	chmod 3777 /var/run/postgresql 2>/dev/null || :
	if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
		mkdir -p "$POSTGRES_INITDB_WALDIR"
		chmod 0700 "$POSTGRES_INITDB_WALDIR" 2>/dev/null || :
	fi
	if [ "$(id -u)" = 0 ]; then
		chown -R postgres:postgres "$PGDATA"
		chown postgres:postgres /var/run/postgresql
		if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
			chown -R postgres:postgres "$POSTGRES_INITDB_WALDIR"
		fi
	fi
}

# 18+: data of an older layout next to an empty default PGDATA means an upgrade without
# pg_upgrade, or a mount meant for the old layout; the official entrypoint refuses to start then.
check_old_layout() {
	local -a old=()
	local d
	if [ "${PG_MAJOR:-0}" -lt 18 ] || [ "$PGDATA" != "/var/lib/postgresql/$PG_MAJOR/docker" ]; then
		return 0
	fi
	for d in /var/lib/postgresql /var/lib/postgresql/data /var/lib/postgresql/*/docker; do
		if [ -s "$d/PG_VERSION" ]; then
			old+=("$d")
		fi
	done
	if [ "${#old[@]}" -eq 0 ] && mountpoint -q /var/lib/postgresql/data; then
		old+=('/var/lib/postgresql/data (unused mount/volume)')
	fi
	if [ "${#old[@]}" -gt 0 ]; then
		cat >&2 <<-EOE
			Error: in 18+, these Docker images are configured to store database data in a
			       format which is compatible with "pg_ctlcluster" (specifically, using
			       major-version-specific directory names).

			       Counter to that, there appears to be PostgreSQL data in:
			         ${old[*]}

			       The suggested container configuration for 18+ is to place a single mount
			       at /var/lib/postgresql which will then place PostgreSQL data in a
			       subdirectory.
		EOE
		exit 1
	fi
}

check_password_given() {
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "${POSTGRES_HOST_AUTH_METHOD}" != trust ]; then
		cat >&2 <<-'EOE'
			Error: Database is uninitialized and superuser password is not specified.
			       Set POSTGRES_PASSWORD to a non-empty value for the superuser,
			       e.g. "-e POSTGRES_PASSWORD=password" on "docker run".

			       Or set POSTGRES_HOST_AUTH_METHOD=trust to accept every connection
			       without a password (not recommended outside of tests).
		EOE
		exit 1
	fi
	if [ "${POSTGRES_HOST_AUTH_METHOD}" = trust ]; then
		cat >&2 <<-'EOW'
			********************************************************************************
			WARNING: POSTGRES_HOST_AUTH_METHOD is "trust": every host may connect as any
			         role without a password. Use this for throwaway test databases only.
			********************************************************************************
		EOW
	fi
}

run_initdb() {
	local -a initdb_cmd=(initdb --username="$POSTGRES_USER")
	if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
		initdb_cmd+=(--waldir="$POSTGRES_INITDB_WALDIR")
	fi
	# eval, so that quoting inside POSTGRES_INITDB_ARGS is honoured (like the official image).
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		# The password goes through a pipe: never a file on disk, never the command line.
		eval '"${initdb_cmd[@]}" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"${POSTGRES_INITDB_ARGS:-}"
	else
		eval '"${initdb_cmd[@]}" '"${POSTGRES_INITDB_ARGS:-}"
	fi
}

allow_host_connections() {
	{
		printf '\n'
		printf 'host all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD"
	} >> "$PGDATA/pg_hba.conf"
}

# psql against the temporary server (Unix socket only), stopping at the first error.
init_psql() {
	PGHOST='' PGHOSTADDR='' psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" \
		--no-password --no-psqlrc "$@"
}

# Same name and behaviour as the official entrypoint's helper, for sourced *.sh init scripts.
docker_process_sql() {
	init_psql --dbname "$POSTGRES_DB" "$@"
}

temp_server_start() {
	# Options given to the container (e.g. -c fsync=off) apply to the temporary server too, but
	# it listens on the Unix socket only: TCP clients cannot reach the database until init is over.
	local opts
	opts=$(printf '%q ' "$@" -c "listen_addresses=" -p "${PGPORT:-5432}")
	PGUSER="${PGUSER:-$POSTGRES_USER}" pg_ctl -D "$PGDATA" -o "$opts" -w start
}

temp_server_stop() {
	PGUSER="${PGUSER:-postgres}" pg_ctl -D "$PGDATA" -m fast -w stop
}

create_database() {
	if [ "$POSTGRES_DB" = postgres ]; then
		return 0
	fi
	local exists
	exists=$(init_psql --dbname postgres --set db="$POSTGRES_DB" --tuples-only --no-align <<-'EOSQL'
		SELECT 1 FROM pg_database WHERE datname = :'db';
	EOSQL
	)
	if [ -z "$exists" ]; then
		init_psql --dbname postgres --set db="$POSTGRES_DB" <<-'EOSQL'
			CREATE DATABASE :"db";
		EOSQL
		say
	fi
}

run_init_files() {
	local f
	say
	for f in /docker-entrypoint-initdb.d/*; do
		[ -e "$f" ] || continue
		case "$f" in
			*.sh)
				if [ -x "$f" ]; then
					say "$0: running $f"
					"$f"
				else
					say "$0: sourcing $f"
					# shellcheck disable=SC1090
					. "$f"
				fi
				;;
			*.sql)
				say "$0: running $f"
				init_psql --dbname "$POSTGRES_DB" -f "$f"
				say
				;;
			*.sql.gz)
				say "$0: running $f"
				gunzip -c "$f" | init_psql --dbname "$POSTGRES_DB"
				say
				;;
			*)
				say "$0: ignoring $f"
				;;
		esac
	done
}

main() {
	if [ "$#" -eq 0 ] || [ "${1:0:1}" = '-' ]; then
		set -- postgres "$@"
	fi
	if [ "$1" != postgres ] || wants_help_only "$@"; then
		exec "$@"
	fi

	: "${PGDATA:?PGDATA must be set}"
	load_file_var POSTGRES_PASSWORD
	load_file_var POSTGRES_USER postgres
	load_file_var POSTGRES_DB "$POSTGRES_USER"
	load_file_var POSTGRES_INITDB_ARGS
	: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
	export POSTGRES_HOST_AUTH_METHOD

	prepare_directories
	if [ "$(id -u)" = 0 ]; then
		# Step down from root and run this script again (gosu is not installed; setpriv is).
		export HOME=/var/lib/postgresql
		exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
	fi

	if [ -s "$PGDATA/PG_VERSION" ]; then
		say
		say 'PostgreSQL Database directory appears to contain a database; Skipping initialization'
		say
	else
		check_password_given
		check_old_layout
		# Fails early when the init scripts folder cannot be read (like the official entrypoint).
		ls /docker-entrypoint-initdb.d/ >/dev/null
		run_initdb
		allow_host_connections
		export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
		temp_server_start "${@:2}"
		create_database
		run_init_files
		temp_server_stop
		unset PGPASSWORD
		say
		say 'PostgreSQL init process complete; ready for start up.'
		say
	fi

	exec "$@"
}

main "$@"
