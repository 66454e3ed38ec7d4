#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib_core fills the GID table from the netdev: the link-local default GID
# (fe80::EUI-64) and every IPv4 and IPv6 address, each as RoCE v2 only;
# addresses added or removed later follow.  Only entries 0..15 are read:
# reading all 1024 takes minutes under emulation.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add failed"

has_gid() { sroce_gid_index "$@" >/dev/null; }
expect_gid() {
	sd_wait has_gid 15 sroce0 "$1" "$2" || fail "no $2 GID for $1 on sroce0"
	log "GID[$(sroce_gid_index sroce0 "$1" "$2")] $1 $2"
}
lacks_gid() { ! has_gid "$@"; }

eui=$(sd_eui64 "$(<"/sys/class/net/$SROCE_IF/address")")
expect_gid "fe80::$eui" "RoCE v2"
expect_gid "$SROCE_ADDR" "RoCE v2"
expect_gid "$SROCE_ADDR6" "RoCE v2"
# sroce has no RoCE v1 transport, so no v1 entry may be offered.
! has_gid sroce0 "fe80::$eui" "IB/RoCE v1" || fail "a RoCE v1 GID is listed"
[[ $(sroce_gid_index sroce0 "fe80::$eui" "RoCE v2") == 0 ]] ||
	fail "GID 0 is not the link-local RoCE v2 GID"
[[ $(<$SD_SYS/sroce0/ports/1/gid_attrs/ndevs/0) == "$SROCE_IF" ]] ||
	fail "GID 0 is not bound to $SROCE_IF"

# A new address appears, a removed one goes.
if is_a; then extra=192.0.2.201 extra6=2001:db8::201; else extra=192.0.2.202 extra6=2001:db8::202; fi
ip addr add $extra/32 dev "$SROCE_IF"
ip -6 addr add $extra6/128 dev "$SROCE_IF" nodad
expect_gid $extra "RoCE v2"
expect_gid $extra6 "RoCE v2"
ip addr del $extra/32 dev "$SROCE_IF"
ip -6 addr del $extra6/128 dev "$SROCE_IF"
sd_wait lacks_gid 15 sroce0 $extra "RoCE v2" || fail "GID for $extra not removed"
sd_wait lacks_gid 15 sroce0 $extra6 "RoCE v2" || fail "GID for $extra6 not removed"
