#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Map a short kernel name (5.10, 6.1, 6.12, 7.3) to the full release, the
# newest one if several are there.  6.1 and 6.12 are Debian 12's, installed
# under /lib/modules.  5.10 (Debian 11) and 7.3 (Debian 13's backports)
# build in a root of their own release (scripts/kroot.sh): found by their
# headers there, or, once installed for the guests, under /lib/modules.
# A full release string is passed through unchanged.
#
#   kver.sh SHORT             the release
#   kver.sh --dist SHORT      the root's Debian release (empty: the host's)
#   kver.sh --pattern SHORT   the glob its releases match
set -eu
roots=${SROCE_ROOTS:-/var/cache/sroce/roots}
mode=release
case "${1:-}" in
--dist | --pattern) mode=${1#--}; shift ;;
esac
short=${1:?usage: kver.sh [--dist|--pattern] 5.10|6.1|6.12|7.3|FULL-RELEASE}
dist=
case "$short" in
5.10) pat='5.10.0-[0-9]*-amd64' dist=bullseye ;;
6.1)  pat='6.1.[0-9]*-amd64' ;;
6.12) pat='6.12.[0-9]*-amd64' ;;
7.3)  pat='7.3.[0-9]*-amd64' dist=trixie ;;
*)    [ "$mode" = release ] && echo "$short"; exit 0 ;;
esac
case $mode in
dist) echo "$dist"; exit 0 ;;
pattern) echo "$pat"; exit 0 ;;
esac
candidates() {
	ls -d /lib/modules/$pat 2>/dev/null || :
	[ -z "$dist" ] || ls -d "$roots/$dist"/lib/modules/$pat 2>/dev/null || :
}
best=
for d in $(candidates | sed 's|.*/||' | sort -uV); do
	# The generic flavour only: the glob also matches -rt- and -cloud-.
	case $d in *-rt-amd64 | *-cloud-amd64) continue ;; esac
	# Bootable here, or buildable in the root (its "build" link points
	# inside the root).
	if [ -e "/lib/modules/$d/kernel" ] ||
	   { [ -n "$dist" ] && [ -L "$roots/$dist/lib/modules/$d/build" ]; }; then
		best=$d
	fi
done
[ -n "$best" ] || { echo "kver.sh: no kernel $short under /lib/modules${dist:+ or in $roots/$dist}" >&2; exit 1; }
echo "$best"
