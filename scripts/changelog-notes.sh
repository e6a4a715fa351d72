#!/bin/sh
# changelog-notes.sh VERSION [CHANGELOG]: prints the body of VERSION's section of a Keep a
# Changelog file (https://keepachangelog.com/en/1.1.0/): the lines after `## [VERSION]` (with or
# without ` - DATE`) up to the next `## ` heading or the link references at the end, without
# leading and trailing blank lines. VERSION is `1.2.3` (a leading `v` is dropped) or `Unreleased`.
# Exits 1 with a message on stderr when the section is missing or empty.
# POSIX sh and awk only: the GitHub release workflow and the GitLab release job (an Alpine image)
# both run it.
set -eu
[ $# -ge 1 ] || { echo "usage: changelog-notes.sh VERSION [CHANGELOG]" >&2; exit 2; }
version=${1#v}
file=${2:-CHANGELOG.md}
[ -r "$file" ] || { echo "changelog-notes.sh: cannot read $file" >&2; exit 1; }
awk -v version="$version" '
  BEGIN { heading = "## [" version "]" }
  # The section starts at its heading: `## [1.2.3]` alone or followed by ` - 2026-11-21`.
  !found && (index($0, heading) == 1) {
    rest = substr($0, length(heading) + 1)
    if (rest == "" || rest ~ /^ - /) { found = 1; next }
  }
  found && /^## / { exit }
  # Link reference definitions (`[1.2.3]: https://…`) close the last section.
  found && /^\[[^]]+\]: / { exit }
  found {
    if ($0 ~ /^[[:space:]]*$/) { if (n) blank++; next }
    while (blank > 0) { lines[++n] = ""; blank-- }
    lines[++n] = $0
  }
  END {
    if (!found) { printf "CHANGELOG has no section ## [%s]\n", version > "/dev/stderr"; exit 1 }
    if (!n) { printf "CHANGELOG section ## [%s] is empty\n", version > "/dev/stderr"; exit 1 }
    for (i = 1; i <= n; i++) print lines[i]
  }
' "$file"
