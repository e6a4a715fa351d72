#!/usr/bin/env bash
# Builds the local PostgreSQL test images, without any container registry, one per real major,
# each with the official image's layout for that major:
#   pg-tmpfs-test/postgres:15  Debian bookworm  PGDATA=/var/lib/postgresql/data       VOLUME the same
#   pg-tmpfs-test/postgres:17  Debian trixie    PGDATA=/var/lib/postgresql/data       VOLUME the same
#   pg-tmpfs-test/postgres:18  Debian forky     PGDATA=/var/lib/postgresql/18/docker  VOLUME /var/lib/postgresql
# each from a Debian root filesystem made by debootstrap (postgresql-<major> from Debian), with
# our own docker-entrypoint.sh that follows the official image's contract (18+ checks included).
#
# Idempotent: an image is skipped when `docker image inspect` finds it and it was built from the
# current build.sh + docker-entrypoint.sh (label pg-tmpfs-test.inputs). FORCE_REBUILD=1 rebuilds.
# Only the pg-tmpfs-test/* tags are created or replaced.
#
# Usage: build.sh [MAJOR ...]   (default: every major above)
#
# Optional environment:
#   FORCE_REBUILD=1            rebuild the images even when they are current
#   PG_TMPFS_ROOTFS_CACHE=DIR  keep the debootstrap output in DIR/<major> and reuse it on later
#                              runs (default: temporary directories under /var/tmp, removed on exit)
#   PG_TMPFS_DEBIAN_MIRROR=URL Debian mirror (default: the first non-security `URIs:` value of
#                              /etc/apt/sources.list.d/debian.sources)
# Needs: docker, debootstrap, root (or sudo) for debootstrap/chroot/tar.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=pg-tmpfs-test/postgres
ALL_MAJORS=(15 17 18)
INPUTS_LABEL=pg-tmpfs-test.inputs
BASE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { printf '[images] %s\n' "$*"; }
die() { printf '[images] error: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# The Debian suite that carries postgresql-<major>, and the debootstrap script for it
# (bookworm's debootstrap has no script for forky: sid's works).
suite_of() {
	case "$1" in
		15) printf 'bookworm' ;;
		17) printf 'trixie' ;;
		18) printf 'forky' ;;
		*) die "no Debian suite known for PostgreSQL $1" ;;
	esac
}
script_of() {
	case "$1" in
		18) printf '/usr/share/debootstrap/scripts/sid' ;;
		*) printf '' ;;
	esac
}

# The official image's layout (docker-library/postgres Dockerfiles): up to 17 PGDATA and VOLUME
# are /var/lib/postgresql/data; from 18 PGDATA is /var/lib/postgresql/<major>/docker and the
# VOLUME is /var/lib/postgresql.
pgdata_of() {
	if [ "$1" -ge 18 ]; then printf '/var/lib/postgresql/%s/docker' "$1"; else printf '/var/lib/postgresql/data'; fi
}
volume_of() {
	if [ "$1" -ge 18 ]; then printf '/var/lib/postgresql'; else printf '/var/lib/postgresql/data'; fi
}

t_start=$(now)
command -v docker >/dev/null 2>&1 || die "docker not found"
docker info >/dev/null 2>&1 || die "the docker engine does not answer (docker info)"

# A hash of everything an image is made from, so that edits cause a rebuild.
inputs=$(cat "$here/build.sh" "$here/docker-entrypoint.sh" | sha256sum | cut -c1-16)

majors=("$@")
[ "${#majors[@]}" -gt 0 ] || majors=("${ALL_MAJORS[@]}")
todo=()
for major in "${majors[@]}"; do
	image="$REPO:$major"
	current=$(docker image inspect -f "{{ index .Config.Labels \"$INPUTS_LABEL\" }}" "$image" 2>/dev/null || true)
	if [ "${FORCE_REBUILD:-0}" = 1 ]; then
		todo+=("$major")
	elif [ -z "$current" ]; then
		todo+=("$major")
	elif [ "$current" != "$inputs" ]; then
		log "$image was built from other inputs ($current, now $inputs): rebuilding"
		todo+=("$major")
	else
		log "$image present: skipping"
	fi
done
if [ "${#todo[@]}" -eq 0 ]; then
	log "nothing to build ($(since "$t_start"))"
	exit 0
fi

# --- prerequisites --------------------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || die "run as root (debootstrap and chroot need it) or install sudo"
	log "not root: using sudo for debootstrap, chroot and tar"
fi
debootstrap_bin=$(PATH="$PATH:/usr/sbin:/sbin" command -v debootstrap || true)
[ -n "$debootstrap_bin" ] || die "debootstrap not found (apt-get install debootstrap)"

