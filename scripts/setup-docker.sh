# shellcheck shell=bash disable=SC2154
# (SC2154: $here and ENGINE29_VERSION belong to the sourcing script.)
# Sections 1 and 8 of scripts/setup-test-infra.sh, sourced by it (uses its log, need_root and
# apt_install): the Docker engines.

# setup_docker_engine: section 1, a Docker engine that answers `docker info` (Debian's docker.io,
# started without systemd), with its default bridge in place.
setup_docker_engine() {
  if docker info >/dev/null 2>&1; then
    log "docker engine answers: skipping"
  else
    if ! command -v dockerd >/dev/null 2>&1; then
      log "installing docker.io from Debian"
      apt_install docker.io
    fi
    if ! docker info >/dev/null 2>&1; then
      need_root "start dockerd"
      log "starting dockerd (log: /tmp/dockerd.log)"
      # A session of its own (setsid): the engine outlives the shell, job or process group that
      # ran this script, and a signal to that group does not stop it.
      setsid nohup dockerd >/tmp/dockerd.log 2>&1 </dev/null &
      for _ in $(seq 1 120); do
        docker info >/dev/null 2>&1 && break
        sleep 0.5
      done
      docker info >/dev/null 2>&1 || { log "dockerd did not answer; see /tmp/dockerd.log" >&2; tail -20 /tmp/dockerd.log >&2; exit 1; }
    fi
    log "docker engine: $(docker version --format '{{.Server.Version}}')"
  fi
  # Its default bridge must exist: a second engine started on the same machine with its old network
  # state (or --bridge=none) deletes docker0 under the running first one, and every container start
  # fails after that. Checked where the engine runs on this machine (its name is this host's: not
  # Docker Desktop's VM), where the bridge is one of this machine's interfaces.
  bridge=$(timeout 30 docker network inspect bridge --format '{{index .Options "com.docker.network.bridge.name"}}' 2>/dev/null || true)
  if [ "$(timeout 30 docker info --format '{{.Name}}' 2>/dev/null)" = "$(uname -n)" ] && [ -n "$bridge" ] && command -v ip >/dev/null 2>&1 && ! ip link show "$bridge" >/dev/null 2>&1; then
    log "the docker engine's bridge $bridge is gone (another engine deleted it): restart the engine (stop dockerd, then run this again)" >&2
    exit 1
  fi
}

