#!/usr/bin/env bash
# Builds the local PostgreSQL test images, without any container registry:
#   pg-tmpfs-test/postgres:15           PGDATA=/var/lib/postgresql/data       (official image <= 17)
#   pg-tmpfs-test/postgres:15-layout18  PGDATA=/var/lib/postgresql/15/docker  (official image >= 18)
# from one Debian bookworm root filesystem made by debootstrap (postgresql-15 from Debian), with
# our own docker-entrypoint.sh that follows the official image's documented contract.
#
# Idempotent: an image is skipped when `docker image inspect` finds it and it was built from the
# current build.sh + docker-entrypoint.sh (label pg-tmpfs-test.inputs). FORCE_REBUILD=1 rebuilds.
# Only the pg-tmpfs-test/* tags are created or replaced.
#
# Optional environment:
#   FORCE_REBUILD=1            rebuild both images even when they are current
#   PG_TMPFS_ROOTFS_CACHE=DIR  keep the debootstrap output in DIR and reuse it on later runs
#                              (default: a temporary directory under /var/tmp, removed on exit)
#   PG_TMPFS_DEBIAN_MIRROR=URL Debian mirror (default: the first non-security `URIs:` value of
#                              /etc/apt/sources.list.d/debian.sources)
# Needs: docker, debootstrap, root (or sudo) for debootstrap/chroot/tar.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PG_MAJOR=15
SUITE=bookworm
REPO=pg-tmpfs-test/postgres
IMAGES=("$REPO:$PG_MAJOR" "$REPO:$PG_MAJOR-layout18")
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

pgdata_of() {
	case "$1" in
		*-layout18) printf '/var/lib/postgresql/%s/docker' "$PG_MAJOR" ;;
		*) printf '/var/lib/postgresql/data' ;;
	esac
}

volume_of() {
	case "$1" in
		*-layout18) printf '/var/lib/postgresql' ;;
		*) printf '/var/lib/postgresql/data' ;;
	esac
}

t_start=$(now)
command -v docker >/dev/null 2>&1 || die "docker not found"
docker info >/dev/null 2>&1 || die "the docker engine does not answer (docker info)"

# A hash of everything an image is made from, so that edits cause a rebuild.
inputs=$(cat "$here/build.sh" "$here/docker-entrypoint.sh" | sha256sum | cut -c1-16)

todo=()
for image in "${IMAGES[@]}"; do
	current=$(docker image inspect -f "{{ index .Config.Labels \"$INPUTS_LABEL\" }}" "$image" 2>/dev/null || true)
	if [ "${FORCE_REBUILD:-0}" = 1 ]; then
		todo+=("$image")
	elif [ -z "$current" ]; then
		todo+=("$image")
	elif [ "$current" != "$inputs" ]; then
		log "$image was built from other inputs ($current, now $inputs): rebuilding"
		todo+=("$image")
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

# --- root filesystem --------------------------------------------------------------------------------
stamp_wanted="debootstrap --variant=minbase --include=postgresql-$PG_MAJOR,locales $SUITE"
rootfs_is_temp=0
if [ -n "${PG_TMPFS_ROOTFS_CACHE:-}" ]; then
	rootfs=$PG_TMPFS_ROOTFS_CACHE
	as_root mkdir -p "$rootfs"
else
	rootfs=$(as_root mktemp -d /var/tmp/pg-tmpfs-rootfs.XXXXXX)
	rootfs_is_temp=1
fi
rootfs=$(as_root realpath "$rootfs")
[ "$rootfs" != / ] || die "refusing to use / as the root filesystem directory"
logfile=$(mktemp /tmp/pg-tmpfs-debootstrap.XXXXXX.log)

unmount_below() {
	# debootstrap mounts /proc and /sys inside the target; make sure nothing is left mounted.
	local m
	awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
		while IFS= read -r m; do
			as_root umount -l "$m" || true
		done
}

