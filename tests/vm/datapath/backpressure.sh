#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Many QPs behind a tiny local queue: on both guests' egress a netem
# that holds each packet 5 ms and queues at most 8, so that no more than
# 1,600 packets a second leave and ip_local_out refuses the rest
# (NET_XMIT_DROP).  A pfifo of 2 packets did the same on 6.12 but never
# filled on 6.1, whose virtio-net kept up: the cap must not depend on the
# NIC.  A refused packet is not lost and must cost no retry: 16-QP WRITE
# and 4-QP READ perftest runs with a fixed count complete (a
# RETRY_EXC_ERR fails them), the integrity client checks every byte on 4
# QPs, and the refusals must have happened (tx_dropped moved), or the
# test tested nothing.  Documentation/protocol-transport.rst, "Our own
# back-pressure is not loss".
#
# Then TX room (kernel/tx_room.c): a token bucket of BP_ROOM_RATE
# (default 20 Mbit/s, below what a stock guest sends; the debug lane's
# guests send about 7, so it passes 4mbit) that may queue 4 MB, so the
# qdisc itself never refuses.  sroce must stop at its
# own mark instead of filling it: QPs wait for room (tx_room_waits
# moves), nothing is refused (tx_dropped does not), and 4-QP WRITE and
# 1 MiB READ runs complete.  Documentation/datapath.rst, "TX room".
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce counters (driver is $SROCE_DRIVER)"
trap 'rc=$?; tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true; (exit $rc); _dp_exit' EXIT

ctrs() {
	local n

	for n in tx_dropped tx_stalls acks_deferred retransmits timeouts tx_room_waits; do
		printf '%s ' "$(sroce_ctr "$n" "$DEV")"
	done
}

modprobe sch_netem 2>/dev/null || true
tc qdisc replace dev "$SROCE_IF" root netem delay 5ms limit 8 ||
	fail "cannot set a netem qdisc"
read -r d0 s0 a0 r0 t0 _ <<<"$(ctrs)"
sroce_barrier bp.ready

perf ib_write_bw bp-write-q16 18830 65536 10 -q 16
perf ib_read_bw bp-read-q4 18831 65536 10 -q 4
integrity_pair bp-integrity 240 18832 4 --seed 7 --qps 4 --ops 120 --bytes 4M --max-size 1M

read -r d1 s1 a1 r1 t1 _ <<<"$(ctrs)"
here=$((d1 - d0))
sroce_put bp-refused "$here"
peer=$(sroce_get bp-refused)
log "refused here $here (tx_stalls +$((s1 - s0)), acks_deferred +$((a1 - a0)), retransmits +$((r1 - r0)), timeouts +$((t1 - t0))); peer refused $peer"
((here + peer > 0)) || fail "no packet refused by the 8-packet queue: nothing was tested"

# TX room: the qdisc queues whatever comes; only our own marks stop us.
sroce_barrier bp.room
room_rate=${BP_ROOM_RATE:-20mbit}
tc qdisc replace dev "$SROCE_IF" root tbf rate "$room_rate" burst 32kb limit 4mb ||
	fail "cannot set a tbf qdisc"
read -r d0 _ _ r0 t0 w0 <<<"$(ctrs)"
sroce_barrier bp.room-ready
perf ib_write_bw room-write-q4 18833 65536 40 -q 4
perf ib_read_bw room-read-1m 18834 1048576 8
read -r d1 _ _ r1 t1 w1 <<<"$(ctrs)"
here=$((w1 - w0))
sroce_put bp-room-waits "$here"
peer=$(sroce_get bp-room-waits)
log "room: waits here $here, peer $peer; refused $((d1 - d0)); retransmits +$((r1 - r0)), timeouts +$((t1 - t0))"
((d1 == d0)) || fail "the qdisc refused $((d1 - d0)) packets although it had room: TX room did not bound the queue"
((here + peer > 0)) || fail "no QP ever waited for TX room behind a $room_rate qdisc: nothing was tested"