# setup_engine29: section 8, the second engine: Docker 29 (moby v2), containerd image store.
# tests/e2e/engine29.test.ts runs the Docker paths on it with DOCKER_HOST=unix://$e29_run/docker.sock
# (tests/helpers/infra.ts engine29Host). Beside the first engine, touching none of its things: its
# own data and exec roots, its own containerd (Debian's binary, started by it), a bridge of its own
# (made here: with --bridge=none it would delete the first engine's docker0) and its own addresses
# (10.228.0.0/15); no iptables (the first engine's chains stay as they are), so published ports go
# through this release's docker-proxy, and one rule lets its containers reach each other across
# the first engine's FORWARD policy (DROP), as a `container:` job's network needs. Debian's runc
# (1.1) knows no time namespace, which this engine gives each container by default: its feature
# flag turns that off. The oldest API it accepts is raised to the runners' (1.44), so a client
# that speaks an older one fails here as it would there.
e29_bin=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/engine29/bin
e29_run=/run/pg-tmpfs-engine29
e29() { DOCKER_HOST=unix://$e29_run/docker.sock timeout 60 docker "$@"; }
# start_engine29: builds (when not the pinned version) and starts the engine, unless it answers
# (a running one is kept, also after a version change: stop it to move on; one that accepts another
# oldest API than this script chooses is restarted) or this is no root on Linux.
start_engine29() {
  # The runners' oldest API (1.44), unless the docker CLI here is older (Debian 12's own speaks
  # 1.41). The CLI's own API is read with no engine to talk to: against one it prints the version
  # it negotiated (1.41 with the first engine, 20.10).
  local min_api=1.44 cli_api running_min
  cli_api=$(DOCKER_HOST=unix:///nonexistent/docker.sock timeout 30 docker version --format '{{.Client.APIVersion}}' 2>/dev/null || true)
  if [ -n "$cli_api" ] && [ "$(printf '%s\n' "$cli_api" 1.44 | sort -V | head -1)" != 1.44 ]; then
    log "the docker CLI speaks API $cli_api: engine 29 accepts it (a runner's would not)"
    min_api=$cli_api
  fi
  if e29 info >/dev/null 2>&1; then
    running_min=$(e29 version --format '{{.Server.MinAPIVersion}}' 2>/dev/null || true)
    if [ "$running_min" = "$min_api" ]; then
      log "engine 29 answers ($e29_run/docker.sock): skipping"
      return 0
    fi
    # An engine started before with another oldest API (an earlier setup's choice) is restarted.
    log "engine 29 accepts API $running_min and up, not $min_api: restarting it"
    local pid
    pid=$(cat "$e29_run/docker.pid" 2>/dev/null || true)
    if [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      kill -0 "$pid" 2>/dev/null && { log "engine 29 (pid $pid) did not stop in 30 s" >&2; exit 1; }
    fi
  fi
  if [ "$(id -u)" -ne 0 ] || [ "$(uname -s)" != Linux ]; then
    log "engine 29 needs root on Linux: not started (tests/e2e/engine29.test.ts skips, and fails under CI=true)"
    return 0
  fi
  # The version goes into the binary (else `docker version` says "library-import"); go version -m reads it back.
  local stamp="github.com/moby/moby/v2/dockerversion.Version=$ENGINE29_VERSION"
  if go version -m "$e29_bin/dockerd" 2>/dev/null | grep -qF "$stamp" && [ -x "$e29_bin/docker-proxy" ]; then
    log "dockerd $ENGINE29_VERSION present ($e29_bin): skipping"
  else
    log "building dockerd and docker-proxy $ENGINE29_VERSION with go install (about 6 minutes)"
    mkdir -p "$e29_bin"
    GOFLAGS='' GOBIN=$e29_bin timeout 1800 go install -ldflags="-X $stamp" \
      "github.com/moby/moby/v2/cmd/dockerd@$ENGINE29_VERSION" "github.com/moby/moby/v2/cmd/docker-proxy@$ENGINE29_VERSION"
  fi
  mkdir -p "$e29_run"
  if ! ip link show pgt29br0 >/dev/null 2>&1; then
    ip link add pgt29br0 type bridge
    ip addr add 10.228.0.1/24 dev pgt29br0
    ip link set pgt29br0 up
  fi
  local forward=(FORWARD -s 10.228.0.0/15 -d 10.228.0.0/15 -j ACCEPT) docker0=no
  iptables -C "${forward[@]}" 2>/dev/null || iptables -I "${forward[@]}"
  # A start that finds its default network from an earlier run deletes the interface docker0 (moby
  # v2 daemon_unix.go, with --default-address-pool): the first engine's bridge. That network state
  # is stale when the engine is not running, so it goes first; and docker0 is checked after.
  # An engine that runs but does not answer (slow, or refusing this client) is not started twice.
  if [ -s "$e29_run/docker.pid" ] && kill -0 "$(cat "$e29_run/docker.pid")" 2>/dev/null; then
    log "engine 29 runs (pid $(cat "$e29_run/docker.pid")) but does not answer; see /tmp/dockerd-engine29.log" >&2
    exit 1
  fi
  rm -rf /var/lib/pg-tmpfs-engine29/network
  ip link show docker0 >/dev/null 2>&1 && docker0=yes
  log "starting engine 29 (log: /tmp/dockerd-engine29.log)"
  DOCKER_MIN_API_VERSION=$min_api setsid nohup "$e29_bin/dockerd" --config-file /dev/null \
    --data-root /var/lib/pg-tmpfs-engine29 --exec-root "$e29_run/exec" --pidfile "$e29_run/docker.pid" \
    -H "unix://$e29_run/docker.sock" --feature containerd-snapshotter=true --feature time-namespaces=false \
    --bridge pgt29br0 --default-address-pool base=10.229.0.0/16,size=24 --iptables=false --ip6tables=false \
    --userland-proxy-path "$e29_bin/docker-proxy" >/tmp/dockerd-engine29.log 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    e29 info >/dev/null 2>&1 && break
    sleep 0.5
  done
  e29 info >/dev/null 2>&1 || { log "engine 29 did not answer; see /tmp/dockerd-engine29.log" >&2; tail -20 /tmp/dockerd-engine29.log >&2; exit 1; }
  if [ "$docker0" = yes ] && ! ip link show docker0 >/dev/null 2>&1; then
    log "engine 29 removed the first engine's docker0: restart the first engine" >&2
    exit 1
  fi
}

setup_engine29() {
  start_engine29
  if e29 info >/dev/null 2>&1; then
    log "engine 29: $(e29 version --format '{{.Server.Version}} (API {{.Server.MinAPIVersion}} to {{.Server.APIVersion}})'), $(e29 info --format '{{.Driver}} {{json .DriverStatus}}')"
    # A copy is current when it was made from the first engine's image: same creation time (the image
    # IDs differ between the stores: config digest there, manifest digest here). A rebuilt image
    # replaces its old copy.
    for image in pg-tmpfs-test/postgres:15 pg-tmpfs-test/postgres:17 pg-tmpfs-test/postgres:18; do
      created=$(timeout 60 docker image inspect --format '{{.Created}}' "$image")
      [ "$(e29 image inspect --format '{{.Created}}' "$image" 2>/dev/null)" = "$created" ] && continue
      log "copying $image into engine 29"
      timeout 600 docker save "$image" | DOCKER_HOST=unix://$e29_run/docker.sock timeout 600 docker load --quiet >/dev/null
    done
  fi

}