mirror=${PG_TMPFS_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	sources=/etc/apt/sources.list.d/debian.sources
	[ -r "$sources" ] || die "cannot read $sources; set PG_TMPFS_DEBIAN_MIRROR to a Debian mirror URL"
	mirror=$(awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$sources")
	[ -n "$mirror" ] || die "no URIs: line in $sources; set PG_TMPFS_DEBIAN_MIRROR"
fi

# --- root filesystems and images, one per major ----------------------------------------------------
logfile=$(mktemp /tmp/pg-tmpfs-debootstrap.XXXXXX.log)
temp_rootfs=()

unmount_below() {
	# debootstrap mounts /proc and /sys inside the target; make sure nothing is left mounted.
	local m
	awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
		while IFS= read -r m; do
			as_root umount -l "$m" || true
		done
}

cleanup() {
	local rc=$? dir
	# A cached root filesystem (PG_TMPFS_ROOTFS_CACHE) is kept, but never left with mounts in it.
	if [ -n "${rootfs:-}" ] && [ -d "$rootfs" ]; then unmount_below "$rootfs"; fi
	for dir in "${temp_rootfs[@]}"; do
		if [ -d "$dir" ]; then
			unmount_below "$dir"
			as_root rm -rf --one-file-system "$dir"
		fi
	done
	if [ "$rc" = 0 ]; then
		rm -f "$logfile"
	else
		log "failed; debootstrap output: $logfile"
	fi
}
trap cleanup EXIT
rootfs=''

# Makes (or reuses) the root filesystem of PostgreSQL $1 and sets $rootfs to its path (a global,
# not printed: a command substitution's subshell would lose the temp_rootfs entry for cleanup).
make_rootfs() {
	local major=$1 suite script stamp_wanted t
	suite=$(suite_of "$major")
	script=$(script_of "$major")
	stamp_wanted="debootstrap --variant=minbase --include=postgresql-$major,locales $suite $script"
	if [ -n "${PG_TMPFS_ROOTFS_CACHE:-}" ]; then
		rootfs=$PG_TMPFS_ROOTFS_CACHE/$major
		as_root mkdir -p "$rootfs"
	else
		rootfs=$(as_root mktemp -d /var/tmp/pg-tmpfs-rootfs.XXXXXX)
		temp_rootfs+=("$rootfs")
	fi
	rootfs=$(as_root realpath "$rootfs")
	[ "$rootfs" != / ] || die "refusing to use / as the root filesystem directory"
	if as_root test -f "$rootfs/.pg-tmpfs-rootfs-ok" &&
		[ "$(as_root cat "$rootfs/.pg-tmpfs-rootfs-ok")" = "$stamp_wanted" ]; then
		log "reusing cached root filesystem $rootfs"
	else
		if [ -n "$(as_root ls -A "$rootfs")" ]; then
			# Only ever wipe a directory that we started filling ourselves.
			as_root test -f "$rootfs/.pg-tmpfs-rootfs" ||
				die "$rootfs is not empty and was not made by this script; refusing to use it"
			log "discarding the incomplete or outdated root filesystem in $rootfs"
			unmount_below "$rootfs"
			as_root find "$rootfs" -xdev -mindepth 1 -delete
		fi
		as_root touch "$rootfs/.pg-tmpfs-rootfs"
		log "debootstrap $suite (minbase + postgresql-$major, locales) from $mirror into $rootfs"
		t=$(now)
		# shellcheck disable=SC2086 # $script is empty or one path
		if ! as_root "$debootstrap_bin" --variant=minbase --include="postgresql-$major,locales" \
			"$suite" "$rootfs" "$mirror" $script >"$logfile" 2>&1; then
			tail -n 30 "$logfile" >&2
			die "debootstrap of $suite failed"
		fi
		printf '%s\n' "$stamp_wanted" | as_root tee "$rootfs/.pg-tmpfs-rootfs-ok" >/dev/null
		log "debootstrap $suite done ($(since "$t"))"
	fi
}

# Everything inside the root filesystem happens through chroot: absolute symlinks there (such as
# /var/run -> /run) must not resolve on the host. Each step is idempotent (cached rootfs).
configure_rootfs() {
	local rootfs=$1 major=$2
	as_root install -m 0755 "$here/docker-entrypoint.sh" "$rootfs/usr/local/bin/docker-entrypoint.sh"
	as_root chroot "$rootfs" /bin/bash -euo pipefail -s "$major" <<'CHROOT'
PG_MAJOR=$1
export LC_ALL=C

# en_US.UTF-8, so that initdb makes UTF8 databases (LANG=en_US.utf8 in the image). localedef
# directly: trixie and forky roots have no /usr/share/locale/locale.alias for locale-gen's -A.
# (no grep -q after a pipe: with pipefail an early exit could fail the writer with SIGPIPE)
locale -a | grep -x 'en_US.utf8' >/dev/null || localedef -i en_US -c -f UTF-8 en_US.UTF-8
locale -a | grep -x 'en_US.utf8' >/dev/null

# The official image's postgres user and group are 999:999 (matters for bind mounts).
old_uid=$(id -u postgres)
old_gid=$(getent group postgres | cut -d: -f3)
if [ "$old_uid" != 999 ] && ! getent passwd 999 >/dev/null; then
	usermod -u 999 postgres
	find / -xdev -uid "$old_uid" -exec chown -h 999 {} +
fi
if [ "$old_gid" != 999 ] && ! getent group 999 >/dev/null; then
	groupmod -g 999 postgres
	find / -xdev -gid "$old_gid" -exec chgrp -h 999 {} +
fi

# No cluster in the image: Debian's package made one, the official image makes none.
rm -rf "/var/lib/postgresql/$PG_MAJOR" "/etc/postgresql/$PG_MAJOR"
sed -ri 's/^#?\s*(create_main_cluster)\s*=.*$/\1 = false/' /etc/postgresql-common/createcluster.conf

# initdb copies this sample into PGDATA: listen on all addresses, like the official image.
sample=/usr/share/postgresql/$PG_MAJOR/postgresql.conf.sample
sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$sample"
grep -qF "listen_addresses = '*'" "$sample"

install -d -o postgres -g postgres -m 3777 /var/run/postgresql
install -d -o postgres -g postgres -m 1777 /var/lib/postgresql
# PGDATA of the "up to 17" layout (the 18+ images leave it out, like the official 18 image).
if [ "$PG_MAJOR" -lt 18 ]; then
	install -d -o postgres -g postgres -m 1777 /var/lib/postgresql/data
else
	rm -rf /var/lib/postgresql/data
fi
mkdir -p /docker-entrypoint-initdb.d
command -v mountpoint >/dev/null # the 18+ entrypoint check needs it (util-linux)

# Smaller image, no host data in it.
rm -rf /var/cache/apt/archives/*.deb /var/lib/apt/lists/* /var/log/*.log
: > /etc/resolv.conf
: > /etc/hostname
CHROOT
}

build_major() {
	local major=$1 image="$REPO:$1" pg_version pgdata volume t old_id imported stopsignal new_id
	t=$(now)
	make_rootfs "$major"
	configure_rootfs "$rootfs" "$major"
	# shellcheck disable=SC2016 # ${Version} is a dpkg-query field, not a shell expansion
	pg_version=$(as_root chroot "$rootfs" dpkg-query -W -f '${Version}' "postgresql-$major")
	pgdata=$(pgdata_of "$major")
	volume=$(volume_of "$major")
	old_id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
	log "importing $image (postgresql-$major $pg_version, PGDATA=$pgdata, VOLUME $volume)"
	# Imported untagged; the tag moves only once, to the finished image.
	imported=$(as_root tar --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
		--exclude='./.pg-tmpfs-rootfs' --exclude='./.pg-tmpfs-rootfs-ok' -C "$rootfs" -c . |
		docker import \
			-c "ENV PATH=$BASE_PATH:/usr/lib/postgresql/$major/bin" \
			-c "ENV PG_MAJOR=$major" \
			-c "ENV PG_VERSION=$pg_version" \
			-c "ENV LANG=en_US.utf8" \
			-c "ENV PGDATA=$pgdata" \
			-c "VOLUME $volume" \
			-c 'ENTRYPOINT ["docker-entrypoint.sh"]' \
			-c 'CMD ["postgres"]' \
			-c 'EXPOSE 5432' \
			-c "LABEL $INPUTS_LABEL=$inputs" \
			-m "pg-tmpfs-action test image (Debian $(suite_of "$major"), postgresql-$major $pg_version)" \
			-)
	# `docker import` cannot set STOPSIGNAL; the official image stops with SIGINT (fast shutdown).
	# Add it with a one-line build (classic builder: FROM a local image ID, nothing pulled); if
	# that builder is unavailable, tag the plain import instead.
	if printf 'FROM %s\nSTOPSIGNAL SIGINT\n' "$imported" |
		DOCKER_BUILDKIT=0 docker build --quiet --tag "$image" - >/dev/null 2>"$logfile.build"; then
		stopsignal=SIGINT
	else
		log "warning: could not add STOPSIGNAL SIGINT ($(tail -n 1 "$logfile.build")); docker stop will send SIGTERM"
		docker tag "$imported" "$image"
		stopsignal=SIGTERM
	fi
	rm -f "$logfile.build"
	new_id=$(docker image inspect -f '{{.Id}}' "$image")
	if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ] &&
		[ "$(docker image inspect -f '{{len .RepoTags}}' "$old_id" 2>/dev/null)" = 0 ]; then
		# The previous build of this tag, now untagged; kept if another tag or a container uses it.
		docker image rm "$old_id" >/dev/null 2>&1 || true
	fi
	log "built $image ${new_id:7:12} (import ${imported:7:12}, stop signal $stopsignal) in $(since "$t")"
}

for major in "${todo[@]}"; do
	build_major "$major"
done
log "done in $(since "$t_start")"
