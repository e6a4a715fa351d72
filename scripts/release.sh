#!/usr/bin/env bash
# The steps of .github/workflows/release.yml, one subcommand each, run on a `vX.Y.Z` tag:
#
#   release.sh check TAG          the tag is vX.Y.Z and names the version of package.json,
#                                 src/version.ts and a non-empty CHANGELOG.md section
#   release.sh notes TAG FILE     writes that CHANGELOG section to FILE (the release notes)
#   release.sh publish TAG FILE   creates the GitHub release TAG with FILE as its notes (gh);
#                                 marked latest only when TAG is the highest release
#   release.sh move-major TAG     points the major tag (v1 for v1.2.3) at TAG's commit: a plain
#                                 annotated tag, force-pushed; only when TAG is the highest vN.*.*
#                                 release, so a patch of an older minor does not move it back
#
# Release tags are never moved or rewritten; only the major tag is. Remote tags are read with
# `git ls-remote` (the checkout is shallow). Pushes authenticate with GITHUB_TOKEN through a
# per-command http.extraheader (git's GIT_CONFIG_* environment), so no credential is written
# into .git/config. Every network command has a deadline (RELEASE_TIMEOUT seconds, default 120).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deadline=${RELEASE_TIMEOUT:-120}

die() {
  echo "::error::$*" >&2
  exit 1
}


# highest_release MAJOR: the highest vMAJOR.y.z tag on origin (empty when there is none).
highest_release() {
  timeout "$deadline" git ls-remote --tags --refs origin "refs/tags/v$1.*" |
    sed -n 's|.*refs/tags/||p' |
    grep -E "^v$1\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$" |
    sort -t. -k2,2n -k3,3n | tail -n 1 || true
}

# git_auth: runs git with the token as an http.extraheader for this command only (when set).
git_auth() {
  if [ -n "${GITHUB_TOKEN:-}" ]; then
    local basic
    basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 -w0)
    echo "::add-mask::$basic"
    GIT_CONFIG_COUNT=1 \
      GIT_CONFIG_KEY_0="http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader" \
      GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $basic" \
      timeout "$deadline" git "$@"
  else
    timeout "$deadline" git "$@"
  fi
}

cmd=${1:-}
tag=${2:-}
[ -n "$cmd" ] && [ -n "$tag" ] || die "usage: release.sh check|notes|publish|move-major TAG [FILE]"
# vX.Y.Z, no leading zeros (semver.org); the major is X.
[[ $tag =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
  die "release tag '$tag' is not vMAJOR.MINOR.PATCH (e.g. v1.2.3): push a tag of that form"
major=${BASH_REMATCH[1]}
version=${tag#v}
cd "$here"

case $cmd in
  check)
    pkg=$(node -p 'require("./package.json").version')
    [ "$pkg" = "$version" ] || die "tag $tag but package.json says $pkg: run npm version $version --no-git-tag-version, tag again"
    grep -qx "export const VERSION = '$version';" src/version.ts ||
      die "tag $tag but src/version.ts does not say '$version': set it, npm run build, tag again"
    sh scripts/changelog-notes.sh "$version" >/dev/null 2>&1 ||
      die "CHANGELOG.md has no non-empty section ## [$version]: rename [Unreleased] to [$version] - $(date -u +%F), tag again"
    [ "$(git rev-parse HEAD)" = "$(git rev-parse "refs/tags/$tag^{commit}")" ] ||
      die "the checkout is not the commit of $tag"
    echo "release $tag: package.json, src/version.ts and CHANGELOG.md agree"
    ;;
  notes)
    file=${3:?release.sh notes TAG FILE}
    sh scripts/changelog-notes.sh "$version" >"$file"
    echo "release notes for $tag: $(wc -l <"$file") lines from CHANGELOG.md ## [$version]"
    ;;
  publish)
    file=${3:?release.sh publish TAG FILE}
    [ -s "$file" ] || die "release notes file $file is empty"
    latest=false
    top=$(timeout "$deadline" git ls-remote --tags --refs origin 'refs/tags/v*' |
      sed -n 's|.*refs/tags/||p' |
      grep -E '^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$' |
      sort -t. -k1.2,1n -k2,2n -k3,3n | tail -n 1 || true)
    [ "$top" = "$tag" ] && latest=true
    # --verify-tag: the tag must already exist on GitHub (it does: its push started this run);
    # gh never creates or moves a release tag.
    timeout "$deadline" gh release create "$tag" --verify-tag --title "$tag" --notes-file "$file" --latest="$latest"
    echo "release $tag created (latest: $latest)"
    ;;
  move-major)
    top=$(highest_release "$major")
    if [ "$top" != "$tag" ]; then
      echo "v$major stays where it is: the highest v$major release is ${top:-none}, not $tag"
      exit 0
    fi
    commit=$(git rev-parse "refs/tags/$tag^{commit}")
    git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
      tag --force --annotate "v$major" --message "v$major: $tag" "$commit"
    git_auth push --force origin "refs/tags/v$major"
    echo "v$major now points at $tag ($commit)"
    ;;
  *) die "unknown command '$cmd': check, notes, publish or move-major" ;;
esac
