#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The sroce provider never claims a foreign device, even one named like
# ours.  In the rxe guest the rxe device is renamed "sroce7", which the
# provider's name-match table entry matches; libibverbs then sees only
# sroce's driver file, so rxe's provider can't take the device first and
# hide a wrong claim.  It must end up unclaimed ("no userspace driver"),
# over netlink (driver id says rxe) and over sysfs alone (no sroce_abi
# attribute).  The sroce guest checks its own device is still sroce's.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

if [[ $SROCE_DRIVER == sroce ]]; then
	run_quiet "$T/p" "$PROBE"
	cat "$T/p"
	grep -qx "$SROCE_DEV sroce" "$T/p" || fail "$SROCE_DEV is not claimed by sroce"
	exit 0
fi
[[ $SROCE_DRIVER == rxe ]] || skip "driver $SROCE_DRIVER"

bait=sroce7
rdma dev set "$SROCE_DEV" name "$bait" || fail "rdma dev set $SROCE_DEV name $bait"
at_exit rdma dev set "$bait" name "$SROCE_DEV"

# Control: with every driver file, rxe's provider has it, so the device
# is visible and usable to libibverbs.
run_quiet "$T/all" "$PROBE"
cat "$T/all"
grep -qx "$bait rxe" "$T/all" || fail "control: $bait is not claimed by rxe"

for mode in netlink sysfs; do
	pre=
	[[ $mode == sysfs ]] && pre=$NO_RDMA_NL
	rc=0
	LD_PRELOAD=$pre IBV_SHOW_WARNINGS=1 only_sroce_driver "$PROBE" \
		>"$T/out" 2>"$T/err" || rc=$?
	sed "s/^/  $mode: /" "$T/out" "$T/err"
	((rc == 0)) || fail "$mode: probe failed ($rc)"
	if grep -q "^$bait " "$T/out"; then
		fail "$mode: $bait (rxe) claimed by the sroce provider"
	fi
	grep -q "no userspace device-specific driver found for $bait\$" "$T/err" ||
		fail "$mode: libibverbs did not report $bait as unclaimed"
	# Nothing else: a provider that even considers the device makes
	# libibverbs complain (e.g. about its ABI version).
	if grep -v "no userspace device-specific driver found for " "$T/err"; then
		fail "$mode: unexpected libibverbs messages"
	fi
done
log "ok: rxe device named $bait not claimed by sroce"
