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
# `git ls-remote` (the checkout is shallow); a failed read fails the step. git authenticates with
# GITHUB_TOKEN (or GH_TOKEN) through a per-command http.extraheader (git's GIT_CONFIG_*
# environment), so no credential is written into .git/config. A re-run is safe: an existing
# release is left as it is, and the major tag is set again. Every network command has a deadline
# (RELEASE_TIMEOUT seconds, default 120).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deadline=${RELEASE_TIMEOUT:-120}

die() {
  echo "::error::$*" >&2
  exit 1
}


# git_auth ARGS: runs git with the token (GITHUB_TOKEN, else GH_TOKEN) as an http.extraheader
# for this command only, added after any GIT_CONFIG_* entries already in the environment.
git_auth() {
  local token=${GITHUB_TOKEN:-${GH_TOKEN:-}}
  if [ -n "$token" ]; then
    local basic n=${GIT_CONFIG_COUNT:-0}
    basic=$(printf 'x-access-token:%s' "$token" | base64 -w0)
    echo "::add-mask::$basic"
    env GIT_CONFIG_COUNT=$((n + 1)) \
      "GIT_CONFIG_KEY_$n=http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader" \
      "GIT_CONFIG_VALUE_$n=AUTHORIZATION: basic $basic" \
      timeout "$deadline" git "$@"
  else
    timeout "$deadline" git "$@"
  fi
}

# release_tags [MAJOR]: origin's vX.Y.Z tags (of one major when given), lowest first. Fails when
# origin cannot be read, and when it lacks the tag being released (the tag push started this run).
release_tags() {
  local refs tags
  refs=$(git_auth ls-remote --tags --refs origin "refs/tags/v${1:-}*") ||
    die "cannot list the tags of origin (git ls-remote failed or took over ${deadline} s)"
  tags=$(sed -n 's|.*refs/tags/||p' <<<"$refs" |
    { grep -E "^v${1:-(0|[1-9][0-9]*)}\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$" || true; } |
    sort -t. -k1.2,1n -k2,2n -k3,3n)
  grep -qxF "$tag" <<<"$tags" || die "origin has no tag $tag: push it first (git push origin $tag)"
  printf '%s\n' "$tags"
}

cmd=${1:-}
tag=${2:-}
if [ -z "$cmd" ] || [ -z "$tag" ]; then die "usage: release.sh check|notes|publish|move-major TAG [FILE]"; fi
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
    grep -qxF "export const VERSION = '$version';" src/version.ts ||
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
    # A re-run (say, after the major tag's push failed) finds the release made: left as it is.
    if timeout "$deadline" gh release view "$tag" --json tagName >/dev/null 2>&1; then
      echo "release $tag exists already: left as it is"
      exit 0
    fi
    top=$(release_tags | tail -n 1)
    latest=false
    [ "$top" = "$tag" ] && latest=true
    # --verify-tag: the tag must already exist on GitHub (it does: its push started this run);
    # gh never creates or moves a release tag.
    timeout "$deadline" gh release create "$tag" --verify-tag --title "$tag" --notes-file "$file" --latest="$latest"
    echo "release $tag created (latest: $latest)"
    ;;
  move-major)
    top=$(release_tags "$major" | tail -n 1)
    if [ "$top" != "$tag" ]; then
      echo "v$major stays where it is: the highest v$major release is $top, not $tag"
      exit 0
    fi
    commit=$(git rev-parse "refs/tags/$tag^{commit}")
    git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
      tag --force --annotate "v$major" --message "v$major: $tag" "$commit"
    # GitHub refuses (GH013) a ref update by GITHUB_TOKEN to a commit whose .github/workflows
    # differ from the default branch's: release from a commit on main whose workflows are current.
    git_auth push --force origin "refs/tags/v$major" ||
      die "pushing v$major failed; if GitHub refused it for the workflows permission (GH013), tag a commit whose .github/workflows match main's, or push v$major by hand: git tag -fa v$major -m 'v$major: $tag' $tag^{} && git push -f origin v$major"
    echo "v$major now points at $tag ($commit)"
    ;;
  *) die "unknown command '$cmd': check, notes, publish or move-major" ;;
esac
