#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install: put sroce.ko where modprobe finds it, so that
# "rdma link add NAME type sroce netdev IF" autoloads it.
#   scripts/install.sh [KVER...]   default: the running kernel
#   DESTDIR=/some/root scripts/install.sh 6.12    (staging; no depmod)
# The provider is not installed system-wide: it is built against the
# pinned rdma-core 56.1, not Debian's libibverbs; use scripts/verbs-env.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
destdir=${DESTDIR:-}

kvers=("$@")
((${#kvers[@]})) || kvers=("$(uname -r)")

for k in "${kvers[@]}"; do
	kver=$("$top/scripts/kver.sh" "$k")
	ko=$build/kernel/$kver/sroce.ko
	[[ -f $ko ]] || { echo "install: $ko missing: run 'make module'" >&2; exit 1; }
	dir=$destdir/lib/modules/$kver/updates
	install -D -m 0644 "$ko" "$dir/sroce.ko"
	echo "installed $dir/sroce.ko"
	if [[ -z $destdir ]]; then
		depmod -a "$kver"
	fi
done

if compgen -G "$build/rdma-core-56.1/build/lib/libsroce*" >/dev/null; then
	echo "provider: not installed system-wide; '. scripts/verbs-env.sh' to use it"
fi
