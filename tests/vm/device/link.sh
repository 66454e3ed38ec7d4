#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "rdma link add" autoloads sroce by its rdma-link alias and creates a
# device on the netdev; "rdma link delete" removes it; the module unloads.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

dev=sroce0
! grep -q '^sroce ' /proc/modules || fail "sroce loaded before the test"
rdma link add $dev type sroce netdev "$SROCE_IF" || fail "rdma link add failed"
grep -q '^sroce ' /proc/modules || fail "sroce was not autoloaded"
sd_exists $dev || fail "$dev missing after rdma link add"
sd_kmsg_expect "$dev: added on $SROCE_IF"

out=$(rdma link show $dev/1)
log "rdma link: $out"
[[ $out == *"netdev $SROCE_IF"* ]] || fail "rdma link does not name $SROCE_IF"
sd_expect_state $dev ACTIVE LINK_UP

# The sysfs attributes the provider and scripts rely on.
[[ $(<$SD_SYS/$dev/sroce_abi) == "$(sd_abi_version)" ]] ||
	fail "sroce_abi is '$(<$SD_SYS/$dev/sroce_abi)'"
[[ $(<$SD_SYS/$dev/parent) == "$SROCE_IF" ]] ||
	fail "parent is '$(<$SD_SYS/$dev/parent)'"
[[ $(<$SD_SYS/$dev/node_type) == "1: CA" ]] ||
	fail "node_type is '$(<$SD_SYS/$dev/node_type)'"
[[ $(<$SD_SYS/$dev/fw_ver) == 0.1.0 ]] || fail "fw_ver is '$(<$SD_SYS/$dev/fw_ver)'"
[[ $(<$SD_SYS/$dev/ports/1/link_layer) == Ethernet ]] ||
	fail "link_layer is '$(<$SD_SYS/$dev/ports/1/link_layer)'"
[[ $(<$SD_SYS/$dev/ports/1/pkeys/0) == 0xffff ]] || fail "pkey 0 is not 0xffff"
[[ ! -e $SD_SYS/$dev/ports/1/pkeys/1 ]] || fail "more than one pkey"

# node_desc is writable (modify_device).
echo -n "sroce test node" >$SD_SYS/$dev/node_desc
[[ $(<$SD_SYS/$dev/node_desc) == "sroce test node" ]] || fail "node_desc not set"

rdma link delete $dev || fail "rdma link delete failed"
sd_gone $dev || fail "$dev still present after rdma link delete"

# The name and the netdev are free again.
rdma link add $dev type sroce netdev "$SROCE_IF" || fail "re-adding failed"
sd_exists $dev || fail "$dev missing after the second add"
rdma link delete $dev || fail "second delete failed"

rmmod sroce || fail "cannot unload sroce"
! grep -q '^sroce ' /proc/modules || fail "sroce still loaded"
