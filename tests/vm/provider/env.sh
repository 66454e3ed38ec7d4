#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# scripts/verbs-env.sh makes unmodified Debian verbs programs load every
# rdma-core library from the pinned build (a mix with the system's 44.0
# would break the provider's private ABI), and sourcing it twice changes
# nothing.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

before=$LD_LIBRARY_PATH
. "$SROCE_TOP/scripts/verbs-env.sh" || fail "second source failed"
[[ $LD_LIBRARY_PATH == "$before" ]] ||
	fail "sourcing twice changed LD_LIBRARY_PATH: '$before' -> '$LD_LIBRARY_PATH'"

n=0
for prog in ibv_devices ibv_devinfo ibv_rc_pingpong ib_write_bw rping; do
	path=$(command -v "$prog") || fail "$prog not installed"
	[[ $path == /usr/bin/* ]] || fail "$prog is $path, not Debian's"
	ldd "$path" >"$T/ldd"
	grep -q "libibverbs.so.1 => $SROCE_VERBS_LIB/" "$T/ldd" ||
		{ cat "$T/ldd"; fail "$prog does not load libibverbs from $SROCE_VERBS_LIB"; }
	# Every rdma-core library it needs must come from the pinned build.
	while read -r lib _ where _; do
		case $lib in
		libibverbs.so* | librdmacm.so* | libmlx[45].so* | libefa.so* | \
		libhns.so* | libmana.so* | libibumad.so*)
			[[ $where == "$SROCE_VERBS_LIB/"* ]] ||
				fail "$prog loads $lib from $where"
			n=$((n + 1)) ;;
		esac
	done <"$T/ldd"
done
log "ok: $n rdma-core libraries of 5 programs all from $SROCE_VERBS_LIB"
