#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A renamed sroce device (no "sroce" in its name) is still claimed by the
# sroce provider and usable, both when libibverbs learns the driver id
# over netlink and when it can only read sysfs.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

new=foo$SROCE_ROLE
rdma dev set "$SROCE_DEV" name "$new" || fail "rdma dev set $SROCE_DEV name $new"
at_exit rdma dev set "$new" name "$SROCE_DEV"
[[ -d /sys/class/infiniband/$new ]] || fail "rename to $new did not happen"

guid=$(cat "/sys/class/infiniband/$new/node_guid")

run_quiet "$T/nl" "$PROBE"
cat "$T/nl"
grep -qx "$new sroce" "$T/nl" || fail "netlink: $new is not claimed by sroce"

# The shim really hides RDMA netlink: iproute2's rdma tool needs it.
if LD_PRELOAD=$NO_RDMA_NL rdma dev show >/dev/null 2>&1; then
	fail "no_rdma_netlink.so did not hide RDMA netlink"
fi
LD_PRELOAD=$NO_RDMA_NL run_quiet "$T/sysfs" "$PROBE"
cat "$T/sysfs"
grep -qx "$new sroce" "$T/sysfs" || fail "sysfs only: $new is not claimed by sroce"

for mode in netlink sysfs; do
	pre=
	[[ $mode == sysfs ]] && pre=$NO_RDMA_NL
	LD_PRELOAD=$pre run_quiet "$T/info" ibv_devinfo -d "$new"
	grep -q "^hca_id:[[:space:]]$new\$" "$T/info" || fail "$mode: ibv_devinfo -d $new"
	grep -q "node_guid:[[:space:]]*$guid\$" "$T/info" ||
		fail "$mode: ibv_devinfo -d $new shows another node GUID than $guid"
	LD_PRELOAD=$pre run_quiet "$T/pd" "$PROBE" -o "$new"
	grep -qx "$new sroce pd ok" "$T/pd" || fail "$mode: cannot open $new and allocate a PD"
done
log "ok: $new claimed by sroce via netlink and via sysfs"
