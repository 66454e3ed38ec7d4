#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RoCE without the wire, in each guest on its own: ibv_rc_pingpong from
# the device to itself (destination = its own address, IPv4 and IPv6),
# then between two sroce devices of one host: the second on a dummy
# netdev with an address of its own, so packets between them go through
# lo and the receive path must find the device by destination address.
#
# ib_core resolves a destination MAC with the lookup bound to the source
# GID's netdev, which does not match another netdev's local address; as
# on a host whose two NICs reach each other through a router, each side
# gets a route to the other's address (eth0 via the peer guest, the dummy
# directly).  sroce routes unbound, so its packets still go through lo.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce loopback (driver is $SROCE_DRIVER)"
dev2=sroce_lo$SROCE_ROLE
if2=sdummy$SROCE_ROLE
n=$((100 + $(printf '%d' "'$SROCE_ROLE")))
addr2=192.0.2.$n
addr2_6=2001:db8::$n

cleanup2() {
	ip route del "$addr2/32" 2>/dev/null || true
	ip -6 route del "$addr2_6/128" 2>/dev/null || true
	rdma link delete "$dev2" 2>/dev/null || true
	ip link del "$if2" 2>/dev/null || true
}
trap 'rc=$?; cleanup2; (exit $rc); _dp_exit' EXIT

# local_pp NAME PORT SDEV SGID CDEV CGID: server on SDEV, client on CDEV,
# both here; the tool's TCP exchange goes to our own IPv4 address.
local_pp() {
	local name=$1 port=$2 sdev=$3 sgid=$4 cdev=$5 cgid=$6 pid rc=0 i
	local args="-p $port -n 100 -s 4500 -c"

	timeout -k 5 60 ibv_rc_pingpong -d "$sdev" -g "$sgid" $args \
		>"$SROCE_OUT/$name.server" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.2
	done
	timeout -k 5 60 ibv_rc_pingpong -d "$cdev" -g "$cgid" $args "$SROCE_ADDR" \
		>"$SROCE_OUT/$name.client" 2>&1 || rc=$?
	wait "$pid" || rc=$((rc ? rc : $?))
	if ((rc)) || ! grep -q '^100 iters in' "$SROCE_OUT/$name.server" ||
		! grep -q '^100 iters in' "$SROCE_OUT/$name.client" ||
		grep -qi 'invalid data' "$SROCE_OUT/$name.server" "$SROCE_OUT/$name.client"; then
		tail -n 5 "$SROCE_OUT/$name.server" "$SROCE_OUT/$name.client" >&2
		fail "$name: rc=$rc"
	fi
	log "$name: $(grep -h 'iters in' "$SROCE_OUT/$name.client")"
}

port=$((18800 + 10 * n))
tx0=$(sroce_ctr tx_packets "$DEV")
zc0=$(sroce_ctr tx_zcopy_packets "$DEV")
local_pp self4 $((port + 1)) "$DEV" "$G4" "$DEV" "$G4"
local_pp self6 $((port + 2)) "$DEV" "$G6" "$DEV" "$G6"
(($(sroce_ctr tx_packets "$DEV") > tx0)) || fail "self: $DEV counted no tx_packets"
# lo gathers fragments: each 4500-byte SEND from a user MR (five packets
# of at least 256 payload bytes, 2 x 100 per run) goes out as page
# fragments (net.c, zero-copy transmit), and -c checked every byte.
zc=$(($(sroce_ctr tx_zcopy_packets "$DEV") - zc0))
log "self: $zc packets sent through lo as page fragments"
((zc >= 2000)) || fail "self: only $zc of 2 x 1000 SEND packets sent as page fragments through lo"

modprobe dummy || skip "no dummy netdev module"
ip link add "$if2" type dummy
ip addr add "$addr2/32" dev "$if2"
ip addr add "$addr2_6/128" dev "$if2" nodad
ip link set "$if2" up
ip route add "$addr2/32" via "$SROCE_PEER" dev "$SROCE_IF"
ip -6 route add "$addr2_6/128" via "$SROCE_PEER6" dev "$SROCE_IF"
ip route add "$SROCE_ADDR/32" dev "$if2"
ip -6 route add "$SROCE_ADDR6/128" dev "$if2"
rdma link add "$dev2" type sroce netdev "$if2"
for ((i = 0; i < 100; i++)); do
	g4=$(sroce_gid_index "$dev2" "$addr2") && g6=$(sroce_gid_index "$dev2" "$addr2_6") && break
	sleep 0.2
done
[[ -n $g4 && -n $g6 ]] || fail "no RoCE v2 GIDs for $addr2 / $addr2_6 on $dev2"

local_pp two4 $((port + 3)) "$DEV" "$G4" "$dev2" "$g4"
local_pp two6 $((port + 4)) "$DEV" "$G6" "$dev2" "$g6"
rx=$(sroce_ctr rx_packets "$dev2") tx=$(sroce_ctr tx_packets "$dev2")
((rx > 0 && tx > 0)) || fail "$dev2 counted rx_packets $rx tx_packets $tx"
sroce_ctrs "$dev2" >"$SROCE_OUT/stats.$dev2"
log "$dev2 on $if2 ($addr2, $addr2_6): rx_packets $rx tx_packets $tx"
