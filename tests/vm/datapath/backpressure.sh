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
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce counters (driver is $SROCE_DRIVER)"
trap 'rc=$?; tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true; (exit $rc); _dp_exit' EXIT

prog=$VERBS/integrity
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"

ctrs() {
	local n

	for n in tx_dropped tx_stalls acks_deferred retransmits timeouts; do
		printf '%s ' "$(sroce_ctr "$n" "$DEV")"
	done
}

modprobe sch_netem 2>/dev/null || true
tc qdisc replace dev "$SROCE_IF" root netem delay 5ms limit 8 ||
	fail "cannot set a netem qdisc"
read -r d0 s0 a0 r0 t0 <<<"$(ctrs)"
sroce_barrier bp.ready

perf ib_write_bw bp-write-q16 18830 65536 10 -q 16
perf ib_read_bw bp-read-q4 18831 65536 10 -q 4
dp_pair bp-integrity 240 tcp:18832 \
	"$prog -s -d $DEV -g $G4 -p 18832 --timeout 120" \
	"$prog -c $SROCE_PEER -d $DEV -g $G4 -p 18832 --timeout 120 --seed 7 --qps 4 --ops 120 --bytes 4M --max-size 1M"
line=$(grep "^integrity: $(is_a && echo server || echo client) ok: " "$(dp_out bp-integrity)") ||
	{ cat "$(dp_out bp-integrity)" >&2; fail "bp-integrity: no success line"; }
log "bp-integrity: ${line#integrity: }"

read -r d1 s1 a1 r1 t1 <<<"$(ctrs)"
here=$((d1 - d0))
sroce_put bp-refused "$here"
peer=$(sroce_get bp-refused)
log "refused here $here (tx_stalls +$((s1 - s0)), acks_deferred +$((a1 - a0)), retransmits +$((r1 - r0)), timeouts +$((t1 - t0))); peer refused $peer"
((here + peer > 0)) || fail "no packet refused by the 8-packet queue: nothing was tested"
