#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bed carries RDMA: the rxe link exists, the verbs tools see it and an
# RC ping-pong crosses the wire over IPv4 and IPv6.
. "$SROCE_TOP/tests/vm/lib.sh"

[[ $SROCE_DRIVER == rxe ]] || skip "needs --driver rxe"
rdma link show "$SROCE_DEV/1" | tee "$SROCE_OUT/link" | grep -q "netdev $SROCE_IF" ||
	fail "rdma link does not show $SROCE_DEV on $SROCE_IF"
ibv_devinfo -d "$SROCE_DEV" >"$SROCE_OUT/devinfo" || fail "ibv_devinfo -d $SROCE_DEV"
grep -q 'PORT_ACTIVE' "$SROCE_OUT/devinfo" || fail "port 1 not active"

port=18700
for addr in "$SROCE_ADDR" "$SROCE_ADDR6"; do
	port=$((port + 1))
	gid=$(sroce_gid_index "$SROCE_DEV" "$addr") || fail "no GID for $addr"
	if is_b; then
		ibv_rc_pingpong -d "$SROCE_DEV" -g "$gid" -p $port -n 20 >"$SROCE_OUT/pp.$port" 2>&1 &
		pid=$!
		for ((i = 0; i < 100; i++)); do
			ss -Hltn "sport = :$port" | grep -q . && break
			sleep 0.1
		done
		sroce_barrier "listen.$port"
		wait $pid || { cat "$SROCE_OUT/pp.$port"; fail "server over $addr"; }
	else
		sroce_barrier "listen.$port"
		ibv_rc_pingpong -d "$SROCE_DEV" -g "$gid" -p $port -n 20 "$SROCE_PEER" \
			>"$SROCE_OUT/pp.$port" 2>&1 || { cat "$SROCE_OUT/pp.$port"; fail "client over $addr"; }
	fi
	grep -q 'iters in' "$SROCE_OUT/pp.$port" || fail "no result line over $addr"
	log "rc_pingpong over $addr (GID $gid): $(grep 'iters in' "$SROCE_OUT/pp.$port")"
done
