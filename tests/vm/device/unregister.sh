#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unregistering the netdev removes the sroce device on it, and only that
# one; a renamed netdev is followed.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add on $SROCE_IF failed"
sd_veth
rdma link add sroce1 type sroce netdev sdv0 || fail "add on veth failed"
ip link add sdd0 type dummy || fail "cannot create dummy"
rdma link add sroce2 type sroce netdev sdd0 || fail "add on dummy failed"

# Rename: the device follows the netdev.
ip link set sdd0 name sdd1 || fail "rename failed"
[[ $(<$SD_SYS/sroce2/parent) == sdd1 ]] ||
	fail "parent is '$(<$SD_SYS/sroce2/parent)' after rename"
[[ $(rdma link show sroce2/1) == *"netdev sdd1"* ]] ||
	fail "rdma link does not follow the rename"

# Deleting the veth pair unregisters sdv0 and so sroce1.
ip link del sdv0 || fail "cannot delete veth"
sd_wait sd_gone 20 sroce1 || fail "sroce1 still present after its netdev went"
sd_kmsg_expect "sroce1: sdv0 is going away"
ip link del sdd1 || fail "cannot delete dummy"
sd_wait sd_gone 20 sroce2 || fail "sroce2 still present after its netdev went"

sd_exists sroce0 || fail "sroce0 went away with the others"
sd_expect_state sroce0 ACTIVE LINK_UP

# The netdev name can carry a new device.
sd_veth
rdma link add sroce1 type sroce netdev sdv0 || fail "re-add on a new sdv0 failed"
sd_exists sroce1 || fail "sroce1 missing after re-add"
