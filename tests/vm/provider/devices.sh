#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_devices (Debian's binary, on the pinned libibverbs) lists the sroce
# device with its node GUID, and the device is claimed by the sroce
# provider, not by any other.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

sys=/sys/class/infiniband/$SROCE_DEV
[[ -r $sys/sroce_abi ]] || fail "$SROCE_DEV has no sroce_abi attribute"
guid=$(tr -d : <"$sys/node_guid")

run_quiet "$T/devices" ibv_devices
cat "$T/devices"
grep -Eq "^[[:space:]]+${SROCE_DEV}[[:space:]]+$guid\$" "$T/devices" ||
	fail "ibv_devices does not list $SROCE_DEV with node GUID $guid"
n=$(grep -Ec '^[[:space:]]+[^-[:space:]]' "$T/devices")
ndev=$(find /sys/class/infiniband -mindepth 1 -maxdepth 1 | wc -l)
want=$((ndev + 1))	# + the header
((n == want)) || fail "ibv_devices lists $((n - 1)) devices, sysfs has $((want - 1))"

run_quiet "$T/providers" "$PROBE"
cat "$T/providers"
grep -qx "$SROCE_DEV sroce" "$T/providers" ||
	fail "$SROCE_DEV is not claimed by the sroce provider"
# Every device sroce claims must be a sroce device.
while read -r dev prov; do
	[[ $prov == sroce ]] || continue
	[[ -r /sys/class/infiniband/$dev/sroce_abi ]] ||
		fail "sroce provider claimed $dev, which is not a sroce device"
done <"$T/providers"
log "ok: $SROCE_DEV listed (GUID $guid), provider sroce"
