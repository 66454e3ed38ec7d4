#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Port 4791 belongs to sroce only while a sroce device exists: deleting
# the last device closes both UDP sockets, rdma_rxe can then load (it
# takes the port at load time), a sroce link add meanwhile fails with
# EADDRINUSE and says why, and once rxe is gone the link comes back with
# its sockets.  Each guest checks its own device.
. "$SROCE_TOP/tests/vm/lib.sh"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce sockets (driver is $SROCE_DRIVER)"
modinfo rdma_rxe >/dev/null 2>&1 || skip "no rdma_rxe module"

# socks: the UDP sockets bound to port 4791, one "family" word per line.
socks() {
	ss -Hulan 'sport = :4791' | awk '{ print ($4 ~ /^\[/ || $4 ~ /^\*/) ? "v6" : "v4" }' | sort
}

relink() {
	rdma link add "$SROCE_DEV" type sroce netdev "$SROCE_IF"
}
trap 'modprobe -r rdma_rxe 2>/dev/null || true; rdma link show "$SROCE_DEV/1" >/dev/null 2>&1 || relink' EXIT

ss -Hulan 'sport = :4791' | tee "$SROCE_OUT/socks.up"
[[ $(socks | tr '\n' ' ') == "v4 v6 " ]] ||
	fail "with $SROCE_DEV: want one IPv4 and one IPv6 socket on 4791, have: $(socks | tr '\n' ' ')"

rdma link delete "$SROCE_DEV"
[[ -z $(socks) ]] || fail "sockets left after the last device went: $(ss -Hulan 'sport = :4791')"
log "no device, no socket"

modprobe rdma_rxe || fail "rdma_rxe cannot load with port 4791 free"
ss -Hulan 'sport = :4791' | tee "$SROCE_OUT/socks.rxe"
[[ -n $(socks) ]] || skip "this rdma_rxe does not take port 4791 at load time"
sroce_kmsg_ack
expect_fail relink
dmesg | tail -n 5 | grep -q 'cannot open UDP port 4791.*-98 (is rdma_rxe loaded?)' ||
	fail "no EADDRINUSE explanation in the kernel log: $(dmesg | tail -n 3)"
rdma link show "$SROCE_DEV/1" >/dev/null 2>&1 && fail "$SROCE_DEV exists after a failed add"
modprobe -r rdma_rxe || fail "cannot unload rdma_rxe"

relink || fail "link add after rdma_rxe left"
[[ $(socks | tr '\n' ' ') == "v4 v6 " ]] || fail "sockets not back: $(socks | tr '\n' ' ')"
rdma link show "$SROCE_DEV/1" | grep -q ACTIVE || fail "$SROCE_DEV/1 not ACTIVE again"
log "EADDRINUSE while rdma_rxe held the port; sockets back with the device"
