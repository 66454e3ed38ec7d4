#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install: put sroce.ko where modprobe finds it, so that
# "rdma link add NAME type sroce netdev IF" autoloads it.
#   scripts/install.sh [KVER...]   default: the running kernel
#   DESTDIR=/some/root scripts/install.sh 6.12    (staging; no depmod)
# Also installs tools/sroce-dump and its man page under $PREFIX (/usr/local).
# The provider is installed only when RDMA_CORE_SRC names an rdma-core tree
# of the same version as the system's libibverbs (see
# Documentation/install.rst); the pinned 56.1 tree serves the test bed.
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

prefix=${PREFIX:-/usr/local}
if [[ -x $build/tools/sroce-dump ]]; then
	install -D -m 0755 "$build/tools/sroce-dump" "$destdir$prefix/sbin/sroce-dump"
	install -D -m 0644 "$top/tools/sroce-dump.8" "$destdir$prefix/share/man/man8/sroce-dump.8"
	echo "installed $destdir$prefix/sbin/sroce-dump"
fi

if [[ -n ${SROCE_PROVIDER_SRC:-} ]]; then
	"$top/scripts/build-provider.sh" --install "$SROCE_PROVIDER_SRC"
else
	echo "provider: not installed; 'make install RDMA_CORE_SRC=<rdma-core tree of" \
	     "your libibverbs version>' builds and installs it"
fi
