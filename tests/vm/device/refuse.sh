#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad "rdma link add" requests fail with an error from the rdma tool, a
# clear kernel message where the kernel decides, no device and no warning:
# a second device on a netdev, a duplicate name, a missing netdev,
# loopback, an IP tunnel (not Ethernet), a VLAN device and an unknown
# link type.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

nsroce() {
	local d n=0
	for d in "$SD_SYS"/*; do [[ -e $d/sroce_abi ]] && n=$((n + 1)); done
	echo $n
}

modprobe sroce || fail "modprobe sroce failed"
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "first add failed"

# Same netdev again, under another name.
expect_fail rdma link add sroce1 type sroce netdev "$SROCE_IF"
sd_gone sroce1 || fail "sroce1 exists after a refused add"
sd_kmsg_expect "sroce1: $SROCE_IF already carries sroce device sroce0"

# Same name on another (good) netdev.
ip link add sdd0 type dummy || fail "cannot create dummy"
ip link set sdd0 up
expect_fail rdma link add sroce0 type sroce netdev sdd0
sd_kmsg_expect "sroce0: an RDMA device of that name already exists"
[[ $(<$SD_SYS/sroce0/parent) == "$SROCE_IF" ]] || fail "sroce0 changed parent"

# No such netdev: ib_core refuses before sroce sees it.
expect_fail rdma link add sroce2 type sroce netdev sdnothere0
sd_gone sroce2 || fail "sroce2 exists"

# Loopback is not Ethernet.
expect_fail rdma link add sroce3 type sroce netdev lo
sd_gone sroce3 || fail "sroce3 exists"
sd_kmsg_expect "sroce3: lo is not an Ethernet device"

# Nor is an IPIP tunnel (ARPHRD_TUNNEL).
modprobe ipip || fail "modprobe ipip failed"
ip link add sdtun0 type ipip local "$SROCE_ADDR" remote 198.51.100.1 ||
	fail "cannot create ipip tunnel"
expect_fail rdma link add sroce4 type sroce netdev sdtun0
sd_gone sroce4 || fail "sroce4 exists"
sd_kmsg_expect "sroce4: sdtun0 is not an Ethernet device"

# A VLAN device: GIDs for VLANs come from the real device's port.
modprobe 8021q || fail "modprobe 8021q failed"
ip link add link sdd0 name sdvl0 type vlan id 5 || fail "cannot create vlan"
expect_fail rdma link add sroce5 type sroce netdev sdvl0
sd_gone sroce5 || fail "sroce5 exists"
sd_kmsg_expect "sroce5: sdvl0 is a VLAN device; use its real device sdd0"

# A link type nobody registered: ib_core finds no rdma-link-<type>
# module and refuses; sroce must not be the one that answers.
expect_fail rdma link add sroce7 type sroce-nosuch netdev sdd0
sd_gone sroce7 || fail "sroce7 exists"

# Deleting what does not exist.
expect_fail rdma link delete sroce9

# The dummy is Ethernet: it is accepted.
rdma link add sroce6 type sroce netdev sdd0 || fail "add on a dummy failed"
sd_exists sroce6 || fail "sroce6 missing"
[[ $(nsroce) == 2 ]] || fail "expected 2 sroce devices, found $(nsroce)"
