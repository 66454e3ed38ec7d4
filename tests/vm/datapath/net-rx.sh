#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sroce receive path against rdma_rxe's own packets: guest b replays
# the rxe captures of tests/data (the packets rxe sent to guest a's
# address, from the IP header on) through raw sockets, and guest a checks
# that each one was counted by reason in "rdma statistic show link".
# RX finds the QP before it checks the ICRC, so each packet is sent to a
# QP guest a holds in RESET (tests/vm/verbs/qphold), its DestQP rewritten
# and its ICRC computed again by net-replay.py, which first reproduces
# rxe's ICRC of every packet.  Unchanged or with ICRC-masked fields
# rewritten, the ICRC checks and the QP drops the packet
# (rx_drop_bad_qp_state); with the ICRC flipped it is rx_drop_bad_icrc; a
# datagram shorter than BTH + ICRC is rx_drop_truncated.  This covers
# both IP families, IPv6 with rxe's zero UDP checksum.
. "$SROCE_TOP/tests/vm/lib.sh"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce counters (driver is $SROCE_DRIVER)"
data=$SROCE_TOP/tests/data
replay=$SROCE_TOP/tests/vm/datapath/net-replay.py

if is_a; then
	. "$SROCE_TOP/scripts/verbs-env.sh" || fail "scripts/verbs-env.sh failed (make provider)"
	hold=$SROCE_TOP/build/verbs/qphold
	[[ -x $hold ]] || fail "$hold missing: run 'make provider'"
	# qphold holds its QP until its standard input, a FIFO, closes.
	fifo=$(mktemp -u /tmp/qphold.XXXXXX)
	mkfifo "$fifo" || fail "mkfifo $fifo"
	"$hold" "$SROCE_DEV" <"$fifo" >"$SROCE_OUT/hold.out" 2>&1 &
	exec 3>"$fifo"
	for ((i = 0; i < 100; i++)); do
		grep -q '^qpn ' "$SROCE_OUT/hold.out" && break
		sleep 0.1
	done
	qpn=$(sed -n 's/^qpn //p' "$SROCE_OUT/hold.out")
	[[ -n $qpn ]] || fail "qphold: $(cat "$SROCE_OUT/hold.out")"
	sroce_put qpn "$qpn"
	sroce_ctrs >"$SROCE_OUT/before"
	st0=$(sroce_ctr rx_drop_bad_qp_state)
	sroce_barrier ready
	sroce_barrier sent
	n=$(sroce_get sent)
	# Softirq has run by now, but give the guest a moment under TCG.
	sroce_ctr_wait rx_drop_bad_qp_state $((st0 + 2 * n)) 5 || true
	sroce_ctrs >"$SROCE_OUT/after"
	exec 3>&-
	wait
	rm -f "$fifo"
	sroce_ctr_delta "$SROCE_OUT/before" "$SROCE_OUT/after" | sed 's/^/  counter /'
	st=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_bad_qp_state)
	icrc=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_bad_icrc)
	trunc=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_truncated)
	log "replayed $n rxe packets per mode to QP $qpn: bad_qp_state +$st bad_icrc +$icrc truncated +$trunc"
	((n >= 40)) || fail "only $n packets replayed (captures hold ~30 per family for a)"
	((st == 2 * n)) || fail "bad_qp_state +$st, want $((2 * n)) (ICRC or parse rejected rxe packets)"
	((icrc == n)) || fail "bad_icrc +$icrc, want $n"
	((trunc == 2)) || fail "truncated +$trunc, want 2"
else
	sroce_barrier ready
	qpn=$(sroce_get qpn)
	total=0
	for f in "ipv4 $SROCE_PEER" "ipv6 $SROCE_PEER6"; do
		set -- $f
		for mode in same masked badicrc; do
			n=$(python3 "$replay" "$data/rxe-$1.pcap" "$2" $mode "$qpn") ||
				fail "replay $1 $mode"
			log "$1 $mode: $n packets to $2"
			[[ $mode == same ]] && total=$((total + n))
		done
	done
	# 8 bytes of UDP payload: less than BTH + ICRC.
	python3 -c 'import socket, sys
for fam, a in ((socket.AF_INET, sys.argv[1]), (socket.AF_INET6, sys.argv[2])):
    socket.socket(fam, socket.SOCK_DGRAM).sendto(bytes(8), (a, 4791))' \
		"$SROCE_PEER" "$SROCE_PEER6" || fail "short datagrams"
	sroce_put sent "$total"
	sroce_barrier sent
fi