cleanup() {
	local rc=$?
	if [ -n "${rootfs:-}" ] && [ -d "$rootfs" ]; then
		unmount_below "$rootfs"
		if [ "$rootfs_is_temp" = 1 ]; then
			as_root rm -rf --one-file-system "$rootfs"
		fi
	fi
	if [ "$rc" = 0 ]; then
		rm -f "$logfile"
	else
		log "failed; debootstrap output: $logfile"
	fi
}
trap cleanup EXIT

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
	log "debootstrap $SUITE (minbase + postgresql-$PG_MAJOR, locales) from $mirror into $rootfs"
	t=$(now)
	if ! as_root "$debootstrap_bin" --variant=minbase --include="postgresql-$PG_MAJOR,locales" \
		"$SUITE" "$rootfs" "$mirror" >"$logfile" 2>&1; then
		tail -n 30 "$logfile" >&2
		die "debootstrap failed"
	fi
	printf '%s\n' "$stamp_wanted" | as_root tee "$rootfs/.pg-tmpfs-rootfs-ok" >/dev/null
	log "debootstrap done ($(since "$t"))"
fi

# Everything inside the root filesystem happens through chroot: absolute symlinks there (such as
# /var/run -> /run) must not resolve on the host. Each step is idempotent (cached rootfs).
log "configuring the root filesystem like the official image"
t=$(now)
as_root install -m 0755 "$here/docker-entrypoint.sh" "$rootfs/usr/local/bin/docker-entrypoint.sh"
as_root chroot "$rootfs" /bin/bash -euo pipefail -s "$PG_MAJOR" <<'CHROOT'
PG_MAJOR=$1
export LC_ALL=C

# en_US.UTF-8, so that initdb makes UTF8 databases (LANG=en_US.utf8 in the image).
grep -qx 'en_US.UTF-8 UTF-8' /etc/locale.gen || echo 'en_US.UTF-8 UTF-8' >> /etc/locale.gen
# (no grep -q after a pipe: with pipefail an early exit could fail the writer with SIGPIPE)
locale -a | grep -x 'en_US.utf8' >/dev/null || locale-gen >/dev/null
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
# PGDATA of the "up to 17" layout; left out of the layout18 image when importing.
install -d -o postgres -g postgres -m 1777 /var/lib/postgresql/data
mkdir -p /docker-entrypoint-initdb.d

# Smaller image, no host data in it.
rm -rf /var/cache/apt/archives/*.deb /var/lib/apt/lists/* /var/log/*.log
: > /etc/resolv.conf
: > /etc/hostname
CHROOT
# shellcheck disable=SC2016 # ${Version} is a dpkg-query field, not a shell expansion
pg_version=$(as_root chroot "$rootfs" dpkg-query -W -f '${Version}' "postgresql-$PG_MAJOR")
log "configured ($(since "$t")); postgresql-$PG_MAJOR $pg_version"

# --- images -------------------------------------------------------------------------------------
for image in "${todo[@]}"; do
	t=$(now)
	pgdata=$(pgdata_of "$image")
	volume=$(volume_of "$image")
	excludes=('--exclude=./dev/*' '--exclude=./proc/*' '--exclude=./sys/*'
		'--exclude=./.pg-tmpfs-rootfs' '--exclude=./.pg-tmpfs-rootfs-ok')
	case "$image" in
		*-layout18) excludes+=('--exclude=./var/lib/postgresql/data') ;;
	esac
	old_id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
	log "importing $image (PGDATA=$pgdata, VOLUME $volume)"
	# Imported untagged; the tag moves only once, to the finished image.
	imported=$(as_root tar --numeric-owner "${excludes[@]}" -C "$rootfs" -c . |
		docker import \
			-c "ENV PATH=$BASE_PATH:/usr/lib/postgresql/$PG_MAJOR/bin" \
			-c "ENV PG_MAJOR=$PG_MAJOR" \
			-c "ENV PG_VERSION=$pg_version" \
			-c "ENV LANG=en_US.utf8" \
			-c "ENV PGDATA=$pgdata" \
			-c "VOLUME $volume" \
			-c 'ENTRYPOINT ["docker-entrypoint.sh"]' \
			-c 'CMD ["postgres"]' \
			-c 'EXPOSE 5432' \
			-c "LABEL $INPUTS_LABEL=$inputs" \
			-m "pg-tmpfs-action test image (Debian $SUITE, postgresql-$PG_MAJOR $pg_version)" \
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
done
log "done in $(since "$t_start")"
