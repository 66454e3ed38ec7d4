#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two devices on two NICs side by side, each with its own identity; then
# rmmod with both present removes them cleanly, and the module comes back.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

sd_veth
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add on $SROCE_IF failed"
rdma link add sroce1 type sroce netdev sdv0 || fail "add on sdv0 failed"
sd_expect_state sroce0 ACTIVE LINK_UP
sd_expect_state sroce1 ACTIVE LINK_UP

# Node GUID = modified EUI-64 of each netdev's MAC.
for pair in "sroce0 $SROCE_IF" "sroce1 sdv0"; do
	read -r dev nd <<<"$pair"
	mac=$(<"/sys/class/net/$nd/address")
	want=$(sd_eui64 "$mac")
	got=$(<"$SD_SYS/$dev/node_guid")
	[[ $got == "$want" ]] || fail "$dev: node_guid $got, MAC $mac wants $want"
	[[ $(<"$SD_SYS/$dev/sys_image_guid") == "$want" ]] ||
		fail "$dev: sys_image_guid differs from node_guid"
	log "$dev: node_guid $got from $nd $mac"
done
[[ $(<$SD_SYS/sroce0/node_guid) != $(<$SD_SYS/sroce1/node_guid) ]] ||
	fail "both devices have the same node GUID"

# Both listed by rdma, each on its own netdev.
out=$(rdma link show)
[[ $out == *"sroce0/1 "*"netdev $SROCE_IF"* ]] || fail "rdma link: $out"
[[ $out == *"sroce1/1 "*"netdev sdv0"* ]] || fail "rdma link: $out"

rmmod sroce || fail "rmmod with devices present failed"
! grep -q '^sroce ' /proc/modules || fail "sroce still loaded"
sd_gone sroce0 || fail "sroce0 survived rmmod"
sd_gone sroce1 || fail "sroce1 survived rmmod"
[[ -z $(rdma link show | grep sroce) ]] || fail "rdma still lists sroce links"

# And back.
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add after rmmod failed"
sd_expect_state sroce0 ACTIVE LINK_UP
