#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The last script of a boot (make check-debug puts it after the data-path
# and reliability scripts): after all their traffic, "rdma link delete"
# and module unload must work, and on a kernel with kmemleak a scan after
# the delete must find no unreferenced object allocated through sroce.
# Objects of other subsystems are listed, not judged.
. "$SROCE_TOP/tests/vm/lib.sh"

[[ $SROCE_DRIVER == sroce ]] || skip "the driver here is $SROCE_DRIVER"
kml=/sys/kernel/debug/kmemleak

rdma link delete "$SROCE_DEV" || fail "rdma link delete $SROCE_DEV failed"
for ((i = 0; i < 100; i++)); do
	[[ -e /sys/class/infiniband/$SROCE_DEV ]] || break
	sleep 0.1
done
[[ ! -e /sys/class/infiniband/$SROCE_DEV ]] || fail "$SROCE_DEV still registered 10 s after the delete"

ours=0 total=0
if [[ -w $kml ]]; then
	# Symbols resolve while the module is loaded; two scans, as kmemleak
	# reports an object only once it has looked unreferenced twice.
	echo clear >"$kml"
	echo scan >"$kml"
	sleep 6
	echo scan >"$kml"
	cat "$kml" >"$SROCE_OUT/kmemleak"
	total=$(grep -c '^unreferenced object' "$SROCE_OUT/kmemleak" || true)
	ours=$(awk '/^unreferenced object/ { if (hit) n++; hit = 0 }
		/sroce/ { hit = 1 } END { if (hit) n++; print n + 0 }' "$SROCE_OUT/kmemleak")
	log "kmemleak: $total unreferenced objects, $ours allocated through sroce"
fi

modprobe -r sroce || fail "module unload failed: $(lsmod | grep -w sroce)"
! lsmod | grep -qw '^sroce' || fail "sroce still loaded after modprobe -r"
log "rdma link delete and module unload after the boot's traffic: ok"
if ((ours > 0)); then
	cat "$SROCE_OUT/kmemleak" >&2
	fail "kmemleak: $ours objects allocated through sroce unreferenced"
fi
[[ -w $kml ]] || log "no kmemleak on this kernel: only the unload was checked"
