#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Map a short kernel name (6.1, 6.12) to the full release installed under
# /lib/modules, the newest one if several are installed.  A full release
# string is passed through unchanged.
set -eu
short=${1:?usage: kver.sh 6.1|6.12|FULL-RELEASE}
case "$short" in
6.1)  pat='6.1.[0-9]*-amd64' ;;
6.12) pat='6.12.[0-9]*-amd64' ;;
*)    echo "$short"; exit 0 ;;
esac
best=
for d in $(ls -d /lib/modules/$pat 2>/dev/null | sort -V); do
	[ -e "$d/kernel" ] || continue
	best=${d##*/}
done
[ -n "$best" ] || { echo "kver.sh: no kernel $short under /lib/modules" >&2; exit 1; }
echo "$best"
