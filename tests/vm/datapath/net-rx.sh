#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sroce receive path against rdma_rxe's own packets: guest b replays
# the rxe captures of tests/data (the packets rxe sent to guest a's
# address, unchanged from the IP header on) through raw sockets, and
# guest a checks that each one was counted by reason in
# "rdma statistic show link": unchanged or with ICRC-masked fields
# rewritten, the ICRC checks and the packet reaches QP lookup (no such QP
# here: rx_drop_unknown_qp); with the ICRC flipped it is rx_drop_bad_icrc;
# a datagram shorter than BTH + ICRC is rx_drop_truncated.  This covers
# both IP families, IPv6 with rxe's zero UDP checksum.
. "$SROCE_TOP/tests/vm/lib.sh"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce counters (driver is $SROCE_DRIVER)"
data=$SROCE_TOP/tests/data
replay=$SROCE_TOP/tests/vm/datapath/net-replay.py

if is_a; then
	sroce_ctrs >"$SROCE_OUT/before"
	unk0=$(sroce_ctr rx_drop_unknown_qp)
	sroce_barrier ready
	sroce_barrier sent
	n=$(sroce_get sent)
	# Softirq has run by now, but give the guest a moment under TCG.
	sroce_ctr_wait rx_drop_unknown_qp $((unk0 + 2 * n)) 5 || true
	sroce_ctrs >"$SROCE_OUT/after"
	sroce_ctr_delta "$SROCE_OUT/before" "$SROCE_OUT/after" | sed 's/^/  counter /'
	unk=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_unknown_qp)
	icrc=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_bad_icrc)
	trunc=$(sroce_ctr_moved "$SROCE_OUT/before" "$SROCE_OUT/after" rx_drop_truncated)
	log "replayed $n rxe packets per mode: unknown_qp +$unk bad_icrc +$icrc truncated +$trunc"
	((n >= 40)) || fail "only $n packets replayed (captures hold ~30 per family for a)"
	((unk == 2 * n)) || fail "unknown_qp +$unk, want $((2 * n)) (ICRC or parse rejected rxe packets)"
	((icrc == n)) || fail "bad_icrc +$icrc, want $n"
	((trunc == 2)) || fail "truncated +$trunc, want 2"
else
	sroce_barrier ready
	total=0
	for f in "ipv4 $SROCE_PEER" "ipv6 $SROCE_PEER6"; do
		set -- $f
		for mode in same masked badicrc; do
			n=$(python3 "$replay" "$data/rxe-$1.pcap" "$2" $mode) ||
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
