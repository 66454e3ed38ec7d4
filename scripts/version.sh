#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print sroce's version, as a Debian version string: the packages'
# version and the DKMS PACKAGE_VERSION (Documentation/install.rst,
# "Versions").
#
#   VERSION          the release being worked towards, X.Y.Z
#   HEAD tagged vX.Y.Z (X.Y.Z = VERSION)          ->  X.Y.Z
#   any other commit                              ->  X.Y.Z~git<date>.<n>.<hash>
#       date: HEAD's commit date (UTC, YYYYMMDD); n: commits since the
#       last v* tag (all commits while there is none); hash: HEAD's
#       abbreviated hash.  "~" sorts a snapshot before the release it
#       leads to, n orders two snapshots of one day.
#   tracked files changed since HEAD              ->  "+dirty" appended
#   no git (an exported tree)                     ->  X.Y.Z
#
# After tagging vX.Y.Z, bump VERSION at once: a commit past the tag that
# still says X.Y.Z would sort before the release, so that is refused.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "version: $*" >&2; exit 1; }

base=$(tr -d '[:space:]' <"$top/VERSION")
[[ $base =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION is '$base', not X.Y.Z"

if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi

dirty=
git -C "$top" diff-index --quiet HEAD -- 2>/dev/null || dirty=+dirty

if git -C "$top" rev-parse -q --verify "refs/tags/v$base" >/dev/null; then
	[[ $(git -C "$top" rev-parse "v$base^{commit}") == $(git -C "$top" rev-parse HEAD) ]] ||
		die "v$base is tagged on another commit: bump VERSION past $base"
	echo "$base$dirty"
	exit 0
fi

last=$(git -C "$top" describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null) || last=
if [[ -n $last ]]; then
	n=$(git -C "$top" rev-list --count "$last..HEAD")
else
	n=$(git -C "$top" rev-list --count HEAD)
fi
date=$(TZ=UTC git -C "$top" log -1 --format=%cd --date=format-local:%Y%m%d)
hash=$(git -C "$top" rev-parse --short=7 HEAD)
echo "$base~git$date.$n.$hash$dirty"
